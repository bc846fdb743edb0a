"""The leaks view (issue 12 §2): L lists the era-boundary groups with the
numbers, names and retainer kinds `heapscope leaks --json` gives for the
same heap, the planted thunk first; Enter on a group opens the group's
edges, as the group's `leaks --group N` command lists them (not every
closure of the retainer's info table), an edge opens into its newer
retainer and the field holding the older closure, and Ctrl-A offers the
selected closure's address to search its retainers; without era profiling
L says that it needs it."""
import json
import re
import subprocess

import harness
from harness import TuiCase

ROW = re.compile(r"^[ >]?\s*(\d+)\s+(\d+)\s+(\d+)  (\w+)\s+(.+?) (?:→|->) (.+?)\s*$")
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
        edges = cli("leaks", d.socket, "--group", "1")  # (before the TUI holds the debuggee)
        t = self.paused(d, height=40, width=200)
        t.keys("L")
        s = t.wait(lambda s: len(rows(s)) >= TOP, "the leaks view", timeout=120)
        self.assertIn("%d groups, %d bytes" % (want["groups"], want["bytes"]), s.lines[0])
        self.assertIn("kind", s.lines[1])
        for got, g in zip(rows(s), want["top"]):
            self.assertEqual(got, (g["bytes"], g["older"], g["edges"], g["kind"], g["retainer"],
                                   g["retained"]), s.dump())
        self.assertEqual(rows(s)[0][3:5], ("thunk", "leaky " + PLANTED))
        # the planted thunk's group: Enter shows its edge, as --group lists it
        t.keys("/")
        t.type(PLANTED)
        t.keys("Enter")
        s = t.wait(lambda s: PLANTED in (s.selected_text() or ""), "the planted group selected")
        t.keys("Enter")
        s = t.wait(lambda s: "Edges of leak group 1: leaky " + PLANTED in s.lines[0],
                   "the group's edges", timeout=120)
        self.assertIn("1 of 1 edge", s.lines[0])
        [edge] = edges["items"]
        row = s.lines[s.row_with(edge["to"]["address"])]
        self.assertRegex(row, r"era %d → %d ‼ .*CONSTR_2_0" % (edge["from"]["era"],
                                                             edge["to"]["era"]), s.dump())
        t.keys("Enter")
        s = t.wait(lambda s: s.row_with("Newer retainer") is not None, "the edge opened")
        self.assertIn(edge["from"]["address"], s.lines[s.row_with("Newer retainer (era %d)"
                                                                  % edge["from"]["era"])])
        self.assertIn(edge["to"]["address"], s.lines[s.row_with("Argument 0")])
        # the older closure's own retainers: Ctrl-A offers its address
        t.keys("Down", "Down")
        s = t.wait(lambda s: "Argument 0" in (s.selected_text() or ""), "the older closure")
        t.keys("C-a")
        t.wait_text(edge["to"]["address"], what="the address offered")
        t.keys("Enter")
        s = t.wait(lambda s: "Retainers of" in s.lines[0] and edge["to"]["address"] in s.lines[0],
                   "the older closure's retainers", timeout=60)
        self.assertIn("1 items", s.lines[0])

    def test_needs_era_profiling(self):
        d = self.debuggee(args=("--closures", "3000", "--leak-count", "50", "--seed", "5"))
        t = self.paused(d)
        t.keys("L")
        s = t.wait_text("needs era profiling", what="why L is not available")
        self.assertNotIn("Leaks: where", s.lines[0])


if __name__ == "__main__":
    harness.main()
