"""The explorer (issue 6, part 2): running and paused screens, the tree of
roots, expanding three levels, moving, find in the tree, resume, the help
overlay, the palette, Esc that never surprises, and q with its question."""
import os
import re
import subprocess

import harness
from harness import TuiCase, closure_line, closure_row, indent, roots_json

# the one question q asks while paused: about resuming, answered y or n
QUESTION = r"(?i)(?=.*resume)(?=.*\by\b)(?=.*\bn\b)"


class Explorer(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()
        self.path = self.d.plan["leak"]["path"]  # TSO, STACK, MUT_VAR, THUNK, (:), Leak

    def test_pause_shows_every_root_and_resume_runs_again(self):
        roots = roots_json(self.d.socket)
        t = self.connected(self.d)
        s = t.screen()
        self.assertRegex(s.text, r"(?i)\bp\b[^\n]*pause|pause[^\n]*\bp\b", "the running screen names p")
        t.keys("p")
        s = t.wait_text(self.d.plan["leak"]["root"], timeout=60, what="the roots tree")
        self.assertIsNotNone(closure_row(s, self.path[0]), "the root row shows its type:\n" + s.dump())
        # every saved object and root is in the tree: walk to the end and back
        ends = {r["address"] for r in (roots["roots"][-1:] + roots["saved_objects"][-1:])}
        starts = {r["address"] for r in (roots["roots"][:1] + roots["saved_objects"][:1])}
        t.keys("End")
        t.wait(lambda s: any(a in s.selected_text() for a in ends), "End to select the last root")
        t.keys("Home")
        t.wait(lambda s: any(a in s.selected_text() for a in starts), "Home to select the first row")
        t.keys("G")
        t.wait(lambda s: any(a in s.selected_text() for a in ends), "G to select the last root")
        t.keys("g")
        t.wait(lambda s: any(a in s.selected_text() for a in starts), "g to select the first row")
        t.keys("r")
        s = t.wait_regex(r"(?i)running", what="the running screen after r")
        self.assertNotIn(self.d.plan["leak"]["root"], s.text, "the tree is gone while running")
        t.keys("q")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertFalse(self.d.is_paused(), "r resumed the debuggee")

    def test_a_snapshot_file_opens_like_the_debuggee_and_cannot_resume(self):
        path = os.path.join(self.home.snapshots, "pause.heapscope")
        r = subprocess.run([harness.HEAPSCOPE, "snapshot", self.d.socket, "-o", path],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = self.tui(path)
        s = t.wait_text(self.d.plan["leak"]["root"], timeout=60, what="the snapshot's roots, at once")
        self.assertIsNotNone(closure_row(s, self.path[0]), s.dump())
        t.keys("r")
        t.wait_regex(r"(?i)snapshot file cannot be resumed", what="why r does nothing")
        self.assertIsNotNone(closure_row(t.screen(), self.path[0]), "the tree stays")
        t.keys("q")  # nothing to resume: no question
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)

    def test_expand_three_levels_and_collapse(self):
        t = self.paused(self.d)
        p = self.path
        s = t.select(closure_line(p[0]))
        t.keys("Right")
        s = t.wait(lambda s: closure_row(s, p[1]) is not None, "→ to show the TSO's stack")
        t.select(closure_line(p[1]))
        t.keys("l")
        t.wait(lambda s: closure_row(s, p[2]) is not None, "l to show the stack's MUT_VAR")
        s = t.select(closure_line(p[2]))
        # the row names the frame holding it (cut to leave the closure room),
        # the details pane the whole of it: the code's function and location
        self.assertRegex(s.lines[closure_row(s, p[2])], r"Frame \d+ \(case continuation in ")
        self.assertRegex(s.text, r"Held by +Frame \d+ \(case continuation in Main\.leaky at "
                         r"app/Main\.hs:40:5-32\) Pointer")
        self.assertRegex(s.lines[closure_row(s, p[0])], r"TSO 1: BlockedOnMVar")
        t.keys("Enter")
        s = t.wait(lambda s: closure_row(s, p[3]) is not None, "Enter to show the MUT_VAR's thunk")
        depths = [indent(s.lines[closure_row(s, step)]) for step in p[:4]]
        self.assertEqual(depths, sorted(set(depths)), "each level is indented further:\n" + s.dump())
        self.assertRegex(s.lines[closure_row(s, p[3])], "[├└|`+]", "tree guides on the row")

        # the details pane describes the selected closure
        s = t.select(closure_line(p[3]))
        self.assertIn(p[3]["location"], s.text, "the thunk's source location:\n" + s.dump())
        self.assertGreaterEqual(len(s.rows_with(p[3]["address"])), 2, "row and details pane")
        self.assertTrue(re.search(r"(?i)era\D{0,12}%d\b" % p[3]["era"], s.text), "the era")

        # ← on a leaf selects its parent; ← on an open node closes it
        t.keys("Left")
        t.wait(lambda s: closure_line(p[2])(s.selected_text()), "← to select the parent")
        t.keys("h")
        t.wait(lambda s: closure_row(s, p[3]) is None, "h to collapse the MUT_VAR")
        self.assertIsNotNone(closure_row(t.screen(), p[1]))
        t.keys("H")
        s = t.wait(lambda s: closure_row(s, p[1]) is None, "H to collapse everything")
        self.assertIsNotNone(closure_row(s, p[0]))
        t.select(closure_line(p[0]))
        t.keys("Right")
        t.wait(lambda s: closure_row(s, p[1]) is not None, "→ again")
        t.keys("S-Left")
        t.wait(lambda s: closure_row(s, p[1]) is None, "Shift-← to collapse everything")

    def test_moving_by_rows_and_pages(self):
        t = self.paused(self.d, width=80, height=24)
        t.keys("Home")
        s = t.wait(lambda s: s.selected_row() is not None, "a selected row")
        first = s.selected_row()
        for key in ("Down", "j"):
            before = t.screen()
            t.keys(key)
            s = t.wait(lambda s: s.selected_text() != before.selected_text(), key + " to move")
            self.assertEqual(s.selected_row(), before.selected_row() + 1, key)
        for key in ("Up", "k"):
            before = t.screen()
            t.keys(key)
            s = t.wait(lambda s: s.selected_text() != before.selected_text(), key + " to move")
            self.assertEqual(s.selected_row(), before.selected_row() - 1, key)
        self.assertEqual(s.selected_row(), first)
        # 20 roots do not fit in 24 lines with bars and details: a page moves far
        before = t.screen()
        t.keys("PageDown")
        s = t.wait(lambda s: s.selected_text() != before.selected_text(), "PgDn to move")
        moved_to = s.selected_text()
        self.assertNotIn(moved_to, [before.lines[i] for i in range(first, first + 3)], "a page, not a row")
        t.keys("PageUp")
        first_page = before.lines[first:first + 6]
        t.wait(lambda s: s.selected_text() in first_page and s.selected_text() != moved_to,
               "PgUp back a page, among the first rows")

    def test_find_text_and_next(self):
        t = self.paused(self.d)
        t.keys("Home")
        before = t.screen()
        tso_rows = [l for l in before.lines if re.search(r"\bTSO\b", l)]
        self.assertGreaterEqual(len(tso_rows), 2, "the roots hold several threads")
        t.keys("/")
        t.wait_change(before, what="the find prompt")
        t.type("BlockedOnSTM")
        t.keys("Enter")
        s = t.wait(lambda s: "BlockedOnSTM" in s.selected_text(), "/ to select the matching row")
        t.keys("/")
        t.wait_change(s, what="the find prompt again")
        t.type("TSO")
        t.keys("Enter")
        s = t.wait(lambda s: "TSO" in s.selected_text() and s.selected_text() != s.lines[0],
                   "/TSO to select a thread")
        first = s.selected_text()
        t.keys("n")
        s = t.wait(lambda s: "TSO" in s.selected_text() and s.selected_text() != first,
                   "n to select the next thread")

    def test_help_overlay_lists_every_binding(self):
        table = harness.command_table()
        t = self.paused(self.d)
        before = t.screen()
        t.keys("?")
        s = t.wait_change(before, what="the help overlay")
        seen = s.text
        for _ in range(40):  # scroll the overlay to its end
            t.keys("PageDown")
            try:
                s = t.wait_change(s, timeout=1.5)
            except AssertionError:
                break
            seen += s.text
        missing = [name for keys, _, _, name, _ in table if keys and name not in seen]
        self.assertEqual(missing, [], "commands with keys not in the help overlay")
        for keys, _, _, name, _ in table:
            for key in keys:
                shown = {key, key.replace("Left", "←").replace("Right", "→").replace("Up", "↑")
                         .replace("Down", "↓").replace("Ctrl-", "^")}
                self.assertTrue(any(k in seen for k in shown), "key %s of %s" % (key, name))
        t.keys("Escape")
        s = t.wait(lambda s: s.has(self.d.plan["leak"]["root"]) and "Command palette" not in s.text,
                   "Esc to close the overlay")
        self.assertTrue(t.running())

    def test_help_overlay_wraps_long_descriptions(self):
        # issue 9, item 8: a description longer than the box goes on under
        # its name instead of being cut (a tall pane shows the whole list)
        table = harness.command_table()
        t = self.paused(self.d, width=80, height=200)
        before = t.screen()
        t.keys("?")
        s = t.wait_change(before, what="the help overlay")
        inside = " ".join(re.sub(r"^\s*[│|]|[│|]\s*$", "", l) for l in s.lines)
        inside = " ".join(inside.split())
        cut = [name for _, _, _, name, text in table if " ".join(text.split()) not in inside]
        self.assertEqual(cut, [], "descriptions cut short:\n" + s.dump())
        self.assertTrue(any(len(text) > 60 for *_, text in table), "a description long enough")

    def test_palette_filters_and_runs_commands(self):
        table = harness.command_table()
        names = [row[3] for row in table]
        t = self.connected(self.d)
        before = t.screen()
        t.keys("C-p")
        s = t.wait_change(before, what="the palette")
        shown = [n for n in names if n in s.text]
        self.assertGreaterEqual(len(shown), 5, "the palette lists commands:\n" + s.dump())
        t.type("paus")
        s = t.wait(lambda s: "paus" in s.text and len([n for n in names if n in s.text]) < len(shown),
                   "typing to filter the palette")
        self.assertIn("Pause", s.text)
        self.assertNotIn("Collapse all", s.text)
        t.keys("Enter")
        t.wait_text(self.d.plan["leak"]["root"], timeout=60, what="the palette's Pause to pause")

        before = t.screen()
        t.keys("C-p")
        t.wait_change(before, what="the palette again")
        t.type("clps al")  # fuzzy: letters in order
        t.wait(lambda s: "Collapse all" in s.text and "Find text" not in s.text, "fuzzy filtering")
        t.keys("Escape")
        s = t.wait(lambda s: "clps al" not in s.text, "Esc to close the palette")
        self.assertTrue(t.running())
        self.assertIn(self.d.plan["leak"]["root"], s.text, "still paused, the tree shown")

    def test_esc_never_resumes_or_leaves(self):
        t = self.paused(self.d)
        root = self.d.plan["leak"]["root"]
        for key in ("Escape", "/", "C-e", "C-l", "C-p", "?", "q"):
            before = t.screen()
            if key != "Escape":
                t.keys(key)
                t.wait_change(before, what="%s to open something" % key)
            t.keys("Escape")
            t.keys("Escape")  # a second Esc on the plain tree must be harmless too
            s = t.wait(lambda s: s.has(root) and s.selected_text() == before.selected_text()
                       and not s.search(r"(?i)running"), "Esc after %s to get back to the tree" % key)
            self.assertTrue(t.running(), "Esc after %s left heapscope" % key)
        # Ctrl-F searches straight away (no filters: every closure); Esc
        # cancels or leaves the result, and never resumes
        t.keys("C-f", "Escape", "Escape")
        t.wait(lambda s: not s.search(r"(?i)running|searching"), "Ctrl-F then Esc")
        self.assertTrue(t.running())
        t.keys("q")
        t.keys("n")
        t.wait_exit()
        self.assertTrue(self.d.is_paused(), "Esc resumed the debuggee")
        self.d.resume()

    def test_quit_while_paused_asks_and_n_leaves_it_paused(self):
        t = self.paused(self.d)
        t.keys("q")
        t.wait_regex(QUESTION, what="the quit question")
        t.keys("Escape")
        s = t.wait(lambda s: not s.search(QUESTION), "Esc to withdraw the question")
        self.assertTrue(t.running(), "Esc on the question left heapscope")
        self.assertIn(self.d.plan["leak"]["root"], s.text)
        t.keys("q")
        t.wait_regex(QUESTION, what="the quit question again")
        t.keys("n")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertTrue(self.d.is_paused(), "n quits leaving the debuggee paused")
        self.d.resume()

    def test_quit_while_paused_y_resumes(self):
        t = self.paused(self.d)
        t.keys("q")
        t.wait_regex(QUESTION, what="the quit question")
        t.keys("y")
        status, _ = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertFalse(self.d.is_paused(), "y resumes, then quits")

    def test_quit_while_running_does_not_ask(self):
        t = self.connected(self.d)
        t.keys("q")
        status, s = t.wait_exit()
        self.assertEqual(status, 0)
        self.assertNotRegex(s.text, QUESTION)
        self.assertFalse(self.d.is_paused())


if __name__ == "__main__":
    harness.main()
