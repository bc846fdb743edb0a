"""The closure cache seen from the command line, against the synthetic
debuggee counting the requests it serves (--count-requests): a second
census of an unchanged program asks almost nothing immutable again, a
rebuilt binary or other arguments are never decoded with stale answers,
and heapscope processes sharing the cache corrupt nothing (run by meson
test)."""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import DEBUGGEE, HEAPSCOPE, request_counts  # noqa: E402

IMMUTABLE = ("INFO_TABLES", "SRT", "CON_DESC", "SOURCE_INFO", "FUN_BITMAP")
SETARCH = shutil.which("setarch")


def wait_for_socket(path, proc):
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the debuggee ended early")
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(path)
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the debuggee did not open " + path)


class Program:
    """A debuggee process (optionally a copy of the binary at `binary`, run
    without address randomisation so two runs load it at the same place, as
    a GHC program that is not position-independent is)."""

    def __init__(self, tmp, *args, binary=DEBUGGEE, fixed_addresses=False, name="d"):
        self.socket = os.path.join(tmp, name + ".sock")
        self.counts_path = os.path.join(tmp, name + ".counts")
        if os.path.exists(self.counts_path):
            os.remove(self.counts_path)
        cmd = [binary, "--socket", self.socket, "--count-requests", self.counts_path, *args]
        if fixed_addresses:
            cmd = [SETARCH, os.uname().machine, "-R"] + cmd
        self.proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        wait_for_socket(self.socket, self.proc)

    def counts(self, connections):
        return request_counts(self.counts_path, connections)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def immutable(counts):
    return {k: counts.get(k, 0) for k in IMMUTABLE}


def delta(after, before):
    return {k: after.get(k, 0) - before.get(k, 0) for k in IMMUTABLE}


class CacheCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="heapscope-cache-")
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        self.programs = []

    def tearDown(self):
        for p in self.programs:
            p.stop()
        shutil.rmtree(self.tmp)

    def program(self, *args, **kw):
        p = Program(self.tmp, *args, **kw)
        self.programs.append(p)
        return p

    def run_ok(self, *args):
        r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, timeout=120,
                           env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "", "no warning about the cache")
        return r.stdout

    def census(self, program, *extra):
        return self.run_ok("census", program.socket, "--by", "constructor", *extra)

    def db(self):
        return os.path.join(self.tmp, "cache", "heapscope", "cache.db")


class SameProgram(CacheCase):
    def test_second_census_asks_almost_nothing_immutable(self):
        p = self.program("--closures", "20000", "--profiled", "--eras", "4", "--seed", "3")
        first = self.census(p)
        one = p.counts(1)
        self.assertGreater(one["INFO_TABLES"], 0)
        self.assertGreater(one["CON_DESC"], 10)
        second = self.census(p)
        two = p.counts(2)
        self.assertEqual(first, second, "the cache changes no answer")
        self.assertEqual(delta(two, one), {k: 0 for k in IMMUTABLE},
                         "the second census asked again: %s" % delta(two, one))
        # RET_FUN frames' maps belong to the frame: those are asked again
        self.assertLessEqual(two.get("STACK_BITMAP", 0) - one.get("STACK_BITMAP", 0),
                             one.get("STACK_BITMAP", 0))
        self.assertTrue(os.path.exists(self.db()))

    def test_no_cache_asks_everything_and_writes_nothing(self):
        p = self.program("--closures", "5000", "--seed", "4")
        self.census(p, "--no-cache")
        one = p.counts(1)
        self.census(p, "--no-cache")
        two = p.counts(2)
        self.assertEqual(delta(two, one), immutable(one))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "cache")))

    def test_tcp_target_has_no_fingerprint(self):
        tcp_log = os.path.join(self.tmp, "tcp.log")
        counts = os.path.join(self.tmp, "tcp.counts")
        with open(tcp_log, "w") as log:
            proc = subprocess.Popen([DEBUGGEE, "--tcp", "127.0.0.1:0", "--closures", "3000",
                                     "--count-requests", counts], stderr=log)
        try:
            deadline = time.time() + 30
            port = None
            while port is None and time.time() < deadline:
                with open(tcp_log) as f:
                    text = f.read()
                if "127.0.0.1:" in text:
                    port = text.split("127.0.0.1:")[1].split()[0].strip(":,")
                time.sleep(0.05)
            target = "tcp:127.0.0.1:" + port
            self.run_ok("census", target)
            one = request_counts(counts, 1, probes=0)
            self.run_ok("census", target)
            two = request_counts(counts, 2, probes=0)
            self.assertGreater(one["INFO_TABLES"], 0)
            self.assertEqual(delta(two, one), immutable(one), "asked twice, no reuse")
        finally:
            proc.terminate()
            proc.wait(timeout=10)

    def test_damaged_cache_is_a_warning_not_a_failure(self):
        p = self.program("--closures", "3000")
        os.makedirs(os.path.dirname(self.db()))
        with open(self.db(), "w") as f:
            f.write("not a database " * 100)
        r = subprocess.run([HEAPSCOPE, "census", p.socket], capture_output=True, text=True,
                           timeout=60, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("going on without the cache", lines[0])
        self.assertIn("cache.db", lines[0])
        self.assertIn("census by", r.stdout)


class Recorded(CacheCase):
    def cache_list(self, *extra):
        return json.loads(self.run_ok("cache", "list", "--json", *extra))

    def test_record_keeps_the_pause_as_a_snapshot_listed_newest_first(self):
        p = self.program("--closures", "20000", "--seed", "6", "--profiled", "--eras", "3")
        self.assertEqual(self.cache_list()["pauses"], [])
        live = self.census(p, "--record")
        self.census(p, "--record")
        listing = self.cache_list()
        pauses = listing["pauses"]
        self.assertEqual(len(pauses), 2)
        self.assertGreaterEqual(pauses[0]["paused_at"], pauses[1]["paused_at"])
        newest = pauses[0]
        self.assertEqual(newest["pid"], p.proc.pid)
        self.assertEqual(newest["program"], "heapscope-debuggee")
        self.assertEqual(newest["target"], p.socket)
        self.assertEqual(os.path.getsize(newest["file"]), newest["file_bytes"])
        census = json.loads(self.run_ok("census", p.socket, "--json"))
        self.assertEqual(newest["closures"], census["total_count"])
        self.assertGreater(newest["heap_bytes"], 0)
        self.assertEqual(listing["db_bytes"] > 0, True)
        self.assertEqual(listing["pause_bytes"], sum(x["file_bytes"] for x in pauses))
        # the recorded pause answers as the live program did
        self.assertEqual(self.census_file(newest["file"]), live)
        text = self.run_ok("cache", "list")
        self.assertIn("2 recorded pauses; answers of 1 program,", text)
        self.assertIn(newest["file"], text)

    def census_file(self, path):
        return self.run_ok("census", path, "--by", "constructor")

    def test_cap_drops_the_oldest_pauses_first(self):
        p = self.program("--closures", "60000", "--seed", "7")
        self.census(p, "--record")
        size = self.cache_list()["pauses"][0]["file_bytes"]
        cap = "%dK" % ((2 * size + size // 2 + 200 * 1024) // 1024)  # two pauses and the db
        for _ in range(3):
            self.census(p, "--record", "--cache-size", cap)
        pauses = self.cache_list()["pauses"]
        self.assertEqual(len(pauses), 2, [x["file"] for x in pauses])
        kept = {x["file"] for x in pauses}
        files = sorted(os.listdir(os.path.join(self.tmp, "cache", "heapscope", "pauses")))
        self.assertEqual({os.path.join(self.tmp, "cache", "heapscope", "pauses", f)
                          for f in files}, kept, "no file is left that no row names")
        # the newest stays even when it alone is over the cap
        self.census(p, "--record", "--cache-size", "1M")
        self.assertEqual(len(self.cache_list()["pauses"]), 1)

    def test_clear_removes_everything_also_a_damaged_database(self):
        p = self.program("--closures", "3000")
        self.census(p, "--record")
        self.run_ok("cache", "clear")
        self.assertEqual(self.cache_list()["pauses"], [])
        with open(self.db(), "w") as f:
            f.write("garbage " * 100)
        r = subprocess.run([HEAPSCOPE, "cache", "list"], capture_output=True, text=True,
                           env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cache clear", r.stderr)
        self.run_ok("cache", "clear")
        self.assertEqual(self.cache_list()["programs"], 0)

    def test_record_without_cache_is_an_error(self):
        p = self.program("--closures", "3000")
        r = subprocess.run([HEAPSCOPE, "census", p.socket, "--record", "--no-cache"],
                           capture_output=True, text=True, env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--record needs the cache", r.stderr)

    def test_bad_sizes_are_usage_errors(self):
        for bad in ("0", "12Q", "-5M", "1K", "", "G"):
            r = subprocess.run([HEAPSCOPE, "cache", "list", "--cache-size", bad],
                               capture_output=True, text=True, env=self.env)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--cache-size wants a size", r.stderr)
        listing = self.cache_list("--cache-size", "3GiB")
        self.assertEqual(listing["max_bytes"], 3 << 30)
        self.assertEqual(self.cache_list("--cache-size", "1048576")["max_bytes"], 1 << 20)


@unittest.skipUnless(SETARCH, "setarch is needed to load the debuggee at fixed addresses")
class OtherProgram(CacheCase):
    """Two runs at the same addresses: only the fingerprint tells them apart."""

    def copy_binary(self):
        path = os.path.join(self.tmp, "prog")
        shutil.copy(DEBUGGEE, path)
        return path

    def run_twice(self, first_args, second_args, first_binary, second_binary):
        a = self.program(*first_args, binary=first_binary, fixed_addresses=True, name="x")
        out_a = self.census(a)
        a.stop()
        self.programs.remove(a)
        b = self.program(*second_args, binary=second_binary, fixed_addresses=True, name="x")
        out_b = self.census(b)
        return out_a, out_b, immutable(b.counts(1))

    def test_same_binary_and_arguments_reuse_across_processes(self):
        prog = self.copy_binary()
        args = ("--closures", "5000", "--seed", "9")
        out_a, out_b, asked = self.run_twice(args, args, prog, prog)
        self.assertEqual(out_a, out_b)
        self.assertEqual(asked, {k: 0 for k in IMMUTABLE})

    def test_rebuilt_binary_at_the_same_path_is_asked_again(self):
        prog = self.copy_binary()
        args = ("--closures", "5000", "--seed", "9")
        a = self.program(*args, binary=prog, fixed_addresses=True, name="x")
        self.census(a)
        a.stop()
        self.programs.remove(a)
        # "rebuilt": another file at the same path (new inode, other bytes)
        os.remove(prog)
        shutil.copy(DEBUGGEE, prog)
        with open(prog, "ab") as f:
            f.write(b"rebuilt")
        b = self.program(*args, binary=prog, fixed_addresses=True, name="x")
        self.census(b)
        asked = immutable(b.counts(1))
        self.assertGreater(asked["INFO_TABLES"], 0)
        self.assertGreater(asked["CON_DESC"], 0)

    def test_arguments_that_change_info_tables_are_never_stale(self):
        """--leak-constructor names the leak's info table differently at the
        same address: a reused cache would show the first name."""
        prog = self.copy_binary()
        base = ("--closures", "5000", "--leak-count", "50", "--seed", "9")
        out_a, out_b, asked = self.run_twice(base + ("--leak-constructor", "Alpha"),
                                             base + ("--leak-constructor", "Beta"), prog, prog)
        self.assertIn("main:Main:Alpha", out_a)
        self.assertIn("main:Main:Beta", out_b)
        self.assertNotIn("Alpha", out_b)
        self.assertGreater(asked["CON_DESC"], 0)


class Concurrent(CacheCase):
    def test_processes_sharing_the_cache_corrupt_nothing(self):
        programs = [self.program("--closures", "8000", "--seed", str(s), "--profiled",
                                 name="p%d" % s) for s in range(3)]
        expected = [self.census(p) for p in programs]
        failures = []

        def hammer(i):
            for _ in range(4):
                r = subprocess.run([HEAPSCOPE, "census", programs[i].socket, "--by",
                                    "constructor"], capture_output=True, text=True,
                                   timeout=120, env=self.env)
                if r.returncode != 0 or r.stderr or r.stdout != expected[i]:
                    failures.append((i, r.returncode, r.stderr))

        threads = [threading.Thread(target=hammer, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        with sqlite3.connect(self.db()) as db:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")
            self.assertEqual(db.execute("PRAGMA journal_mode").fetchone()[0], "wal")
            self.assertEqual(db.execute("SELECT count(*) FROM programs").fetchone()[0], 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
