"""heapscope leaks (issue 12 §2) against the synthetic debuggee's planted
leak, era-profiled: the planted thunk (newer era) holding the leak list
(older era) is the first group, named by the thunk's IPE label and source
location and the list cell's constructor, its bytes exactly the list's
cells, Leak closures and heap I# boxes the plan implies; so it is with the
debuggee's default options (several seeds) and with small leaks in larger
heaps, where newer arrays and lists built from older data retain more bytes
than the thunk (they ranked first before holds came before contents); the
printed command (`leaks TARGET --group N`) lists the group's edges, the
planted one among them, and every group's edges add up to its counts (text
and JSON, --limit); groups ranked as the man page says (freeing something,
holds before contents, bytes) adding up to the total; a debuggee without
era profiling is refused (run by meson test)."""
import os
import json
import shlex
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import Debuggee, PlantedCase, run  # noqa: E402  (same helpers, same binary)

LEAKS = 700
INTLIKE_MAX = 255  # GHC's static INTLIKE closures cover -16..255: no heap box for them
PROF = 16  # the profiling header's two words
CONS, IBOX = 24 + PROF, 16 + PROF  # (:) and I# n on an era-profiled RTS
CONS_KEY = "ghc-prim:GHC.Types::"
THUNK_LABEL = "leaky"  # the planted thunk's IPE label (tests/debuggee/synth_gen_catalog.c)


def thunk_name(thunk):
    """A thunk with IPE as a group names it: its label, then its location."""
    return THUNK_LABEL + " " + thunk["location"]


class PlantedLeaks(PlantedCase):
    SAME_HEAP_UNDER_VALGRIND = True
    # a leak of 700 closures in a heap of 30000: the generator's arrays and
    # lists of newer eras, built from older structures, dominate more bytes
    # (the thunk ranked third by bytes alone); they contain, the thunk holds
    ARGS = ("--profiled", "--closures", "30000", "--eras", "6", "--leak-era", "2",
            "--leak-count", str(LEAKS), "--seed", "5")

    def leaks(self, *args):
        return self.json_of("leaks", *args)

    def test_planted_thunk_ranks_first(self):
        path = self.plan["leak"]["path"]
        thunk, cell = path[3], path[4]
        self.assertEqual(thunk["type"], "THUNK_1_0")
        first = self.leaks()["top"][0]
        self.assertEqual(first["retainer"], thunk_name(thunk))
        self.assertEqual(first["retained"], CONS_KEY)
        self.assertEqual((first["edges"], first["older"]), (1, 1))
        self.assertEqual((first["kind"], first["holds"]), ("thunk", True))
        self.assertEqual(first["example"], {"from": thunk["address"], "from_era": thunk["era"],
                                            "to": cell["address"], "to_era": cell["era"]})
        self.assertGreater(thunk["era"], cell["era"])
        # the list: a cell and a Leak per leaked closure, a heap I# box when
        # the Int is above the static ones (the plan's bytes are the Leaks')
        self.assertEqual(self.plan["leak"]["count"], LEAKS)
        boxes = sum(1 for i in range(1, LEAKS + 1) if i > INTLIKE_MAX)
        self.assertEqual(first["bytes"],
                         self.plan["leak"]["bytes"] + LEAKS * CONS + boxes * IBOX)

    def test_command_lists_the_groups_edges(self):
        path = self.plan["leak"]["path"]
        thunk, cell = path[3], path[4]
        first = self.leaks()["top"][0]
        words = shlex.split(first["command"])
        self.assertEqual(words, ["heapscope", "leaks", self.debuggee.socket, "--group", "1"])
        out = self.leaks(*words[3:])
        self.assertEqual(out["group"], first)
        self.assertEqual((out["total"], out["limit"], out["limit_reached"]), (1, 100, False))
        [edge] = out["items"]
        self.assertEqual((edge["from"]["address"], edge["to"]["address"]),
                         (thunk["address"], cell["address"]))
        self.assertEqual((edge["from"]["era"], edge["to"]["era"]), (thunk["era"], cell["era"]))
        self.assertEqual(edge["from"]["location"]["label"], THUNK_LABEL)
        self.assertEqual(edge["edge"], "Argument 0")
        self.assertEqual(edge["bytes"], first["bytes"])

    def test_every_groups_edges_add_up(self):
        out = self.leaks("--top", "0")
        # the first groups and the last (each a run: few enough for valgrind's run)
        for g in out["top"][:8] + out["top"][-3:]:
            edges = self.leaks("--group", str(g["group"]), "--limit", "0")
            self.assertEqual(edges["group"], g)
            items = edges["items"]
            self.assertEqual((len(items), edges["total"]), (g["edges"], g["edges"]), g)
            self.assertFalse(edges["limit_reached"])
            # each older closure an edge's retainer dominates counts once
            dominated = {e["to"]["address"]: e["bytes"] for e in items if e["bytes"]}
            self.assertEqual(len(dominated), g["older"], g)
            self.assertGreaterEqual(sum(dominated.values()), g["bytes"], g)
            for e in items:
                self.assertGreater(e["from"]["era"], e["to"]["era"], e)
                self.assertGreater(e["to"]["era"], 0, e)
            self.assertEqual([e["bytes"] for e in items],
                             sorted((e["bytes"] for e in items), reverse=True))
            if g["edges"] > 1:  # a limit keeps the edges retaining most
                cut = self.leaks("--group", str(g["group"]), "--limit", "1")
                self.assertEqual((len(cut["items"]), cut["total"], cut["limit_reached"]),
                                 (1, g["edges"], True))
                self.assertEqual(cut["items"][0]["bytes"], items[0]["bytes"])
        r = run("leaks", self.debuggee.socket, "--group", str(out["groups"] + 1))
        self.assertEqual(r.returncode, 1, r.stderr)  # known only once paused, as eras are
        self.assertIn("no group %d: the report has %d" % (out["groups"] + 1, out["groups"]),
                      r.stderr)

    def test_group_text(self):
        first = self.leaks()["top"][0]
        lines = run("leaks", self.debuggee.socket, "--group", "1").stdout.splitlines()
        self.assertEqual(lines[0], "leaks: group 1 of %d, thunk: %s -> %s"
                         % (self.leaks()["groups"], first["retainer"], CONS_KEY))
        self.assertEqual(lines[1], "1 edges, 1 older closures, %d bytes retained only through "
                         "them" % first["bytes"])
        self.assertRegex(lines[3], r"^\s+%d  %s  THUNK_1_0  \d+ B  era %d  .*leaky"
                         % (first["bytes"], first["example"]["from"],
                            first["example"]["from_era"]))
        self.assertRegex(lines[4], r"^\s+Argument 0 -> %s  CONSTR_2_0  \d+ B  era %d  "
                         % (first["example"]["to"], first["example"]["to_era"]))
        self.assertEqual(len(lines), 5)

    def test_ranked_holds_first_adding_up(self):
        out = self.leaks("--top", "100000")
        rows = out["top"]
        self.assertEqual(len(rows), out["groups"])
        # freeing something first, holds before contents, then bytes
        rank = [(r["bytes"] == 0, not r["holds"], -r["bytes"]) for r in rows]
        self.assertEqual(rank, sorted(rank))
        holds = {"thunk", "function", "stack"}
        for r in rows:
            self.assertEqual(r["holds"], r["kind"] in holds, r)
        # what the thunk outranks: contents retaining more (so bytes alone
        # would not put it first)
        self.assertGreater(max(r["bytes"] for r in rows if not r["holds"]), rows[0]["bytes"])
        # the total is the union of the groups' subtrees: at most their sum,
        # at least the largest, and never more than the heap holds
        dom = self.json_of("dominators", "--top", "1")
        self.assertLessEqual(out["bytes"], sum(r["bytes"] for r in rows))
        self.assertGreaterEqual(out["bytes"], rows[0]["bytes"])
        self.assertLessEqual(out["bytes"], dom["bytes"])
        self.assertEqual(sum(r["edges"] for r in rows), out["edges"])
        keys = [(r["retainer"], r["retained"]) for r in rows]
        self.assertEqual(len(keys), len(set(keys)))  # pairs of equal keys are merged
        for r in rows:
            self.assertGreater(r["example"]["from_era"], r["example"]["to_era"])
            self.assertGreater(r["example"]["to_era"], 0)  # era 0 is no era
            self.assertLessEqual(r["older"], r["edges"])
        self.assertEqual(len(self.leaks("--top", "3")["top"]), 3)

    def test_text(self):
        r = run("leaks", self.debuggee.socket, "--top", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^leaks: \d+ edges from a newer era to an older one in "
                                   r"\d+ groups; \d+ bytes retained only through them")
        first = self.leaks()["top"][0]
        self.assertEqual(lines[1].split(), ["bytes", "older", "edges", "kind", "retainer", "->",
                                            "retained"])
        self.assertEqual(lines[2].split(), [str(first["bytes"]), "1", "1", "thunk",
                                            *first["retainer"].split(), "->", CONS_KEY])
        self.assertEqual(lines[4].strip(), first["command"])
        self.assertRegex(lines[-1], r"^… \d+ more groups \(--top\)$")


class PlantedFirst(unittest.TestCase):
    """The planted thunk's group first with the debuggee's default options
    on several seeds, and with small leaks in larger heaps of more eras."""

    def first_is_planted(self, *args):
        with tempfile.TemporaryDirectory() as tmp:
            plan_path = os.path.join(tmp, "plan.json")
            with Debuggee("--profiled", "--plan", plan_path, *args) as d:
                r = run("leaks", d.socket, "--json", "--top", "1")
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(plan_path) as f:
                    thunk = json.load(f)["leak"]["path"][3]
        first = json.loads(r.stdout)["top"][0]
        self.assertEqual((first["retainer"], first["retained"], first["example"]["from"]),
                         (thunk_name(thunk), CONS_KEY, thunk["address"]), args)

    def test_default_options(self):
        for seed in ("1", "2", "3", "4"):
            self.first_is_planted("--seed", seed)

    def test_small_leaks_in_larger_heaps(self):
        for seed in ("1", "3"):
            self.first_is_planted("--closures", "30000", "--eras", "6", "--leak-era", "2",
                                  "--leak-count", "100", "--seed", seed)
        self.first_is_planted("--closures", "100000", "--eras", "8", "--leak-count", "50",
                              "--seed", "5")


class NotEraProfiled(unittest.TestCase):
    def test_refused(self):
        for args in ((), ("--prof-mode", "ldv")):
            with Debuggee("--closures", "2000", *args) as d:
                r = run("leaks", d.socket)
                self.assertEqual(r.returncode, 1, args)
                self.assertEqual(r.stdout, "")
                self.assertIn("the era-boundary report needs a debuggee with era profiling; "
                              "this one has profiling mode ", r.stderr)
                # the advice fits the program: -prof first when it is not profiled
                self.assertIn("'none' (build the program with -prof and run it with +RTS -he)"
                              if not args else "'not era' (run the program with +RTS -he)",
                              r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
