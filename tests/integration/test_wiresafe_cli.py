"""Never harm the debuggee on the wire (issue 19, points 2 and 3).

The debuggee runs with --fragile: like the official ghc-debug stub it
serves one client at a time and dies (exit status 3, a 'fragile:' line)
when a read or write fails, i.e. when heapscope closes a connection with an
answer under way or a request unanswered. --hold ALL_BLOCKS:DIR sends half
of the answer, creates DIR/held and waits for DIR/release: the tests cancel
mid-answer without racing anything.

- a quit signal during ALL_BLOCKS finishes the answer (and says so after a
  second), resumes the debuggee on the same connection, and the debuggee
  lives on and serves the next client;
- a --timeout that strikes mid-answer is the one case left: the message
  says closing the connection may kill the program;
- a second client while one is served is told the debuggee is busy (who
  holds it) without writing anything, and the debuggee serves a third
  client after the first leaves.
Run by meson test."""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, raw_status  # noqa: E402

ROOTS, OKAY, NOT_PAUSED = 4, 0, 0x0102
FRAGILE_EXIT = 3
FINISHING = "finishing the answer in flight to ALL_BLOCKS"
HARM = "closing the connection may kill the program"
# big enough that ALL_BLOCKS is several frames, small enough to be quick
HEAP = ("--closures", "60000", "--seed", "5")


def wait_for(path, what, timeout=60):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.01)


class Fragile(Debuggee):
    """A --fragile debuggee holding its next ALL_BLOCKS answer half-way
    while DIR/arm exists."""

    def __init__(self, *args):
        self.hold = tempfile.TemporaryDirectory()
        super().__init__(*HEAP, "--fragile", "--hold", "ALL_BLOCKS:" + self.hold.name, *args)

    def arm(self):
        open(os.path.join(self.hold.name, "arm"), "w").close()

    def wait_held(self):
        wait_for(os.path.join(self.hold.name, "held"), "the debuggee to hold its answer")

    def release(self):
        open(os.path.join(self.hold.name, "release"), "w").close()

    def assert_alive(self, test):
        """Still running, resumed, and serving a new client a whole census."""
        test.assertIsNone(self.proc.poll(), "the debuggee died: " + self.stderr_now())
        test.assertEqual(raw_status(self.socket, ROOTS), NOT_PAUSED, "it was resumed")
        r = subprocess.run([HEAPSCOPE, "census", self.socket, "--no-cache"],
                           capture_output=True, text=True, timeout=120)
        test.assertEqual(r.returncode, 0, r.stderr)
        test.assertIsNone(self.proc.poll(), "the debuggee died: " + self.stderr_now())

    def stderr_now(self):
        if self.proc.poll() is None:
            return "(running)"
        return "exit %d: %s" % (self.proc.returncode, self.proc.stderr.read())

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self.hold.cleanup()


def read_until(proc, text):
    """stderr lines of proc until one holds text (returned), or its end."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if text in line:
            return line, "".join(seen)
    return None, "".join(seen)


class CancelMidAnswer(unittest.TestCase):
    def census(self, d, *args):
        p = subprocess.Popen([HEAPSCOPE, "census", d.socket, "--no-cache", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (p.poll() is None and p.kill(), p.communicate()))
        return p

    def test_a_quit_signal_finishes_the_answer_and_the_debuggee_lives(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            with self.subTest(signal=sig.name), Fragile() as d:
                d.arm()
                p = self.census(d)
                d.wait_held()
                t0 = time.monotonic()
                p.send_signal(sig)
                # held until heapscope says it is finishing the answer: a
                # heapscope that closed instead never says so
                line, seen = read_until(p, FINISHING)
                self.assertIsNotNone(line, "no drain message; stderr: %s; debuggee: %s"
                                     % (seen, d.stderr_now()))
                self.assertGreaterEqual(time.monotonic() - t0, 0.9, "said after a second")
                d.release()
                _, err = p.communicate(timeout=60)
                err = seen + err
                self.assertEqual(p.returncode, 128 + sig, err)
                self.assertIn("interrupted by %s: the debuggee was resumed" % sig.name, err)
                self.assertNotIn(HARM, err)
                d.assert_alive(self)

    def test_a_timeout_mid_answer_says_the_program_may_be_harmed(self):
        with Fragile() as d:
            d.arm()
            p = self.census(d, "--timeout", "1500")
            d.wait_held()
            _, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 1, err)
            self.assertRegex(err, r"ALL_BLOCKS: the answer stopped after [0-9]+ bytes.*"
                             r"the debuggee stopped answering mid-answer, and " + HARM)
            # and so it did: the fragile debuggee, like the official stub,
            # dies once it goes on writing (released here)
            d.release()
            d.proc.wait(timeout=30)
            self.assertEqual(d.proc.returncode, FRAGILE_EXIT)
            self.assertIn("fragile: write failed", d.proc.stderr.read())

    def test_a_signal_during_a_timeout_mid_answer_is_still_the_timeout_rule(self):
        """A cancelled answer that stops coming is left after --timeout."""
        with Fragile() as d:
            d.arm()
            p = self.census(d, "--timeout", "2500")
            d.wait_held()
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 130, err)
            self.assertIn(FINISHING, err)
            self.assertIn("(finishing a cancelled answer)", err)
            self.assertIn(HARM, err)


class SecondClient(unittest.TestCase):
    def test_a_second_client_is_told_busy_and_the_debuggee_serves_a_third(self):
        with Fragile() as d:
            d.arm()
            first = subprocess.Popen([HEAPSCOPE, "census", d.socket, "--no-cache"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                d.wait_held()  # the first client is being served, mid-answer
                t0 = time.monotonic()
                second = subprocess.run([HEAPSCOPE, "census", d.socket, "--no-cache"],
                                        capture_output=True, text=True, timeout=60)
                took = time.monotonic() - t0
                self.assertEqual(second.returncode, 1, second.stderr)
                self.assertIn("is busy: another debugger is connected to it (process %d, "
                              "heapscope)" % first.pid, second.stderr)
                self.assertIn("nothing was sent", second.stderr)
                self.assertLess(took, 10)
                d.release()
                _, err = first.communicate(timeout=60)
                self.assertEqual(first.returncode, 0, err)
            finally:
                if first.poll() is None:
                    first.kill()
                    first.communicate()
            # the second's connection was queued and closed with nothing in
            # it: the debuggee read 0 bytes from it and serves a third
            d.assert_alive(self)


if __name__ == "__main__":
    unittest.main()
