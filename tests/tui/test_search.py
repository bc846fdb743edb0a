"""Search (issue 6, part 3): Ctrl-E finds the planted leak by constructor
regex, a match expands into its retainer path with the newer-retains-older
edge marked, views have a history (Alt-← Alt-→, Ctrl-S), the search limit,
Ctrl-G inverts while typing, the filter bar and Ctrl-W."""
import json
import os
import re
import subprocess
import sys
import time

import harness
from harness import ADDRESS, DEFAULT_ROLES, TuiCase, closure_line, closure_row

sys.path.insert(0, os.path.join(harness.SOURCE_ROOT, "tests", "common"))
import hostile_stub as hs  # noqa: E402


class Search(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()
        self.leak = self.d.plan["leak"]
        self.path = self.leak["path"]  # root ... Leak
        self.match = self.path[-1]
        # a tree row of a Leak closure: its address, its type, the constructor
        self.leak_row = re.compile(r"(0x[0-9a-f]+)\s+%s\b.*\b%s\b" % (self.match["type"],
                                                                   self.leak["constructor"]))

    def search(self, t, regex, key="C-e"):
        before = t.screen()
        t.keys(key)
        t.wait_change(before, what="the %s prompt" % key)
        t.type(regex)
        t.keys("Enter")

    def test_leak_search_shows_the_match_and_its_retainer_path(self):
        t = self.paused(self.d)
        self.search(t, self.leak["constructor"])
        s = t.wait(lambda s: closure_row(s, self.match) is not None, "the planted leak among the matches",
                   timeout=120)
        self.assertIn(self.leak["constructor"], s.lines[closure_row(s, self.match)])

        # expand the match, then each retainer in turn, until the root shows
        chain = list(reversed(self.path))
        for here, there in zip(chain, chain[1:]):
            if closure_row(t.screen(), there) is None:
                t.select(closure_line(here))
                t.keys("Right")
            t.wait(lambda s: closure_row(s, there) is not None,
                   "retainer %s %s under %s" % (there["type"], there["address"], here["address"]))
        s = t.screen()
        # the path's rows in order (from the root down, or from the match up),
        # below the match's own row
        rows = [closure_row(s, step) for step in self.path[:-1]]
        self.assertIn(rows, (sorted(rows), sorted(rows, reverse=True)),
                      "the retainer path in order:\n" + s.dump())

        # the thunk (era 3) retains the cons cell (era 2): a newer-retains-older edge
        newer = next(i for i in range(len(self.path) - 1)
                     if self.path[i]["era"] > self.path[i + 1]["era"])
        marked_rows = [closure_row(s, self.path[newer]), closure_row(s, self.path[newer + 1])]
        leak_fg = DEFAULT_ROLES["leak-edge"][0]
        marked = [r for r in marked_rows if any(c.fg == leak_fg for c in s.cells[r])]
        others = [closure_row(s, step) for step in self.path[:newer]]
        self.assertTrue(marked, "the newer-retains-older edge is marked (leak-edge colour):\n" + s.dump())
        self.assertFalse([r for r in others if any(c.fg == leak_fg for c in s.cells[r])],
                         "only that edge is marked")

    def test_retained_sizes_on_the_matches_once_computed(self):
        # the CLI's retained size of every cons cell (it pauses and resumes itself)
        out = subprocess.run([harness.HEAPSCOPE, "find", self.d.socket, "--constructor", "^:$",
                              "--retained", "--limit", "0", "--json"], capture_output=True,
                             text=True, timeout=180, check=True)
        want = {m["closure"]["address"]: m["retained"] for m in json.loads(out.stdout)["matches"]}
        self.assertGreater(len(set(want.values())), 3, "cons cells retaining different sizes")
        t = self.paused(self.d, height=40, width=160)
        self.search(t, "^:$")
        match = re.compile(r"(0x[0-9a-f]+)\s+CONSTR_2_0 (\d+) B  (?:\[retains (\d+) B\]  )?")
        # no dominator tree yet: no retained size, the footer names the key that computes it
        s = t.wait(lambda s: len([m for m in map(match.search, s.lines) if m]) > 20,
                   "the matches", timeout=120)
        self.assertTrue(s.search(r"R: retained sizes"), s.dump())
        self.assertFalse(s.search(r"\[retains"), s.dump())
        t.keys("R")
        s = t.wait_text("dominator tree computed", timeout=120, what="the tree after R")
        shown = [m for m in map(match.search, s.lines) if m]
        self.assertGreater(len(shown), 20, s.dump())
        for m in shown:
            self.assertIsNotNone(m.group(3), "a match without its retained size:\n" + s.dump())
            self.assertEqual(int(m.group(3)), want[m.group(1)], "match %s:\n%s" % (m.group(1), s.dump()))
            self.assertGreaterEqual(int(m.group(3)), int(m.group(2)), "it retains itself at least")
        # a new search shows them at once, with no hint
        self.search(t, "^:$")
        s = t.wait(lambda s: "view 3/3" in s.lines[0] and s.search(r"\d+ matches"),
                   "the second search", timeout=120)
        self.assertTrue(s.search(r"\[retains \d+ B\]"), s.dump())
        self.assertFalse(s.search(r"R: retained sizes"), s.dump())

    def test_a_slow_search_keeps_its_line_and_its_spinner_turns(self):
        """Every answer of the search 30 ms late, one 1.6 s late: the footer
        says "searching" until the matches, its spinner turns, and the long
        wait is named after the work. Before, the work's spinner stood still
        and a wait over 0.1 s put "waiting for the debuggee" in its place
        for the rest of the search (so tests waiting for "searching" missed it)."""
        d = self.debuggee("4247-slow", harness.LEAK_ARGS)
        late = {"each": 0.0, "count": 0}

        def slow(req):
            late["count"] += 1
            time.sleep(1.6 if late["count"] == 40 else late["each"])

        with hs.HostileStub(d.socket, slow) as stub:
            t = self.tui("--no-cache", stub.socket, height=30, width=120)
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree")
            late.update(each=0.03, count=0)
            self.search(t, d.plan["leak"]["constructor"])
            t.wait(lambda s: "searching" in s.footer, "the search's progress")
            footers = []
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                footer = t.screen().footer.strip()
                if "matches" in footer:
                    break
                footers.append(footer)
                time.sleep(0.05)
        self.assertIn("matches", footer)
        self.assertGreater(late["count"], 40, "the long wait came during the search")
        others = [f for f in footers if not re.match(r"\S searching\b", f)]
        self.assertEqual(others, [], "the search's line gave way")
        self.assertGreaterEqual(len({f.split()[0] for f in footers}), 3, "the spinner stood still")
        self.assertTrue(any(re.search(r"searching.*; waiting for the debuggee \(\w+\): 1 s", f)
                            for f in footers), "the long wait was not named:\n" + "\n".join(footers))

    def test_esc_cancels_r_and_no_tree_is_kept(self):
        # a debuggee that answers slowly once paused: the tree's computation
        # asks it over a hundred times (nothing is cached), far longer than Esc takes
        delay = [0.0]

        def slow(req):
            time.sleep(delay[0])

        d = self.debuggee("4246-small", ("--closures", "3000", "--seed", "3"))
        with hs.HostileStub(d.socket, slow) as stub:
            t = self.tui("--no-cache", stub.socket, height=40, width=160)
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree")
            delay[0] = 0.3
            t.keys("R")
            t.wait_regex(r"dominator tree.*\(Esc cancels\)",
                         what="the computation's progress")
            t.keys("Escape")
            t.wait_text("retained sizes: cancelled", timeout=30, what="the cancel")
            delay[0] = 0.0
            self.search(t, d.plan["leak"]["constructor"])
            s = t.wait_regex(r"\d+ match(es)?\b", timeout=120, what="the search's matches")
            self.assertTrue(s.search(r"R: retained sizes"), "no tree was kept:\n" + s.dump())
            self.assertFalse(s.search(r"\[retains"), s.dump())

    def test_view_history(self):
        t = self.paused(self.d)
        root = self.path[0]
        self.search(t, self.leak["constructor"])
        t.wait(lambda s: closure_row(s, self.match) is not None, "the search view", timeout=120)
        t.keys("M-Left")
        t.wait(lambda s: closure_row(s, self.match) is None and closure_row(s, root) is not None,
               "Alt-← back to the roots view")
        t.keys("M-Right")
        t.wait(lambda s: closure_row(s, self.match) is not None, "Alt-→ forward to the search view")
        t.keys("C-s")
        t.wait(lambda s: closure_row(s, self.match) is None and closure_row(s, root) is not None,
               "Ctrl-S to the roots view")

    def test_search_limit(self):
        t = self.paused(self.d)
        before = t.screen()
        t.keys("C-l")
        t.wait_change(before, what="the limit prompt")
        t.type("3")  # replaces the pre-filled limit (issue 9, item 3)
        t.wait_regex(r"limit \(0 for infinity\): 3\s*$", what="3 replacing the pre-filled 100")
        t.keys("Enter")
        self.search(t, self.leak["constructor"])
        t.wait(lambda s: any(map(self.leak_row.search, s.lines)), "matches", timeout=120)
        t.wait(lambda s: not s.search(r"(?i)searching|finding"), "the search to end", timeout=120)
        s = t.screen()
        matches = {m.group(1) for m in map(self.leak_row.search, s.lines) if m}
        self.assertTrue(1 <= len(matches) <= 3, "at most 3 matches with limit 3:\n" + s.dump())

    def test_match_details_count_steps_in_words(self):
        # issue 9, item 8: "1 step", not "1 steps"; and from which start
        d = self.debuggee("4245-orphan", harness.LEAK_ARGS + ("--saved-shortcut",))
        orphan = d.plan["saved_shortcut"]["orphan"]
        t = self.paused(d)
        self.search(t, orphan, key="C-a")
        s = t.wait_text("1 of 1, 1 step from a saved object", timeout=60,
                        what="the match's details")
        self.assertNotIn("1 steps", s.text)

    def test_find_address_where_no_closure_lives(self):
        t = self.paused(self.d)
        stale = "0x%x" % (int(self.match["address"], 16) + 8)  # inside the first Leak
        for addr in (stale, "0x10"):
            self.search(t, addr, key="C-a")
            s = t.wait_text("no closure at %s in this pause" % addr,
                            what="the stale-address message (issue 9, item 4)")
            self.assertNotIn("refused", s.text)

    def test_closure_name_without_provenance_says_why(self):
        # a program built without -finfo-table-map (issue 9, items 5 and 6)
        d = self.debuggee("4244-no-ipe", harness.LEAK_ARGS + ("--no-ipe",))
        t = self.paused(d)
        t.wait_text("no info-table location: build the program with -finfo-table-map",
                    what="the details pane's advice for a GHC that has -finfo-table-map")
        t.run_command("Find retainers (closure name)")
        t.wait_text("closure name: ", what="the closure-name prompt")
        t.type("Leak_con_info")
        t.keys("Enter")
        t.wait_text("no closure looked at has info-table provenance", timeout=120,
                    what="why a closure-name search matched nothing")

    def test_filter_list_names_each_filter_in_the_order_given(self):
        # issue 9, item 7: the closure-name filter is no "Constructor name
        # (exact)", and the list is in the order the filters apply
        t = self.paused(self.d, width=140)
        for command, value in (("Add filter: exact constructor name", "Leak"),
                               ("Add filter: closure name", "Leak_con_info"),
                               ("Add filter: constructor regex", "^L")):
            t.run_command(command)
            t.wait_regex(r"(?i)name.*: $|regex.*: $", what="the prompt of %s" % command)
            t.type(value)
            t.keys("Enter")
            t.wait_text("filter added", what="%s added" % command)
        s = t.wait_text("Filters: ", what="the filter bar")
        bar = s.lines[s.row_with("Filters: ")]
        self.assertRegex(bar, r"Filters: 1:Exact constructor name Leak\s+"
                              r"2:Closure name \(IPE\) Leak_con_info\s+"
                              r"3:Constructor name matching /\^L/", s.dump())

    def test_ctrl_g_inverts_and_ctrl_w_clears(self):
        t = self.paused(self.d)
        before = t.screen()
        t.keys("C-e")
        t.wait_change(before, what="the Ctrl-E prompt")
        t.type("Leak")
        typed = t.wait_text("Leak", what="the typed regex")
        t.keys("C-g")
        inverted = t.wait_change(typed, what="Ctrl-G to mark the filter inverted")
        self.assertIn("Leak", inverted.text, "Ctrl-G keeps what was typed")
        t.keys("Enter")
        s = t.wait(lambda s: len(ADDRESS.findall(s.text)) > 3 and not s.search(r"(?i)searching"),
                   "results of the inverted search", timeout=120)
        match_rows = [l for l in s.lines if self.leak_row.search(l)]
        self.assertEqual(match_rows, [], "an inverted Leak search shows no Leak closures:\n" + s.dump())
        # the active filter shows in the filter bar
        filter_bg = DEFAULT_ROLES["filter"][1]
        bar = [i for i, row in enumerate(s.cells) if any(c.bg == filter_bg for c in row)]
        self.assertTrue(bar and any("Leak" in s.lines[i] for i in bar), "a filter bar:\n" + s.dump())
        t.keys("C-w")
        s = t.wait(lambda s: not any(c.bg == filter_bg and "Leak" in s.lines[i]
                                     for i, row in enumerate(s.cells) for c in row),
                   "Ctrl-W to clear the filter bar")
        self.assertIn("filters cleared", s.text, "still running after Ctrl-W:\n" + s.dump())

    def test_gc_root_path_beats_a_saved_object_shortcut(self):
        # the leak list is also a saved object, one step above the first Leak
        d = self.debuggee("4243-shortcut", harness.LEAK_ARGS + ("--saved-shortcut",))
        path = d.plan["leak"]["path"]
        t = self.paused(d)
        self.search(t, self.leak["constructor"])
        t.wait(lambda s: closure_row(s, path[-1]) is not None, "the planted leak among the matches",
               timeout=120)
        chain = list(reversed(path))
        for here, there in zip(chain, chain[1:]):
            if closure_row(t.screen(), there) is None:
                t.select(closure_line(here))
                t.keys("Right")
            t.wait(lambda s: closure_row(s, there) is not None,
                   "retainer %s %s under %s (the path from the GC root)"
                   % (there["type"], there["address"], here["address"]))
        s = t.screen()
        self.assertIn("GC Roots", s.lines[closure_row(s, path[0])], s.dump())


if __name__ == "__main__":
    harness.main()
