"""heapscope census (two levels, filters, sort), thunks and the --bucket
filter against the synthetic debuggee, checked against its generator's plan
(by_constructor_era, by_era, by_thunk). Run by meson test."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import PlantedCase, run  # noqa: E402  (same helpers, same binary)


def counts(rows):
    return {r["key"]: (r["count"], r["bytes"]) for r in rows}


class PlantedCensus(PlantedCase):
    ARGS = ("--closures", "30000", "--profiled", "--eras", "6", "--leak-count", "400",
            "--leak-era", "2", "--seed", "7")

    def ok(self, *args):
        r = run(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_two_levels_match_the_plan(self):
        census = self.json_of("census", "--by", "constructor,era")
        self.assertEqual(census["levels"], ["constructor", "era"])
        self.assertEqual(census["total_count"], self.plan["reachable"]["count"])
        rows = {r["key"]: r for r in census["rows"]}
        for con, eras in self.plan["by_constructor_era"].items():
            row = rows[con]
            self.assertEqual(counts(row["children"]),
                             {e: (v["count"], v["bytes"]) for e, v in eras.items()}, con)
            self.assertEqual(row["bucket"], "constructor=" + con)
            for child in row["children"]:
                self.assertEqual(child["bucket"], "era=" + child["key"])
        for row in census["rows"]:  # every row's children add up to it
            self.assertEqual(sum(c["count"] for c in row["children"]), row["count"], row["key"])
            self.assertEqual(max(c["max"] for c in row["children"]), row["max"], row["key"])

    def test_thunks_match_the_plan(self):
        thunks = self.json_of("thunks")
        want = {k: (v["count"], v["bytes"]) for k, v in self.plan["by_thunk"].items()}
        self.assertGreater(len(want), 10)
        self.assertEqual(counts(thunks["rows"]), want)
        self.assertEqual(thunks["total_count"], sum(c for c, _ in want.values()))
        self.assertEqual(thunks["visited"], self.plan["reachable"]["count"])
        sizes = [r["bytes"] for r in thunks["rows"]]
        self.assertEqual(sizes, sorted(sizes, reverse=True))
        for r in thunks["rows"]:
            self.assertEqual(r["bucket"], "thunk=" + r["key"])
            self.assertAlmostEqual(r["avg"], r["bytes"] / r["count"], places=1)
        # the leak's thunk is one of them, under its source location
        thunk = [p for p in self.plan["leak"]["path"] if p["type"].startswith("THUNK")][0]
        self.assertIn(thunk["location"], want)

    def test_thunks_text_names_the_bucket_of_the_largest_row(self):
        out = self.ok("thunks", self.debuggee.socket, "--top", "3").splitlines()
        total = sum(v["count"] for v in self.plan["by_thunk"].values())
        self.assertRegex(out[0], r"^thunks: %d thunks, \d+ bytes \(of %d closures visited\)$"
                         % (total, self.plan["reachable"]["count"]))
        largest = max(self.plan["by_thunk"].items(), key=lambda kv: (kv[1]["bytes"], kv[0]))
        self.assertTrue(out[2].endswith("  " + largest[0]), out[2])
        self.assertIn("(%d more rows" % (len(self.plan["by_thunk"]) - 3), out[-2])
        self.assertEqual(out[-1], "retainers of a row: heapscope retainers TARGET --bucket "
                         "'thunk=%s'" % largest[0])

    def test_bucket_finds_exactly_a_rows_closures(self):
        thunks = self.json_of("thunks")
        for row in thunks["rows"][:3]:
            found = self.json_of("find", "--bucket", row["bucket"], "--limit", "0")
            self.assertEqual(found["count"], row["count"], row["bucket"])
        leak_era = self.plan["by_constructor_era"]["main:Main:Leak"]["2"]["count"]
        self.assertEqual(leak_era, 400)
        found = self.json_of("retainers", "--bucket", "constructor=main:Main:Leak",
                             "--bucket", "era=2", "--limit", "0")
        self.assertEqual(found["count"], leak_era)
        self.assertEqual(found["filters"], ["Census bucket constructor=main:Main:Leak",
                                            "Census bucket era=2"])
        none = self.json_of("find", "--bucket", "constructor=main:Main:Nope", "--limit", "0")
        self.assertEqual(none["count"], 0)

    def test_filters_choose_what_is_counted(self):
        census = self.json_of("census", "--by", "constructor", "--era", "2")
        self.assertEqual(census["total_count"], self.plan["by_era"]["2"]["count"])
        self.assertEqual(census["total_bytes"], self.plan["by_era"]["2"]["bytes"])
        self.assertEqual(census["visited"], self.plan["reachable"]["count"])
        self.assertEqual(census["filters"], ["Era range 2"])
        leak = [r for r in census["rows"] if r["key"] == "main:Main:Leak"][0]
        self.assertEqual(leak["count"], 400)
        thunks = self.json_of("thunks", "--not-type", "THUNK_1_0")
        self.assertLess(thunks["total_count"], sum(v["count"] for v in self.plan["by_thunk"].values()))
        self.assertEqual(thunks["total_count"], sum(v["count"] for v in self.plan["by_thunk"].values())
                         - self.plan["by_type"]["THUNK_1_0"]["count"])

    def test_sort_by_each_column(self):
        def value(r, col):
            return r[col] if col != "key" else r["key"]
        for col in ("count", "bytes", "max", "avg", "key"):
            census = self.json_of("census", "--by", "type,era", "--sort", col)
            self.assertEqual(census["sort"], col)
            for rows in [census["rows"]] + [r["children"] for r in census["rows"]]:
                got = [value(r, col) for r in rows]
                self.assertEqual(got, sorted(got, reverse=col != "key"), col)

    def test_text_second_level_is_indented_under_its_row(self):
        out = self.ok("census", self.debuggee.socket, "--by", "constructor,era",
                      "--top", "2").splitlines()
        self.assertEqual(out[0].split(":")[0], "census by constructor,era")
        self.assertIn("constructor / era", out[1])
        top = out[2].split()
        self.assertEqual(len(top), 5)
        first_child = out[3]
        self.assertRegex(first_child, r"^\s+\d+\s+\d+\s+\d+\s+[\d.]+    \d+$")
        self.assertTrue(out[-1].startswith("("), out[-1])

    def test_usage_errors(self):
        for args, message in [(("--by", "type,era,source"), "at most two"),
                              (("--by", "era,era"), "twice"),
                              (("--by", "kind"), "--by wants type, constructor"),
                              (("--sort", "size"), "--sort wants count"),
                              (("--bucket", "type"), "BY=KEY"),
                              (("--bucket", "era=two"), "whole number"),
                              (("--bucket", "flavour=x"), "unknown census kind")]:
            r = run("census", self.debuggee.socket, *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(message, r.stderr, args)
            self.assertEqual(r.stdout, "")


class WithoutProvenance(PlantedCase):
    """Built without -finfo-table-map: thunks go by info table."""

    ARGS = ("--closures", "20000", "--seed", "3", "--leak-count", "50", "--no-ipe")

    def test_thunks_by_info_table(self):
        thunks = self.json_of("thunks")
        want = {k: (v["count"], v["bytes"]) for k, v in self.plan["by_thunk"].items()}
        self.assertEqual(counts(thunks["rows"]), want)
        for key in want:
            self.assertRegex(key, r"^<info 0x[0-9a-f]+>$")
        row = thunks["rows"][0]
        found = self.json_of("find", "--bucket", row["bucket"], "--limit", "0")
        self.assertEqual(found["count"], row["count"])

    def test_cost_centre_needs_profiling(self):
        r = run("census", self.debuggee.socket, "--by", "cost-centre")
        self.assertEqual(r.returncode, 1)
        self.assertIn("needs a profiled debuggee", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
