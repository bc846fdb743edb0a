"""The explorer against a debuggee that answers too much or refuses some
closures: --max-answer stops a pause with a message naming the option, and
a search that meets unreadable closures finishes and counts them. And
against the synthetic debuggee's hostile kinds (heapscope-debuggee
--hostile): corrupt closures are rows saying why they cannot be read,
names cannot drive the terminal, and each transport failure is one line in
the footer, after which the explorer is still usable."""
import os
import sys
import time

import harness
from harness import TuiCase

sys.path.insert(0, os.path.join(harness.SOURCE_ROOT, "tests", "common"))
import hostile_stub as hs  # noqa: E402


class AnswerCap(TuiCase):
    def test_pause_over_the_cap_names_the_option(self):
        d = self.debuggee()
        t = self.connected(d, "--max-answer", "1M", "--no-cache", width=160)
        t.keys("p")
        s = t.wait_text("--max-answer", timeout=60, what="the message naming the option")
        self.assertTrue(s.search(r"over the 1 MiB cap"), s.dump())
        self.assertTrue(s.search(r"(?i)the debuggee is running"), s.dump())
        t.keys("q")
        t.wait_exit()
        # asked only now: the stub serves one client at a time
        self.assertFalse(d.is_paused(), "the debuggee is resumed after the failed pause")


class UnreadableInSearch(TuiCase):
    def test_search_finishes_and_counts_them(self):
        d = self.debuggee()
        chosen = []

        def refuse_one_static(req):
            if req.cmd != hs.CLOSURES:
                return None
            if not chosen:
                chosen.append(req.ptrs()[0])
            return (hs.BAD_COMMAND, b"") if chosen[0] in req.ptrs() else None

        with hs.HostileStub(d.socket, refuse_one_static) as stub:
            t = self.tui(stub.socket, "--no-cache")
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree after p")
            before = t.screen()
            t.keys("C-e")
            t.wait_change(before, what="the search prompt")
            t.type(d.plan["leak"]["constructor"])
            t.keys("Enter")
            s = t.wait_regex(r"could not be read", timeout=120, what="the unreadable count")
            self.assertTrue(s.search(r"[0-9]+ match(es)?\b.*; 1 closure could not be read \(%s: "
                                     % hex(chosen[0])), s.dump())


def quit_and_resume(t):
    t.keys("q")
    t.wait_text("Resume the debuggee before quitting?", what="the question on quitting")
    t.keys("y")


class HostileHeap(TuiCase):
    """Every heap kind at once, under the Hostile root (the last GC root)."""

    def test_corrupt_closures_are_rows_and_the_explorer_goes_on(self):
        d = self.debuggee(args=harness.LEAK_ARGS + ("--hostile", "heap"))
        planted = d.plan["hostile"]["closures"]
        t = self.paused(d, "--no-cache", width=160, height=50)
        t.keys("End")  # the last roots: Hostile, then a null and an unmapped one
        # never asked for (issue 19): too far from the program's code
        s = t.wait_regex(r"GC Roots +cannot read it: closure 0x7f0000001040: 0x7f0000001040 is "
                         r"too far", what="the root to nothing as a row")
        self.assertTrue(s.search(r"GC Roots +null +│"), s.dump())
        t.select(lambda line: "Hostile" in line)
        t.keys("Right")
        s = t.wait_text("cannot read it: closure %s (ARR_WORDS) needs" % planted["arr_words_huge"],
                        timeout=60, what="the huge ARR_WORDS as an unreadable row")
        self.assertIn("Cell %s %s" % (planted["self_loop"], planted["self_loop"]), s.text)
        for _ in range(3):
            t.keys("PageDown")
        s = t.wait_text("Evil?[2J?]0;owned???forged line?", what="the hostile name, harmless")
        self.assertTrue(s.search(r"cannot read it: closure 0x[0-9a-f]+ \(STACK\): sp 0x[0-9a-f]+ "
                                 r"lies outside its stack area"), s.dump())
        self.assertTrue(s.lines[0].startswith(" heapscope: "), "the title row survived:\n" + s.dump())
        # still usable: the census counts what it could read and says what it could not
        t.keys("c")
        t.wait_text("census by", what="the census prompt")
        t.keys("Enter")
        s = t.wait_regex(r"; [0-9]+ closures could not be read \(0x[0-9a-f]+: ", timeout=60,
                         what="the census's unreadable note")
        self.assertIn("Census by", s.text)
        quit_and_resume(t)
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assert_restored(t)


class HostileWire(TuiCase):
    """A pause whose answers stop, are cut off or claim 4 GiB: one line in the
    footer within --timeout, the debuggee given back, and the explorer still
    answers keys (a second p tries again, q quits)."""

    CASES = (("stall@ROOTS", r"cannot pause: ROOTS: the answer stopped after [0-9]+ bytes, "
                             r"[0-9]+ short of its frame: nothing more from .* for 2000 ms"),
             ("hangup@ALL_BLOCKS", r"cannot pause: ALL_BLOCKS: the debuggee closed the "
                                   r"connection mid-answer \(after [0-9]+ bytes\)"),
             ("huge@ROOTS", r"cannot pause: ROOTS: the answer is at least 4(\.0)? GiB, over the "
                            r"1 GiB cap on one answer \(--max-answer SIZE raises it\); "
                            r"finishing it"))

    def test_each_is_one_line_and_the_explorer_stays_usable(self):
        for kind, message in self.CASES:
            with self.subTest(kind):
                d = self.debuggee(name="4300-" + kind.split("@")[0],
                                  args=("--closures", "3000", "--seed", "3", "--hostile", kind))
                t = self.connected(d, "--no-cache", "--timeout", "2000", "--max-answer", "1G",
                                   width=200)
                t0 = time.monotonic()
                t.keys("p")
                s = t.wait_regex(message, timeout=30, what="the one-line message")
                self.assertLess(time.monotonic() - t0, 2 + 10, "past --timeout")
                self.assertEqual(len([l for l in s.lines if "cannot pause" in l]), 1, s.dump())
                t.keys("?")  # usable: the help opens and closes
                t.wait_text("Keys (Esc closes", what="the help")
                t.keys("Escape")
                t.wait_regex(r"(?i)the debuggee is running", what="the running screen again")
                t.keys("q")
                status, _ = t.wait_exit()
                self.assertEqual(status, 0)
                self.assert_restored(t)
                # given back: RESUME (spared by the kinds) finds it running
                self.assertEqual(d.status(3), 0x0102, "the debuggee was left paused")
                t.close()
                d.stop()

    def test_a_stall_while_exploring_is_one_line_and_the_explorer_reconnects(self):
        """Paused: the details pane asks SOURCE_INFO of each selected closure
        (and the rows of thunks and functions of their tables, for their
        names), and each answer stalls half-way. The pane says why (the
        first stall, quoted when a row's name met it first); the next move
        connects again and the tree goes on answering keys."""
        d = self.debuggee(args=("--closures", "3000", "--seed", "3",
                                "--hostile", "stall@SOURCE_INFO"))
        t = self.paused(d, "--no-cache", "--timeout", "1000", width=160)
        s = t.wait_regex(r"Source +SOURCE_INFO: ", timeout=30, what="the details pane's line")
        pane = " ".join(" ".join(line.rsplit("\u2502", 1)[-1] for line in s.lines).split())
        self.assertRegex(pane, r"SOURCE_INFO: the answer stopped after", s.dump())
        t.keys("Down")
        t.wait_change(s, timeout=30, what="the next row selected")
        t.wait_regex(r"SOURCE_INFO: the answer stopped after", timeout=30,
                     what="the same line for the next closure")
        t.keys("End")
        t.wait_text(d.plan["leak"]["root"], what="the tree, still answering keys")
        t.settle(quiet=2.5)  # keys typed while it waits are dropped, by design
        quit_and_resume(t)
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertFalse(d.is_paused(), "the debuggee was left paused")

    def test_busy(self):
        d = self.debuggee(args=("--closures", "3000", "--hostile", "busy"))
        t = self.tui(d.socket, "--no-cache")
        def footer(s):  # the message, wrapped over the last lines, without spaces
            return "".join(s.lines[-4:]).replace(" ", "")
        s = t.wait(lambda s: "anotherdebuggerisconnected" in footer(s), timeout=30,
                   what="the busy message")
        self.assertEqual(footer(s).count(d.socket.replace(" ", "")), 1,
                         "the path said twice:\n" + s.dump())
        t.keys("q")
        status, _ = t.wait_exit()
        self.assert_restored(t)

    def test_trickle_is_only_slow(self):
        d = self.debuggee(args=("--closures", "3000", "--seed", "3", "--hostile", "trickle"))
        t = self.connected(d, "--no-cache")
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=120, what="the roots tree, byte by byte")
        quit_and_resume(t)
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)


if __name__ == "__main__":
    harness.main()
