"""heapscope on real programs: tests/realghc/Tier.hs built by GHC VERSION
(9.6: Debian trixie's 9.6.6, 9.10: sid's 9.10.3) with the official
ghc-debug stub (realghc.py). Only the normal paths: one client at a time,
no cancel, addresses only from heapscope's own answers. Each count is what
Tier.hs says its heap holds; after every command the program still runs
and answers.

usage: test_realghc.py HEAPSCOPE VERSION   (run by meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realghc  # noqa: E402

HEAPSCOPE = sys.argv.pop(1)
VERSION = sys.argv.pop(1)
GHC = realghc.VERSIONS[VERSION][1]
LIST = 100000
MIB = 1024 * 1024
CACHE = tempfile.TemporaryDirectory(prefix="heapscope-realghc-cache-")


line_of = realghc.line_of


class Tier:
    """What every program's test class has (each is also a TestCase): its
    program (FLAVOUR, ARGS, RTS), started once for the class."""
    FLAVOUR, ARGS, RTS = "ipe", (), ("-N2",)

    @classmethod
    def setUpClass(cls):
        cls.program = realghc.start(VERSION, cls.FLAVOUR, *cls.ARGS, rts=cls.RTS)

    @classmethod
    def tearDownClass(cls):
        cls.program.stop_answering(HEAPSCOPE)  # running, and answers one more command

    def heapscope(self, *args, seconds=120):
        env = dict(os.environ, XDG_CACHE_HOME=CACHE.name)
        r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, env=env,
                           timeout=realghc.timeout(seconds))
        self.assertEqual(r.returncode, 0, "heapscope %s:\n%s%s\nthe program's stderr:\n%s"
                         % (" ".join(args), r.stdout[-2000:], r.stderr, self.program.stderr()))
        self.assertAlive()
        return r.stdout

    def json(self, *args):
        """The command's JSON, without its timing (paused_ms, elapsed_ms),
        which differs from run to run."""
        out = json.loads(self.heapscope(*args, "--json"))
        for timing in ("paused_ms", "elapsed_ms"):
            out.pop(timing, None)
        return out

    def census(self, by, *args):
        """{key: row} of census --by BY, every row."""
        out = self.json("census", self.program.socket, "--by", by, "--top", "0", *args)
        return {row["key"]: row for row in out["rows"]}

    def constructor(self, rows, name):
        """The row of constructor `name` (keys are package:Module:Name)."""
        found = [r for k, r in rows.items() if re.fullmatch(r"[^:]+:[^:]+:" + re.escape(name), k)]
        self.assertEqual(len(found), 1, "constructor %s in %s" % (name, sorted(rows)))
        return found[0]

    def assertAlive(self):
        self.assertTrue(self.program.alive(), "%s died:\n%s" % (self.program, self.program.stderr()))

    def test_info(self):
        info = self.json("info", self.program.socket)
        self.assertEqual(info["ghc_version"], GHC)
        again = self.json("info", self.program.socket)  # a second command is answered
        self.assertEqual(again, info)


class Provenance(Tier, unittest.TestCase):
    """Info-table provenance, four capabilities (each left with empty pinned
    blocks: --churn), a list of LIST cells."""
    ARGS, RTS = ("--list", str(LIST), "--churn"), ("-N4",)

    def test_constructors(self):
        rows = self.census("constructor")
        self.assertEqual(self.constructor(rows, "Leak")["count"], 1000)
        self.assertEqual(self.constructor(rows, "Bin")["count"], 1000)
        self.assertGreaterEqual(self.constructor(rows, "Text")["count"], 500)
        self.assertGreaterEqual(self.constructor(rows, "BS")["count"], 300)
        self.assertGreaterEqual(self.constructor(rows, ":")["count"], LIST)
        # quiescent: a second pause finds the same heap
        self.assertEqual(self.census("constructor"), rows)

    def test_threads(self):
        # the main thread and the three labelled workers (and the RTS's own)
        self.assertGreaterEqual(self.census("type")["TSO"]["count"], 4)

    def test_source(self):
        # every Leak comes from its constructor's wrapper, at the data declaration
        rows = self.census("source")
        line = line_of("data Leak")
        here = [r for k, r in rows.items() if k.startswith("Tier.hs:%d:" % line)]
        self.assertEqual([r["count"] for r in here], [1000], sorted(rows))

    def test_profiling(self):
        self.assertEqual(self.json("info", self.program.socket)["profiling"], "none")

    def test_strings(self):
        # every Text and ByteString value, each once (GHC 9.10's ByteStrings
        # sit on ghc-internal's PlainPtr, base's before)
        out = self.json("strings", self.program.socket, "--top", "0")
        self.assertEqual(out["external"], 0)
        kinds = {r["value"]: (r["kinds"], r["count"]) for r in out["rows"]}
        for i in range(500):
            self.assertEqual(kinds.get("text-%d" % i), ("Text", 1), "text-%d" % i)
        for i in range(300):
            self.assertEqual(kinds.get("bytes-%d" % i), ("ByteString", 1), "bytes-%d" % i)
        # the labels of the three worker threads (a TSO's label field, GHC >= 9.6)
        for i in range(1, 4):
            self.assertEqual(kinds.get("tier-worker-%d" % i), ("ARR_WORDS", 1), "tier-worker-%d" % i)


class Profiled(Tier, unittest.TestCase):
    """-prof; with user eras on GHC 9.10 (+RTS -he)."""
    FLAVOUR = "prof"
    ERAS = VERSION != "9.6"
    ARGS, RTS = ("--list", "1000"), ("-N2", "-he") if ERAS else ("-N2",)

    def test_constructors(self):
        rows = self.census("constructor")
        self.assertEqual(self.constructor(rows, "Leak")["count"], 1000)
        self.assertGreaterEqual(self.constructor(rows, ":")["count"], 1000)

    def test_profiling(self):
        self.assertEqual(self.json("info", self.program.socket)["profiling"],
                         "era" if self.ERAS else "profiled")

    if ERAS:
        def test_eras(self):
            self.assertLessEqual({"1", "2", "3"}, set(self.census("era")))
            leak = self.constructor(self.census("constructor,era"), "Leak")
            eras = {c["key"]: c["count"] for c in leak["children"]}
            self.assertEqual(eras, {"1": 500, "2": 500})

        def test_leaks(self):
            # the Map's nodes (era 3) hold the 1000 Leak values of eras 1 and 2
            top = self.json("leaks", self.program.socket, "--top", "1")["top"][0]
            self.assertEqual((top["retained"].rsplit(":", 1)[-1], top["older"], top["edges"]),
                             ("Leak", 1000, 1000), top)


class Large(Tier, unittest.TestCase):
    """A 400 MiB heap: 400 ByteStrings of 1 MiB; it ticks every 20 ms."""
    ARGS = ("--mb", "400", "--tick", "20")

    def test_resumed(self):
        # the program runs again once the command is over
        self.heapscope("census", self.program.socket, "--by", "type")
        done = time.monotonic()
        deadline = done + realghc.timeout(5)
        while not [t for t in self.program.ticks() if t > done] and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue([t for t in self.program.ticks() if t > done], "no tick after the census")

    def test_bytes(self):
        out = self.json("census", self.program.socket, "--by", "type", "--top", "0")
        self.assertGreaterEqual(out["total_bytes"], 400 * MIB)
        words = [r for r in out["rows"] if r["key"] == "ARR_WORDS"][0]
        self.assertGreaterEqual(words["bytes"], 400 * MIB)
        self.assertGreaterEqual(words["max"], MIB)
        big = self.json("find", self.program.socket, "--type", "ARR_WORDS", "--min-size", str(MIB),
                        "--limit", "0")
        self.assertEqual(big["count"], 400)
        self.assertEqual(len(big["matches"]), 400)


if __name__ == "__main__":
    realghc.main(lambda: unittest.main(verbosity=2))
