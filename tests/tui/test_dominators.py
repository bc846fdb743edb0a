"""The dominator view (issue 12 §1): D lists the closures that retain most,
row by row the numbers `heapscope dominators --json` gives for the same
heap; Enter opens a row into what it immediately dominates (the CLI's
"dominated" list); the details pane shows a closure's retained size only
once the tree was computed for this pause; Esc stops the computation on a
slow debuggee, shows no tree, and D computes it whole afterwards."""
import json
import os
import re
import subprocess
import sys
import time

import harness
from harness import TuiCase

sys.path.insert(0, os.path.join(harness.SOURCE_ROOT, "tests", "common"))
import hostile_stub as hs  # noqa: E402

# retained, own bytes, then the open mark, the closure type and its text
ROW = re.compile(r"^[ >]?\s*(\d+)\s+(\d+)  ( *)(?:[▸▾+-] |  )(\S+) (.*?)\s*$")
TOP = 12


def rows(screen):
    """[(retained, own, indent, type, text)] of the view's rows on screen."""
    out = []
    for line in screen.lines[1:]:
        m = ROW.match(line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4),
                        m.group(5)))
    return out


class Dominators(TuiCase):
    def cli(self, d):
        """The CLI's top rows (it pauses and resumes the debuggee itself)."""
        out = subprocess.run([harness.HEAPSCOPE, "dominators", d.socket, "--json", "--top",
                              str(TOP)], capture_output=True, text=True, timeout=120, check=True)
        return json.loads(out.stdout)

    def test_rows_are_the_cli_tree(self):
        d = self.debuggee()
        want = self.cli(d)
        t = self.paused(d, height=45, width=160)
        # before the tree is computed the details pane says nothing of retained sizes
        t.keys("Down")  # a selection: the details pane shows it
        s = t.wait_text("Closure type", what="the details pane")
        self.assertNotIn("Retained", s.text)
        t.keys("D")
        s = t.wait(lambda s: len(rows(s)) >= TOP, "the dominator view", timeout=120)
        self.assertIn("Dominators", s.lines[0])
        self.assertIn("%d closures, %d bytes" % (want["closures"], want["bytes"]), s.lines[0])
        shown = rows(s)[:TOP]
        for got, row in zip(shown, want["top"]):
            c = row["closure"]
            self.assertEqual((got[0], got[1], got[2], got[3]), (row["retained"], c["size"], 0, c["type"]),
                             s.dump())
            self.assertTrue(got[4].startswith(c["label"][:20]), s.dump())
        # Enter on the first row: its dominated children, indented, largest first
        t.keys("g", "Enter")
        first = want["top"][0]
        n = len(first["dominated"])
        s = t.wait(lambda s: len(rows(s)) > 1 and rows(s)[1][2] > 0, "the first row opened")
        children = rows(s)[1:1 + n]
        self.assertEqual([(c[0], c[1], c[3]) for c in children],
                         [(k["retained"], k["closure"]["size"], k["closure"]["type"])
                          for k in first["dominated"]], s.dump())
        self.assertTrue(all(c[2] == 2 for c in children), s.dump())
        self.assertEqual(rows(s)[1 + n][2], 0, "the next top-level row follows:\n" + s.dump())
        # Left closes it again
        t.keys("Left")
        s = t.wait(lambda s: rows(s) and rows(s)[1][2] == 0, "the first row closed")
        # H from inside an opened row closes everything and selects that row
        t.keys("Enter")
        t.wait(lambda s: len(rows(s)) > 1 and rows(s)[1][2] > 0, "the first row opened again")
        t.keys("Down", "H")
        s = t.wait(lambda s: len(rows(s)) > 1 and rows(s)[1][2] == 0, "everything closed")
        self.assertIn(first["closure"]["label"][:20], s.selected_text(), s.dump())
        # back in the roots tree, the details pane has the retained size now
        t.keys("M-Left")
        t.wait_text(d.plan["leak"]["root"], what="the roots tree")
        t.wait_text("Retained", what="the retained size in the details pane")


class Slow:
    """A hostile-stub rule that answers each request `delay` seconds late:
    the dominator computation of even a small heap makes over a hundred
    requests, so it takes far longer than the test needs to type Esc."""

    def __init__(self):
        self.delay = 0.0
        self.since = None  # requests counted from here

    def rule(self, req):
        if self.since is not None:
            self.since += 1
        time.sleep(self.delay)
        return None


class CancelDominators(TuiCase):
    def test_esc_stops_the_computation(self):
        d = self.debuggee(args=("--closures", "3000", "--seed", "3"))
        want = Dominators.cli(self, d)
        slow = Slow()
        with hs.HostileStub(d.socket, slow.rule) as stub:
            t = self.tui("--no-cache", stub.socket, height=40, width=160)
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree after p")
            slow.delay, slow.since = 0.3, 0
            t.keys("D")
            t.wait_regex(r"dominator tree.*\(Esc cancels\)",
                         what="the computation's progress")
            t.keys("Escape")
            s = t.wait_text("dominators: cancelled", timeout=30, what="the cancel")
            slow.delay = 0.0
            asked = slow.since
            self.assertLess(asked, 60, "the computation ran on")  # it needs over 100
            self.assertIn("Saved objects and GC roots", s.lines[0])
            self.assertNotIn("Dominators", s.lines[0])
            self.assertEqual(rows(s), [], s.dump())
            # the explorer is usable, and no tree was kept: the details
            # pane shows no retained size
            t.keys("Down")
            s = t.wait_text("Closure type", what="the details pane")
            self.assertNotIn("Retained", s.text)
            # D again: the whole tree, as the CLI computes it
            t.keys("D")
            s = t.wait(lambda s: len(rows(s)) >= TOP, "the dominator view", timeout=120)
            self.assertIn("%d closures, %d bytes" % (want["closures"], want["bytes"]), s.lines[0])
            t.keys("q", "y")
            status, _ = t.wait_exit(timeout=30)
        self.assertEqual(status, 0)


if __name__ == "__main__":
    harness.main()
