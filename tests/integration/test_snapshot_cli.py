"""heapscope snapshot and snapshot files as TARGET (run by meson test):
every command prints from a snapshot exactly what it prints live; the
closures table answers the man page's sqlite3 queries with the planted
values; bad files give one line and exit 1; writing is atomic."""
import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, PlantedCase, run, untimed  # noqa: E402
import valgrind  # noqa: E402  (tests/common, on the path test_cli set)

SQLITE3 = shutil.which("sqlite3")
# a heap whose writing lasts long enough to be interrupted (memcheck makes
# heapscope some 30 times slower)
BIG = ("--closures", str(valgrind.scaled(2000000, 200000)), "--seed", "4")


def snapshot(target, path, *args):
    r = run("snapshot", target, "-o", path, *args)
    if r.returncode != 0:
        raise AssertionError(f"snapshot failed: {r.stderr}")
    return r


class SameAsLive:
    """Mixin: a debuggee (ARGS) and one snapshot of it, compared command by
    command. The target's own name is the only difference allowed."""

    def setUp(self):
        if not hasattr(type(self), "file"):
            cls = type(self)
            cls.file = os.path.join(cls.tmp.name, "pause.heapscope")
            snapshot(cls.debuggee.socket, cls.file)

    def same(self, command, *args, code=0):
        live = run(command, self.debuggee.socket, *args)
        saved = run(command, self.file, *args)
        self.assertEqual(live.returncode, code, live.stderr)
        self.assertEqual(saved.returncode, live.returncode, saved.stderr)
        self.assertEqual(untimed(saved.stdout.replace(self.file, "TARGET")),
                         untimed(live.stdout.replace(self.debuggee.socket, "TARGET")),
                         f"{command} {args}")
        self.assertEqual(saved.stderr.replace(self.file, "TARGET"),
                         live.stderr.replace(self.debuggee.socket, "TARGET"))
        return live.stdout

    def leak_address(self):
        out = json.loads(self.same("find", "--exact", "Leak", "--limit", "1", "--json"))
        return out["matches"][0]["closure"]["address"]

    def test_info(self):
        for fmt in ((), ("--json",)):
            self.same("info", *fmt)

    def test_roots(self):
        for fmt in ((), ("--json",)):
            self.assertTrue(self.same("roots", *fmt))

    def test_census_every_kind(self):
        for by in ("type", "constructor", "source") + self.ERA_KINDS:
            for fmt in ((), ("--json",)):
                self.same("census", "--by", by, *fmt)
        self.same("census", "--top", "3")

    def test_show(self):
        addr = self.leak_address()
        for depth in ("0", "2", "5"):
            for fmt in ((), ("--json",)):
                self.same("show", addr, "--depth", depth, *fmt)
        self.same("show", "0x4200000008", code=1)

    def test_retainers_and_find(self):
        for fmt in ((), ("--json",)):
            self.same("retainers", "--constructor", "^Le", "--limit", "5", *fmt)
            self.same("find", "--exact", "Leak", "--limit", "0", *fmt)
            self.same("find", "--type", "THUNK", "--min-size", "24", *fmt)
        self.same("retainers", code=2)


class SameAsLiveProfiled(SameAsLive, PlantedCase):
    ARGS = ("--closures", "20000", "--profiled", "--eras", "6", "--leak-count", "300",
            "--leak-era", "2", "--seed", "5")
    ERA_KINDS = ("era",)

    def test_era_and_cost_centre_filters(self):
        for fmt in ((), ("--json",)):
            self.same("find", "--era", "2", "--exact", "Leak", "--limit", "0", *fmt)
            self.same("find", "--exact", "Leak", "--cost-centre", "5", "--limit", "0", *fmt)
            self.same("retainers", "--exact", "Leak", "--not-era", "3-", "--limit", "3", *fmt)

    # ---- the man page's sqlite3 queries, on real values ----

    def sql(self, query):
        self.assertIsNotNone(SQLITE3, "the sqlite3 shell is needed")
        r = subprocess.run([SQLITE3, "-readonly", "-separator", "|", self.file, query],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [line.split("|") for line in r.stdout.splitlines()]

    def test_sql_top_constructors_by_bytes(self):
        rows = self.sql("SELECT package || ':' || module || ':' || constructor, count(*),"
                        " sum(size) FROM closures WHERE constructor IS NOT NULL"
                        " GROUP BY package, module, constructor ORDER BY sum(size) DESC")
        got = {key: (int(n), int(b)) for key, n, b in rows}
        for key, want in self.plan["by_constructor"].items():
            # the table keeps the description as the RTS gives it: an SRT is
            # a constructor of no module there, named so only by the census
            if key.endswith(" (static reference table)"):
                key = "::" + key.split(" ")[0]
            self.assertEqual(got[key], (want["count"], want["bytes"]), key)
        self.assertEqual(got["main:Main:Leak"], (300, self.plan["leak"]["bytes"]))
        sizes = [int(b) for _, _, b in rows]
        self.assertEqual(sizes, sorted(sizes, reverse=True))

    def test_sql_closures_of_one_era(self):
        rows = self.sql("SELECT era, count(*), sum(size) FROM closures GROUP BY era")
        got = {era: (int(n), int(b)) for era, n, b in rows}
        for era, want in self.plan["by_era"].items():
            self.assertEqual(got[era], (want["count"], want["bytes"]), era)
        leaks = self.sql("SELECT count(*) FROM closures WHERE era = 2 AND constructor = 'Leak'")
        self.assertEqual(leaks, [["300"]])

    def test_sql_one_source_locations_closures(self):
        thunk = [p for p in self.plan["leak"]["path"] if p["type"].startswith("THUNK")][0]
        census = json.loads(self.same("census", "--by", "source", "--json"))
        want = [r for r in census["rows"] if r["key"] == thunk["location"]][0]
        rows = self.sql("SELECT count(*), sum(size), min(printf('0x%x', address)) FROM closures"
                        f" WHERE location = '{thunk['location']}'")
        self.assertEqual((int(rows[0][0]), int(rows[0][1])), (want["count"], want["bytes"]))
        self.assertEqual(rows[0][2], thunk["address"])

    def test_sql_totals_match_the_census(self):
        census = json.loads(self.same("census", "--json"))
        rows = self.sql("SELECT count(*), sum(size) FROM closures")
        self.assertEqual([int(x) for x in rows[0]],
                         [census["total_count"], census["total_bytes"]])
        meta = dict(self.sql("SELECT key, value FROM meta"))
        self.assertEqual(int(meta["closures"]), census["total_count"])
        self.assertEqual(meta["profiling_mode"], "4")


class SameAsLivePlain(SameAsLive, PlantedCase):
    ARGS = ("--closures", "20000", "--leak-count", "200", "--seed", "9")
    ERA_KINDS = ()

    def test_era_census_is_refused_alike(self):
        self.same("census", "--by", "era", code=1)


class SnapshotCommand(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.debuggee = Debuggee("--closures", "5000", "--profiled", "--seed", "3")
        cls.debuggee.__enter__()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.good = os.path.join(cls.tmp.name, "good.heapscope")
        snapshot(cls.debuggee.socket, cls.good)
        with open(cls.good, "rb") as f:
            cls.good_bytes = f.read()
        cls.census = run("census", cls.good).stdout

    @classmethod
    def tearDownClass(cls):
        cls.debuggee.__exit__(None, None, None)
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def one_line_failure(self, r):
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("heapscope: "), r.stderr)
        return r.stderr

    def test_refuses_to_overwrite_without_force(self):
        p = self.path("exists.heapscope")
        with open(p, "w") as f:
            f.write("keep me")
        err = self.one_line_failure(run("snapshot", self.debuggee.socket, "-o", p))
        self.assertIn("already exists", err)
        with open(p) as f:
            self.assertEqual(f.read(), "keep me")
        r = run("snapshot", self.debuggee.socket, "-o", p, "--force")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(run("census", p).stdout, self.census)

    def test_json_report(self):
        p = self.path("report.heapscope")
        r = run("snapshot", self.debuggee.socket, "-o", p, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(out["file_bytes"], os.path.getsize(p))
        census = json.loads(run("census", p, "--json").stdout)
        self.assertEqual(out["closures"], census["total_count"])

    def test_snapshot_of_a_snapshot(self):
        p = self.path("copy.heapscope")
        self.assertEqual(run("snapshot", self.good, "-o", p).returncode, 0)
        self.assertEqual(run("census", p).stdout, self.census)
        self.assertEqual(run("census", p, "--by", "era").stdout,
                         run("census", self.good, "--by", "era").stdout)

    # ---- bad files ----

    def bad(self, name, data):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_truncated(self):
        for n in (10, 99, 4096, len(self.good_bytes) // 2, len(self.good_bytes) - 1):
            p = self.bad(f"cut{n}", self.good_bytes[:n])
            for cmd in ("census", "roots", "info"):
                err = self.one_line_failure(run(cmd, p))
                self.assertRegex(err, r"truncated|not a (heapscope )?snapshot")

    def test_not_sqlite(self):
        p = self.bad("text", b"just some text\n" * 100)
        self.assertIn("not an SQLite database", self.one_line_failure(run("census", p)))

    def test_another_apps_sqlite(self):
        p = self.path("other.db")
        db = sqlite3.connect(p)
        db.execute("CREATE TABLE t (x)")
        db.execute("PRAGMA application_id = 1234")
        db.commit()
        db.close()
        self.assertIn("another application", self.one_line_failure(run("roots", p)))
        p2 = self.path("plain.db")
        db = sqlite3.connect(p2)
        db.execute("CREATE TABLE roots (x)")
        db.commit()
        db.close()
        self.assertIn("another application", self.one_line_failure(run("roots", p2)))

    def test_newer_schema(self):
        p = self.bad("newer.heapscope", self.good_bytes)
        db = sqlite3.connect(p)
        db.execute("PRAGMA user_version = 99")
        db.commit()
        db.close()
        err = self.one_line_failure(run("census", p))
        self.assertIn("made by a newer heapscope (schema 99, this one reads up to 1)", err)

    def test_corrupted_blob(self):
        p = self.bad("blob.heapscope", self.good_bytes)
        db = sqlite3.connect(p)
        chunk, data = db.execute("SELECT chunk, data FROM heap_chunks ORDER BY chunk").fetchone()
        data = bytearray(data)
        data[100] ^= 0x01  # one bit, inside the SQLite structure that stays valid
        db.execute("UPDATE heap_chunks SET data = ? WHERE chunk = ?", (bytes(data), chunk))
        db.commit()
        db.close()
        err = self.one_line_failure(run("census", p))
        self.assertIn("fails its checksum", err)
        db = sqlite3.connect(p)
        db.execute("UPDATE heap_chunks SET groups = zeroblob(17)")
        db.commit()
        db.close()
        self.assertIn("directory", self.one_line_failure(run("roots", p)))

    def test_flipped_bytes_never_crash_or_lie(self):
        size = len(self.good_bytes)
        n = valgrind.scaled(48, 12)
        for k in range(n):
            off = 100 + (size - 100) * k // n + (k * 7919) % 4096
            off = min(off, size - 1)
            data = bytearray(self.good_bytes)
            data[off] ^= 0x5A
            p = self.bad("flip.heapscope", bytes(data))
            r = run("census", p, timeout=60)
            if r.returncode == 0:
                self.assertEqual(r.stdout, self.census, f"offset {off}: a wrong answer")
            else:
                self.one_line_failure(r)

    # ---- atomic writing ----

    def test_kill_9_leaves_no_file_or_the_old_one(self):
        with Debuggee(*BIG) as big:
            for old in (None, self.good_bytes):
                d = tempfile.mkdtemp(dir=self.tmp.name)
                target = os.path.join(d, "big.heapscope")
                if old:
                    with open(target, "wb") as f:
                        f.write(old)
                args = [HEAPSCOPE, "snapshot", big.socket, "-o", target] + (["--force"] if old else [])
                proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                deadline = time.time() + 60
                tmp = []
                while time.time() < deadline and proc.poll() is None:
                    tmp = [n for n in os.listdir(d) if n.endswith(".tmp")]
                    if tmp and os.path.getsize(os.path.join(d, tmp[0])) > 0:
                        break
                    time.sleep(0.005)
                self.assertIsNone(proc.poll(), "the write ended before it could be killed")
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                if old:
                    with open(target, "rb") as f:
                        self.assertEqual(hashlib.sha256(f.read()).digest(),
                                         hashlib.sha256(old).digest(), "the old file is intact")
                else:
                    self.assertFalse(os.path.exists(target), "no file at the target")
                # the debuggee was left paused by the killed writer: resume it
                run("roots", big.socket)

    def test_full_disk_gives_a_message_and_no_file(self):
        d = tempfile.mkdtemp(dir=self.tmp.name)
        target = os.path.join(d, "full.heapscope")

        def small_disk():
            resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # as ENOSPC would: an error, no signal

        r = subprocess.run([HEAPSCOPE, "snapshot", self.debuggee.socket, "-o", target],
                           capture_output=True, text=True, timeout=120, preexec_fn=small_disk)
        self.one_line_failure(r)
        self.assertEqual(os.listdir(d), [], "neither the file nor a temporary one")

    def test_interrupt_cancels_cleanly(self):
        with Debuggee(*BIG) as big:
            d = tempfile.mkdtemp(dir=self.tmp.name)
            target = os.path.join(d, "int.heapscope")
            proc = subprocess.Popen([HEAPSCOPE, "snapshot", big.socket, "-o", target],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 60
            while time.time() < deadline and not any(n.endswith(".tmp") for n in os.listdir(d)):
                time.sleep(0.005)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 128 + signal.SIGINT, err)
            self.assertIn("interrupted by SIGINT", err)
            self.assertEqual(os.listdir(d), [], err)


if __name__ == "__main__":
    unittest.main()
