"""ghc-debug's own snapshot files as TARGET: every command prints what it
prints live (text and JSON), on files the synthetic debuggee writes as
ghc-debug 0.6's "Take snapshot" would, read directly and from the copy
converted into the cache on first open, except for what ghc-debug did not
record, which is named as unreadable; bad files get one line and exit 1
(run by meson test)."""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import DEBUGGEE, HEAPSCOPE, Debuggee, raw_status, run, untimed  # noqa: E402  (same helpers, same binary)
import valgrind  # noqa: E402  (tests/common, on the path test_cli set)

CACHE_HOME = tempfile.TemporaryDirectory()  # conversions go to a cache of our own
os.environ["XDG_CACHE_HOME"] = CACHE_HOME.name

# Each heap flavour: the debuggee's options (the heap is a function of them).
# fewer leaks than the generator's 1000, and under valgrind smaller heaps
# too (the last option given counts): retainers --limit 0 prints every
# leak's path, 350 MB of JSON for 1000 leaks, which Python reads slowly
SMALLER = valgrind.scaled(("--leak-count", "100"), ("--closures", "3000", "--leak-count", "50"))
CASES = {
    "plain": ("--closures", "20000", "--seed", "3") + SMALLER,
    "profiled": ("--closures", "20000", "--profiled", "--eras", "6", "--leak-era", "2") + SMALLER,
    "saved_shortcut": ("--saved-shortcut", "--leak-count", "300") + SMALLER,
    "no_ipe": ("--no-ipe",) + SMALLER,
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


def without_last_frames_code(text):
    """show's text without where the last frame of each stack chunk returns
    to: ghc-debug drops that frame, so never asks for its source location
    (the frame's kind is still there)."""
    return re.sub(r"\((stop|underflow) frame \S+ at \S+\)", r"(\1 frame)", text)


class SameAsLive(unittest.TestCase):
    def same_but_unreadable(self, cmd, live, snap):
        """snap is live, except for closures heapscope says it could not
        read because ghc-debug did not record them (on this heap: the stack
        chunk below an underflow frame, which ghc-debug drops)."""
        lost = snap.get("unreadable", {"count": 0})
        self.assertEqual(live.get("unreadable", {"count": 0})["count"], 0)
        if lost["count"] == 0:
            self.assertEqual(snap, live, cmd)
            return False
        self.assertIn("snapshot did not record", lost["problem"])  # ghc-debug's or its copy
        self.assertLessEqual(lost["count"], 2, lost)
        if cmd[0] == "census":
            rows = {r["key"]: r for r in live["rows"]}
            for r in snap["rows"]:
                self.assertLessEqual((r["count"], r["bytes"]),
                                     (rows[r["key"]]["count"], rows[r["key"]]["bytes"]), r)
            self.assertLessEqual(live["total_count"] - snap["total_count"], lost["count"])
        elif cmd[0] == "retainers":  # the leak's paths do not pass there
            self.assertEqual(snap["matches"], live["matches"])
        elif cmd[0] == "find":
            found = [m["closure"] for m in live["matches"]]
            for m in snap["matches"]:
                self.assertIn(m["closure"], found)
        else:
            self.assertEqual({k: v for k, v in snap.items() if k != "unreadable"},
                             {k: v for k, v in live.items() if k != "unreadable"}, cmd)
        return True

    def check_case(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "taken-by-ghc-debug")
            write_ghcdebug(path, args)
            with Debuggee(*args) as d:
                ok = 0
                for cmd in COMMANDS:
                    live = run(cmd[0], d.socket, *cmd[1:], "--json")
                    live_text = run(cmd[0], d.socket, *cmd[1:])
                    # the first read converts the file, later ones read the copy;
                    # --no-cache reads the file itself every time
                    for extra in ((), ("--no-cache",)):
                        snap = run(cmd[0], path, *cmd[1:], "--json", *extra)
                        snap_text = run(cmd[0], path, *cmd[1:], *extra)
                        self.assertEqual((snap.returncode, snap_text.returncode),
                                         (live.returncode, live_text.returncode), snap.stderr)
                        if live.returncode != 0:  # census --by era without era profiling
                            self.assertEqual((snap.stderr, snap_text.stderr),
                                             (live.stderr, live_text.stderr))
                            continue
                        ok += 1
                        if not self.same_but_unreadable(cmd, untimed(json.loads(live.stdout)),
                                                        untimed(json.loads(snap.stdout))):
                            self.assertEqual((snap_text.stdout, snap_text.stderr),
                                             (live_text.stdout, live_text.stderr), cmd)
                        elif cmd[0] != "roots":
                            self.assertRegex(snap_text.stderr, r"^heapscope: \d+ closures? "
                                             r"could not be read[^\n]*did not record[^\n]*\n$")
                self.assertGreaterEqual(ok, 2 * (len(COMMANDS) - 1))
                # show: the first root closure and its children
                roots = json.loads(run("roots", path, "--json").stdout)
                first = roots["roots"][0]["address"]
                live = run("show", d.socket, first, "--depth", "3")
                snap = run("show", path, first, "--depth", "3")
                self.assertEqual((snap.returncode, without_last_frames_code(snap.stdout)),
                                 (0, without_last_frames_code(live.stdout)))
                # info: the same program, only the target differs
                live = untimed(json.loads(run("info", d.socket, "--json").stdout))
                snap = untimed(json.loads(run("info", path, "--json").stdout))
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


class OverTheWire(unittest.TestCase):
    def test_same_file_from_the_socket(self):
        """--ghc-debug-snapshot-of imitates the client over a debuggee's
        socket: the file is byte for byte the one written in process, and
        the debuggee is resumed after it."""
        args = ("--closures", "5000", "--profiled")
        with tempfile.TemporaryDirectory() as tmp:
            here, there = os.path.join(tmp, "here"), os.path.join(tmp, "there")
            write_ghcdebug(here, args)
            with Debuggee(*args) as d:
                r = subprocess.run([DEBUGGEE, "--ghc-debug-snapshot", there,
                                    "--ghc-debug-snapshot-of", d.socket],
                                   capture_output=True, text=True, timeout=300)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(raw_status(d.socket, 3), 0x0102)  # RESUME: not paused
            with open(here, "rb") as a, open(there, "rb") as b:
                self.assertEqual(a.read(), b.read())


class Conversion(unittest.TestCase):
    """The first open keeps a converted copy in the cache; later opens of the
    unchanged file read it; a changed file is converted again."""

    def pauses(self, cache):
        d = os.path.join(cache, "heapscope", "pauses")
        return sorted((n, os.stat(os.path.join(d, n)).st_ino)
                      for n in os.listdir(d) if n.endswith(".hsnap"))

    def test_converted_once_per_version_of_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
            path = os.path.join(tmp, "gd")
            write_ghcdebug(path, ("--closures", "3000"))

            def census(*extra):
                r = subprocess.run([HEAPSCOPE, "census", path, *extra],
                                   capture_output=True, text=True, env=env, timeout=120)
                self.assertEqual(r.returncode, 0, r.stderr)
                return r.stdout + r.stderr  # the unreadable note names no file

            first = census()
            kept = self.pauses(env["XDG_CACHE_HOME"])
            self.assertEqual(len(kept), 1)
            self.assertEqual(census(), first)
            self.assertEqual(self.pauses(env["XDG_CACHE_HOME"]), kept, "the copy was reused")
            self.assertEqual(census("--no-cache"), first)
            self.assertEqual(self.pauses(env["XDG_CACHE_HOME"]), kept)
            listed = subprocess.run([HEAPSCOPE, "cache", "list"], capture_output=True, text=True,
                                    env=env, timeout=60).stdout
            self.assertIn("ghc-debug:gd", listed)
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))  # "rewritten"
            self.assertEqual(census(), first)
            self.assertEqual(len(self.pauses(env["XDG_CACHE_HOME"])), 2)


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
