"""heapscope dominators / show --retained / retainers --merged (issue 12)
against the synthetic debuggee's planted leak: the planted thunk retains
exactly the leak list (cells, Leak closures and their heap-allocated I#
boxes), each cell its own tail, the planted path's links dominate each
other, the tree covers exactly what `find` reaches; the merged paths hold
every match once, counts and bytes adding up at every node; a dominator
computation stuck on a request stops at SIGINT or --timeout, prints no tree
and resumes the debuggee (run by meson test)."""
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, PlantedCase, raw_status, run  # noqa: E402
import valgrind  # noqa: E402  (tests/common, on the path test_cli set)

LEAKS = 300  # past INTLIKE_MAX, so some leaks hold heap I# boxes; each adds a path to --limit 0
INTLIKE_MAX = 255  # GHC's static INTLIKE closures cover -16..255: no heap box for them

CONS, LEAK, IBOX = 24, 24, 16  # bytes without profiling header: (:), Leak (I# n) w, I# n


class PlantedDominators(PlantedCase):
    SAME_HEAP_UNDER_VALGRIND = True
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
        for _ in range(valgrind.scaled(LEAKS - 1, 10)):  # down the list: Leak values 1, 2, ...
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

    def test_merged_paths(self):
        out = self.json_of("retainers", "--exact", "Leak", "--merged", "--limit", "0")
        self.assertEqual(out["count"], LEAKS + 1)  # and the orphan only a saved object holds
        self.assertNotIn("matches", out)
        nodes = out["merged"]
        self.assertEqual([n["id"] for n in nodes], list(range(len(nodes))))
        children = {n["id"]: [] for n in nodes}
        for n in nodes:  # depth first: a parent comes before its children
            if n["parent"] is not None:
                self.assertLess(n["parent"], n["id"])
                children[n["parent"]].append(n)
        starts = [n for n in nodes if n["parent"] is None]
        self.assertEqual([s["start"] for s in starts], ["gc-root", "saved-object"])
        self.assertEqual([s["matches"] for s in starts], [LEAKS, 1])
        self.assertEqual([s["bytes"] for s in starts], [LEAKS * LEAK, LEAK])
        # the planted path is the GC root's single chain down to the list
        node = starts[0]
        for step in self.plan["leak"]["path"][:-1]:
            self.assertEqual(node["closure"]["address"], step["address"])
            self.assertEqual(node["matches"], LEAKS)
            node = children[node["id"]][0]
        # every node: its matches and bytes are its own plus its children's
        for n in nodes:
            kids, own = children[n["id"]], 1 if n["match"] else 0
            self.assertEqual(n["matches"], own + sum(c["matches"] for c in kids))
            self.assertEqual(n["bytes"], own * n["closure"]["size"] + sum(c["bytes"] for c in kids))
            self.assertEqual([c["bytes"] for c in kids],
                             sorted((c["bytes"] for c in kids), reverse=True))
        self.assertEqual(sum(n["match"] for n in nodes), LEAKS + 1)
        seen = [n["closure"]["address"] for n in nodes]
        self.assertEqual(len(seen), len(set(seen)))
        # the same paths as without --merged
        plain = self.json_of("retainers", "--exact", "Leak", "--limit", "0")
        on_paths = {s["address"] for m in plain["matches"] for s in m["path"]}
        self.assertEqual(on_paths, set(seen))

    def test_merged_text(self):
        r = run("retainers", self.debuggee.socket, "--exact", "Leak", "--merged", "--limit", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "retainers of closures with Exact constructor name Leak")
        self.assertRegex(lines[1], r"^GC root: 5 matches, 120 B  0x[0-9a-f]+  TSO ")
        self.assertRegex(lines[2], r"^  Stack: 5 matches, 120 B  ")
        self.assertEqual(sum("(a match)" in line for line in lines), 5)
        self.assertRegex(lines[-1], r"^5 matches, stopped at the limit of 5")

    def test_top_is_checked(self):
        r = run("dominators", self.debuggee.socket, "--top", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--top", r.stderr)

    def test_retainers_and_find_retained(self):
        # each Leak of the planted list retains itself and its I# box when
        # the box is on the heap; together exactly the list's Leaks and boxes
        boxes = sum(1 for i in range(1, LEAKS + 1) if i > INTLIKE_MAX)
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "0", "--retained")
        planted = [m for m in out["matches"] if m["start"] == "gc-root"]
        self.assertEqual(len(planted), LEAKS)
        for m in planted:
            self.assertIn(m["retained"], (LEAK, LEAK + IBOX))
        self.assertEqual(sum(m["retained"] for m in planted), LEAKS * LEAK + boxes * IBOX)
        orphan = [m for m in out["matches"] if m["start"] == "saved-object"][0]
        self.assertEqual(orphan["retained"], LEAK)  # its I# 0 is static
        # find gives the same sizes, the same as show --retained
        found = self.json_of("find", "--exact", "Leak", "--limit", "0", "--retained")
        by_addr = {m["closure"]["address"]: m["retained"] for m in found["matches"]}
        self.assertEqual(by_addr, {m["path"][-1]["address"]: m["retained"]
                                   for m in out["matches"]})
        first = planted[0]["path"][-1]["address"]
        self.assertEqual(by_addr[first], self.show(first, 0)["retained"])
        # without the option, no field
        plain = self.json_of("find", "--exact", "Leak", "--limit", "1")
        self.assertNotIn("retained", plain["matches"][0])

    def test_retained_text_and_merged(self):
        r = run("find", self.debuggee.socket, "--exact", "Leak", "--limit", "3", "--retained")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stdout.splitlines() if "Leak" in l]
        self.assertEqual(len(lines), 3)
        for line in lines:
            self.assertRegex(line, r"  \[retains (24|40) B\]$")
        r = run("retainers", self.debuggee.socket, "--exact", "Leak", "--limit", "1",
                "--retained")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout.splitlines()[1], r"^#1  Leak at .*  \[retains (24|40) B\]$")
        r = run("retainers", self.debuggee.socket, "--exact", "Leak", "--merged", "--retained")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--retained does not apply to --merged", r.stderr)

    def census_row(self, out, name):
        return [r for r in out["rows"] if r["key"].endswith(":" + name)][0]

    def test_census_retained(self):
        boxes = sum(1 for i in range(1, LEAKS + 1) if i > INTLIKE_MAX)
        out = self.json_of("census", "--by", "constructor", "--retained")
        leak = self.census_row(out, "Leak")
        # the census walks from the GC roots: the planted list's Leaks, not
        # the orphan only a saved object holds (though the tree has it)
        self.assertEqual(leak["count"], LEAKS)
        # Leaks never hold Leaks: each its own bytes and its heap I# box
        self.assertEqual(leak["retained"], LEAKS * LEAK + boxes * IBOX)
        # the cells nest (each dominates its tail): the row counts each once,
        # so it holds the planted list's bytes but far less than the cells'
        # retained sizes added up
        cons = self.census_row(out, ":")
        cells = self.json_of("find", "--exact", ":", "--limit", "0", "--retained")
        first = self.plan["leak"]["path"][4]["address"]
        whole_list = self.show(first, 0)["retained"]
        self.assertGreaterEqual(cons["retained"], whole_list)
        self.assertLess(cons["retained"], sum(m["retained"] for m in cells["matches"]))
        self.assertLessEqual(cons["retained"], self.json_of("dominators", "--top", "1")["bytes"])
        # --sort retained: largest first, the column implied
        by_retained = self.json_of("census", "--by", "constructor", "--sort", "retained")
        values = [r["retained"] for r in by_retained["rows"]]
        self.assertEqual(values, sorted(values, reverse=True))
        self.assertEqual(self.census_row(by_retained, "Leak")["retained"], leak["retained"])
        self.assertNotIn("retained", self.json_of("census")["rows"][0])
        r = run("census", self.debuggee.socket, "--by", "constructor", "--retained", "--top", "0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"(?m)^ +retained +bytes +count")
        self.assertRegex(r.stdout, r"(?m)^ +%d +%d +%d .*Leak$" % (
            leak["retained"], leak["bytes"], leak["count"]))


class ErasRetained(PlantedCase):
    ARGS = ("--closures", "20000", "--profiled", "--eras", "6", "--leak-count", "300",
            "--leak-era", "2", "--seed", "7")

    def test_census_by_era_retained(self):
        # era 0 (static closures, no header) is a raw value of 0, a row like
        # the others. Every closure the dominator tree holds is in one row's
        # subtrees: the rows together hold at least the tree's bytes. (The
        # census also counts closures only a WEAK's fields reach; the tree
        # has no place for them, they add nothing.)
        out = self.json_of("census", "--by", "era", "--retained")
        rows = {r["key"]: r for r in out["rows"]}
        self.assertGreater(rows["0"]["retained"], 0)
        tree = self.json_of("dominators", "--top", "1")
        self.assertGreaterEqual(sum(r["retained"] for r in out["rows"]), tree["bytes"])
        self.assertLessEqual(max(r["retained"] for r in out["rows"]), tree["bytes"])
        for r in out["rows"]:
            self.assertGreater(r["retained"], 0, r["key"])
        # thunks: the same column on a thunk census
        thunks = self.json_of("thunks", "--retained", "--sort", "retained")
        values = [r["retained"] for r in thunks["rows"]]
        self.assertTrue(values)
        self.assertEqual(values, sorted(values, reverse=True))
        self.assertGreater(values[-1], 0)

class StoppedComputation(unittest.TestCase):
    """The debuggee never answers INFO_TABLES, which only the dominator
    computation asks for (the pause reads the roots and blocks without it):
    the computation is stuck on its first request, deterministically."""

    ROOTS, NOT_PAUSED = 4, 0x0102
    STUCK = ("--closures", "3000", "--seed", "3", "--silent-on", "INFO_TABLES")

    def start(self, d, *args):
        p = subprocess.Popen([HEAPSCOPE, "dominators", d.socket, "--no-cache", *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        return p

    def test_sigint_stops_it(self):
        """The request in flight is never answered: SIGINT waits for its
        answer (a real stub would still write it, and dies writing to a
        closed connection) until --timeout, then leaves it saying what that
        risks, and resumes the debuggee over a new connection."""
        with Debuggee(*self.STUCK, log=True) as d:
            p = self.start(d, "--timeout", "3000")
            d.wait_request("INFO_TABLES")  # paused and stuck by then
            self.assertIsNone(p.poll(), "the computation ended")
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 130, err)
            self.assertEqual(out, "", "no tree")
            self.assertIn("finishing the answer in flight to INFO_TABLES", err)
            self.assertIn("INFO_TABLES: no answer from %s for 3000 ms (finishing a cancelled "
                          "answer); closing the connection may kill the program" % d.socket, err)
            self.assertEqual(err.strip().splitlines()[-1],
                             "heapscope: interrupted by SIGINT: the debuggee was resumed")
            self.assertEqual(raw_status(d.socket, self.ROOTS), self.NOT_PAUSED)

    def test_timeout_stops_it(self):
        with Debuggee(*self.STUCK) as d:
            out, err = self.start(d, "--timeout", "1000").communicate(timeout=30)
            self.assertEqual(out, "", "no tree")
            self.assertRegex(err, r"^heapscope: INFO_TABLES: no answer from \S+ for 1000 ms; "
                             r"closing the connection may kill the program\n$")
            self.assertEqual(raw_status(d.socket, self.ROOTS), self.NOT_PAUSED)

    def test_timeout_says_when_the_debuggee_may_be_left_paused(self):
        # the RESUME after the timeout is not answered either: the user is
        # told, after the command's own error (it was silent)
        with Debuggee(*self.STUCK, "--silent-on", "RESUME") as d:
            p = self.start(d, "--timeout", "1000")
            out, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 1, err)
            self.assertEqual(out, "")
            lines = err.splitlines()
            self.assertEqual(len(lines), 2, err)
            self.assertRegex(lines[0], r"^heapscope: INFO_TABLES: no answer from \S+ for 1000 ms; "
                                       r"closing the connection may kill the program$")
            self.assertRegex(lines[1], r"^heapscope: the debuggee may be left paused: RESUME: "
                                       r"no answer from \S+ for 1000 ms; closing the connection may kill "
                                       r"the program$")

if __name__ == "__main__":
    unittest.main(verbosity=2)
