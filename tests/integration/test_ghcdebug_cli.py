"""ghc-debug's own snapshot files as TARGET: every command prints what it
prints live (text and JSON), on files the synthetic debuggee writes as
ghc-debug 0.6's "Take snapshot" would; bad files get one line and exit 1
(run by meson test)."""
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import DEBUGGEE, Debuggee, run  # noqa: E402  (same helpers, same binary)

# Each heap flavour: the debuggee's options (the heap is a function of them).
CASES = {
    "plain": ("--closures", "20000", "--seed", "3"),
    "profiled": ("--closures", "20000", "--profiled", "--eras", "6", "--leak-era", "2"),
    "saved_shortcut": ("--saved-shortcut", "--leak-count", "300"),
    "no_ipe": ("--no-ipe",),
}

COMMANDS = [
    ("roots",),
    ("census",),
    ("census", "--by", "constructor"),
    ("census", "--by", "source"),
    ("census", "--by", "era"),
    ("retainers", "--exact", "Leak", "--limit", "0"),
    ("find", "--type", "STACK"),
    ("find", "--constructor", "^Ju"),
]


def write_ghcdebug(path, args):
    r = subprocess.run([DEBUGGEE, *args, "--ghc-debug-snapshot", path], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("debuggee could not write the snapshot: " + r.stderr)


class SameAsLive(unittest.TestCase):
    def check_case(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "taken-by-ghc-debug")
            write_ghcdebug(path, args)
            with Debuggee(*args) as d:
                ok = 0
                for cmd in COMMANDS:
                    for fmt in ((), ("--json",)):
                        live = run(cmd[0], d.socket, *cmd[1:], *fmt)
                        snap = run(cmd[0], path, *cmd[1:], *fmt)
                        self.assertEqual((snap.returncode, snap.stdout, snap.stderr),
                                         (live.returncode, live.stdout, live.stderr), (cmd, fmt))
                        ok += live.returncode == 0 and bool(live.stdout.strip())
                self.assertGreaterEqual(ok, 2 * len(COMMANDS) - 2)  # all but census --by era
                # show: the first root closure and its children
                roots = json.loads(run("roots", path, "--json").stdout)
                first = roots["roots"][0]["address"]
                live = run("show", d.socket, first, "--depth", "3")
                snap = run("show", path, first, "--depth", "3")
                self.assertEqual((snap.returncode, snap.stdout), (0, live.stdout))
                # info: the same program, only the target differs
                live = json.loads(run("info", d.socket, "--json").stdout)
                snap = json.loads(run("info", path, "--json").stdout)
                live.pop("target")
                self.assertEqual(snap.pop("target"), path)
                self.assertEqual(snap, live)

    def test_plain(self):
        self.check_case(CASES["plain"])

    def test_profiled(self):
        self.check_case(CASES["profiled"])

    def test_saved_shortcut(self):
        self.check_case(CASES["saved_shortcut"])

    def test_no_ipe(self):
        self.check_case(CASES["no_ipe"])


class BadFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.good = os.path.join(cls.tmp.name, "good")
        write_ghcdebug(cls.good, ("--closures", "2000"))
        with open(cls.good, "rb") as f:
            cls.data = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def refused(self, data, want=None):
        path = os.path.join(self.tmp.name, "bad")
        with open(path, "wb") as f:
            f.write(data)
        for cmd in (("census",), ("roots", "--json"), ("info",)):
            r = run(cmd[0], path, *cmd[1:])
            self.assertEqual(r.returncode, 1, (cmd, r.stdout, r.stderr))
            self.assertEqual(r.stdout, "")
            lines = r.stderr.splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertTrue(lines[0].startswith("heapscope: "), lines[0])
            if want:
                self.assertIn(want, lines[0])

    def test_truncated(self):
        for cut in (12, 20, 100, len(self.data) // 2, len(self.data) - 1):
            self.refused(self.data[:cut])

    def test_other_format_version(self):
        self.refused(struct.pack(">I", 1) + self.data[4:],
                     "ghc-debug snapshot format version 1 is not supported "
                     "(this heapscope reads 0)")

    def test_corrupted(self):
        self.refused(self.data + b"\x00", "bytes after the last")
        count = struct.unpack(">q", self.data[4:12])[0]
        self.refused(self.data[:4] + struct.pack(">q", count + 1) + self.data[12:])
        damaged = bytearray(self.data)
        damaged[19] = 99  # the first request's command
        self.refused(bytes(damaged), "not a snapshot")
        self.refused(self.data[:4] + struct.pack(">q", -count) + self.data[12:])

    def test_not_a_snapshot(self):
        self.refused(b"", "not a snapshot")
        self.refused(b"hello, this is not a heap\n" * 10, "not a snapshot")


if __name__ == "__main__":
    unittest.main(verbosity=2)
