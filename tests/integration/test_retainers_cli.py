"""heapscope retainers / find against the synthetic debuggee's planted
leak: paths, era ranges, inverted filters, limits, regexes and errors,
checked against what the generator says it planted (run by meson test)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import Debuggee, PlantedCase, run  # noqa: E402  (same helpers, same binary)

LEAKS = 150  # over the default --limit of 100; each leak adds a long path to --limit 0
LEAK_ERA = 2


class PlantedLeak(PlantedCase):
    """One era-profiled debuggee with 700 Leak closures of era 2."""

    ARGS = ("--closures", "30000", "--profiled", "--eras", "6", "--leak-count", str(LEAKS),
            "--leak-era", str(LEAK_ERA), "--seed", "5")

    def count(self, *filters):
        out = self.json_of("find", *filters, "--limit", "0")
        self.assertEqual(out["count"], len(out["matches"]))
        self.assertFalse(out["limit_reached"])
        return out["count"]

    def fails(self, code, *args, command="find"):
        r = run(command, self.debuggee.socket, *args)
        self.assertEqual(r.returncode, code, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        return r.stderr

    # ---- the planted path ------------------------------------------------

    def test_exact_planted_path(self):
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "1")
        self.assertEqual(out["count"], 1)
        self.assertTrue(out["limit_reached"])
        self.assertEqual(out["filters"], ["Exact constructor name Leak"])
        m = out["matches"][0]
        planted = self.plan["leak"]["path"]
        self.assertEqual([s["address"] for s in m["path"]], [p["address"] for p in planted])
        self.assertEqual([s["type"] for s in m["path"]], [p["type"] for p in planted])
        self.assertEqual([s["era"] for s in m["path"]], [p["era"] for p in planted])
        self.assertEqual(m["path"][-1]["address"], self.plan["leak"]["first_match"])
        self.assertEqual(m["path"][0]["address"], self.plan["leak"]["root"])
        self.assertEqual(m["depth"], len(planted) - 1)
        self.assertEqual(m["start"], "gc-root")
        self.assertIsNone(m["path"][0]["edge"])
        self.assertTrue(all(s["edge"] for s in m["path"][1:]))
        for step, p in zip(m["path"], planted):
            if p["location"]:
                self.assertEqual(step["location"]["position"], p["location"], p)
            if step["type"].startswith("CONSTR"):
                self.assertEqual(step["constructor"]["name"], p["name"])
            elif p["name"]:
                self.assertEqual(step["location"]["name"], p["name"])
        self.assertEqual(m["path"][-1]["constructor"],
                         {"package": "main", "module": "Main", "name": "Leak"})
        self.assertEqual(m["path"][-1]["era"], LEAK_ERA)

    def test_newer_retains_older_flags_on_the_planted_path(self):
        m = self.json_of("retainers", "--exact", "Leak", "--limit", "1")["matches"][0]
        planted = self.plan["leak"]["path"]
        want = [False] + [planted[i - 1]["era"] > planted[i]["era"] > 0
                          for i in range(1, len(planted))]
        self.assertEqual([s["newer_retains_older"] for s in m["path"]], want)
        self.assertEqual(m["newer_retains_older"], sum(want))
        # the leak signature: the newer thunk holds the older list
        thunk = [i for i, p in enumerate(planted) if p["type"].startswith("THUNK")][0]
        self.assertTrue(m["path"][thunk + 1]["newer_retains_older"])
        self.assertGreater(planted[thunk]["era"], LEAK_ERA)

    def test_text_output(self):
        r = run("retainers", self.debuggee.socket, "--constructor", "^Leak$", "--limit", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        planted = self.plan["leak"]["path"]
        self.assertEqual(lines[0], "retainers of closures with Constructor name matching /^Leak$/")
        self.assertTrue(lines[1].startswith("#1  Leak at %s, %d steps from a GC root; 1 edge "
                                            "where a newer era retains an older one"
                                            % (planted[-1]["address"], len(planted) - 1)),
                        lines[1])
        block = lines[2:2 + len(planted)]
        self.assertTrue(block[0].startswith("  GC root "), block[0])
        for line, p in zip(block, planted):
            self.assertIn("  %s  %s  " % (p["address"], p["type"]), line)
            self.assertIn("  era %d  " % p["era"], line)
        marked = [l for l in block if "<- newer retains older" in l]
        self.assertEqual(len(marked), 1, block)
        thunk = [p for p in planted if p["type"].startswith("THUNK")][0]
        self.assertIn("era %d holds era %d" % (thunk["era"], LEAK_ERA), marked[0])
        self.assertIn(thunk["location"], r.stdout)
        self.assertEqual(lines[2 + len(planted)], "")
        self.assertTrue(lines[-1].startswith("2 matches, stopped at the limit of 2"), lines[-1])

    def test_filter_labels_name_what_they_match(self):
        out = self.json_of("find", "--closure-name", "Leak_con_info", "--exact", "Leak",
                           "--constructor", "^L", "--limit", "1")
        self.assertEqual(out["filters"], ["Closure name (IPE) Leak_con_info",
                                          "Exact constructor name Leak",
                                          "Constructor name matching /^L/"])

    def test_every_leak_lies_below_the_thunk(self):
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "0")
        self.assertEqual(out["count"], LEAKS)
        planted = [p["address"] for p in self.plan["leak"]["path"][:-1]]
        depths = []
        for m in out["matches"]:
            self.assertEqual([s["address"] for s in m["path"][:len(planted)]], planted)
            self.assertEqual(m["newer_retains_older"], 1)
            self.assertEqual(len(m["path"]), m["depth"] + 1)
            depths.append(m["depth"])
        self.assertEqual(depths, sorted(depths), "breadth-first: nearest first")
        self.assertEqual(len({m["path"][-1]["address"] for m in out["matches"]}), LEAKS)

    def test_find_json_shape(self):
        out = self.json_of("find", "--exact", "Leak", "--limit", "3")
        planted = self.plan["leak"]["path"]
        self.assertEqual(out["matches"][0]["closure"]["address"], self.plan["leak"]["first_match"])
        self.assertEqual(out["matches"][0]["depth"], len(planted) - 1)
        depths = [m["depth"] for m in out["matches"]]
        self.assertEqual(depths, sorted(depths))
        for m in out["matches"]:
            c = m["closure"]
            self.assertEqual(c["constructor"]["name"], "Leak")
            self.assertEqual(c["era"], LEAK_ERA)
            self.assertEqual(c["location"]["position"], planted[-1]["location"])
            self.assertNotIn("edge", c)

    def test_address_info_and_closure_name_filters(self):
        first = self.plan["leak"]["first_match"]
        out = self.json_of("retainers", "--address", first)
        self.assertEqual(out["count"], 1)
        self.assertEqual([s["address"] for s in out["matches"][0]["path"]],
                         [p["address"] for p in self.plan["leak"]["path"]])
        info = out["matches"][0]["path"][-1]["info"]
        self.assertEqual(self.count("--info", info), LEAKS)
        self.assertEqual(self.count("--exact", "Leak", "--not-address", first), LEAKS - 1)
        thunk = [p for p in self.plan["leak"]["path"] if p["type"].startswith("THUNK")][0]
        out = self.json_of("retainers", "--closure-name", thunk["name"], "--limit", "0")
        addresses = [m["path"][-1]["address"] for m in out["matches"]]
        self.assertIn(thunk["address"], addresses)

    def test_type_and_min_size(self):
        leak_bytes = self.plan["leak"]["bytes"] // LEAKS
        self.assertEqual(self.count("--exact", "Leak", "--min-size", str(leak_bytes)), LEAKS)
        self.assertEqual(self.count("--exact", "Leak", "--min-size", str(leak_bytes + 1)), 0)
        self.assertEqual(self.count("--exact", "Leak", "--not-min-size", str(leak_bytes)), 0)
        self.assertEqual(self.count("--exact", "Leak", "--min-size", "0x%x" % leak_bytes), LEAKS)
        self.assertEqual(self.count("--exact", "Leak", "--type", "CONSTR_1_1"), LEAKS)
        self.assertEqual(self.count("--exact", "Leak", "--not-type", "CONSTR_1_1"), 0)
        everything = self.count()
        self.assertEqual(self.count("--type", "THUNK_1_0") + self.count("--not-type", "THUNK_1_0"),
                         everything)
        self.assertEqual(self.count("--type", "WEAK"), 0, "WEAK closures never match")

    # ---- eras --------------------------------------------------------------

    def test_counts_per_era_range(self):
        for rng, want in [("2", LEAKS), ("1-3", LEAKS), ("2-", LEAKS), ("-2", LEAKS),
                          ("-", LEAKS), (" 2 ", LEAKS), ("3-", 0), ("-1", 0), ("1", 0),
                          ("0x2", LEAKS)]:
            self.assertEqual(self.count("--exact", "Leak", "--era", rng), want, rng)
        everything = self.count()
        per_era = {e: self.count("--era", str(e)) for e in range(0, 7)}
        self.assertEqual(sum(per_era.values()), everything)
        for e, n in per_era.items():  # WEAK closures hide what only they hold
            self.assertLessEqual(n, self.plan["by_era"].get(str(e), {"count": 0})["count"], e)
        self.assertEqual(self.count("--era", "2-4"), per_era[2] + per_era[3] + per_era[4])
        self.assertEqual(self.count("--era", "3-"), sum(per_era[e] for e in range(3, 7)))
        self.assertEqual(self.count("--not-era", "2-4"), everything - self.count("--era", "2-4"))

    def test_era_filter_is_described(self):
        out = self.json_of("find", "--era", "3-", "--not-era", "5", "--limit", "1")
        self.assertEqual(out["filters"], ["Era range [3,\u221e)", "!Era range 5"])

    def test_cost_centre(self):
        # the generator's cost centres (ids 1..8): MAIN(1) > MAIN_FN(4) > LEAKY(5),
        # and the Leak closures are allocated under LEAKY
        got = {cc: self.count("--exact", "Leak", "--cost-centre", str(cc)) for cc in range(1, 9)}
        self.assertEqual({cc for cc, n in got.items() if n == LEAKS}, {1, 4, 5}, got)
        self.assertEqual({cc for cc, n in got.items() if n == 0}, {2, 3, 6, 7, 8}, got)
        self.assertEqual(self.count("--exact", "Leak", "--not-cost-centre", "5"), 0)
        self.assertEqual(self.count("--cost-centre", "99"), 0)

    # ---- inversion -----------------------------------------------------------

    def test_inverted_filters(self):
        self.assertEqual(self.count("--exact", "Leak", "--not-era", str(LEAK_ERA)), 0)
        constructors = self.count("--constructor", "")
        others = self.json_of("find", "--not-exact", "Leak", "--limit", "0")
        self.assertEqual(others["count"] + LEAKS, constructors)
        # the reference's rule: an excluded constructor name also excludes
        # every closure that is not a constructor
        self.assertTrue(all(m["closure"]["type"].startswith("CONSTR") for m in others["matches"]))
        self.assertNotIn("Leak", {m["closure"]["constructor"]["name"] for m in others["matches"]})
        self.assertEqual(self.count("--not-constructor", "^Leak$"), others["count"])
        self.assertEqual(self.count("--not-constructor", ""), 0)
        # and an excluded closure name every closure without IPE data
        thunk = [p for p in self.plan["leak"]["path"] if p["type"].startswith("THUNK")][0]
        named = self.json_of("find", "--not-closure-name", thunk["name"], "--limit", "0")
        self.assertTrue(all(m["closure"]["location"] for m in named["matches"]))
        self.assertNotIn(thunk["address"], {m["closure"]["address"] for m in named["matches"]})

    # ---- limits --------------------------------------------------------------

    def test_limit_semantics(self):
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "5")
        self.assertEqual(out["count"], 5)
        self.assertEqual(len(out["matches"]), 5)
        self.assertTrue(out["limit_reached"])
        self.assertEqual(out["limit"], 5)
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "0")
        self.assertEqual(out["count"], LEAKS)
        self.assertFalse(out["limit_reached"])
        out = self.json_of("retainers", "--exact", "Leak")
        self.assertEqual(out["count"], 100, "the default limit")
        self.assertTrue(out["limit_reached"])
        out = self.json_of("find", "--exact", "Leak", "--limit", "5")
        self.assertEqual([m["number"] for m in out["matches"]], [1, 2, 3, 4, 5])
        out = self.json_of("find", "--exact", "Leak", "--limit", str(LEAKS))
        self.assertEqual(out["count"], LEAKS)
        out = self.json_of("find", "--exact", "Leak", "--limit", str(LEAKS + 1))
        self.assertEqual(out["count"], LEAKS)
        self.assertFalse(out["limit_reached"])
        r = run("find", self.debuggee.socket, "--exact", "Leak", "--limit", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertTrue(all(" CONSTR_1_1 " in l and "Leak " in l for l in lines[:3]), lines)
        self.assertTrue(lines[3].startswith("3 matches, stopped at the limit of 3"), lines[3])
        self.assertEqual(self.fails(2, "--exact", "Leak", "--limit", "-1").count("--limit"), 1)

    # ---- regexes -------------------------------------------------------------

    def test_regex_edge_cases(self):
        spans = self.count("--exact", "Span")
        weaks = self.count("--exact", "Weak")  # base:GHC.Weak.Weak also ends in "eak"
        self.assertGreater(spans, 0)
        self.assertGreater(weaks, 0)
        for pattern, want in [("^Leak$", LEAKS), ("Leak", LEAKS), ("^Lea", LEAKS),
                              ("eak$", LEAKS + weaks), ("^[LW]eak$", LEAKS + weaks),
                              ("^eak", 0), ("^Leak$|^Span$", LEAKS + spans),
                              ("^(Leak|Span)$", LEAKS + spans), ("(?i)^lEaK$", LEAKS),
                              ("^L.ak$", LEAKS), ("^L\\p{Ll}ak$", LEAKS), ("^\\x{4c}eak$", LEAKS),
                              ("^L\u00ebak$", 0), ("^Le?ak\\z", LEAKS)]:
            self.assertEqual(self.count("--constructor", pattern), want, pattern)
        cons = self.count("--exact", ":")
        self.assertEqual(self.count("--constructor", "^:$"), cons)
        pairs = self.count("--exact", "(,)")
        self.assertEqual(self.count("--constructor", "^\\(,\\)$"), pairs)

    def test_bad_regex(self):
        err = self.fails(2, "--constructor", "(Leak")
        self.assertIn("--constructor: bad regex '(Leak': missing closing parenthesis at offset 5",
                      err)
        err = self.fails(2, "--constructor", "a{2,1}", command="retainers")
        self.assertIn("at offset 5", err)
        r = run("find", self.debuggee.socket, "--constructor", b"L\xffak")  # not UTF-8
        self.assertEqual(r.returncode, 2)
        self.assertIn("UTF-8 error", r.stderr)
        self.assertIn("at offset 1", r.stderr)

    def test_bad_era_range(self):
        for rng, why in [("1-2-3", "more than one '-'"), (" -5", "bad start"), ("5-3", "starts at"),
                         ("abc", "is not an era range"), ("2- ", "bad end")]:
            err = self.fails(2, "--era", rng)
            self.assertIn("--era: '%s' is not an era range" % rng, err)
            self.assertIn(why, err)

    def test_other_usage_errors(self):
        err = self.fails(2, "--type", "THUNK_9_9")
        self.assertIn("unknown closure type 'THUNK_9_9'", err)
        for name in ("THUNK_2_0", "ARR_WORDS", "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN", "CONTINUATION"):
            self.assertIn(name, err)
        self.assertIn("0x followed by", self.fails(2, "--address", "4200004000"))
        self.assertIn("whole number", self.fails(2, "--min-size", "big"))
        self.assertIn("at least one filter", self.fails(2, command="retainers"))
        r = run("roots", self.debuggee.socket, "--era", "2")  # filters apply to census now
        self.assertEqual(r.returncode, 2)
        self.assertIn("--era does not apply to 'roots'", r.stderr)
        r = run("census", self.debuggee.socket, "--limit", "2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--limit does not apply to 'census'", r.stderr)

    def test_help_lists_the_commands_and_filters(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        for text in ("retainers TARGET FILTERS", "find TARGET [FILTERS]", "--constructor REGEX",
                     "--not-", "--era RANGE", "--limit N", "--cost-centre ID"):
            self.assertIn(text, r.stdout)


class SavedShortcut(PlantedCase):
    """A saved object one step above the first Leak, five below a GC root,
    and a Leak that only a saved object reaches (issue 9, item 1): the
    paths come from the GC roots whenever a GC root reaches the closure."""

    ARGS = PlantedLeak.ARGS + ("--saved-shortcut",)

    def test_gc_root_path_wins_over_a_shorter_saved_object_path(self):
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "1")
        m = out["matches"][0]
        planted = self.plan["leak"]["path"]
        self.assertEqual(m["start"], "gc-root")
        self.assertEqual([s["address"] for s in m["path"]], [p["address"] for p in planted])
        self.assertEqual(m["depth"], len(planted) - 1)

    def test_only_a_saved_object_reaches_the_orphan(self):
        out = self.json_of("retainers", "--exact", "Leak", "--limit", "0")
        shortcut = self.plan["saved_shortcut"]
        self.assertEqual(out["count"], LEAKS + 1)
        starts = [m["start"] for m in out["matches"]]
        self.assertEqual(starts, ["gc-root"] * LEAKS + ["saved-object"],
                         "GC-root matches first, then what only saved objects reach")
        last = out["matches"][-1]
        self.assertEqual([s["address"] for s in last["path"]],
                         [shortcut["orphan_cell"], shortcut["orphan"]])
        self.assertEqual(last["depth"], 1)
        cell = shortcut["saved_cell"]
        self.assertFalse([m["number"] for m in out["matches"] if m["path"][0]["address"] == cell],
                         "no path starts at the saved cell that a GC root reaches")

    def test_text_output(self):
        r = run("retainers", self.debuggee.socket, "--exact", "Leak", "--limit", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        planted = self.plan["leak"]["path"]
        self.assertTrue(lines[1].startswith("#1  Leak at %s, %d steps from a GC root"
                                            % (planted[-1]["address"], len(planted) - 1)),
                        lines[1])
        self.assertTrue(lines[2].startswith("  GC root "), lines[2])
        self.assertIn(planted[0]["address"], lines[2])


class NoProvenance(PlantedCase):
    """A program built without -finfo-table-map (issue 9, item 6): a
    closure-name filter matches nothing, and says why."""

    ARGS = ("--closures", "20000", "--seed", "3", "--leak-count", "50", "--no-ipe")

    def test_closure_name_explains_itself(self):
        for command in ("find", "retainers"):
            for extra in ((), ("--json",)):
                r = run(command, self.debuggee.socket, "--closure-name", "Leak_con_info", *extra)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("no closure looked at has info-table provenance, so "
                              "--closure-name cannot match: build the program with "
                              "-finfo-table-map", r.stderr)
        r = run("find", self.debuggee.socket, "--exact", "Leak", "--limit", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("provenance", r.stderr, "no note without a closure-name filter")


class NonProfiled(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        plan_path = os.path.join(cls.tmp.name, "plan.json")
        cls.debuggee = Debuggee("--closures", "20000", "--seed", "9", "--leak-count", "50",
                                "--plan", plan_path)
        cls.debuggee.__enter__()
        with open(plan_path) as f:
            cls.plan = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.debuggee.__exit__(None, None, None)
        cls.tmp.cleanup()

    def test_era_filter_needs_era_profiling(self):
        for args in (["--era", "2"], ["--not-era", "1-"], ["--exact", "Leak", "--era", "-3"]):
            r = run("retainers", self.debuggee.socket, *args)
            self.assertEqual(r.returncode, 1, args)
            self.assertIn("era filter needs a debuggee with era profiling", r.stderr)
            self.assertEqual(r.stdout, "")

    def test_cost_centre_needs_profiling(self):
        r = run("find", self.debuggee.socket, "--cost-centre", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("needs a profiled debuggee", r.stderr)

    def test_planted_path_without_eras(self):
        r = run("retainers", self.debuggee.socket, "--constructor", "^Leak$", "--limit", "1",
                "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = json.loads(r.stdout)["matches"][0]
        self.assertEqual([s["address"] for s in m["path"]],
                         [p["address"] for p in self.plan["leak"]["path"]])
        self.assertTrue(all("era" not in s for s in m["path"]))
        self.assertEqual(m["newer_retains_older"], 0)
        r = run("find", self.debuggee.socket, "--exact", "Leak", "--limit", "0", "--json")
        self.assertEqual(json.loads(r.stdout)["count"], 50)


if __name__ == "__main__":
    unittest.main(verbosity=2)
