"""The diff view (issue 12 §4): in the Snapshots tab, m marks snapshot A
and = opens snapshot B with the census buckets by constructor that grew
or shrank from A, row by row what `heapscope diff A B --json` gives; on a
live debuggee, P after resume and pause diffs with the pause before (the
cache's recording of it)."""
import json
import os
import re
import subprocess

import harness
from harness import TuiCase

COMMON = ("--closures", "3000", "--seed", "7", "--profiled")
A_ARGS = COMMON + ("--leak-count", "100", "--eras", "4")
B_ARGS = COMMON + ("--leak-count", "500", "--eras", "6")
ROW = re.compile(r"^[ >]?\s*([+-]\d+)\s+([+-]\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)  (\S.*?)\s*$")


def hs(*args):
    out = subprocess.run([harness.HEAPSCOPE, *args], capture_output=True, text=True,
                         timeout=180, check=True)
    return out.stdout


def rows(screen):
    return [(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
             int(m.group(5)), int(m.group(6)), m.group(7))
            for m in map(ROW.match, screen.lines[1:]) if m]


class Diff(TuiCase):
    def test_marked_snapshot_diffed_with_the_opened_one(self):
        files = []
        for name, args in (("a", A_ARGS), ("b", B_ARGS)):
            d = self.debuggee(name="42%d-%s" % (len(files), name), args=args)
            path = os.path.join(self.home.snapshots, name + "-side.heapscope")
            hs("snapshot", d.socket, "-o", path)
            d.stop()
            files.append(path)
        want = json.loads(hs("diff", *files, "--json"))
        t = self.tui(height=40, width=160)
        t.wait_text("Debuggees (", what="the picker")
        t.keys("Tab")
        t.wait_text("b-side.heapscope", what="the snapshots")
        t.select("a-side.heapscope")
        t.keys("m")
        t.wait_text("marked a-side.heapscope as A", what="the mark")
        t.select("b-side.heapscope")
        t.keys("=")
        s = t.wait(lambda s: "Diff by constructor from a-side.heapscope" in s.lines[0] and rows(s),
                   "the diff view", timeout=120)
        self.assertIn("%d changed, %d unchanged" % (want["changed"], want["unchanged"]), s.lines[0])
        shown = rows(s)
        expect = [(r["bytes_delta"], r["count_delta"], r["count_a"], r["count_b"], r["bytes_a"],
                   r["bytes_b"], r["key"]) for r in want["rows"]]
        self.assertEqual(shown, expect[:len(shown)], s.dump())
        self.assertGreaterEqual(len(shown), min(len(expect), 10))
        # Back: the roots of B, a snapshot opened as Enter opens it
        t.keys("M-Left")
        t.wait(lambda s: "Saved objects and GC roots" in s.lines[0], "B's roots")

    def test_diff_with_the_previous_pause(self):
        d = self.debuggee()
        by_key = dict(d.plan["by_constructor"], **d.plan["by_type"])  # the census's keys
        t = self.paused(d, height=40, width=160)
        t.keys("P")  # no pause before this one
        t.wait_text("no recorded pause of this debuggee", what="why there is no diff yet")
        t.keys("r")
        t.wait_regex(r"(?i)running", timeout=120, what="the running screen")
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots after the second pause")
        t.keys("P")
        s = t.wait(lambda s: "Diff by constructor from the previous pause" in s.lines[0],
                   "the diff with the previous pause", timeout=120)
        # the synthetic heap does not change between pauses: every bucket is unchanged
        self.assertIn("0 changed, %d unchanged" % len(by_key), s.lines[0], s.dump())
        self.assertTrue(s.has("No bucket changed."), s.dump())


if __name__ == "__main__":
    harness.main()
