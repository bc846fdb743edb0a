"""heapscope strings / dump / retainers --value against the synthetic debuggee
run with --strings, checked against the values, counts, bytes and matches
its generator says it planted (plan "strings"; run by meson test)."""
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import PlantedCase, run  # noqa: E402  (same helpers, same binary)


def unescape(text):
    """The bytes of a value as heapscope writes it: \\xNN and \\\\ escapes."""
    out, i, raw = bytearray(), 0, text.encode()
    while i < len(raw):
        if raw[i:i + 2] == b"\\\\":
            out += b"\\"
            i += 2
        elif raw[i:i + 2] == b"\\x":
            out.append(int(raw[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


class PlantedStrings(PlantedCase):
    ARGS = ("--closures", "20000", "--strings", "--seed", "3")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.planted = {bytes.fromhex(r["value_hex"]): r for r in cls.plan["strings"]["rows"]}

    def strings(self, *args):
        return self.json_of("strings", "--top", "0", *args)

    def rows_by_value(self, result):
        rows = {}
        for r in result["rows"]:
            if r["complete"]:
                rows[unescape(r["value"])] = r
        return rows

    def test_planted_values_have_the_planned_counts_bytes_and_waste(self):
        result = self.strings()
        rows = self.rows_by_value(result)
        for value, want in self.planted.items():
            self.assertIn(value, rows, value)
            got = rows[value]
            for key in ("kinds", "count", "bytes", "wasted"):
                self.assertEqual(got[key], want[key], (value, key))
            self.assertEqual(got["length"], len(value))
            self.assertNotEqual(got["first"], "0x0")
        self.assertEqual(result["distinct"], len(result["rows"]))
        self.assertEqual(result["total_count"], sum(r["count"] for r in result["rows"]))
        self.assertEqual(result["total_wasted"], sum(r["wasted"] for r in result["rows"]))
        waste = [r["wasted"] for r in result["rows"]]
        self.assertEqual(waste, sorted(waste, reverse=True))

    def test_large_duplicate_arrays_lead_and_are_cut_in_the_preview(self):
        large = self.plan["strings"]["large"]
        top = self.strings()["rows"][0]
        self.assertEqual(top["length"], large["length"])
        self.assertEqual(top["count"], 2)
        self.assertEqual(top["bytes"], large["bytes"])
        self.assertEqual(top["wasted"], large["wasted"])
        self.assertFalse(top["complete"])
        self.assertIn(top["first_array"], large["addresses"])
        pattern = bytes((i * 7 + 3) % 256 for i in range(large["length"]))
        self.assertTrue(pattern.startswith(unescape(top["value"])))

    def test_text_output_and_top(self):
        r = run("strings", self.debuggee.socket, "--top", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertRegex(lines[0], r"^strings: \d+ copies of \d+ values, \d+ bytes, "
                                   r"\d+ wasted by duplicates$")
        self.assertEqual(lines[1].split(), ["wasted", "bytes", "count", "length", "kinds",
                                            "value"])
        self.assertEqual(len(lines), 2 + 3 + 1)
        self.assertRegex(lines[-1], r"^\(\d+ more values; --top 0 shows all\)$")
        want = self.planted["planted string λ".encode()]
        row = re.search(r"(?m)^\s*(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+String\s+\"planted string λ\"$",
                        r.stdout)
        self.assertIsNotNone(row, r.stdout)
        self.assertEqual(tuple(map(int, row.groups())),
                         (want["wasted"], want["bytes"], want["count"]))

    def test_filters_count_only_matching_copies(self):
        rows = self.rows_by_value(self.strings("--type", "ARR_WORDS"))
        self.assertEqual(rows[b"planted bytes\x01\x7f\\"]["count"], 3)
        self.assertNotIn("planted text λ".encode(), rows)  # a Text is a CONSTR
        for r in rows.values():
            self.assertEqual(r["kinds"], "ARR_WORDS")
        mixed = self.planted[b"planted mixed"]
        result = self.strings("--value", "planted mixed")
        self.assertEqual(len(result["rows"]), 1)
        self.assertEqual(result["rows"][0]["count"], mixed["count"])

    def test_retainers_of_a_value_find_each_copy(self):
        rows = self.rows_by_value(self.strings())
        for value, want in self.planted.items():
            escaped = rows[value]["value"]
            r = self.json_of("retainers", "--value", escaped, "--limit", "0")
            self.assertEqual(r["count"], want["matches"], (value, escaped))
            self.assertFalse(r["limit_reached"])
            self.assertEqual(r["filters"], ["String value " + escaped])

    def test_value_with_a_bad_escape_is_a_usage_error(self):
        r = run("retainers", self.debuggee.socket, "--value", "planted\\q")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--value", r.stderr)
        self.assertIn("\\xNN", r.stderr)

    def test_dump_writes_exactly_the_bytes(self):
        large = self.plan["strings"]["large"]
        pattern = bytes((i * 7 + 3) % 256 for i in range(large["length"]))
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "bytes.bin")
            r = run("dump", self.debuggee.socket, large["addresses"][1], "-o", out, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["bytes"], large["length"])
            with open(out, "rb") as f:
                self.assertEqual(f.read(), pattern)
            # a small one, found through the strings rows
            rows = self.rows_by_value(self.strings())
            arr = rows[b"planted bytes\x01\x7f\\"]["first_array"]
            r = run("dump", self.debuggee.socket, arr, "-o", out, "--force")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"^wrote 16 bytes of the byte array at 0x[0-9a-f]+ to ")
            with open(out, "rb") as f:
                self.assertEqual(f.read(), b"planted bytes\x01\x7f\\")

    def test_dump_keeps_an_existing_file_unless_forced(self):
        # as snapshot does: the same message and status, here before connecting
        rows = self.rows_by_value(self.strings())
        arr = rows[b"planted bytes\x01\x7f\\"]["first_array"]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "bytes.bin")
            with open(out, "wb") as f:
                f.write(b"keep me")
            for target in (self.debuggee.socket, os.path.join(d, "no-debuggee.sock")):
                r = run("dump", target, arr, "-o", out)
                self.assertEqual((r.returncode, r.stdout), (1, ""), r.stderr)
                self.assertEqual(r.stderr, "heapscope: %s already exists (--force replaces it)\n"
                                 % out)
            for target in (self.debuggee.socket, os.path.join(d, "no-debuggee.sock")):
                snap = run("snapshot", target, "-o", out)  # refused before connecting too
                self.assertEqual((snap.returncode, snap.stderr), (r.returncode, r.stderr))
            with open(out, "rb") as f:
                self.assertEqual(f.read(), b"keep me")
            self.assertEqual(os.listdir(d), ["bytes.bin"], "no temporary file left")
            r = run("dump", self.debuggee.socket, arr, "-o", out, "--force")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, "rb") as f:
                self.assertEqual(f.read(), b"planted bytes\x01\x7f\\")
            self.assertEqual(os.listdir(d), ["bytes.bin"])

    def test_dump_refuses_what_is_no_live_byte_array(self):
        rows = self.rows_by_value(self.strings())
        text = rows["planted text λ".encode()]["first"]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "bytes.bin")
            r = run("dump", self.debuggee.socket, text, "-o", out)
            self.assertEqual(r.returncode, 1)
            self.assertIn("is a CONSTR, not a byte array (ARR_WORDS)", r.stderr)
            r = run("dump", self.debuggee.socket, "0x4200000008", "-o", out)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no closure at 0x4200000008 in this pause", r.stderr)
            self.assertEqual(os.listdir(d), [], "nothing written on failure")
            r = run("dump", self.debuggee.socket, "banana", "-o", out)
            self.assertEqual(r.returncode, 2)
            r = run("dump", self.debuggee.socket, text)
            self.assertEqual(r.returncode, 2)
            self.assertIn("-o FILE", r.stderr)


if __name__ == "__main__":
    unittest.main()
