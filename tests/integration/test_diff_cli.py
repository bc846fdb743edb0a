"""heapscope diff (run by meson test): two synthetic debuggees of one seed
that differ in their leak and their eras; every changed bucket of the diff
must be the difference of the generators' plans, in growth order, and the
new eras those B's plan has and A's lacks. Snapshot files, a live debuggee
(resumed after) and recorded pauses of the cache (cache:N) are compared
alike; unreadable sides get one line each."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, untimed  # noqa: E402
from test_heap_cli import CONSTRUCTOR_TYPES  # noqa: E402

COMMON = ("--closures", "3000", "--seed", "7", "--profiled")
A_ARGS = COMMON + ("--leak-count", "100", "--eras", "4")
B_ARGS = COMMON + ("--leak-count", "500", "--eras", "6")


def changed(before, after):
    """{key: (count_a, bytes_a, count_b, bytes_b)} of the keys whose counts
    differ between two plan tables ({key: {count, bytes}})."""
    out = {}
    for k in set(before) | set(after):
        x = before.get(k, {"count": 0, "bytes": 0})
        y = after.get(k, {"count": 0, "bytes": 0})
        if x != y:
            out[k] = (x["count"], x["bytes"], y["count"], y["bytes"])
    return out


def by_constructor(plan):
    """The plan's census by constructor: its constructors, and the other
    closures keyed by their type."""
    table = dict(plan["by_constructor"])
    table.update({k: v for k, v in plan["by_type"].items() if k not in CONSTRUCTOR_TYPES})
    return table


def growth_order(rows):
    """The order diff promises: grown (bytes, then count, descending), then
    second-level-only changes, then shrunk (most lost first); ties by key."""
    def key(r):
        d = r["bytes_delta"] or r["count_delta"]
        section = 0 if d > 0 else 1 if d == 0 else 2
        sign = -1 if section == 0 else 1
        return (section, sign * r["bytes_delta"], sign * r["count_delta"], r["key"])
    return sorted(rows, key=key)


class Diff(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(cls.tmp.name, "cache"))
        cls.plans, cls.files, cls.debuggees = [], [], []
        for name, args in (("a", A_ARGS), ("b", B_ARGS)):
            plan = os.path.join(cls.tmp.name, name + ".json")
            d = Debuggee(*args, "--plan", plan)
            d.__enter__()
            cls.debuggees.append(d)
            with open(plan) as f:
                cls.plans.append(json.load(f))
            path = os.path.join(cls.tmp.name, name + ".snap")
            cls.run_ok("snapshot", d.socket, "-o", path)
            cls.files.append(path)

    @classmethod
    def tearDownClass(cls):
        for d in cls.debuggees:
            d.__exit__(None, None, None)
        cls.tmp.cleanup()

    @classmethod
    def hs(cls, *args):
        return subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, timeout=300,
                              env=cls.env)

    @classmethod
    def run_ok(cls, *args):
        r = cls.hs(*args)
        if r.returncode != 0:
            raise AssertionError(f"{args} failed: {r.stderr}")
        return r.stdout

    def diff_json(self, a, b, *args):
        return json.loads(self.run_ok("diff", a, b, "--json", *args))

    def rows_of(self, d):
        return {r["key"]: (r["count_a"], r["bytes_a"], r["count_b"], r["bytes_b"])
                for r in d["rows"]}

    def test_rows_are_the_difference_of_the_plans(self):
        a, b = self.plans
        d = self.diff_json(*self.files)
        self.assertEqual(d["by"], ["constructor"])
        ta, tb = by_constructor(a), by_constructor(b)
        expected = changed(ta, tb)
        self.assertEqual(self.rows_of(d), expected)
        self.assertEqual(d["changed"], len(expected))
        self.assertEqual(d["unchanged"], len(set(ta) | set(tb)) - len(expected))
        self.assertEqual(d["rows"], growth_order(d["rows"]))
        for r in d["rows"]:
            self.assertEqual(r["count_delta"], r["count_b"] - r["count_a"])
            self.assertEqual(r["bytes_delta"], r["bytes_b"] - r["bytes_a"])
            self.assertEqual(r["bucket"], "constructor=" + r["key"])
        # the leak grew most: 400 more Leak closures, by the plans' leaks
        first = d["rows"][0]
        self.assertEqual(first["key"], "main:Main:Leak")
        self.assertEqual(first["count_delta"], b["leak"]["count"] - a["leak"]["count"])
        self.assertEqual(first["count_delta"], 400)
        self.assertEqual(first["bytes_delta"], b["leak"]["bytes"] - a["leak"]["bytes"])
        for side, plan in (("a", a), ("b", b)):
            for what in ("count", "bytes"):
                self.assertEqual(d[side]["total_" + what], plan["reachable"][what])
        self.assertEqual(d["bytes_delta"], d["b"]["total_bytes"] - d["a"]["total_bytes"])

    def test_new_eras_are_those_of_b_only(self):
        a, b = self.plans
        d = self.diff_json(*self.files)
        self.assertTrue(d["eras"]["compared"])
        expected = [{"era": int(e), "count": v["count"], "bytes": v["bytes"]}
                    for e, v in sorted(b["by_era"].items(), key=lambda kv: int(kv[0]))
                    if v["count"] and not a["by_era"].get(e, {}).get("count")]
        self.assertTrue(expected, "the plans give B eras A lacks")
        self.assertEqual(d["eras"]["new"], expected)

    def test_text_shows_the_leak_first_and_the_new_eras(self):
        out = self.run_ok("diff", *self.files, "--top", "2").splitlines()
        self.assertEqual(out[0], "diff by constructor")
        self.assertTrue(out[1].startswith("A: ") and out[1].endswith(self.files[0]))
        self.assertTrue(out[2].startswith("B: ") and out[2].endswith(self.files[1]))
        leak = out[5].split()
        self.assertEqual(leak[-1], "main:Main:Leak")
        self.assertEqual(leak[-2:-5:-1], ["+400", "500", "100"])
        self.assertRegex(out[-1 - len(self.diff_json(*self.files)["eras"]["new"])],
                         r"^eras B has and A does not: \d+, \d+ closures, \d+ bytes$")
        self.assertIn("(%d more changed rows; --top 0 shows all)"
                      % (self.diff_json(*self.files)["changed"] - 2), out)

    def test_two_levels_follow_the_plans(self):
        a, b = self.plans
        d = self.diff_json(*self.files, "--by", "constructor,era", "--top", "0")
        self.assertEqual(d["by"], ["constructor", "era"])
        ca, cb = a["by_constructor_era"], b["by_constructor_era"]
        checked = 0
        for r in d["rows"]:
            kids = {c["key"]: (c["count_a"], c["bytes_a"], c["count_b"], c["bytes_b"])
                    for c in r["children"]}
            self.assertEqual(r["children"], growth_order(r["children"]))
            if r["key"] not in ca and r["key"] not in cb:
                continue  # the plans have eras of constructors only
            self.assertEqual(kids, changed(ca.get(r["key"], {}), cb.get(r["key"], {})), r["key"])
            checked += len(kids)
        self.assertGreater(checked, 0)

    def test_filters_apply_to_both(self):
        d = self.diff_json(*self.files, "--exact", "Leak")
        self.assertEqual([r["key"] for r in d["rows"]], ["main:Main:Leak"])
        self.assertEqual(d["a"]["total_count"], 100)
        self.assertEqual(d["b"]["total_count"], 500)
        self.assertEqual(d["unchanged"], 0)

    def test_live_target_is_counted_then_resumed(self):
        live = self.debuggees[1].socket
        from_file = self.diff_json(*self.files)
        from_live = self.diff_json(self.files[0], live)
        self.assertEqual(from_live["b"]["target"], live)
        for d in (from_file, from_live):
            del d["b"]["given"], d["b"]["target"]
        self.assertEqual(untimed(from_live), untimed(from_file))
        self.assertLessEqual(from_live["paused_ms"], from_live["elapsed_ms"])
        r = self.hs("census", live)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("already paused", r.stderr, "diff resumed the debuggee")

    def test_recorded_pauses_are_named_cache_n(self):
        for d in self.debuggees:  # newest last: cache:1 is B, cache:2 is A
            self.run_ok("census", d.socket, "--record")
        listed = json.loads(self.run_ok("cache", "list", "--json"))["pauses"]
        names = [line.split()[0] for line in self.run_ok("cache", "list").splitlines()[2:]]
        self.assertEqual(names, ["cache:%d" % (i + 1) for i in range(len(listed))])
        d = self.diff_json("cache:2", "cache:1")
        self.assertEqual(d["a"]["target"], listed[1]["file"])
        self.assertEqual(d["b"]["target"], listed[0]["file"])
        self.assertEqual(d["rows"], self.diff_json(*self.files)["rows"])
        r = self.hs("diff", "cache:1", "cache:%d" % (len(listed) + 1))
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "heapscope: B (cache:%d): the cache holds %d recorded pauses "
                         "('heapscope cache list')\n" % (len(listed) + 1, len(listed)))
        r = self.hs("diff", "cache:x", self.files[0])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)

    def test_a_ghc_debug_snapshot_is_a_side_too(self):
        gd = os.path.join(self.tmp.name, "a.ghc-debug")
        subprocess.run([os.environ["HEAPSCOPE_DEBUGGEE"], *A_ARGS, "--ghc-debug-snapshot", gd],
                       check=True, capture_output=True, timeout=120)
        d = self.diff_json(gd, self.files[1], "--exact", "Leak")
        self.assertEqual(self.rows_of(d), {"main:Main:Leak": (100, self.plans[0]["leak"]["bytes"],
                                                               500, self.plans[1]["leak"]["bytes"])})

    def test_a_bad_filter_is_a_usage_error_before_any_side_is_opened(self):
        r = self.hs("diff", "/nonexistent/a.sock", "/nonexistent/b.sock", "--min-size", "x")
        self.assertEqual(r.returncode, 2)
        self.assertNotIn("(/nonexistent/", r.stderr)

    def test_unreadable_sides_get_one_line_each(self):
        junk = os.path.join(self.tmp.name, "junk.snap")
        with open(junk, "w") as f:
            f.write("not a snapshot\n")
        missing = os.path.join(self.tmp.name, "missing.sock")
        r = self.hs("diff", junk, missing)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertTrue(lines[0].startswith("heapscope: A (%s): " % junk), lines[0])
        self.assertIn("not a snapshot", lines[0])
        self.assertTrue(lines[1].startswith("heapscope: B (%s): " % missing), lines[1])
        r = self.hs("diff", self.files[0], junk)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("heapscope: B ("), r.stderr)


class EraMissing(unittest.TestCase):
    def test_a_side_without_era_profiling_is_said_so(self):
        with tempfile.TemporaryDirectory() as tmp, \
                Debuggee("--closures", "1000", "--seed", "2") as plain, \
                Debuggee("--closures", "1000", "--seed", "2", "--profiled") as prof:
            env = dict(os.environ, XDG_CACHE_HOME=tmp)
            r = subprocess.run([HEAPSCOPE, "diff", plain.socket, prof.socket, "--json"],
                               capture_output=True, text=True, timeout=300, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            eras = json.loads(r.stdout)["eras"]
            self.assertFalse(eras["compared"])
            self.assertRegex(eras["reason"], r"^A: .*era profiling")
            r = subprocess.run([HEAPSCOPE, "diff", prof.socket, plain.socket],
                               capture_output=True, text=True, timeout=300, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout.splitlines()[-1], r"^eras not compared: B: .*era profiling")


if __name__ == "__main__":
    unittest.main()
