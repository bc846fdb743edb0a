"""heapscope diff against a real GHC 9.0.2 program (tests/ghc/Grow.hs) that
allocates a known number of Grown values between two pauses: the diff of a
snapshot before and one after (and of the snapshot and the live program)
shows exactly that many more Grown closures and list cells, the cells
(the largest growth) first.

usage: test_ghc_diff.py HEAPSCOPE PROGRAM   (run by meson test --suite ghc)
"""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
# test_ghc_cli takes the same two arguments (and removes them from argv)
from test_ghc_cli import Program, run  # noqa: E402

FIRST, MORE = 300, 2000


class RealDiff(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = Program("+RTS", "-N2", "-RTS")
        cls.grow(FIRST)
        cls.before = os.path.join(cls.program.dir.name, "before.heapscope")
        cls.snapshot(cls.before)
        cls.grow(MORE)
        cls.after = os.path.join(cls.program.dir.name, "after.heapscope")
        cls.snapshot(cls.after)

    @classmethod
    def tearDownClass(cls):
        cls.program.stop()

    @classmethod
    def grow(cls, n):
        cls.total = getattr(cls, "total", 0) + n
        cls.program.proc.stdin.write(b"%d\n" % n)
        cls.program.proc.stdin.flush()
        deadline = time.time() + 60
        while "grown %d\n" % cls.total not in cls.program.stderr():
            if time.time() > deadline:
                raise RuntimeError("the program did not grow:\n" + cls.program.stderr())
            time.sleep(0.05)

    @classmethod
    def snapshot(cls, path):
        r = run("snapshot", cls.program.socket, "-o", path, "--no-cache")
        if r.returncode != 0:
            raise RuntimeError(r.stderr)

    def diff(self, a, b, *args):
        r = run("diff", a, b, "--json", "--no-cache", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def grown_row(self, d):
        rows = {r["key"]: r for r in d["rows"]}
        return rows["main:Main:Grown"]

    def test_the_grown_values_grew_by_what_was_asked(self):
        d = self.diff(self.before, self.after)
        grown = self.grown_row(d)
        self.assertEqual((grown["count_a"], grown["count_b"]), (FIRST, FIRST + MORE))
        self.assertEqual(grown["bytes_delta"], MORE * 16, "a Grown is a header and one pointer")
        # the largest growth first: a list cell (header and two pointers) per value
        cons = d["rows"][0]
        self.assertEqual(cons["key"], "ghc-prim:GHC.Types::")
        self.assertEqual((cons["count_delta"], cons["bytes_delta"]), (MORE, MORE * 24))
        growth = [r["bytes_delta"] for r in d["rows"] if r["bytes_delta"] > 0]
        self.assertEqual(growth, sorted(growth, reverse=True))
        self.assertIn(grown, d["rows"][:len(growth)])
        self.assertFalse(d["eras"]["compared"])
        self.assertRegex(d["eras"]["reason"], "era profiling")
        self.assertEqual(d["a"]["unreadable"]["count"], 0)
        self.assertEqual(d["b"]["unreadable"]["count"], 0)

    def test_a_filter_keeps_only_the_grown_values(self):
        d = self.diff(self.before, self.after, "--exact", "Grown", "--by", "type")
        self.assertEqual([(r["key"], r["count_delta"]) for r in d["rows"]], [("CONSTR_1_0", MORE)])

    def test_the_live_program_against_the_snapshot_before(self):
        d = self.diff(self.before, self.program.socket)
        self.assertEqual(self.grown_row(d)["count_delta"], MORE)
        # resumed: it still grows on request
        self.grow(1)
        d = self.diff(self.after, self.program.socket, "--exact", "Grown")
        self.assertEqual(self.grown_row(d)["count_delta"], 1)


if __name__ == "__main__":
    unittest.main()
