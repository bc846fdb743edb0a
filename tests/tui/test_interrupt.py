"""Waiting, cancelling and signals in the explorer (issue 9): a debuggee
that never answers shows a moving spinner and Esc or Ctrl-C cancel (the
Esc is not replayed afterwards): the answer in flight is awaited, as the
footer says, and left only after --timeout, saying what that risks (issue
19: a stub left writing to a closed connection dies); SIGINT, SIGTERM and SIGHUP resume a
debuggee heapscope paused, restore the terminal and exit with 128 + N; a
debuggee that was already paused is shown paused, r resumes it, q asks.
After each test a fresh connection checks whether the debuggee runs."""
import os
import re
import signal
import socket
import time

import harness
from harness import LEAK_ARGS, TuiCase

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
LONG = ("--timeout", "60000")  # a wait that only a cancel ends within a test
SILENT = ("--timeout", "6000")  # an answer that never comes is left after this (loaded CI: roomy)
HARM = "closing the connection may kill the program"
QUESTION = r"(?i)(?=.*resume)(?=.*\by\b)(?=.*\bn\b)"


def on_paused_screen(case, d):
    """heapscope started on d, which it finds paused; the screen says so."""
    t = case.tui(d.socket)
    t.wait_text("The debuggee is paused.", what="the paused screen")
    return t


class Waits(TuiCase):
    def waiting(self, t, command):
        """The footer says what it waits for, and its spinner and seconds move."""
        s = t.wait_text("waiting for the debuggee (%s)" % command, what="the wait in the footer")
        first = s.footer
        t.wait(lambda s: s.footer != first and "waiting" in s.footer,
               "the spinner to move", timeout=5)

    def finishing(self, t, command):
        """After the cancel the footer says the answer is awaited."""
        t.wait(lambda s: "finishing the answer in flight to %s" % command in s.footer,
               "the footer to say the answer in flight is finished", timeout=5)

    def test_esc_on_a_silent_pause_awaits_the_answer_and_is_not_replayed(self):
        d = self.debuggee(args=LEAK_ARGS + ("--silent-on", "PAUSE"))
        t = self.connected(d, *SILENT)
        t.keys("p")
        self.waiting(t, "PAUSE")
        t.keys("Escape")
        self.finishing(t, "PAUSE")
        s = t.wait_text(HARM, timeout=20, what="the answer left after --timeout")
        self.assertIn("PAUSE: no answer from", s.text)
        self.assertRegex(s.text, r"(?i)the debuggee is running")
        time.sleep(1.5)  # an idle turn of the loop: a replayed Esc would clear the message
        self.assertIn(HARM, t.screen().text, "the cancelling Esc acted again")
        t.keys("q")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertFalse(d.is_paused(), "the PAUSE took effect and the cancel did not undo it")

    def test_ctrl_c_cancels_a_wait_without_quitting(self):
        d = self.debuggee(args=LEAK_ARGS + ("--silent-on", "PAUSE"))
        t = self.connected(d, *SILENT)
        t.keys("p")
        self.waiting(t, "PAUSE")
        t.keys("C-c")
        self.finishing(t, "PAUSE")
        t.wait_text(HARM, timeout=20)
        time.sleep(1.5)
        self.assertTrue(t.running(), "Ctrl-C during a wait cancels it; it does not quit")
        self.assertIn(HARM, t.screen().text)
        t.keys("q")
        t.wait_exit()
        self.assertFalse(d.is_paused())

    def test_esc_cancels_a_silent_request_of_the_explorer(self):
        """The details pane asks SOURCE_INFO, never answered: Esc awaits it
        until --timeout, then gives the keys back, the tree stays, and the
        pane does not ask again on every redraw."""
        d = self.debuggee(args=LEAK_ARGS + ("--silent-on", "SOURCE_INFO"))
        # --no-cache: no recording of the pause, whose own SOURCE_INFO
        # request could be the one waiting (a key gives a recording's
        # request up only after a second, and Esc then acts as a plain key:
        # it flaked so)
        t = self.connected(d, *SILENT, "--no-cache")
        t.keys("p")
        self.waiting(t, "SOURCE_INFO")
        t.keys("Escape")
        self.finishing(t, "SOURCE_INFO")
        s = t.wait_text("SOURCE_INFO: no answer", timeout=20, what="the answer left in the pane")
        self.assertIn(d.plan["leak"]["root"], s.text, "the roots tree stays")
        time.sleep(1.5)
        self.assertNotIn("waiting for the debuggee", t.screen().text, "asked again by a redraw")
        t.keys("q")
        t.wait_regex(QUESTION, what="the question: it is paused")
        t.keys("y")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertFalse(d.is_paused(), "y resumed it over the new connection")


class Busy(TuiCase):
    def test_a_debuggee_another_client_holds_is_named_as_such(self):
        d = self.debuggee()
        with socket.socket(socket.AF_UNIX) as holder:
            holder.connect(d.socket)
            t = self.tui(*LONG)
            t.wait_text(os.path.basename(d.socket), what="the debuggee in the list")
            t.keys("Enter")
            s = t.wait(lambda s: "another debugger is connected" in " ".join(
                l.strip() for l in s.lines[-3:]), "the reason, long before the 60 s timeout",
                       timeout=10)
            self.assertRegex(s.lines[0], r"(?i)pick a debuggee", "back in the list")


class Signals(TuiCase):
    def assert_left(self, t, sig, what):
        status, s = t.wait_exit(timeout=20)
        self.assertEqual(status, 128 + sig)
        self.assert_restored(t)
        self.assertIn("heapscope: interrupted by %s: %s" % (sig.name, what), s.text)

    def test_a_signal_resumes_the_debuggee_it_paused(self):
        for sig in SIGNALS:
            with self.subTest(sig.name):
                d = self.debuggee(name="42%d-sig" % sig)
                t = self.paused(d)
                os.kill(t.pid(), sig)
                self.assert_left(t, sig, "the debuggee was resumed")
                self.assertFalse(d.is_paused())

    def test_a_signal_during_a_silent_wait_awaits_it_then_resumes_over_a_new_connection(self):
        for sig in SIGNALS:
            with self.subTest(sig.name):
                d = self.debuggee(name="43%d-silent" % sig,
                                  args=LEAK_ARGS + ("--silent-on", "PAUSE"))
                t = self.connected(d, *SILENT)
                t.keys("p")
                t.wait_text("waiting for the debuggee (PAUSE)")
                os.kill(t.pid(), sig)
                # the PAUSE's answer is awaited until --timeout, then left
                self.assert_left(t, sig, "the debuggee was resumed")
                self.assertFalse(d.is_paused(), "the PAUSE took effect and was not undone")

    def test_a_debuggee_found_paused_stays_paused(self):
        d = self.debuggee()
        self.assertEqual(d.pause(), 0)
        t = on_paused_screen(self, d)
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree")
        os.kill(t.pid(), signal.SIGHUP)
        self.assert_left(t, signal.SIGHUP, "the debuggee is left paused, as it was found")
        self.assertTrue(d.is_paused())


class FoundPaused(TuiCase):
    """A debuggee another client left paused (issue 9, item 2)."""

    def setUp(self):
        super().setUp()
        self.d = self.debuggee()
        self.assertEqual(self.d.pause(), 0)

    def test_it_is_shown_paused_and_r_resumes_it(self):
        t = on_paused_screen(self, self.d)
        s = t.screen()
        self.assertRegex(s.lines[0], r": paused\b", "the title says paused")
        self.assertRegex(s.text, r"(?i)before heapscope connected")
        self.assertNotRegex(s.text, r"(?i)is running")
        t.keys("r")
        s = t.wait_text("The debuggee is running.", what="the running screen after r")
        t.keys("q")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertFalse(self.d.is_paused(), "r resumed it")

    def test_q_asks_first_and_n_leaves_it_paused(self):
        t = on_paused_screen(self, self.d)
        t.keys("q")
        t.wait_regex(QUESTION, what="q asks while it is paused")
        t.keys("n")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertTrue(self.d.is_paused(), "n leaves it paused")

    def test_p_reads_the_heap_without_pausing_and_r_resumes(self):
        t = on_paused_screen(self, self.d)
        t.keys("p")
        s = t.wait_text(self.d.plan["leak"]["root"], timeout=60, what="the roots tree")
        self.assertTrue(re.search(r"paused before: \d+ saved", s.text), s.dump())
        t.keys("r")
        t.wait_text("The debuggee is running.")
        t.keys("q")
        t.wait_exit()
        self.assertFalse(self.d.is_paused())


if __name__ == "__main__":
    harness.main()
