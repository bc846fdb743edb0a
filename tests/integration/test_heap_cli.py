"""heapscope roots / show / census against the synthetic debuggee, checked
against what its generator says it planted (run by meson test)."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import Debuggee, PlantedCase, raw_status, run  # noqa: E402  (same helpers, same binary)

CONSTRUCTOR_TYPES = {"CONSTR", "CONSTR_1_0", "CONSTR_0_1", "CONSTR_2_0", "CONSTR_1_1",
                     "CONSTR_0_2", "CONSTR_NOCAF"}


class PlantedHeap(PlantedCase):
    """One profiled debuggee with a planted leak, shared by the tests."""

    ARGS = ("--closures", "30000", "--profiled", "--eras", "6", "--leak-count", "700",
            "--leak-era", "2", "--seed", "5")

    def census(self, by):
        return self.json_of("census", "--by", by)

    def test_census_by_constructor_matches_plan(self):
        census = self.census("constructor")
        rows = {r["key"]: r for r in census["rows"]}
        planted = self.plan["by_constructor"]
        self.assertIn("main:Main:Leak", rows)
        for key, want in planted.items():
            self.assertIn(key, rows, key)
            self.assertEqual(rows[key]["count"], want["count"], key)
            self.assertEqual(rows[key]["bytes"], want["bytes"], key)
        leak = rows["main:Main:Leak"]
        self.assertEqual(leak["count"], 700)
        self.assertEqual(leak["count"], self.plan["leak"]["count"])
        self.assertEqual(leak["bytes"], self.plan["leak"]["bytes"])
        # non-constructors are keyed by their type, with the plan's counts
        for key, want in self.plan["by_type"].items():
            if key not in CONSTRUCTOR_TYPES:
                self.assertEqual(rows[key]["count"], want["count"], key)
        byte_counts = [r["bytes"] for r in census["rows"]]
        self.assertEqual(byte_counts, sorted(byte_counts, reverse=True))

    def test_census_totals_match_plan(self):
        census = self.census("type")
        self.assertEqual(census["total_count"], self.plan["reachable"]["count"])
        self.assertEqual(census["total_bytes"], self.plan["reachable"]["bytes"])
        rows = {r["key"]: r for r in census["rows"]}
        # the plan's by_type holds the closures that are not constructors
        for key, want in self.plan["by_type"].items():
            self.assertEqual(rows[key]["count"], want["count"], key)
            self.assertEqual(rows[key]["bytes"], want["bytes"], key)
        self.assertEqual(set(rows) - CONSTRUCTOR_TYPES, set(self.plan["by_type"]))
        constructors = sum(rows[k]["count"] for k in CONSTRUCTOR_TYPES if k in rows)
        self.assertEqual(constructors, sum(v["count"] for v in self.plan["by_constructor"].values()))

    def test_census_by_era_matches_plan(self):
        census = self.census("era")
        rows = {r["key"]: r for r in census["rows"]}
        for era, want in self.plan["by_era"].items():
            self.assertEqual(rows[era]["count"], want["count"], era)
            self.assertEqual(rows[era]["bytes"], want["bytes"], era)

    def test_census_by_source_names_the_thunk_location(self):
        census = self.census("source")
        keys = {r["key"] for r in census["rows"]}
        thunk = [p for p in self.plan["leak"]["path"] if p["type"].startswith("THUNK")][0]
        self.assertIn(thunk["location"], keys)
        self.assertEqual(sum(r["count"] for r in census["rows"]), self.plan["reachable"]["count"])

    def test_census_text_top(self):
        r = run("census", self.debuggee.socket, "--by", "constructor", "--top", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("census by constructor: "))
        self.assertEqual(len(lines), 2 + 3 + 1)  # title, header, 3 rows, "more rows"
        self.assertIn("more rows", lines[-1])

    def test_roots_lists_threads_and_saved_objects(self):
        roots = self.json_of("roots")
        self.assertGreater(len(roots["roots"]), 0)
        self.assertEqual(roots["roots"][0]["type"], "TSO")
        addresses = {int(r["address"], 16) for r in roots["roots"]}
        self.assertIn(int(self.plan["leak"]["root"], 16) & ~7, addresses)
        for r in roots["roots"] + roots["saved_objects"]:
            self.assertIn("label", r)
            self.assertGreater(r["size"], 0)
            self.assertIn("era", r)  # profiled with eras

    # ---- threads and stack frames (issue 20, point 5) --------------------

    def threads(self):
        """{thread id: TSO object} of every TSO among the roots and saved
        objects (the generator numbers its 8 threads 1..8; T1 = id 2 is
        labelled worker-1)."""
        roots = self.json_of("roots")
        tsos = [r for r in roots["roots"] + roots["saved_objects"] if r["type"] == "TSO"]
        return {t["thread_id"]: t for t in tsos}

    def test_threads_have_ids_and_labels(self):
        threads = self.threads()
        self.assertEqual(set(threads), set(range(1, 9)))
        for tid, t in threads.items():
            self.assertEqual(t["thread_label"], "worker-1" if tid == 2 else None, t)
            self.assertTrue(t["label"].startswith("TSO %d%s: " % (
                tid, ' "worker-1"' if tid == 2 else "")), t["label"])
        r = run("roots", self.debuggee.socket)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r'\n  %s  TSO .*  TSO 2 "worker-1": NotBlocked\n'
                         % threads[2]["address"])
        self.assertRegex(r.stdout, r"  TSO 1: BlockedOnMVar\n")

    def stack_of(self, tso):
        tree = self.json_of("show", tso["address"], "--depth", "1")
        return next(c["closure"] for c in tree["children"] if c["edge"] == "Stack")

    def test_stack_frames_say_their_kind_and_code(self):
        stack = self.stack_of(self.threads()[2])  # the worker's, a frame of each kind
        self.assertRegex(stack["label"], r"^Stack \(\d+ words, \d+ used\)$")
        frames = stack["frames"]
        self.assertEqual([f["number"] for f in frames], list(range(len(frames))))
        self.assertEqual(stack["frames_more"], 0)
        kinds = {f["kind"] for f in frames}
        for kind in ("stop frame", "catch frame", "case continuation",
                     "case continuation (large)", "function return", "update frame"):
            self.assertIn(kind, kinds)
        types = {f["kind"]: f["type"] for f in frames}
        self.assertEqual(types["update frame"], "UPDATE_FRAME")
        self.assertEqual(types["function return"], "RET_FUN")
        located = [f for f in frames if f["location"]]
        self.assertTrue(located)
        for f in located:
            self.assertRegex(f["info"], r"^0x[0-9a-f]+$")
            self.assertEqual(f["location"]["file"] + ":" + f["location"]["span"],
                             f["location"]["position"])
        # text: every frame is a line, with or without pointers
        r = run("show", self.debuggee.socket, stack["address"], "--depth", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        for f in frames:
            mine = [l for l in lines if ("Frame %d (%s" % (f["number"], f["kind"])) in l]
            self.assertTrue(mine, "frame %d in\n%s" % (f["number"], r.stdout))
            if f["location"]:
                self.assertIn(" at %s)" % f["location"]["position"], mine[0])
        update = next(f["number"] for f in frames if f["kind"] == "update frame")
        self.assertTrue(any(("Frame %d (update frame" % update) in l and ") Pointer: 0x" in l
                            for l in lines), r.stdout)

    def test_merged_paths_keep_the_thread_label(self):
        stack = self.stack_of(self.threads()[2])
        out = self.json_of("retainers", "--address", stack["address"], "--merged")
        root = out["merged"][0]["closure"]
        self.assertEqual((root["type"], root["thread_id"], root["thread_label"]),
                         ("TSO", 2, "worker-1"))
        self.assertEqual(root["label"], 'TSO 2 "worker-1": NotBlocked')

    def test_retainer_path_names_the_frame_that_holds_it(self):
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "1")
        path = out["matches"][0]["path"]
        self.assertEqual(path[0]["thread_id"], 1)  # the main thread, unlabelled
        self.assertIsNone(path[0]["thread_label"])
        k = next(i for i, s in enumerate(path) if s["type"] == "STACK") + 1
        held = path[k]
        # the leak frame of the generator's catalog (SG_T_LEAK_FRAME): Main.leaky
        where = "app/Main.hs:40:5-32"
        self.assertRegex(held["edge"], r"^Frame \d+ \(case continuation in Main\.leaky at %s\) "
                         r"Pointer$" % re.escape(where))
        frame = held["frame"]
        self.assertEqual(held["edge"], "Frame %d (case continuation in Main.leaky at %s) Pointer"
                         % (frame["number"], where))
        self.assertEqual((frame["kind"], frame["type"]), ("case continuation", "RET_SMALL"))
        self.assertEqual(frame["location"]["position"], where)
        self.assertEqual(frame["location"]["label"], "leaky")
        self.assertTrue(all(s["frame"] is None for i, s in enumerate(path) if i != k))
        r = run("retainers", self.debuggee.socket, "--exact", "Leak", "--limit", "1")
        self.assertIn("  Frame %d (case continuation in Main.leaky at %s) Pointer  "
                      % (frame["number"], where), r.stdout)

    def test_show_prints_the_planted_chain(self):
        path = self.plan["leak"]["path"]
        root = path[0]["address"]
        r = run("show", self.debuggee.socket, root, "--depth", str(len(path) - 1))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith(root + "  TSO"), lines[0])
        for step in path:
            self.assertTrue(any(step["address"] in line for line in lines), step)
        thunk = [p for p in path if p["type"].startswith("THUNK")][0]
        thunk_line = [l for l in lines if thunk["address"] + "  THUNK" in l]
        self.assertTrue(thunk_line, r.stdout)
        self.assertIn(thunk["location"], thunk_line[0])
        self.assertIn("era %d" % thunk["era"], thunk_line[0])
        leak_line = [l for l in lines if path[-1]["address"] + "  CONSTR" in l]
        self.assertTrue(leak_line and "Leak " in leak_line[0], r.stdout)

    def test_show_json_nests_children(self):
        path = self.plan["leak"]["path"]
        tree = self.json_of("show", path[0]["address"], "--depth", str(len(path) - 1))
        self.assertIsNone(tree["edge"])
        self.assertEqual(tree["closure"]["address"], path[0]["address"])
        node = tree
        for step in path[1:]:  # follow the planted chain through the children
            node = next(c for c in node["children"] if c.get("closure", {}).get("address") == step["address"])
            self.assertTrue(node["edge"])
        self.assertEqual(node["closure"]["constructor"]["name"], self.plan["leak"]["constructor"])

    def test_show_json_location_has_file_and_span(self):
        thunk = [p for p in self.plan["leak"]["path"] if p["type"].startswith("THUNK")][0]
        tree = self.json_of("show", thunk["address"], "--depth", "0")
        loc = tree["closure"]["location"]
        self.assertEqual(loc["position"], thunk["location"])
        self.assertEqual(loc["file"] + ":" + loc["span"], thunk["location"])
        self.assertTrue(loc["file"].endswith(".hs"))
        self.assertEqual(tree["children"], [])

    def test_show_bad_address(self):
        r = run("show", self.debuggee.socket, "banana")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a closure address", r.stderr)

    def test_show_where_no_closure_lives(self):
        # a stale heap address (inside the first Leak), one outside the heap,
        # and the word after a cons cell's info pointer (issue 9, item 4)
        leak = int(self.plan["leak"]["first_match"], 16)
        for addr in ("0x%x" % (leak + 8), "0x10", "0x7ff000001000"):
            for json_flag in ((), ("--json",)):
                r = run("show", self.debuggee.socket, addr, *json_flag)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertEqual(r.stdout, "")
                self.assertIn("no closure at %s in this pause" % addr, r.stderr)
                self.assertNotIn("refused", r.stderr)

    def test_census_by_bad_kind(self):
        r = run("census", self.debuggee.socket, "--by", "colour")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--by wants", r.stderr)

    def test_option_for_another_command_is_refused(self):
        r = run("roots", self.debuggee.socket, "--depth", "3")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--depth does not apply to 'roots'", r.stderr)

    def raw_status(self, command):
        return raw_status(self.debuggee.socket, command)

    def test_commands_restore_the_pause_state(self):
        ROOTS, RESUME, NOT_PAUSED = 4, 3, 0x0102
        self.assertEqual(run("census", self.debuggee.socket).returncode, 0)
        self.assertEqual(self.raw_status(ROOTS), NOT_PAUSED, "census resumed the debuggee")
        r = run("roots", self.debuggee.socket, "--leave-paused")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.raw_status(ROOTS), 0, "--leave-paused left it paused")
        r = run("census", self.debuggee.socket, "--top", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.raw_status(ROOTS), 0, "found paused, so left paused")
        self.assertEqual(self.raw_status(RESUME), 0)


class NonProfiled(unittest.TestCase):
    def test_census_by_era_needs_era_profiling(self):
        with Debuggee("--closures", "2000") as d:
            r = run("census", d.socket, "--by", "era")
            self.assertEqual(r.returncode, 1)
            self.assertIn("era profiling", r.stderr)

    def test_census_matches_plan_non_profiled(self):
        with tempfile.TemporaryDirectory() as tmp:
            plan_path = os.path.join(tmp, "plan.json")
            with Debuggee("--closures", "20000", "--seed", "9", "--plan", plan_path) as d:
                with open(plan_path) as f:
                    plan = json.load(f)
                r = run("census", d.socket, "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                census = json.loads(r.stdout)
                self.assertEqual(census["total_count"], plan["reachable"]["count"])
                self.assertEqual(census["total_bytes"], plan["reachable"]["bytes"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
