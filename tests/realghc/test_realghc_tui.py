"""The first rule in the explorer, on tests/realghc/Tier.hs built by GHC
VERSION with the official ghc-debug stub (realghc.py): the explorer in tmux
(tests/tui/harness.py), as a person uses it.

  - Ctrl-A with an address that is no closure: the footer answers, nothing
    is sent (the stub would dereference it);
  - a command run while the explorer is connected is told the program is
    busy, and leaves nothing queued that kills it when the explorer leaves;
  - Esc while 400 MiB are read finishes the answer in flight.

usage: test_realghc_tui.py HEAPSCOPE VERSION   (meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tui"))
import realghc  # noqa: E402

VERSION = sys.argv.pop(2)
import harness  # noqa: E402  (takes HEAPSCOPE from argv)
from harness import HEAPSCOPE  # noqa: E402


class Explorer(harness.TuiCase):
    ARGS = ()

    def setUp(self):
        super().setUp()
        self.program = realghc.start(VERSION, "ipe", *self.ARGS, rts=["-N2"])

    def tearDown(self):
        super().tearDown()  # heapscope first, whatever it left
        self.program.stop_answering(HEAPSCOPE)

    def assertAlive(self, after):
        self.assertTrue(self.program.alive(), "%s died after %s:\n%s"
                        % (self.program, after, self.program.stderr()))

    def explorer(self):
        t = self.tui(self.program.socket, width=160)
        t.wait_regex(r"(?i)running", timeout=realghc.timeout(30), what="the running screen")
        return t

    def pause(self, t):
        t.keys("p")
        t.wait_text("GC Roots", timeout=realghc.timeout(60), what="the roots tree after p")

    def quit(self, t):
        t.keys("q")
        t.wait_text("Resume the debuggee before quitting?", what="the question on quitting")
        t.keys("y")
        status, _ = t.wait_exit(timeout=realghc.timeout(30))
        self.assertEqual(status, 0)


class Addresses(Explorer):
    def test_ctrl_a_with_no_closure_answers_in_the_footer(self):
        t = self.explorer()
        self.pause(t)
        for typed in ("0xdeadbeef", "0x10", "0x4200000000", "0x4200100000"):
            before = t.screen()
            t.keys("C-a")
            t.wait_change(before, what="the address prompt")
            t.type(typed)
            t.keys("Enter")
            t.wait_text("no closure at 0x%x in this pause" % (int(typed, 16) & ~7),
                        timeout=realghc.timeout(60), what="the footer's answer for " + typed)
            self.assertAlive("Ctrl-A " + typed)
        self.quit(t)


class Busy(Explorer):
    def test_a_command_beside_the_explorer_is_told_busy(self):
        t = self.explorer()
        self.pause(t)
        r = subprocess.run([HEAPSCOPE, "census", self.program.socket], capture_output=True,
                           text=True, timeout=realghc.timeout(60))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("is busy: another debugger is connected to it", r.stderr)
        self.assertIn("heapscope", r.stderr, "the other debugger named")
        self.assertAlive("the busy census")
        self.quit(t)  # the stub now takes the census's connection from its queue
        self.assertAlive("the explorer left")


class EscWhileReading(Explorer):
    ARGS = ("--mb", "400")

    def test_esc_while_the_heap_is_read(self):
        t = self.explorer()
        for delay in (0.05, 0.3):
            t.keys("p")
            time.sleep(delay)
            t.keys("Escape")
            # paused or not, depending on when Esc came: the explorer answers
            # either way, and the program lives
            t.wait_regex(r"(?i)running|GC Roots|cancelled", timeout=realghc.timeout(60),
                         what="the explorer after Esc")
            t.settle()
            self.assertAlive("Esc %.2f s into the read" % delay)
            text = t.screen().text
            if "GC Roots" in text or "The debuggee is paused" in text:  # read, or paused only
                t.keys("r")
                t.wait_regex(r"(?i)running", timeout=realghc.timeout(30), what="resumed")
        t.keys("q")
        status, _ = t.wait_exit(timeout=realghc.timeout(30))
        self.assertEqual(status, 0)
        self.assertAlive("quitting")


if __name__ == "__main__":
    realghc.main(harness.main)
