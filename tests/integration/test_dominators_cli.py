"""heapscope dominators / show --retained against the synthetic debuggee's
planted leak: the planted thunk retains exactly the leak list (cells, Leak
closures and their heap-allocated I# boxes), each cell its own tail, the
planted path's links dominate each other, and the tree covers exactly what
`find` reaches (run by meson test)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import PlantedCase, run  # noqa: E402  (same helpers, same binary)

LEAKS = 700
INTLIKE_MAX = 255  # GHC's static INTLIKE closures cover -16..255: no heap box for them

CONS, LEAK, IBOX = 24, 24, 16  # bytes without profiling header: (:), Leak (I# n) w, I# n


class PlantedDominators(PlantedCase):
    ARGS = ("--closures", "30000", "--leak-count", str(LEAKS), "--seed", "5", "--saved-shortcut")

    def show(self, addr, depth):
        return self.json_of("show", addr, "--retained", "--depth", str(depth))

    def test_thunk_retains_the_leak_list(self):
        path = self.plan["leak"]["path"]
        thunk = self.show(path[3]["address"], 0)
        self.assertEqual(thunk["closure"]["type"], "THUNK_1_0")
        # the list's first cell is also saved (--saved-shortcut), but
        # saved objects come after the GC roots: the thunk still dominates it
        boxes = sum(1 for i in range(1, LEAKS + 1) if i > INTLIKE_MAX)
        expected = thunk["closure"]["size"] + LEAKS * (CONS + LEAK) + boxes * IBOX
        self.assertEqual(thunk["retained"], expected)
        self.assertEqual(thunk["dominator"], path[2]["address"])  # the IORef
        ioref = self.show(path[2]["address"], 0)
        self.assertEqual(ioref["dominator"], path[1]["address"])  # the stack frame's STACK

    def test_each_cell_retains_its_tail(self):
        path = self.plan["leak"]["path"]
        cell = path[4]["address"]
        for _ in range(300):  # down the list: Leak values 1, 2, ...
            node = self.show(cell, 2)
            leak, tail = node["children"]
            self.assertEqual(leak["closure"]["constructor"]["name"], "Leak")
            self.assertEqual(leak["dominator"], cell)
            box = leak["children"][0]
            heap_box = box["dominator"] == leak["closure"]["address"]
            self.assertEqual(leak["retained"], LEAK + (IBOX if heap_box else 0))
            self.assertEqual(node["retained"], CONS + leak["retained"] + tail["retained"])
            self.assertEqual(tail["dominator"], cell)
            cell = tail["closure"]["address"]

    def test_orphan_only_a_saved_object_reaches(self):
        # the one-cell list only a saved object holds hangs from the root
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "0")
        orphans = [m for m in out["matches"] if m["start"] == "saved-object"]
        self.assertEqual(len(orphans), 1)
        cell, leak = orphans[0]["path"][0], orphans[0]["path"][-1]
        self.assertEqual(len(orphans[0]["path"]), 2)
        node = self.show(cell["address"], 1)
        self.assertIsNone(node["dominator"])
        self.assertEqual(node["retained"], CONS + LEAK)  # its Leak holds the static I# 0
        self.assertEqual(node["children"][0]["dominator"], cell["address"])
        self.assertEqual(node["children"][0]["closure"]["address"], leak["address"])

    def test_top_rows_and_totals(self):
        out = self.json_of("dominators", "--top", "50")
        found = self.json_of("find", "--limit", "0")
        # the same closures as the retainer search visits; all of them
        # match but WEAKs, which never do
        self.assertEqual(out["closures"], found["visited"])
        self.assertGreater(out["bytes"], sum(m["closure"]["size"] for m in found["matches"]))
        rows = out["top"]
        self.assertEqual(len(rows), 50)
        retained = [r["retained"] for r in rows]
        self.assertEqual(retained, sorted(retained, reverse=True))
        self.assertLessEqual(retained[0], out["bytes"])
        for r in rows:
            addr = r["closure"]["address"]
            kids = r["dominated"]
            self.assertLessEqual(len(kids), 5)
            self.assertTrue(all(k["dominator"] == addr for k in kids))
            self.assertEqual([k["retained"] for k in kids],
                             sorted((k["retained"] for k in kids), reverse=True))
            if r["more_dominated"] == 0:
                self.assertEqual(r["retained"],
                                 r["closure"]["size"] + sum(k["retained"] for k in kids))
            else:
                self.assertGreater(r["retained"],
                                   r["closure"]["size"] + sum(k["retained"] for k in kids))

    def test_text_output(self):
        r = run("dominators", self.debuggee.socket, "--top", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^dominators: \d+ reachable closures, \d+ bytes$")
        self.assertRegex(lines[2], r"^ *\d+  0x[0-9a-f]+  \w+  \d+ B")
        path = self.plan["leak"]["path"]
        r = run("show", self.debuggee.socket, path[3]["address"], "--retained", "--depth", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\[retains \d+ B, dominator " + path[2]["address"] + r"\]\n$")

    def test_top_is_checked(self):
        r = run("dominators", self.debuggee.socket, "--top", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--top", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
