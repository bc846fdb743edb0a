"""The explorer never harms the debuggee on the wire (issue 19, points 2 and
3). The debuggee runs --fragile: like the official ghc-debug stub it serves
one client at a time and dies (exit status 3) when a read or write fails,
i.e. when heapscope closes a connection with an answer under way. --hold
COMMAND:DIR holds one answer half-way (DIR/held) until the test creates
DIR/release, so Esc lands mid-answer without racing anything.

- Esc while the heap is read: the footer says the answer in flight is being
  finished, the pause is undone on the same connection, p works again, and
  the debuggee lives;
- Esc during a search: the same for the search's request;
- a command run while the explorer is connected is told the debuggee is
  busy (naming the explorer's process) and writes nothing; once the
  explorer leaves, the debuggee serves the next client."""
import os
import subprocess
import tempfile

import harness
from harness import HEAPSCOPE, LEAK_ARGS, TuiCase

FINISHING = "finishing the answer in flight to %s"
ROOTS, NOT_PAUSED = 4, 0x0102  # a running debuggee answers ROOTS with NOT_PAUSED


class Fragile(TuiCase):
    def fragile(self, name, command):
        self.hold = tempfile.mkdtemp(dir=self.home.root)
        return self.debuggee(name=name, args=LEAK_ARGS + ("--fragile", "--hold",
                                                          "%s:%s" % (command, self.hold)))

    def hold_file(self, name):
        return os.path.join(self.hold, name)

    def arm(self):
        open(self.hold_file("arm"), "w").close()

    def wait_held(self, t):
        t.wait(lambda s: os.path.exists(self.hold_file("held")), "the debuggee to hold its "
               "answer half-way", timeout=60)

    def release(self):
        open(self.hold_file("release"), "w").close()

    def assert_alive(self, d):
        self.assertIsNone(d.proc.poll(), "the debuggee died (exit %s): heapscope closed the "
                          "connection mid-answer" % d.proc.returncode)

    def quit(self, t, d):
        """q on a debuggee heapscope paused: y resumes it, over the
        connection the cancels left usable."""
        t.keys("q")
        t.wait_text("Resume the debuggee before quitting?", what="the question on quitting")
        t.keys("y")
        status, _ = t.wait_exit(timeout=30)
        self.assertEqual(status, 0)
        self.assert_alive(d)
        self.assertEqual(d.status(ROOTS), NOT_PAUSED, "the debuggee was resumed")
        self.assert_alive(d)

    def test_esc_while_the_heap_is_read_finishes_the_answer(self):
        d = self.fragile("4401-read", "ALL_BLOCKS")
        t = self.connected(d, "--no-cache", "--timeout", "60000")
        self.arm()
        t.keys("p")
        self.wait_held(t)
        t.keys("Escape")
        # held until the footer says the answer is being finished: an
        # explorer that closed the connection instead never says so
        t.wait(lambda s: FINISHING % "ALL_BLOCKS" in s.footer or d.proc.poll() is not None,
               "the footer to say the answer is finished", timeout=20)
        self.assert_alive(d)
        self.release()
        t.wait_text("pause cancelled: the debuggee runs on", timeout=30, what="the cancel")
        self.assert_alive(d)
        t.keys("p")  # the same connection serves the next pause
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree after p")
        self.assertNotIn("connecting again", t.screen().text)
        self.quit(t, d)

    @staticmethod
    def search(t, regex):
        before = t.screen()
        t.keys("C-e")
        t.wait_change(before, what="the search prompt")
        t.type(regex)
        t.keys("Enter")

    def test_esc_during_a_search_finishes_the_answer(self):
        d = self.fragile("4402-search", "SRT")
        t = self.paused(d, "--no-cache", "--timeout", "60000", width=120)
        self.arm()
        self.search(t, d.plan["leak"]["constructor"])
        self.wait_held(t)
        t.keys("Escape")
        t.wait(lambda s: FINISHING % "SRT" in s.footer or d.proc.poll() is not None,
               "the footer to say the answer is finished", timeout=20)
        self.assert_alive(d)
        self.release()
        t.wait_text("search cancelled", timeout=30, what="the cancel")
        self.assert_alive(d)
        # the same connection serves the search again, to its end
        self.search(t, d.plan["leak"]["constructor"])
        t.wait(lambda s: "matches" in s.footer and "cancelled" not in s.footer,
               "the search's matches", timeout=120)
        self.assertNotIn("connecting again", t.screen().text)
        self.quit(t, d)

    def test_a_command_while_the_explorer_is_connected_is_told_busy(self):
        d = self.fragile("4403-busy", "ALL_BLOCKS")
        t = self.connected(d, "--no-cache")
        r = subprocess.run([HEAPSCOPE, "census", d.socket, "--no-cache"], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("is busy: another debugger is connected to it (process %d, heapscope)"
                      % t.pid(), r.stderr)
        self.assertIn("nothing was sent", r.stderr)
        t.keys("p")  # the explorer goes on
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree after p")
        self.quit(t, d)
        # the census's connection held no request: the debuggee serves a third client
        r = subprocess.run([HEAPSCOPE, "census", d.socket, "--no-cache"], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_alive(d)


if __name__ == "__main__":
    harness.main()
