"""The merged paths toggle (issue 12 §3): m on a search's results switches
to the prefix tree of the matches' retainer paths, each row with the
matches at or below it and their bytes, the numbers `heapscope retainers
--merged --json` gives for the same search; m again goes back to the list
and forth to the same tree."""
import json
import re
import subprocess

import harness
from harness import TuiCase

# matches, bytes, the open mark, the edge, the address
ROW = re.compile(r"^[ >]?\s*(\d+)\s+(\d+)  ( *)(?:[▸▾+-] |  )(.+?)  (0x[0-9a-f]+)  (\S+) ")


def rows(screen):
    """[(matches, bytes, indent, edge, address, type)] of the rows on screen."""
    out = []
    for line in screen.lines[1:]:
        m = ROW.match(line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4),
                        m.group(5), m.group(6)))
    return out


class Merged(TuiCase):
    def test_toggle_shows_the_cli_tree(self):
        d = self.debuggee()
        out = subprocess.run([harness.HEAPSCOPE, "retainers", d.socket, "--constructor", "^Leak$",
                              "--limit", "100", "--merged", "--json"],
                             capture_output=True, text=True, timeout=120, check=True)
        nodes = {n["closure"]["address"]: n for n in json.loads(out.stdout)["merged"]}
        t = self.paused(d, height=40, width=200)
        before = t.screen()
        t.keys("C-e")
        t.wait_change(before, what="the Ctrl-E prompt")
        t.type("^Leak$")
        t.keys("Enter")
        s = t.wait_regex(r"100 items/100 max", timeout=120, what="the search results")
        self.assertIn("m: the paths merged", s.text, "the footer tells the key")
        t.keys("m")
        s = t.wait(lambda s: len(rows(s)) >= 7, "the merged paths")
        self.assertIn("Merged paths: Retainers of", s.lines[0])
        self.assertIn("100 matches, 4000 bytes", s.lines[0])
        shown = rows(s)
        for matches, nbytes, indent, edge, addr, ctype in shown:
            want = nodes.get(addr)
            self.assertIsNotNone(want, "%s is in the CLI's tree:\n%s" % (addr, s.dump()))
            self.assertEqual((matches, nbytes, ctype),
                             (want["matches"], want["bytes"], want["closure"]["type"]), s.dump())
            if want["parent"] is None:
                self.assertEqual(indent, 0)
                self.assertEqual(edge, "GC Roots" if want["start"] == "gc-root" else "Saved Object")
            else:
                self.assertEqual(edge, want["closure"]["edge"], s.dump())
        # the single stretch of the first path is open at once: each row below the last
        self.assertEqual([r[2] for r in shown[:5]], [0, 2, 4, 6, 8], s.dump())
        self.assertEqual(shown[0][0], 100)
        # m: back to the list; m: the same tree again
        t.keys("m")
        s = t.wait(lambda s: "Merged paths" not in s.lines[0], "the list again")
        self.assertIn("Retainers of", s.lines[0])
        t.keys("m")
        t.wait(lambda s: "Merged paths" in s.lines[0] and rows(s), "the tree again")
        # Left on the start closes it: one row left per start
        t.keys("g", "Left")
        s = t.wait(lambda s: rows(s) and all(r[2] == 0 for r in rows(s)), "the starts closed")
        self.assertEqual(len(rows(s)), len([n for n in nodes.values() if n["parent"] is None]))


if __name__ == "__main__":
    harness.main()
