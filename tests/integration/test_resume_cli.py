"""The program is paused only while heapscope needs answers from it (issue
19, point 4): a batch command completes the pause, resumes the debuggee
and only then computes and prints (snapshot: writes its file); a quit
signal ends it within half a second even while its standard output is
blocked; --json says how long the program was paused and how long the
command ran.

No test races the programs: the debuggee logs each request before it
serves it (--log-requests) and holds RESUME's answer until the test lets
it go (--hold-resume), so "RESUME arrived, nothing printed yet" is a state
both processes stay in until the test moves on."""
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import termios
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, raw_status, run  # noqa: E402
import valgrind  # noqa: E402  (tests/common, on the path test_cli set)

ROOTS = 4
OKAY, NOT_PAUSED = 0, 0x0102
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PLAIN = ("--closures", str(valgrind.scaled(30000, 5000)), "--strings", "--leak-count",
         str(valgrind.scaled(3000, 300)), "--seed", "5")
PROFILED = ("--closures", "5000", "--profiled", "--eras", "4", "--seed", "2")
# A quit ends the command within half a second (memcheck: its start-up
# and exit checks take seconds).
QUIT_S = valgrind.scaled(0.5, 8.0)
WAIT_S = valgrind.scaled(60, 600)

# (name, arguments after the target); ADDR is a closure's address.
COMMANDS = (
    ("roots", ()),
    ("show", ("ADDR", "--depth", "3")),
    ("find", ("--limit", "0")),
    ("retainers", ("--constructor", "^Leak$", "--limit", "20")),
    ("retainers --merged", ("--constructor", "^Leak$", "--merged")),
    ("census", ()),
    ("census 2 levels", ("--by", "type,constructor", "--top", "0")),
    ("thunks", ()),
    ("strings", ("--top", "0")),
    ("dominators", ()),
)
# Commands whose output is far larger than a pipe holds (blocked writes).
BIG = (
    ("find", ("--limit", "0")),
    ("retainers", ("--constructor", "^Leak$", "--limit", "0")),
    ("retainers --merged", ("--constructor", "^Leak$", "--merged", "--json")),
    ("strings", ("--top", "0", "--json")),
    ("dominators", ("--top", "1000")),
)


def command_line(name, args, target, addr=None):
    verb = name.split()[0]
    return [verb, target, *(addr if a == "ADDR" else a for a in args), "--no-cache"]


def is_paused(socket_path):
    status = raw_status(socket_path, ROOTS)
    if status not in (OKAY, NOT_PAUSED):
        raise AssertionError("ROOTS answered 0x%04x" % status)
    return status == OKAY


def readable(f):
    return bool(select.select([f], [], [], 0)[0])


class Held:
    """A debuggee that logs its requests and holds each RESUME's answer
    until released."""

    def __init__(self, *args):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "requests")
        self.release_file = os.path.join(self.tmp.name, "release")
        self.d = Debuggee(*args, "--log-requests", self.log, "--hold-resume", self.release_file)

    def __enter__(self):
        self.release()  # the probe and any set-up command run freely
        self.d.__enter__()
        self.socket = self.d.socket
        return self

    def __exit__(self, *exc):
        self.release()
        self.d.__exit__(*exc)
        self.tmp.cleanup()

    def hold(self):
        if os.path.exists(self.release_file):
            os.remove(self.release_file)
        open(self.log, "w").close()

    def release(self):
        open(self.release_file, "w").close()

    def requests(self):
        try:
            with open(self.log) as f:  # lines "NAME TIME"
                return [line.split()[0] for line in f if line.strip()]
        except FileNotFoundError:
            return []


class Case(unittest.TestCase):
    def start(self, args, stdout=subprocess.PIPE):
        p = subprocess.Popen([HEAPSCOPE, *args], stdout=stdout, stderr=subprocess.PIPE)
        self.addCleanup(self.reap, p)
        return p

    @staticmethod
    def reap(p):
        if p.poll() is None:
            p.kill()
        p.communicate()

    def address(self, socket_path):
        out = run("find", socket_path, "--exact", "Leak", "--limit", "1", "--json", "--no-cache")
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)["matches"][0]["closure"]["address"]

    def wait_for_resume(self, held, p, watch=None):
        """Waits until the debuggee got RESUME (whose answer it holds),
        failing if heapscope wrote to `watch` (its stdout) or ended first."""
        deadline = time.time() + WAIT_S
        while "RESUME" not in held.requests():
            if watch is not None and readable(watch):
                self.fail("output before the RESUME (requests so far: %s)" % held.requests())
            if p.poll() is not None:
                self.fail("heapscope ended without resuming: %s" % p.communicate()[1][-500:])
            self.assertLess(time.time(), deadline, "no RESUME")
            time.sleep(0.005)


class ResumeBeforeOutput(Case):
    """For each command: the RESUME reaches the debuggee before heapscope
    writes the first byte of its output; the output is then complete."""

    def check(self, held, args):
        held.hold()
        p = self.start(args)
        self.wait_for_resume(held, p, watch=p.stdout)
        # the debuggee holds RESUME's answer: heapscope waits for it
        self.assertFalse(readable(p.stdout), "output while RESUME is unanswered")
        held.release()
        out, err = p.communicate(timeout=WAIT_S)
        self.assertEqual(p.returncode, 0, err)
        self.assertTrue(out)
        requests = held.requests()
        self.assertEqual(requests[-1], "RESUME", "a request after the RESUME: %s" % requests)
        self.assertFalse(is_paused(held.socket))
        return out

    def test_every_command(self):
        with Held(*PLAIN) as held:
            addr = self.address(held.socket)
            for name, args in COMMANDS:
                for fmt in ((), ("--json",)):
                    with self.subTest(name, json=bool(fmt)):
                        self.check(held, command_line(name, args, held.socket, addr) + list(fmt))

    def test_leaks(self):
        with Held(*PROFILED) as held:
            for fmt in ((), ("--json",)):
                with self.subTest(json=bool(fmt)):
                    self.check(held, ["leaks", held.socket, "--no-cache", *fmt])

    def test_snapshot_writes_its_file_after_the_resume(self):
        with Held(*PLAIN) as held, tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pause.heapscope")
            held.hold()
            p = self.start(["snapshot", held.socket, "-o", path, "--no-cache"])
            self.wait_for_resume(held, p)
            self.assertEqual(os.listdir(out), [], "the file was written while paused")
            held.release()
            _, err = p.communicate(timeout=WAIT_S)
            self.assertEqual(p.returncode, 0, err)
            # the file is whole: its census is the program's (whose heap
            # does not change between pauses)
            for by in ("type", "constructor"):
                saved = run("census", path, "--by", by, "--top", "0", "--no-cache")
                live = run("census", held.socket, "--by", by, "--top", "0", "--no-cache")
                self.assertEqual(saved.returncode, 0, saved.stderr)
                self.assertEqual(saved.stdout.replace(path, "T"),
                                 live.stdout.replace(held.socket, "T"))

    def test_record_writes_after_the_resume(self):
        with Held(*PLAIN) as held, tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            pauses = os.path.join(cache, "heapscope", "pauses")
            held.hold()
            p = subprocess.Popen([HEAPSCOPE, "census", held.socket, "--record"], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.addCleanup(self.reap, p)
            self.wait_for_resume(held, p, watch=p.stdout)
            self.assertFalse(os.path.isdir(pauses) and os.listdir(pauses),
                             "the pause was recorded while paused")
            held.release()
            out, err = p.communicate(timeout=WAIT_S)
            self.assertEqual(p.returncode, 0, err)
            files = os.listdir(pauses)
            self.assertEqual(len(files), 1, files)
            # the recording is whole: its census is the program's
            recorded = os.path.join(pauses, files[0])
            for by in ("type", "constructor", "source"):
                saved = run("census", recorded, "--by", by, "--top", "0", "--no-cache")
                live = run("census", held.socket, "--by", by, "--top", "0", "--no-cache")
                self.assertEqual(saved.returncode, 0, saved.stderr)
                self.assertEqual(saved.stdout.replace(recorded, "T"),
                                 live.stdout.replace(held.socket, "T"))

    def test_leave_paused_keeps_it_paused(self):
        with Held(*PLAIN) as held:
            held.hold()
            r = run("census", held.socket, "--leave-paused", "--no-cache")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("RESUME", held.requests())
            self.assertTrue(is_paused(held.socket))
            held.release()
            self.assertEqual(raw_status(held.socket, 3), OKAY)  # RESUME


class QuitWhileOutputBlocks(Case):
    """Standard output is a full pipe nobody reads: SIGINT, SIGTERM and
    SIGHUP end heapscope within half a second, and the program runs."""

    def test_each_signal(self):
        with Held(*PLAIN) as held:
            for name, args in BIG:
                for sig in SIGNALS:
                    with self.subTest(name, signal=sig.name):
                        self.blocked_then(held, command_line(name, args, held.socket), sig)

    def blocked_then(self, held, args, sig):
        open(held.log, "w").close()
        # a pipe of one page: a few kilobytes of output fill it
        fd, w = os.pipe()
        self.addCleanup(os.close, fd)
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
        size = fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ)
        p = self.start(args, stdout=w)
        os.close(w)
        deadline = time.time() + WAIT_S
        while True:  # until the pipe is full: heapscope can write no more
            buf = bytearray(4)
            fcntl.ioctl(fd, termios.FIONREAD, buf)
            if int.from_bytes(buf, sys.byteorder) >= size:
                break
            self.assertIsNone(p.poll(), "the output ended before filling the pipe")
            self.assertLess(time.time(), deadline, "the pipe did not fill")
            time.sleep(0.01)
        sent = time.monotonic()
        p.send_signal(sig)
        try:
            p.wait(timeout=QUIT_S + 5)
        except subprocess.TimeoutExpired:
            self.fail("%s did not end heapscope with its output blocked" % sig.name)
        took = time.monotonic() - sent
        err = p.stderr.read().decode()
        self.assertEqual(p.returncode, 128 + sig, err)
        self.assertLessEqual(took, QUIT_S, "%s took %.2f s to end it" % (sig.name, took))
        self.assertIn("RESUME", held.requests())
        self.assertFalse(is_paused(held.socket), "the program is left paused")
        self.assertEqual(err.strip().splitlines()[-1],
                         "heapscope: interrupted by %s: the debuggee was resumed" % sig.name)


class Timing(Case):
    """--json gives paused_ms and elapsed_ms, paused_ms <= elapsed_ms."""

    def check(self, doc):
        self.assertIsInstance(doc.get("paused_ms"), int, doc.keys())
        self.assertIsInstance(doc.get("elapsed_ms"), int)
        self.assertGreaterEqual(doc["paused_ms"], 0)
        self.assertLessEqual(doc["paused_ms"], doc["elapsed_ms"])

    def test_every_command(self):
        with Debuggee(*PLAIN) as d, tempfile.TemporaryDirectory() as tmp:
            addr = self.address(d.socket)
            lines = [command_line(name, args, d.socket, addr) for name, args in COMMANDS]
            lines.append(["snapshot", d.socket, "-o", os.path.join(tmp, "s"), "--no-cache"])
            for args in lines:
                with self.subTest(" ".join(args[:1] + args[2:])):
                    r = run(*args, "--json")
                    self.assertEqual(r.returncode, 0, r.stderr)
                    doc = json.loads(r.stdout)
                    self.check(doc)
            # a file is no program: paused 0
            r = run("census", os.path.join(tmp, "s"), "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.check(json.loads(r.stdout))
            self.assertEqual(json.loads(r.stdout)["paused_ms"], 0)

    def test_leaks(self):
        with Debuggee(*PROFILED) as d:
            r = run("leaks", d.socket, "--json", "--no-cache")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.check(json.loads(r.stdout))


if __name__ == "__main__":
    unittest.main(verbosity=2)
