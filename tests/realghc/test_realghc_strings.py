"""heapscope strings and --value on real programs: tests/realghc/Tier.hs
built by GHC VERSION with the official stub, counted against what its
source puts in the heap: the 500 Text and 300 ByteString values, ByteString
and Text slices into one array (--slices), ByteStrings over a MallocPtr (--malloc)
and over malloc'd memory (--foreign: the only ones outside the GHC heap),
and Strings forced after the last GC (--lazy-lines), which the heap holds
through the BLACKHOLEs their evaluated thunks became.

usage: test_realghc_strings.py HEAPSCOPE VERSION   (run by meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realghc  # noqa: E402

HEAPSCOPE = sys.argv.pop(1)
VERSION = sys.argv.pop(1)
SLICES, MALLOC, FOREIGN, LAZY = 200, 100, 50, 300
CACHE = tempfile.TemporaryDirectory(prefix="heapscope-realghc-strings-cache-")


class Strings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = realghc.start(VERSION, "ipe", "--slices", str(SLICES), "--malloc",
                                    str(MALLOC), "--foreign", str(FOREIGN), "--lazy-lines",
                                    str(LAZY), rts=("-N2",))
        cls.result = cls.json_of("strings", cls.program.socket, "--top", "0")
        cls.rows = {r["value"]: r for r in cls.result["rows"] if r["complete"]}

    @classmethod
    def tearDownClass(cls):
        cls.program.stop_answering(HEAPSCOPE)  # running, and answers one more command

    @classmethod
    def heapscope(cls, *args):
        env = dict(os.environ, XDG_CACHE_HOME=CACHE.name)
        r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, env=env,
                           timeout=realghc.timeout(120))
        if r.returncode != 0:
            raise AssertionError("heapscope %s:\n%s%s\nthe program's stderr:\n%s"
                                 % (" ".join(args), r.stdout[-2000:], r.stderr,
                                    cls.program.stderr()))
        if not cls.program.alive():
            raise AssertionError("%s died:\n%s" % (cls.program, cls.program.stderr()))
        return r.stdout

    @classmethod
    def json_of(cls, *args):
        return json.loads(cls.heapscope(*args, "--json"))

    def assertValue(self, value, kind):
        row = self.rows.get(value)
        self.assertIsNotNone(row, value)
        self.assertEqual((row["kinds"], row["count"], row["length"]), (kind, 1, len(value)),
                         value)

    def assertOneMatch(self, value, constructor):
        """find --value VALUE: exactly one closure, the value's holder."""
        out = self.json_of("find", self.program.socket, "--value", value, "--limit", "0")
        self.assertEqual(out["count"], 1, (value, [m["closure"]["label"] for m in out["matches"]]))
        closure = out["matches"][0]["closure"]
        self.assertEqual((closure["constructor"] or {}).get("name"), constructor, closure)
        return closure

    def test_text_and_bytestring_values(self):
        for i in range(500):
            self.assertValue("text-%d" % i, "Text")
        for i in range(300):
            self.assertValue("bytes-%d" % i, "ByteString")

    def test_slices_at_offsets_into_one_array(self):
        for i in range(SLICES):
            self.assertValue("slice-%06d" % i, "ByteString")
            self.assertValue("tslice-%06d" % i, "Text")
        # the array they share is theirs, not a value of its own
        whole = [v for v in self.rows if v.startswith("slices:")]
        self.assertEqual(whole, [])

    def test_malloc_ptr_contents_are_in_the_heap(self):
        for i in range(MALLOC):
            self.assertValue("malloc-%d" % i, "ByteString")

    def test_only_malloced_memory_is_outside_the_heap(self):
        self.assertEqual(self.result["external"], FOREIGN)
        self.assertEqual([v for v in self.rows if v.startswith("foreign-")], [])
        out = self.json_of("find", self.program.socket, "--value", "foreign-7")
        self.assertEqual(out["count"], 0)
        text = self.heapscope("strings", self.program.socket, "--top", "1")
        self.assertEqual(text.splitlines()[-1],
                         "not counted: %d ByteStrings over memory outside the GHC heap "
                         "(malloc'd or static), 0 unevaluated or malformed strings" % FOREIGN)

    def test_strings_behind_blackholes(self):
        # the heap holds the lines through BLACKHOLEs (evaluated thunks no GC
        # has removed), so this test reads through them
        types = {r["key"]: r["count"] for r in
                 self.json_of("census", self.program.socket, "--by", "type", "--top", "0")["rows"]}
        self.assertGreaterEqual(types.get("BLACKHOLE", 0), LAZY)
        for i in range(LAZY):
            self.assertValue("line-%d" % i, "String")
        # each line once, and nothing left over as unevaluated
        self.assertEqual([v for v in self.rows if re.fullmatch(r"ine-\d+|\d+", v)], [])
        self.assertEqual(self.result["skipped"], 0)

    def test_value_matches_once_as_its_holder(self):
        text = self.assertOneMatch("text-7", "Text")
        self.assertEqual(text["type"], "CONSTR")
        bs = self.assertOneMatch("bytes-7", "BS")
        # the Addr# is an address of this heap: in hex, the length in decimal
        self.assertRegex(bs["label"], r"^BS 0x[0-9a-f]+ 0x[0-9a-f]+ 7$")
        self.assertOneMatch("slice-000007", "BS")
        self.assertOneMatch("tslice-000007", "Text")
        self.assertOneMatch("malloc-7", "BS")
        self.assertOneMatch("line-7", ":")
        for value, kind in (("text-7", "Text"), ("bytes-7", "ByteString"),
                            ("slice-000007", "ByteString"), ("line-7", "String")):
            out = self.json_of("strings", self.program.socket, "--value", value)
            self.assertEqual([(r["kinds"], r["count"]) for r in out["rows"]], [(kind, 1)], value)


if __name__ == "__main__":
    realghc.main(lambda: unittest.main(verbosity=2))
