"""The leaks view (issue 12 §2): L lists the era-boundary groups with the
numbers and retainer kinds `heapscope leaks --json` gives for the same
heap, the planted thunk first; Enter on a group
searches its retaining closures and shows their paths merged, as the
group's `retainers --merged` command does; without era profiling L says
that it needs it."""
import json
import re
import subprocess

import harness
from harness import TuiCase

ROW = re.compile(r"^[ >]?\s*(\d+)\s+(\d+)\s+(\d+)  (\w+)\s+(.+?) (?:→|->) (.+?)\s*$")
MERGED_ROW = re.compile(r"^[ >]?\s*(\d+)\s+(\d+)  ( *)(?:[▸▾+-] |  )(.+?)  (0x[0-9a-f]+)  ")
TOP = 10
PLANTED = "app/Main.hs:41:9-30"  # the planted thunk's source location


def cli(*args):
    out = subprocess.run([harness.HEAPSCOPE, *args, "--json"], capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout)


def rows(screen):
    return [(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5),
             m.group(6)) for m in map(ROW.match, screen.lines[1:]) if m]


class Leaks(TuiCase):
    def test_groups_are_the_cli_report(self):
        d = self.debuggee()
        want = cli("leaks", d.socket, "--top", str(TOP))
        merged = cli("retainers", d.socket, "--bucket", "source=" + PLANTED, "--merged",
                     "--limit", "100")["merged"]  # (before the TUI holds the debuggee)
        t = self.paused(d, height=40, width=200)
        t.keys("L")
        s = t.wait(lambda s: len(rows(s)) >= TOP, "the leaks view", timeout=120)
        self.assertIn("%d groups, %d bytes" % (want["groups"], want["bytes"]), s.lines[0])
        self.assertIn("kind", s.lines[1])
        for got, g in zip(rows(s), want["top"]):
            self.assertEqual(got, (g["bytes"], g["older"], g["edges"], g["kind"], g["retainer"],
                                   g["retained"]), s.dump())
        self.assertEqual(rows(s)[0][3:5], ("thunk", PLANTED))
        # the planted thunk's group: Enter shows its retainers' paths merged
        t.keys("/")
        t.type(PLANTED)
        t.keys("Enter")
        s = t.wait(lambda s: PLANTED in (s.selected_text() or ""), "the planted group selected")
        t.keys("Enter")
        s = t.wait(lambda s: "Merged paths" in s.lines[0] and any(map(MERGED_ROW.match, s.lines)),
                   "the group's merged paths", timeout=120)
        start = next(n for n in merged if n["parent"] is None)
        first = next(m for m in map(MERGED_ROW.match, s.lines) if m)
        self.assertEqual((int(first.group(1)), int(first.group(2)), first.group(5)),
                         (start["matches"], start["bytes"], start["closure"]["address"]), s.dump())
        self.assertIn("source=" + PLANTED, s.lines[0])
        # m: the list of the group's matches
        t.keys("m")
        t.wait(lambda s: "Merged paths" not in s.lines[0] and "leak group" in s.lines[0],
               "the group's list of matches")

    def test_needs_era_profiling(self):
        d = self.debuggee(args=("--closures", "3000", "--leak-count", "50", "--seed", "5"))
        t = self.paused(d)
        t.keys("L")
        s = t.wait_text("needs era profiling", what="why L is not available")
        self.assertNotIn("Leaks: where", s.lines[0])


if __name__ == "__main__":
    harness.main()
