"""A block group listed twice (issue 19, point 5): the RTS lists each empty
pinned group once per capability, byte for byte, and ghc-debug 0.6 writes
both copies into its snapshot files. heapscope keeps the first copy wherever
blocks arrive (a live ALL_BLOCKS answer, a ghc-debug file, a heapscope
snapshot, a recorded pause) and counts and stores each group once; copies
that differ are refused.

The real file: $HEAPSCOPE_SHARED/fixtures/ghc-debug-snapshots/ (the shared/
folder beside the repository; meson points the variable there when it
exists) holds a ghc-debug 0.6.0.0 snapshot of a GHC 9.6.6 program and
ghc-debug's own census of it, which heapscope's must equal bucket by bucket.
Without that folder those cases are skipped, saying why (run by meson test).

The keys compare as they are: heapscope's constructor keys are spelled as
ghc-debug prints them (package:module:name, `::NAME` for the RTS's own
closures such as END_TSO_QUEUE and the SRT_n tables, the closure type for
everything else), so no key is translated."""
import json
import lzma
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import DEBUGGEE, Debuggee, private_cache, run  # noqa: E402  (same helpers, same binary)

CACHE = private_cache()  # recorded pauses and converted files go to a cache of our own

SHARED = os.environ.get("HEAPSCOPE_SHARED", "")
FIXTURES = os.path.join(SHARED, "fixtures", "ghc-debug-snapshots") if SHARED else ""
SNAPSHOT_XZ = os.path.join(FIXTURES, "leak-ghc-9.6.6.snapshot.xz")
GHC_DEBUG_CENSUS = os.path.join(FIXTURES, "leak-ghc-9.6.6.census.txt")

# a heap with pinned groups (byte arrays of --strings), small enough for valgrind
HEAP = ("--closures", "20000", "--strings", "--seed", "5", "--leak-count", "200")


def ok(*args):
    r = run(*args)
    if r.returncode != 0:
        raise AssertionError("heapscope %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                             r.stderr))
    return r.stdout


def all_blocks(data):
    """The block groups of a ghc-debug snapshot's ALL_BLOCKS answer, in file
    order: (offset of the group's bytes in data, start, length) each."""
    at = data.find(struct.pack(">II", 4, 14))  # the request: LEN 4, ALL_BLOCKS
    if at < 0:
        raise AssertionError("no ALL_BLOCKS entry")
    count = struct.unpack(">q", data[at + 8:at + 16])[0]
    at += 16
    groups = []
    for _ in range(count):
        start = struct.unpack("<Q", data[at + 2:at + 10])[0]
        length = struct.unpack(">I", data[at + 10:at + 14])[0]
        groups.append((at + 14, start, length))
        at += 14 + length
    return groups


def copies(data):
    """How many groups ALL_BLOCKS lists, how many distinct ones, their bytes
    counted once; asserting that groups of one start are byte-identical."""
    seen = {}
    for off, start, length in all_blocks(data):
        body = data[off:off + length]
        if start in seen:
            assert seen[start] == body, "copies of 0x%x differ" % start
        else:
            seen[start] = body
    return len(all_blocks(data)), len(seen), sum(len(b) for b in seen.values())


def read(path):
    with open(path, "rb") as f:
        return f.read()


def meta(path):
    with sqlite3.connect("file:%s?mode=ro" % path, uri=True) as db:
        return {k: v for k, v in db.execute("SELECT key, value FROM meta")}


def write_ghcdebug(path, *args):
    r = subprocess.run([DEBUGGEE, *args, "--ghc-debug-snapshot", path], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("debuggee could not write the snapshot: " + r.stderr)


def heapscope_key(key):
    """ghc-debug shows the RTS's static reference tables as constructors of
    no package and module ("::SRT_2"); heapscope names them as what they
    are ("SRT_2 (static reference table)"), the buckets being the same."""
    m = re.fullmatch(r"::(SRT_[0-9]+)", key)
    return m.group(1) + " (static reference table)" if m else key


def read_census_txt(path):
    """ghc-debug's census: {key: (count, bytes, max)} and (count, bytes),
    keyed as heapscope keys the same buckets (heapscope_key)."""
    rows, total = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "TOTAL":
                total = (int(fields[1]), int(fields[2]))
            else:
                count, size, biggest, key = fields
                key = heapscope_key(key)
                if key in rows:
                    raise AssertionError("ghc-debug's census names %r twice" % key)
                rows[key] = (int(count), int(size), int(biggest))
    if total is None:
        raise AssertionError("no TOTAL line in " + path)
    return rows, total


class RealGhcDebugFile(unittest.TestCase):
    """The real file: opens, and its census is ghc-debug's own."""

    @classmethod
    def setUpClass(cls):
        if not SHARED:
            raise unittest.SkipTest("HEAPSCOPE_SHARED is not set: the folder holding "
                                    "fixtures/ghc-debug-snapshots/ (shared/ beside the repository)")
        if not os.path.isfile(SNAPSHOT_XZ) or not os.path.isfile(GHC_DEBUG_CENSUS):
            raise unittest.SkipTest("no real ghc-debug snapshot and census in " + FIXTURES)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.tmp.name, "leak-ghc-9.6.6.snapshot")
        with lzma.open(SNAPSHOT_XZ) as src, open(cls.path, "wb") as dst:
            dst.write(src.read())
        cls.data = read(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_file_lists_groups_twice(self):
        listed, distinct, size = copies(self.data)
        self.assertGreater(listed, distinct, "the fixture no longer shows the copies")
        self.assertEqual((listed, distinct), (1578, 1327))
        self.assertEqual(size, 5_505_024)  # 5.5 MB once, 6.5 MB with the copies

    def census(self, *extra):
        return json.loads(ok("census", self.path, "--by", "constructor", "--top", "0", "--json",
                             *extra))

    def test_census_equals_ghc_debugs_bucket_by_bucket(self):
        want, (want_count, want_bytes) = read_census_txt(GHC_DEBUG_CENSUS)
        # the file itself, then (first open converts it) the cache's copy of it
        for how in (("--no-cache",), (), ()):
            got = self.census(*how)
            self.assertEqual(got["unreadable"]["count"], 0, got["unreadable"])
            rows = {}
            for r in got["rows"]:
                self.assertNotIn(r["key"], rows, "heapscope names a bucket twice")
                rows[r["key"]] = (r["count"], r["bytes"], r["max"])
            missing = sorted(set(want) - set(rows))
            extra = sorted(set(rows) - set(want))
            self.assertEqual(missing, [], "buckets of ghc-debug's that heapscope lacks %r" % (how,))
            self.assertEqual(extra, [], "buckets heapscope has that ghc-debug's lacks %r" % (how,))
            for key in sorted(want):
                self.assertEqual(rows[key], want[key], "%s: (count, bytes, max) %r" % (key, how))
            self.assertEqual((got["total_count"], got["total_bytes"]), (want_count, want_bytes))

    def test_a_snapshot_of_it_stores_each_group_once(self):
        _, distinct, size = copies(self.data)
        out = os.path.join(self.tmp.name, "leak.heapscope")
        written = json.loads(ok("snapshot", self.path, "-o", out, "--json"))
        self.assertEqual(written["heap_bytes"], size)
        m = meta(out)
        self.assertEqual((int(m["block_groups"]), int(m["heap_bytes"])), (distinct, size))
        self.assertEqual(ok("census", out, "--by", "constructor", "--top", "0"),
                         ok("census", self.path, "--by", "constructor", "--top", "0"))


class CopiesFromEverySource(unittest.TestCase):
    """The synthetic debuggee with --duplicate-pinned lists every pinned
    group twice, as the RTS does; the same heap without it lists each once.
    Every source gives the same figures for both."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.once = os.path.join(cls.tmp.name, "once.ghc-debug")
        cls.twice = os.path.join(cls.tmp.name, "twice.ghc-debug")
        write_ghcdebug(cls.once, *HEAP)
        write_ghcdebug(cls.twice, *HEAP, "--duplicate-pinned")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def file(self, name):
        return os.path.join(self.tmp.name, name)

    def test_live_pauses_snapshots_and_recorded_pauses_count_each_group_once(self):
        with Debuggee(*HEAP) as once, Debuggee(*HEAP, "--duplicate-pinned") as twice:
            figures = {}
            for name, d in (("once", once), ("twice", twice)):
                out = self.file(name + ".heapscope")
                written = json.loads(ok("snapshot", d.socket, "-o", out, "--json"))
                m = meta(out)
                census = ok("census", d.socket, "--by", "constructor", "--record")
                recorded = json.loads(ok("cache", "list", "--json"))["pauses"][0]
                self.assertEqual(recorded["target"], d.socket)
                figures[name] = (written["heap_bytes"], int(m["heap_bytes"]),
                                 int(m["block_groups"]), recorded["heap_bytes"], census,
                                 ok("census", out, "--by", "constructor"),
                                 ok("census", recorded["file"], "--by", "constructor"))
            self.assertEqual(figures["twice"], figures["once"])
            listed, distinct, size = copies(read(self.twice))
            self.assertGreater(listed, distinct, "--duplicate-pinned listed nothing twice")
            self.assertEqual(figures["once"][:3], (size, size, distinct))

    def test_ghc_debug_files_with_copies_read_as_without(self):
        listed, distinct, _ = copies(read(self.once))
        self.assertEqual(listed, distinct, "without --duplicate-pinned, each group once")
        for cmd in (("census", "--by", "constructor"), ("census", "--by", "type"),
                    ("roots",)):
            for extra in (("--no-cache",), ()):
                self.assertEqual(ok(cmd[0], self.twice, *cmd[1:], *extra),
                                 ok(cmd[0], self.once, *cmd[1:], *extra), (cmd, extra))
        out = self.file("from-twice.heapscope")
        ok("snapshot", self.twice, "-o", out)
        _, distinct, size = copies(read(self.twice))
        m = meta(out)
        self.assertEqual((int(m["block_groups"]), int(m["heap_bytes"])), (distinct, size))

    def test_an_older_snapshot_holding_copies_reads_as_without(self):
        """heapscope snapshots written before the fix stored the copies: a
        chunk of groups stored twice reads as the file without it."""
        with Debuggee(*HEAP) as d:
            out = self.file("older.heapscope")
            ok("snapshot", d.socket, "-o", out)
        want = ok("census", out, "--by", "constructor")
        info = meta(out)
        with sqlite3.connect(out) as db:
            db.execute("INSERT INTO heap_chunks (groups, groups_checksum, data_checksum, data) "
                       "SELECT groups, groups_checksum, data_checksum, data FROM heap_chunks "
                       "WHERE chunk = (SELECT min(chunk) FROM heap_chunks)")
        self.assertEqual(ok("census", out, "--by", "constructor"), want)
        again = self.file("again.heapscope")
        ok("snapshot", out, "-o", again)
        m = meta(again)
        self.assertEqual((m["block_groups"], m["heap_bytes"]),
                         (info["block_groups"], info["heap_bytes"]))

    def refused(self, data, want):
        path = self.file("bad.ghc-debug")
        with open(path, "wb") as f:
            f.write(data)
        r = run("census", path, "--no-cache")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertIn(want, r.stderr)

    def test_copies_that_differ_are_refused(self):
        data = bytearray(read(self.twice))
        by_start = {}
        for off, start, length in all_blocks(bytes(data)):
            by_start.setdefault(start, []).append((off, length))
        start, [(_, length), (second, _)] = next((s, v) for s, v in by_start.items()
                                                 if len(v) == 2)
        data[second + length - 1] ^= 0xff  # the second copy's last byte
        self.refused(bytes(data), "the block group at 0x%x (%d bytes) is listed twice with "
                                  "different bytes" % (start, length))
        # a group that starts inside the one before it
        data = bytearray(read(self.once))
        groups = all_blocks(bytes(data))
        off, start, length = groups[1]
        prev_start, prev_length = groups[0][1], groups[0][2]
        data[off - 12:off - 4] = struct.pack("<Q", prev_start + 8)
        self.refused(bytes(data), "the block groups at 0x%x (%d bytes) and 0x%x (%d bytes) "
                                  "overlap" % (prev_start, prev_length, prev_start + 8, length))


if __name__ == "__main__":
    unittest.main(verbosity=2)
