"""Leaving the terminal as it was (issue 6, part 6): after q, after the
debuggee dies underneath, and after a signal, the shell's screen is back
(no alternate screen, cursor shown, keypad and mouse modes off, the tty
cooked) and nothing of the UI is left."""
import os
import re
import signal

import harness
from harness import TuiCase


class Terminal(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()

    def test_quit_restores_the_terminal(self):
        t = self.paused(self.d)
        self.assertEqual(t.display("#{alternate_on}"), "1", "the UI runs on the alternate screen")
        t.keys("q")
        t.keys("n")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assert_restored(t)
        self.d.resume()

    def test_quit_from_the_picker_restores_the_terminal(self):
        t = self.tui()
        t.wait_text(os.path.basename(self.d.socket))
        t.keys("q")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assert_restored(t)

    def test_debuggee_killed_underneath(self):
        t = self.paused(self.d)
        before = t.screen()
        self.d.stop(signal.SIGKILL)

        def gone(s):
            return t.exit_status(s) is not None or any(
                l not in before.lines and re.search(
                    r"(?i)closed|lost|connection|disconnected|exited|gone|died|refused|broken|"
                    r"reset", l) for l in s.lines)
        # The recording of the pause (see CACHE in the man page) may be the
        # first to find the debuggee gone; else resuming, which needs the socket.
        try:
            s = t.wait(gone, "the recording to find the debuggee gone", timeout=2)
        except AssertionError:
            t.keys("r")
            s = t.wait(gone, "a message that the debuggee is gone", timeout=20)
        if t.exit_status(s) is None:
            self.assertTrue(t.running(), "still running after the message")
            t.keys("q")
            try:
                t.wait_new_line(r"(?i)resume", s, timeout=3)
                t.keys("n")  # asked anyway: quit without the (impossible) resume
            except AssertionError:
                pass
        status, _ = t.wait_exit(timeout=20)
        self.assertLess(status, 128, "heapscope was killed by a signal")
        self.assert_restored(t)

    def test_sigterm_restores_the_terminal(self):
        t = self.paused(self.d)
        os.kill(t.pid(), signal.SIGTERM)
        status, _ = t.wait_exit()
        self.assertNotEqual(status, 0, "a signal is not a clean quit")
        self.assert_restored(t)

    def test_sighup_restores_the_terminal(self):
        t = self.connected(self.d)
        os.kill(t.pid(), signal.SIGHUP)
        t.wait_exit()
        self.assert_restored(t)

    def test_the_check_notices_a_terminal_left_raw(self):
        """SIGKILL cannot be caught: the terminal stays as curses set it, and
        assert_restored must say so (or the tests above prove nothing)."""
        t = self.paused(self.d)
        os.kill(t.pid(), signal.SIGKILL)
        status, _ = t.wait_exit()
        self.assertEqual(status, 128 + signal.SIGKILL)
        with self.assertRaises(AssertionError):
            self.assert_restored(t)


if __name__ == "__main__":
    harness.main()
