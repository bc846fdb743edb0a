"""Names, locations and advice on real programs: tests/realghc/Tier.hs built
by GHC VERSION with the official ghc-debug stub (realghc.py), run with
--lazy-map (a lazy Data.Map whose values are insertWith thunks).

  - no location is ever printed as ":" (the stub's text for an IPE entry
    with neither file nor span: the optimised build's insertWith thunks, of
    code specialised from containers into Main), in census --by source,
    thunks, roots, find and their JSON; such thunks are located by module
    and name, and each info table without any entry is a bucket of its own;
  - thunks and functions of Main are labelled by their IPE names, its
    closures carry their Tier.hs locations;
  - the RTS's static reference tables are named so, not as constructors of
    an empty module;
  - the advice to build with -finfo-table-map comes only for a program
    without any IPE (the profiled build), never for a closure of the RTS or
    a library of a program that has it; era advice fits the program.

usage: test_realghc_names.py HEAPSCOPE VERSION   (meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tui"))
import realghc  # noqa: E402

VERSION = sys.argv.pop(2)
import harness  # noqa: E402  (takes HEAPSCOPE from argv)
from harness import HEAPSCOPE  # noqa: E402

LAZY = 3000                     # --lazy-map: 100 keys, LAZY - 100 thunks
THUNKS = LAZY - 100
CACHE = tempfile.TemporaryDirectory(prefix="heapscope-realghc-names-cache-")
BUILD_ADVICE = "build the program with -finfo-table-map"
NOT_BUILT = "this info table (of the RTS or a library) was built without -finfo-table-map"


line_of = realghc.line_of


def short(name):
    return name[:-len("_info")] if name.endswith("_info") else name


class Program:
    """A program (FLAVOUR, RTS) started once for the class, and heapscope's
    commands on it."""
    FLAVOUR, RTS = "ipe", ("-N2",)

    @classmethod
    def setUpClass(cls):
        cls.program = realghc.start(VERSION, cls.FLAVOUR, "--lazy-map", str(LAZY), rts=cls.RTS)

    @classmethod
    def tearDownClass(cls):
        cls.program.stop_answering(HEAPSCOPE)

    def run_heapscope(self, *args):
        env = dict(os.environ, XDG_CACHE_HOME=CACHE.name)
        r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, env=env,
                           timeout=realghc.timeout(120))
        self.assertTrue(self.program.alive(), "%s died:\n%s" % (self.program,
                                                                self.program.stderr()))
        return r

    def heapscope(self, *args):
        r = self.run_heapscope(*args)
        self.assertEqual(r.returncode, 0, "heapscope %s:\n%s" % (" ".join(args), r.stderr))
        return r.stdout

    def json(self, *args):
        return json.loads(self.heapscope(*args, "--json"))

    def rows(self, command, *args):
        """{key: row} of census or thunks, every row."""
        out = self.json(command, self.program.socket, "--top", "0", *args)
        return {row["key"]: row for row in out["rows"]}

    def assertNoColonLocation(self, keys, what):
        for key in keys:
            self.assertNotEqual(key.strip(), ":", what)
            self.assertNotRegex(key, r"(^|\s):(\s|$)", what)

    def assertLocationsOfClosures(self, closures, what):
        """Each closure's JSON location: its text is never ':', and a
        position without a file is no position."""
        for c in closures:
            loc = c["location"]
            if loc is None:
                continue
            self.assertNotEqual(loc["text"], ":", what)
            self.assertNotEqual(loc["position"], ":", what)
            if loc["position"]:
                self.assertEqual(loc["text"], loc["position"], what)
                self.assertTrue(loc["file"], what)

    def check_no_colon_anywhere(self):
        self.assertNoColonLocation(self.rows("census", "--by", "source"), "census --by source")
        self.assertNoColonLocation(self.rows("thunks"), "thunks")
        for line in self.heapscope("thunks", self.program.socket, "--top", "0").splitlines():
            self.assertFalse(line.rstrip().endswith("  :"), line)
        for line in self.heapscope("roots", self.program.socket).splitlines():
            self.assertFalse(line.rstrip().endswith("  :"), line)
        roots = self.json("roots", self.program.socket)
        self.assertLocationsOfClosures(roots["roots"] + roots["saved_objects"], "roots --json")

    def check_srts(self):
        rows = self.rows("census", "--by", "constructor")
        srts = [k for k in rows if k.endswith(" (static reference table)")]
        self.assertTrue(srts, sorted(rows))
        for k in srts:
            self.assertRegex(k, r"^SRT_[0-9]+ \(static reference table\)$")
        self.assertEqual([k for k in rows if k.startswith("::SRT_")], [], "SRTs as constructors")
        found = self.json("find", self.program.socket, "--bucket", "constructor=" + srts[0],
                          "--limit", "1")
        self.assertEqual(found["count"], 1)
        self.assertTrue(found["matches"][0]["closure"]["label"].startswith(srts[0]),
                        found["matches"][0])

    def check_leaks_advice(self, profiled):
        r = self.run_heapscope("leaks", self.program.socket)
        self.assertEqual(r.returncode, 1, r.stderr)
        if VERSION == "9.6":
            self.assertIn("(GHC 9.6 has none: it came with GHC 9.10)", r.stderr)
            self.assertNotIn("+RTS -he", r.stderr, "advice GHC 9.6 cannot follow")
        elif profiled:
            self.assertIn("'not era' (run the program with +RTS -he)", r.stderr)
        else:
            self.assertIn("'none' (build the program with -prof and run it with +RTS -he)",
                          r.stderr)


class Provenance(Program, unittest.TestCase):
    """-finfo-table-map, not optimised: Main's closures have IPE entries
    with their Tier.hs spans; containers' insertWith thunks have none."""

    def test_no_location_is_a_colon(self):
        self.check_no_colon_anywhere()

    def test_library_thunks_are_one_bucket_per_info_table(self):
        # insertWith's thunks are containers' (no IPE): their own bucket,
        # apart from the RTS's thunks without a location
        rows = self.rows("thunks")
        lazy = [k for k, r in rows.items() if r["count"] == THUNKS and k.startswith("<info 0x")]
        self.assertEqual(len(lazy), 1, rows)
        self.assertRegex(lazy[0], r"^<info 0x[0-9a-f]+>$")

    def test_main_closures_carry_their_locations_and_names(self):
        leak = line_of("data Leak")
        rows = self.rows("census", "--by", "source")
        here = [r for k, r in rows.items() if k.startswith("Tier.hs:%d:" % leak)]
        self.assertEqual([r["count"] for r in here], [1000], sorted(rows))
        # a thunk of Main's (or the stub's) code: its label is its IPE name
        thunks = self.rows("thunks")
        located = [k for k in thunks if re.match(r"^(Tier|stub/).*\.hs:", k)]
        self.assertTrue(located, sorted(thunks))
        for key in located:
            found = self.json("find", self.program.socket, "--bucket", "thunk=" + key,
                              "--limit", "1")
            c = found["matches"][0]["closure"]
            self.assertEqual(c["location"]["position"], key)
            self.assertTrue(c["location"]["name"], c)
            self.assertTrue(c["label"].startswith(short(c["location"]["name"])), c)
            self.assertFalse(c["label"].startswith("_thunk"), c)
            text = self.heapscope("find", self.program.socket, "--bucket", "thunk=" + key,
                                  "--limit", "1")
            self.assertIn(short(c["location"]["name"]), text)
            self.assertIn(key, text)

    def test_srts_are_named_as_such(self):
        self.check_srts()

    def test_closure_name_search_gives_no_build_advice(self):
        r = self.run_heapscope("find", self.program.socket, "--closure-name", "no_such_info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("-finfo-table-map", r.stderr)

    def test_leaks_advice_fits_the_program(self):
        self.check_leaks_advice(profiled=False)


class Optimised(Program, unittest.TestCase):
    """-finfo-table-map -O: insertWith is specialised into Main, and its
    thunks have IPE entries of module Main with neither file nor span."""
    FLAVOUR = "ipe-O"

    def test_no_location_is_a_colon(self):
        self.check_no_colon_anywhere()

    def test_insert_with_thunks_are_located_by_module_and_name(self):
        rows = self.rows("thunks")
        lazy = [k for k, r in rows.items() if r["count"] == THUNKS]
        self.assertEqual(len(lazy), 1, rows)
        key = lazy[0]
        self.assertRegex(key, r"^Main \(\S+\)$")
        self.assertIn(key, self.rows("census", "--by", "source"))
        found = self.json("find", self.program.socket, "--bucket", "thunk=" + key, "--limit", "3")
        self.assertEqual(found["count"], 3)
        for m in found["matches"]:
            c = m["closure"]
            self.assertEqual(c["location"]["text"], key)
            self.assertEqual((c["location"]["position"], c["location"]["file"]), ("", ""))
            self.assertTrue(c["label"].startswith(short(c["location"]["name"])), c)
        self.assertLocationsOfClosures([m["closure"] for m in found["matches"]], "find")
        for line in self.heapscope("find", self.program.socket, "--bucket", "thunk=" + key,
                                   "--limit", "3").splitlines()[:-1]:
            self.assertTrue(line.endswith("  " + key), line)

    def test_srts_are_named_as_such(self):
        self.check_srts()


class WithoutProvenance(Program, unittest.TestCase):
    """The profiled build has no -finfo-table-map: the whole-program advice,
    once; era advice for a profiled program."""
    FLAVOUR = "prof"

    def test_closure_name_search_advises_the_build_once(self):
        r = self.run_heapscope("find", self.program.socket, "--closure-name", "Leak_con_info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.count(BUILD_ADVICE), 1, r.stderr)

    def test_no_location_is_a_colon(self):
        rows = self.rows("census", "--by", "source")
        self.assertEqual(list(rows), ["<no location>"])

    def test_leaks_advice_fits_the_program(self):
        self.check_leaks_advice(profiled=True)


class Details(harness.TuiCase):
    """The explorer's details pane on the first root (a TSO: the RTS's)."""

    def details_of_first_root(self, flavour):
        program = realghc.start(VERSION, flavour, rts=["-N2"])
        try:
            t = self.tui(program.socket, width=160)
            t.wait_regex(r"(?i)running", timeout=realghc.timeout(30), what="the running screen")
            t.keys("p")
            t.wait_text("GC Roots", timeout=realghc.timeout(60), what="the roots tree")
            s = t.wait_text("no info-table location", timeout=realghc.timeout(60),
                            what="the details of the selected root")
            t.keys("q")
            t.wait_text("Resume the debuggee before quitting?", what="the question on quitting")
            t.keys("y")
            status, _ = t.wait_exit(timeout=realghc.timeout(30))
            self.assertEqual(status, 0)
            # the pane right of the tree, its wrapped lines joined
            pane = [line.rsplit("\u2502", 1)[1] for line in s.text.splitlines() if "\u2502" in line]
            return " ".join(" ".join(pane).split())
        finally:
            program.stop_answering(HEAPSCOPE)

    def test_no_build_advice_for_the_rts_in_a_program_with_ipe(self):
        text = self.details_of_first_root("ipe")
        self.assertIn("no info-table location: " + NOT_BUILT, text)
        self.assertNotIn(BUILD_ADVICE, text)

    def test_build_advice_for_a_program_without_ipe(self):
        text = self.details_of_first_root("prof")
        self.assertIn("no info-table location: " + BUILD_ADVICE, text)


if __name__ == "__main__":
    realghc.main(lambda: unittest.main(verbosity=2))
