"""heapscope strings, dump and retainers --value against a real GHC 9.0.2
program holding duplicated strings (tests/ghc/Strings.hs): text 1.2's
UTF-16 Text, bytestring 0.10's PS over a PlainPtr, and String.

usage: test_ghc_strings.py HEAPSCOPE PROGRAM   (run by meson test --suite ghc)
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
# test_ghc_cli takes the same two arguments (and removes them from argv)
from test_ghc_cli import Program, run  # noqa: E402

BIG = 100000


class RealStrings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = Program("+RTS", "-N2", "-RTS")
        r = run("strings", cls.program.socket, "--top", "0", "--json")
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        cls.result = json.loads(r.stdout)
        cls.rows = {row["value"]: row for row in cls.result["rows"] if row["complete"]}

    @classmethod
    def tearDownClass(cls):
        cls.program.stop()

    def test_duplicates_of_each_kind_are_grouped(self):
        for value, kinds, count in (("text dup 0", "Text", 5), ("bytes dup 0", "ByteString", 4),
                                    ("string dup 0", "String", 3)):
            self.assertIn(value, self.rows, value)
            row = self.rows[value]
            self.assertEqual(row["kinds"], kinds, value)
            self.assertEqual(row["count"], count, value)
            self.assertEqual(row["length"], len(value))
            self.assertGreater(row["wasted"], 0)
            self.assertLess(row["wasted"], row["bytes"])
        self.assertEqual(self.result["unreadable"]["count"], 0)

    def test_text_1_array_is_utf16_and_not_a_row_of_its_own(self):
        # text 1.2 keeps "text dup 0" as UTF-16: its arrays are held by the
        # Texts, so no ARR_WORDS row shows the UTF-16 bytes
        utf16 = "".join(c + "\\x00" for c in "text dup 0")
        self.assertNotIn(utf16, self.rows)

    def test_large_bytestrings_and_dump(self):
        # two copies of 100000 bytes (large objects): one row, the most wasted
        big = [r for r in self.result["rows"] if r["length"] == BIG]
        self.assertEqual(len(big), 1, [r["value"][:20] for r in big])
        row = big[0]
        self.assertIs(row, self.result["rows"][0])
        self.assertEqual(row["kinds"], "ByteString")
        self.assertEqual(row["count"], 2)
        self.assertFalse(row["complete"])
        self.assertGreater(row["wasted"], BIG)
        out = os.path.join(self.program.dir.name, "big.bin")
        r = run("dump", self.program.socket, row["first_array"], "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), bytes((k * 7 + 3) % 256 for k in range(BIG)))

    def test_dump_refuses_a_constructor(self):
        first = self.rows["text dup 0"]["first"]
        out = os.path.join(self.program.dir.name, "no.bin")
        r = run("dump", self.program.socket, first, "-o", out)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not a byte array (ARR_WORDS)", r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_retainers_of_a_value(self):
        # each copy once: a ByteString's array (under its PlainPtr) is part
        # of it, not a match of its own
        for value, count in (("text dup 0", 5), ("bytes dup 0", 4), ("string dup 0", 3)):
            r = run("retainers", self.program.socket, "--value", value, "--limit", "0", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            got = json.loads(r.stdout)
            self.assertEqual(got["count"], count, value)
            for m in got["matches"]:
                self.assertEqual(m["start"], "gc-root")


if __name__ == "__main__":
    unittest.main(verbosity=2)
