"""The era-boundary report on tests/realghc/Tier.hs built by GHC VERSION
(9.10 and later: user eras need a profiled GHC >= 9.10 run with +RTS -he;
realghc.py). Tier.hs puts Leak 1..500 in era 1, Leak 501..1000 in era 2
and the Data.Map holding them in era 3, so:

  - the report's first group is containers' Bin -> main:Main:Leak, named
    as census --by constructor names both constructors, with exactly 1000
    edges and 1000 older closures, its bytes those of the Leaks (and their
    heap I# boxes); every group's key is one (retainer, retained, kind) and
    the edges add up to the report's;
  - its printed command is `heapscope leaks TARGET --group 1`, which lists
    that group's edges: 1000 with --limit 0, each from a Bin of era 3 to
    a distinct Leak of era 1 or 2 (500 each), bytes adding up to the
    group's; 100 by default, marked cut; the same in text;
  - in the explorer, L then Enter on that group opens its edges (not the
    closures of an info table), and an edge opens into the Bin and the
    field holding the Leak.

usage: test_realghc_leaks.py HEAPSCOPE VERSION   (meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import json
import os
import shlex
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tui"))
import realghc  # noqa: E402

VERSION = sys.argv.pop(2)
import harness  # noqa: E402  (takes HEAPSCOPE from argv)
from harness import HEAPSCOPE  # noqa: E402

BIN = ":Data.Map.Internal:Bin"  # containers' package id differs between builds
LEAK = "main:Main:Leak"


def start():
    return realghc.start(VERSION, "prof", rts=["-N2", "-he"])


class Cli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = start()

    @classmethod
    def tearDownClass(cls):
        cls.program.stop_answering(HEAPSCOPE)

    def heapscope(self, *args):
        r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True,
                           timeout=realghc.timeout(120))
        self.assertEqual(r.returncode, 0, "heapscope %s:\n%s%s\nthe program's stderr:\n%s"
                         % (" ".join(args), r.stdout[-2000:], r.stderr, self.program.stderr()))
        self.assertTrue(self.program.alive(), self.program.stderr())
        return r.stdout

    def json(self, *args):
        return json.loads(self.heapscope(*args, "--json"))

    def report(self):
        return self.json("leaks", self.program.socket, "--top", "0")

    def bin_group(self, report):
        groups = [g for g in report["top"] if g["retainer"].endswith(BIN) and g["retained"] == LEAK]
        self.assertEqual(len(groups), 1, report["top"])
        return groups[0]

    def test_groups_named_and_adding_up(self):
        out = self.report()
        self.assertEqual(len(out["top"]), out["groups"])
        g = self.bin_group(out)
        self.assertEqual(g, out["top"][0])
        self.assertEqual(g["group"], 1)
        # the names census --by constructor gives the two constructors
        census = self.json("census", self.program.socket, "--by", "constructor", "--top", "0")
        keys = {r["key"]: r["count"] for r in census["rows"]}
        self.assertEqual(keys[g["retainer"]], 1000)  # a Bin per key
        self.assertEqual(keys[LEAK], 1000)
        self.assertEqual((g["edges"], g["older"], g["kind"]), (1000, 1000, "constructor"))
        self.assertEqual(g["example"]["from_era"], 3)
        self.assertIn(g["example"]["to_era"], (1, 2))
        self.assertEqual(sum(r["edges"] for r in out["top"]), out["edges"])
        keys = [(r["retainer"], r["retained"], r["kind"]) for r in out["top"]]
        self.assertEqual(len(keys), len(set(keys)))
        for r in out["top"]:  # no group is an unnamed constructor
            self.assertNotRegex(r["retainer"], r"^CONSTR", r)
            self.assertNotRegex(r["retained"], r"^CONSTR", r)
        self.assertEqual(shlex.split(g["command"]),
                         ["heapscope", "leaks", self.program.socket, "--group", "1"])

    def test_group_lists_its_edges(self):
        g = self.bin_group(self.report())
        out = self.json("leaks", self.program.socket, "--group", str(g["group"]), "--limit", "0")
        self.assertEqual(out["group"], g)
        self.assertEqual((out["total"], out["limit_reached"]), (1000, False))
        items = out["items"]
        self.assertEqual(len(items), 1000)
        for e in items:
            self.assertEqual(e["from"]["constructor"]["name"], "Bin", e)
            self.assertEqual(e["from"]["era"], 3, e)
            self.assertEqual(e["to"]["constructor"]["name"], "Leak", e)
            self.assertRegex(e["edge"], r"^Field \d+$")
        eras = [e["to"]["era"] for e in items]
        self.assertEqual((eras.count(1), eras.count(2)), (500, 500))
        self.assertEqual(len({e["to"]["address"] for e in items}), 1000)
        self.assertEqual(sum(e["bytes"] for e in items), g["bytes"])
        self.assertEqual(sorted((e["bytes"] for e in items), reverse=True),
                         [e["bytes"] for e in items])
        # the default limit: the 100 that retain most, said to be cut
        cut = self.json("leaks", self.program.socket, "--group", "1")
        self.assertEqual((len(cut["items"]), cut["total"], cut["limit"], cut["limit_reached"]),
                         (100, 1000, 100, True))

    def test_group_text(self):
        g = self.bin_group(self.report())
        report = self.heapscope("leaks", self.program.socket, "--top", "1").splitlines()
        self.assertEqual(report[4].strip(), g["command"])
        lines = self.heapscope(*shlex.split(g["command"])[1:], "--limit", "3").splitlines()
        self.assertEqual(lines[0], "leaks: group 1 of %d, constructor: %s -> %s"
                         % (self.report()["groups"], g["retainer"], LEAK))
        self.assertEqual(lines[1], "1000 edges, 1000 older closures, %d bytes retained only "
                         "through them" % g["bytes"])
        edges = lines[3:9]
        for retainer, retained in zip(edges[0::2], edges[1::2]):
            self.assertRegex(retainer, r"^\s+\d+  0x[0-9a-f]+  CONSTR\S*  \d+ B  era 3  .*  Bin ")
            self.assertRegex(retained, r"^\s+Field \d+ -> 0x[0-9a-f]+  CONSTR\S*  \d+ B  era [12]"
                                       r"  .*  Leak ")
        self.assertEqual(lines[9:], ["… 997 more edges (--limit)"])


class Explorer(harness.TuiCase):
    def setUp(self):
        super().setUp()
        self.program = start()

    def tearDown(self):
        super().tearDown()
        self.program.stop_answering(HEAPSCOPE)

    def test_enter_opens_the_groups_edges(self):
        t = self.tui(self.program.socket, width=200, height=40)
        t.wait_regex(r"(?i)running", timeout=realghc.timeout(30), what="the running screen")
        t.keys("p")
        t.wait_text("GC Roots", timeout=realghc.timeout(60), what="the roots tree after p")
        t.keys("L")
        s = t.wait(lambda s: "Leaks: where" in s.lines[0] and BIN in s.text, "the leaks view",
                   timeout=realghc.timeout(120))
        self.assertIn(BIN, s.selected_text(), s.dump())  # the first group
        t.keys("Enter")
        s = t.wait(lambda s: "Edges of leak group 1" in s.lines[0], "the group's edges",
                   timeout=realghc.timeout(120))
        self.assertIn("100 of 1000 edges", s.lines[0], s.dump())
        self.assertNotIn("Retainers", s.lines[0])
        rows = [s.lines[i] for i in s.rows_with("Leak 0x")]
        self.assertGreaterEqual(len(rows), 10, s.dump())
        for line in rows:
            self.assertRegex(line, r"era 3 → [12] .*0x[0-9a-f]+  CONSTR\S* .*Leak 0x", s.dump())
        self.assertNotIn(" Bin ", s.text)  # the rows are the Leaks, not the Bin table's closures
        # an edge opens into its Bin, then the field holding the Leak
        t.keys("Enter")
        s = t.wait(lambda s: s.rows_with("Newer retainer (era 3)"), "the edge opened")
        self.assertRegex(s.lines[s.row_with("Newer retainer (era 3)")], r"CONSTR\S* .*Bin ")
        self.assertRegex(s.lines[s.row_with("Field ")], r"Field \d+ .*CONSTR\S* .*Leak ")
        t.keys("q")
        t.wait_text("Resume the debuggee before quitting?", what="the question on quitting")
        t.keys("y")
        status, _ = t.wait_exit(timeout=realghc.timeout(30))
        self.assertEqual(status, 0)


if __name__ == "__main__":
    realghc.main(harness.main)
