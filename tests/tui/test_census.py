"""The census and thunks views (issue 11, §2 and §3): c counts the paused
heap by one or two keys, checked row by row against the synthetic
debuggee's plan; s sorts by the next column; the active filters apply;
Enter on a row searches the retainers of exactly that row's closures (a
new view in the history); t is the census of the thunks."""
import json
import re
import subprocess

import harness
from harness import TuiCase

# share bar, percentage, count, bytes, max, avg, then the key (2 spaces on
# the first level, 6 on the second)
ROW = re.compile(r"^[ >]?\s*\S*\s+(\d+\.\d)%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(  +)(\S.*?)\s*$")
# with the retained column: after avg, blank on the second level
RETAINED_ROW = re.compile(r"^[ >]?\s*\S*\s+(\d+\.\d)%\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)"
                          r"( {2,}(\d+)| {14})(  +)(\S.*?)\s*$")
TOTAL = re.compile(r"(\d+) rows?, (\d+) closures?")
# the closure types a thunk census counts (query_census_is_thunk)
THUNK_TYPES = {"THUNK", "THUNK_1_0", "THUNK_0_1", "THUNK_2_0", "THUNK_1_1", "THUNK_0_2",
               "THUNK_STATIC", "THUNK_SELECTOR", "AP", "AP_STACK"}


def rows(screen):
    """[(level, key, count, bytes, max, avg)] of the census rows on screen."""
    out = []
    for line in screen.lines:
        m = ROW.match(line)
        if m:
            level = 1 if len(m.group(6)) < 6 else 2
            out.append((level, m.group(7), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                        int(m.group(5))))
    return out


class Census(TuiCase):
    def setUp(self):
        super().setUp()
        self.d = self.debuggee()
        plan = self.d.plan
        # the census keys: constructors, and every other closure by its type
        self.by_key = dict(plan["by_constructor"], **plan["by_type"])
        self.leak_key = next(k for k in plan["by_constructor"] if k.endswith(":Leak"))

    def census(self, t, by=None):
        t.keys("c")
        t.wait_text("census by", what="the census prompt")
        if by is not None:
            t.type(by)  # replaces the default
        t.keys("Enter")
        return t.wait(lambda s: TOTAL.search(s.lines[0]) and len(rows(s)) > 5,
                      "the census view", timeout=60)

    def test_census_by_constructor_is_the_plan(self):
        t = self.paused(self.d, height=45, width=120)
        s = self.census(t)  # the default: by constructor
        self.assertIn("Census by constructor of every closure", s.lines[0])
        total = TOTAL.search(s.lines[0])
        self.assertEqual(int(total.group(2)), self.d.plan["reachable"]["count"], s.dump())
        self.assertEqual(int(total.group(1)), len(self.by_key), "one row per census key")
        shown = rows(s)
        self.assertGreater(len(shown), 20, s.dump())
        for level, key, count, nbytes, biggest, avg in shown:
            self.assertEqual(level, 1)
            self.assertIn(key, self.by_key, s.dump())
            self.assertEqual((count, nbytes), (self.by_key[key]["count"], self.by_key[key]["bytes"]),
                             "row %s:\n%s" % (key, s.dump()))
            self.assertEqual(avg, nbytes // count)
            self.assertLessEqual(avg, biggest)
        self.assertEqual([r[3] for r in shown], sorted((r[3] for r in shown), reverse=True),
                         "largest first:\n" + s.dump())

        # s: by count, the next column; the selected row stays selected
        t.keys("/")
        t.type(self.leak_key)
        t.keys("Enter")
        t.wait(lambda s: s.selected_text() and self.leak_key in s.selected_text(), "Leak selected")
        t.keys("s")
        s = t.wait(lambda s: re.search(r"[▼v]count", s.text) and rows(s), "sorted by count")
        self.assertIn(self.leak_key, s.selected_text() or "", s.dump())
        counts = [r[2] for r in rows(s)]
        self.assertEqual(counts, sorted(counts, reverse=True), s.dump())
        self.assertEqual(counts[0], max(v["count"] for v in self.by_key.values()))

    def test_two_levels_and_the_retainers_of_one_bucket(self):
        t = self.paused(self.d, height=45, width=140)
        t.keys("C-l")
        t.wait_text("limit", what="the limit prompt")
        t.type("0")
        t.keys("Enter")
        s = self.census(t, "constructor, era")
        self.assertIn("Census by constructor, era", s.lines[0])
        t.keys("/")
        t.type(self.leak_key)
        t.keys("Enter")
        s = t.wait(lambda s: s.selected_text() and self.leak_key in s.selected_text(),
                   "the Leak row selected")
        shown = rows(s)
        at = next(i for i, r in enumerate(shown) if r[1] == self.leak_key and r[0] == 1)
        leak = self.d.plan["by_constructor"][self.leak_key]
        self.assertEqual(shown[at][2:4], (leak["count"], leak["bytes"]))
        by_era = self.d.plan["by_constructor_era"][self.leak_key]
        children = []
        for r in shown[at + 1:]:
            if r[0] == 1:
                break
            children.append(r)
        self.assertEqual({c[1]: (c[2], c[3]) for c in children},
                         {era: (v["count"], v["bytes"]) for era, v in by_era.items()}, s.dump())

        # Enter on the Leak row's era: its retainers, a new view in the history
        era = self.d.plan["leak"]["era"]
        t.keys("Down")
        t.wait(lambda s: s.selected_text() and s.selected_text().rstrip().endswith(" %d" % era),
               "the era row of Leak selected")
        t.keys("Enter")
        s = t.wait_regex(r"(\d+) items/", timeout=60, what="the retainers view")
        self.assertIn("%d items/" % leak["count"], s.lines[0], s.dump())
        self.assertIn("constructor=%s" % self.leak_key, s.lines[0])
        self.assertIn("era=%d" % era, s.lines[0])
        self.assertIn("view 3/3", s.lines[0])
        t.keys("M-Left")
        s = t.wait(lambda s: "Census by constructor, era" in s.lines[0], "back to the census")

    def test_filters_apply_and_thunks(self):
        t = self.paused(self.d, height=45, width=120)
        t.run_command("Add filter: era range")
        t.wait_text("era range", what="the era prompt")
        era = self.d.plan["leak"]["era"]
        t.type(str(era))
        t.keys("Enter")
        t.wait_text("Filters:", what="the filter bar")
        s = self.census(t)
        total = TOTAL.search(s.lines[0])
        self.assertEqual(int(total.group(2)), self.d.plan["by_era"][str(era)]["count"], s.dump())
        leak = [r for r in rows(s) if r[1] == self.leak_key]
        self.assertEqual(leak[0][2], self.d.plan["leak"]["count"], s.dump())

        t.keys("C-w")  # no filters: every thunk
        t.wait_gone("Filters:", what="the filters cleared")
        t.keys("t")
        s = t.wait(lambda s: "Thunks by source location of every closure" in s.lines[0] and rows(s), "the thunks view",
                   timeout=60)
        want = sum(v["count"] for k, v in self.d.plan["by_type"].items() if k in THUNK_TYPES)
        self.assertEqual(int(TOTAL.search(s.lines[0]).group(2)), want, s.dump())
        by_thunk = self.d.plan["by_thunk"]
        self.assertEqual(int(TOTAL.search(s.lines[0]).group(1)), len(by_thunk))
        for level, key, count, nbytes, _, _ in rows(s):  # source location, or info table
            self.assertEqual(level, 1)
            self.assertIn(key, by_thunk, s.dump())
            self.assertEqual((count, nbytes), (by_thunk[key]["count"], by_thunk[key]["bytes"]))

    def cli_census(self, *args):
        out = subprocess.run([harness.HEAPSCOPE, "census", self.d.socket, "--retained", "--sort",
                              "retained", "--json", *args], capture_output=True, text=True,
                             timeout=180, check=True)
        return json.loads(out.stdout)["rows"]

    @staticmethod
    def retained_rows(screen):
        """[(level, key, retained or None)] of a census with the retained column."""
        out = []
        for line in screen.lines:
            m = RETAINED_ROW.match(line)
            if m:
                level = 1 if len(m.group(8)) < 6 else 2
                out.append((level, m.group(9), int(m.group(7)) if m.group(7) else None))
        return out

    def test_retained_column_and_sort_are_the_cli_census(self):
        era = str(self.d.plan["leak"]["era"]) + "-"
        want = self.cli_census("--by", "constructor", "--era", era)
        want2 = self.cli_census("--by", "constructor,era")
        self.assertGreater(len({r["retained"] for r in want}), 5)
        t = self.paused(self.d, height=45, width=140)
        t.run_command("Add filter: era range")
        t.wait_text("era range", what="the era prompt")
        t.type(era)
        t.keys("Enter")
        t.wait_text("Filters:", what="the filter bar")
        s = self.census(t)
        self.assertTrue(s.search(r"R: retained sizes"), s.dump())
        self.assertNotIn("retained", s.lines[2], "no retained column before the tree:\n" + s.dump())
        # s cycles bytes, count, max, avg, key, then retained, computing the tree and the column
        for column in ("count", "max", "avg", "constructor", "retained"):
            before = t.screen()
            t.keys("s")
            s = t.wait(lambda s: s.raw != before.raw and re.search(r"[▼▲v^]%s" % column, s.text),
                       "sorted by " + column, timeout=120)
        s = t.wait_text("sorted by retained", timeout=120, what="the retained sort")
        shown = self.retained_rows(s)
        self.assertGreater(len(shown), 20, s.dump())
        self.assertEqual(shown, [(1, r["key"], r["retained"]) for r in want][:len(shown)],
                         s.dump())
        # the tree exists now: a new census has the column at once, first level only
        t.keys("C-w")
        t.wait_gone("Filters:", what="the filters cleared")
        s = self.census(t, "constructor,era")
        self.assertIn("retained", s.lines[1], s.dump())
        self.assertFalse(s.search(r"R: retained sizes"), s.dump())
        got = {key: retained for level, key, retained in self.retained_rows(s) if level == 1}
        self.assertGreater(len(got), 5, s.dump())
        for r in want2:
            if r["key"] in got:
                self.assertEqual(got[r["key"]], r["retained"], "row %s:\n%s" % (r["key"], s.dump()))
        self.assertTrue(all(r is None for level, _, r in self.retained_rows(s) if level == 2),
                        s.dump())

    def test_esc_cancels_a_census_and_the_view_stays(self):
        d = self.debuggee("4243-slow", harness.LEAK_ARGS + ("--answer-delay", "60"))
        t = self.paused(d, height=40, width=120)
        roots_title = t.screen().lines[0]
        t.keys("c")
        t.wait_text("census by", what="the census prompt")
        t.keys("Enter")
        t.wait_regex(r"counting.*\(Esc cancels\)", what="the census at work")
        t.keys("Escape")
        s = t.wait_text("census: cancelled", timeout=10, what="the cancel")
        self.assertEqual(s.lines[0], roots_title, "no census view:\n" + s.dump())
        self.assertFalse(rows(s))
        # the session is still good: the same census again, whole
        t.keys("c")
        t.wait_text("census by", what="the census prompt again")
        t.keys("Enter")
        s = t.wait(lambda s: TOTAL.search(s.lines[0]), "the census after a cancel", timeout=120)
        self.assertEqual(int(TOTAL.search(s.lines[0]).group(2)), d.plan["reachable"]["count"])


if __name__ == "__main__":
    harness.main()
