"""The TUI against a real GHC 9.0.2 program, as a person sees it: a GHC
without info-table provenance gets no advice it cannot follow (issue 9,
items 5 and 6).

usage: test_ghc_tui.py HEAPSCOPE PROGRAM [PROFILED-PROGRAM]
       (run by meson test --suite ghc)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tui"))
import test_ghc_cli  # noqa: E402  (takes HEAPSCOPE and PROGRAM from argv: its Program)

PROFILED = sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else None
sys.argv.insert(1, test_ghc_cli.HEAPSCOPE)
import harness  # noqa: E402  (takes HEAPSCOPE again: the tmux driver)


class NoProvenance(harness.TuiCase):
    def setUp(self):
        super().setUp()
        self.program = test_ghc_cli.Program("+RTS", "-N2", "-RTS")

    def tearDown(self):
        super().tearDown()  # kills heapscope first, whatever it left
        self.program.proc.kill()
        self.program.stop()

    def test_details_and_closure_name_filter(self):
        t = self.tui(self.program.socket, width=120)
        t.wait_regex(r"(?i)running", what="the running screen")
        t.keys("p")
        s = t.wait_text("no info-table location", timeout=60, what="the details of a closure")
        self.assertIn("no info-table location: GHC 9.0 has no info-table provenance "
                      "(it came with GHC 9.2)", s.text)
        self.assertNotIn("-finfo-table-map", s.text, "advice that GHC 9.0 cannot follow")
        t.run_command("Find retainers (closure name)")
        t.wait_text("closure name: ", what="the closure-name prompt")
        t.type("sat_info")
        t.keys("Enter")
        t.wait_text("GHC 9.0 has no info-table provenance", what="why the filter cannot work")


class RetainerProfiling(harness.TuiCase):
    """The profiled program under +RTS -hr: each header word is retainer
    information, the longest key of the details pane."""

    def setUp(self):
        super().setUp()
        if not PROFILED:
            self.skipTest("no profiled program (ghc-prof missing)")
        self.program = test_ghc_cli.Program("+RTS", "-N2", "-hr", "-RTS", path=PROFILED)

    def tearDown(self):
        super().tearDown()
        if PROFILED:
            self.program.proc.kill()
            self.program.stop()

    def test_side_pane_keys_and_values_apart(self):
        # issue 9, item 8: "Retainer info0x..." in the side details pane
        t = self.tui(self.program.socket, width=160)
        t.wait_regex(r"(?i)running", what="the running screen")
        t.keys("p")
        # the retainer set's address (or none: no census has set it yet) and flag
        s = t.wait_regex(r"Retainer info\s*(0x|none)", timeout=60, what="the retainer header row")
        self.assertRegex(s.text, r"│ Retainer info +(0x[0-9a-f]+|none) flag [01]", s.dump())
        self.assertRegex(s.text, r"│ Address +0x", "keys in one column:\n" + s.dump())
        self.assertIn("GHC.STRef", s.text, "long values wrap between words:\n" + s.dump())


if __name__ == "__main__":
    harness.main()
