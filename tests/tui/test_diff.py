"""The diff view (issue 12 §4): in the Snapshots tab, m marks snapshot A
and = opens snapshot B with the census buckets by constructor that grew
or shrank from A, row by row what `heapscope diff A B --json` gives."""
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


if __name__ == "__main__":
    harness.main()
