"""The TUI against a real GHC 9.0.2 program, as a person sees it: a GHC
without info-table provenance gets no advice it cannot follow (issue 9,
items 5 and 6).

usage: test_ghc_tui.py HEAPSCOPE PROGRAM   (run by meson test --suite ghc)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tui"))
import test_ghc_cli  # noqa: E402  (takes HEAPSCOPE and PROGRAM from argv: its Program)

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
        before = t.screen()
        t.keys("C-p")
        t.wait_change(before, what="the palette")
        t.type("Find retainers (closure name)")
        t.wait_text("info table (IPE) has this name", what="the command in the palette")
        t.keys("Enter")
        t.wait_text("closure name: ", what="the closure-name prompt")
        t.type("sat_info")
        t.keys("Enter")
        t.wait_text("GHC 9.0 has no info-table provenance", what="why the filter cannot work")


if __name__ == "__main__":
    harness.main()
