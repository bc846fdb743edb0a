"""Faults around a batch command (issue 13 §3): its output's reader goes
away or its disk is full, a full tmpfs or a file size limit (`ulimit -f`)
cuts a snapshot or the cache short, the debuggee dies in the middle of the
work, heapscope itself is killed (-9) while it records a pause into the
cache. Each time heapscope exits with one line (or, for a reader that went
away, quietly as SIGPIPE would end it), resumes a debuggee it paused,
leaves no half-written file under a final name, and the cache opens next
time with nothing it lists missing. Run by meson test (suite cli, also
under valgrind)."""
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, raw_status  # noqa: E402
from test_signals_cli import SIGNALS, is_paused  # noqa: E402
import valgrind  # noqa: E402  (tests/common, on the path test_cli set)

SMALL = ("--closures", "20000", "--seed", "3")
RESUME = 3
SLOW = ("--closures", "3000", "--seed", "3", "--answer-delay", "40")


def file_size_limit(limit):
    """A preexec_fn: `ulimit -f` of limit bytes, SIGXFSZ left as the shell
    leaves it (its default action kills)."""
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    return apply


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.cache = os.path.join(self.tmp.name, "cache")
        self.env = dict(os.environ, XDG_CACHE_HOME=self.cache)

    def heapscope(self, *args, timeout=300, **kw):
        if "stdout" not in kw:
            kw["capture_output"] = True
        return subprocess.run([HEAPSCOPE, *args], text=True, timeout=timeout, env=self.env, **kw)

    def assert_one_line(self, r, pattern):
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], "^heapscope: " + pattern)

    def pause_files(self):
        d = os.path.join(self.cache, "heapscope", "pauses")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def indexed_pause_files(self):
        """The pause files cache.db lists, once SQLite finds nothing wrong in it."""
        db = sqlite3.connect(os.path.join(self.cache, "heapscope", "cache.db"))
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
            return [f for (f,) in db.execute("SELECT file FROM pauses")]
        finally:
            db.close()

    def assert_cache_consistent(self, recorded):
        """The cache opens, lists `recorded` pauses, each file it lists is
        there, and SQLite finds nothing wrong in cache.db."""
        r = self.heapscope("cache", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        files = self.indexed_pause_files()
        self.assertEqual(len(files), recorded, r.stdout)
        for f in files:
            self.assertTrue(os.path.exists(f), "the cache lists a pause file that is not there")


class Output(Case):
    def test_a_reader_that_goes_away_ends_it_quietly_and_the_debuggee_runs(self):
        """`heapscope find ... | head -1`: before, SIGPIPE killed heapscope
        with the debuggee left paused."""
        with Debuggee(*SMALL) as d:
            p = subprocess.Popen([HEAPSCOPE, "find", d.socket, "--limit", "0"], env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertRegex(p.stdout.readline(), r"^0x[0-9a-f]+ ")
            p.stdout.close()  # as head does after its line
            err = p.stderr.read()
            p.wait(timeout=120)
            p.stderr.close()
            self.assertEqual(p.returncode, 128 + signal.SIGPIPE, err)
            self.assertEqual(err, "")
            self.assertFalse(is_paused(d.socket), "the debuggee was left paused")

    def test_a_full_disk_under_the_output_is_one_line_and_status_1(self):
        """`heapscope census ... > file` on a full disk (/dev/full): before,
        the output was lost and the status was 0."""
        with Debuggee(*SMALL) as d, open("/dev/full", "w") as full:
            for command in (("census", d.socket), ("find", d.socket, "--limit", "0"),
                            ("roots", d.socket, "--json"), ("--help",)):
                r = self.heapscope(*command, stdout=full, stderr=subprocess.PIPE)
                self.assert_one_line(r, "cannot write the output: No space left on device$")
                self.assertFalse(is_paused(d.socket), command)


class FileSizeLimit(Case):
    """`ulimit -f`: SIGXFSZ is ignored, so the write fails (EFBIG) instead of
    killing heapscope with the debuggee paused and a temporary file left."""

    def test_a_snapshot_past_the_limit(self):
        with Debuggee(*SMALL) as d:
            out = os.path.join(self.tmp.name, "out")
            os.mkdir(out)
            r = self.heapscope("snapshot", d.socket, "-o", os.path.join(out, "s.heapscope"),
                               preexec_fn=file_size_limit(128 * 1024))
            self.assert_one_line(r, r"writing .*/s\.heapscope: .*ulimit -f, is 131072 bytes")
            self.assertEqual(os.listdir(out), [], "neither the file nor a temporary one")
            self.assertFalse(is_paused(d.socket))

    def test_a_recording_past_the_limit_leaves_the_cache_usable(self):
        with Debuggee(*SMALL) as d:
            first = self.heapscope("census", d.socket)  # the cache's answers, written in full
            self.assertEqual(first.returncode, 0, first.stderr)
            r = self.heapscope("census", d.socket, "--record",
                               preexec_fn=file_size_limit(128 * 1024))
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(r.stdout, first.stdout, "the census is printed all the same")
            self.assertRegex(r.stderr, r"^heapscope: recording the pause in the cache: .*"
                                       r"ulimit -f, is 131072 bytes\)\n$")
            self.assertFalse(is_paused(d.socket))
            self.assertEqual(self.pause_files(), [], "a part of the recording is left")
            self.assert_cache_consistent(recorded=0)
            again = self.heapscope("census", d.socket, "--record")
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assert_cache_consistent(recorded=1)


class FullDisk(Case):
    """A small tmpfs that fills up: mounted in a mount namespace of the test's
    own (`unshare --map-root-user --mount`), where heapscope runs and what it
    left there is looked at before the namespace, and the tmpfs, go."""

    def in_small_tmpfs(self, script, **env):
        """Runs the sh script with $MNT a new 256 KiB tmpfs and $HEAPSCOPE;
        returns its standard output."""
        mnt = os.path.join(self.tmp.name, "small")
        os.makedirs(mnt, exist_ok=True)
        r = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c",
                            'mount -t tmpfs -o size=256k tmpfs "$MNT" || exit 99\n' + script],
                           env=dict(self.env, MNT=mnt, HEAPSCOPE=HEAPSCOPE, **env),
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, "no tmpfs of our own: " + r.stderr)
        return r.stdout

    def test_a_snapshot_on_a_full_disk(self):
        with Debuggee(*SMALL) as d:
            out = self.in_small_tmpfs(
                '"$HEAPSCOPE" snapshot "$SOCK" -o "$MNT/s.heapscope" 2>&1; echo "status=$?"\n'
                'ls -A "$MNT"', SOCK=d.socket)
            self.assertRegex(out, r"^heapscope: writing .*/s\.heapscope: writing the snapshot: "
                                  r"the disk is full\nstatus=1\n$",
                             "one line, status 1, and neither the file nor a temporary one")
            self.assertFalse(is_paused(d.socket))

    def test_a_recording_on_a_full_disk_leaves_the_cache_usable(self):
        with Debuggee(*SMALL) as d:
            plain = self.heapscope("census", d.socket)
            out = self.in_small_tmpfs(
                'export XDG_CACHE_HOME="$MNT"\n'
                '"$HEAPSCOPE" census "$SOCK" --record 2>&1; echo "status=$?"\n'
                'ls -A "$MNT/heapscope/pauses"\n'
                '"$HEAPSCOPE" cache list --json >/dev/null && echo "cache list: ok"\n'
                'python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1])'
                '.execute(\'PRAGMA integrity_check\').fetchone()[0])" "$MNT/heapscope/cache.db"',
                SOCK=d.socket)
            self.assertTrue(out.startswith(plain.stdout), "the census is printed all the same")
            self.assertRegex(out[len(plain.stdout):],
                             r"^heapscope: recording the pause in the cache: writing .*\.hsnap: "
                             r"writing the snapshot: the disk is full\nstatus=1\ncache list: ok\n"
                             r"ok\n$", "one line, status 1, no pause file, a cache that opens")
            self.assertFalse(is_paused(d.socket))


class DebuggeeDies(Case):
    """The debuggee killed (-9) while heapscope has it paused and works."""

    def killed_during(self, command):
        with Debuggee(*SLOW) as d:
            p = subprocess.Popen([HEAPSCOPE, *command(d)], env=self.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            time.sleep(valgrind.scaled(1.5, 5))  # paused and at work by then
            self.assertIsNone(p.poll(), "the work ended before the debuggee was killed")
            d.proc.kill()
            out, err = p.communicate(timeout=60)
            # one line: not a second that the (dead) debuggee may be left
            # paused, or that --record could not write the pause
            r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
            self.assert_one_line(r, ".*the debuggee (closed|reset) the connection")
            return out

    def test_during_a_census(self):
        self.assertEqual(self.killed_during(lambda d: ("census", d.socket)), "")

    def test_during_a_search(self):
        self.killed_during(lambda d: ("retainers", d.socket, "--exact", "Leak"))

    def test_during_a_snapshot_the_old_file_stays(self):
        out = os.path.join(self.tmp.name, "out")
        os.mkdir(out)
        target = os.path.join(out, "old.heapscope")
        with open(target, "wb") as f:
            f.write(b"the previous snapshot")
        self.killed_during(lambda d: ("snapshot", d.socket, "-o", target, "--force"))
        with open(target, "rb") as f:
            self.assertEqual(f.read(), b"the previous snapshot")
        self.assertEqual(os.listdir(out), ["old.heapscope"], "a temporary file is left")

    def test_during_a_recording(self):
        self.killed_during(lambda d: ("census", d.socket, "--record"))
        self.assertEqual(self.pause_files(), [])
        self.assert_cache_consistent(recorded=0)


class Signals(Case):
    """SIGINT, SIGTERM and SIGHUP while a pause is written to a file: no part
    of it stays (test_signals_cli.py: during reading; test_snapshot_cli.py:
    SIGINT during a snapshot)."""

    BIG = ("--closures", str(valgrind.scaled(2000000, 300000)), "--seed", "4")

    def interrupted_writing(self, d, args, where):
        """Starts heapscope with args, sends each signal once a temporary
        file shows in the directory where, checks the exit; returns nothing
        when all went well."""
        for sig in SIGNALS:
            with self.subTest(sig.name):
                p = subprocess.Popen([HEAPSCOPE, *args], env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
                deadline = time.time() + 300
                while time.time() < deadline and p.poll() is None and not (
                        os.path.isdir(where) and any(n.endswith(".tmp") for n in os.listdir(where))):
                    time.sleep(0.01)
                self.assertIsNone(p.poll(), "the write ended before the signal")
                p.send_signal(sig)
                err = p.communicate(timeout=60)[1]
                self.assertEqual(p.returncode, 128 + sig, err)
                self.assertEqual(err.strip().splitlines()[-1],
                                 "heapscope: interrupted by %s: the debuggee was resumed" % sig.name)
                self.assertEqual(os.listdir(where), [], "a part of the file is left")
                self.assertFalse(is_paused(d.socket))

    def test_during_a_recording(self):
        with Debuggee(*self.BIG) as d:
            self.interrupted_writing(d, ("census", d.socket, "--record"),
                                     os.path.join(self.cache, "heapscope", "pauses"))
            self.assert_cache_consistent(recorded=0)

    def test_during_a_snapshot(self):
        out = os.path.join(self.tmp.name, "out")
        os.mkdir(out)
        with Debuggee(*self.BIG) as d:
            self.interrupted_writing(d, ("snapshot", d.socket, "-o", os.path.join(out, "s")),
                                     out)


class Killed(Case):
    """heapscope itself killed (-9) at moments spread over a recording: the
    cache opens next time and lists only complete pauses."""

    def test_kill_9_while_recording(self):
        with Debuggee(*SMALL) as d:
            for delay in (0.2, 0.6, 1.0, 1.6, 2.4):
                p = subprocess.Popen([HEAPSCOPE, "census", d.socket, "--record"], env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(delay)
                p.kill()
                p.wait(timeout=30)
                raw_status(d.socket, RESUME)  # the pause the killed heapscope left
                r = self.heapscope("cache", "list", "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stderr, "", "the cache is reported unusable")
            # what the index names is there, and a new recording works
            r = self.heapscope("census", d.socket, "--record")
            self.assertEqual(r.returncode, 0, r.stderr)
            files = self.indexed_pause_files()
            self.assertGreaterEqual(len(files), 1)
            for f in files:
                self.assertTrue(os.path.exists(f), f)
                opened = self.heapscope("info", f)
                self.assertEqual(opened.returncode, 0, opened.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
