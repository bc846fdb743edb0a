"""The first rule on real programs: nothing heapscope does kills, corrupts
or freezes tests/realghc/Tier.hs built by GHC VERSION with the official
ghc-debug stub (realghc.py), which aborts on a broken connection and
crashes on an address that is no closure (its README). Each class starts
its own program, so one that dies takes no other case with it; after each
case the program must still run and answer.

  - addresses that are no closure of the pause are refused with nothing sent
  - a second client, while another is connected, leaves no request behind
  - SIGINT, SIGTERM and SIGHUP while the 400 MiB heap is read
  - output to a reader that never reads: the program runs again before
    heapscope prints, and a signal ends heapscope at once

usage: test_realghc_safety.py HEAPSCOPE VERSION   (meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realghc  # noqa: E402

HEAPSCOPE = sys.argv.pop(1)
VERSION = sys.argv.pop(1)
CACHE = tempfile.TemporaryDirectory(prefix="heapscope-realghc-cache-")
ENV = dict(os.environ, XDG_CACHE_HOME=CACHE.name)
TICK_MS = 20
SIGNAL_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}


def start(cmd, **kw):
    return subprocess.Popen([HEAPSCOPE, *cmd], env=ENV, **kw)


def run(*args, seconds=120):
    return subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, env=ENV,
                          timeout=realghc.timeout(seconds))


class Program:
    """A test class's own program, started once; tearDownClass fails the
    class when it no longer answers."""
    ARGS, RTS = (), ("-N2",)

    @classmethod
    def setUpClass(cls):
        cls.program = realghc.start(VERSION, "ipe", *cls.ARGS, rts=cls.RTS)

    @classmethod
    def tearDownClass(cls):
        cls.program.stop_answering(HEAPSCOPE)

    def assertAnswers(self, after):
        self.assertTrue(self.program.answers(HEAPSCOPE),
                        "%s died after %s:\n%s" % (self.program, after, self.program.stderr()))

    def assertRuns(self, after):
        """The program runs: a tick comes within a second (scaled) of now."""
        now = time.monotonic()
        deadline = now + realghc.timeout(2)
        while time.monotonic() < deadline:
            if any(t > now for t in self.program.ticks()):
                return
            time.sleep(0.01)
        self.fail("%s did not run within 2 s %s" % (self.program, after))


class Addresses(Program, unittest.TestCase):
    """An address that is no closure of this pause is refused by heapscope
    itself: the stub would dereference it."""

    def test_no_closure_addresses_are_refused_locally(self):
        blocks = run("find", self.program.socket, "--type", "TSO", "--json")
        self.assertEqual(blocks.returncode, 0, blocks.stderr)
        tso = json.loads(blocks.stdout)["matches"][0]["closure"]["address"]
        inside = "0x%x" % (int(tso, 16) + 8)  # into the middle of a closure
        for addr in ("0xdeadbeef", "0x10", "0x4200000000", "0x4200100000", inside):
            for cmd in (["show", self.program.socket, addr],
                        ["dump", self.program.socket, addr, "-o",
                         os.path.join(CACHE.name, "dump.bin"), "--force"]):
                with self.subTest(cmd=cmd[0], addr=addr):
                    r = run(*cmd)
                    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                    # (an address is untagged: 0xdeadbeef is asked as 0xdeadbee8)
                    want = "no closure at 0x%x in this pause" % (int(addr, 16) & ~7)
                    self.assertIn(want, r.stderr)
                    self.assertAnswers("%s %s" % (cmd[0], addr))

    def test_a_closure_of_the_pause_is_shown(self):
        found = run("find", self.program.socket, "--type", "TSO", "--json")
        tso = json.loads(found.stdout)["matches"][0]["closure"]["address"]
        r = run("show", self.program.socket, tso)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("TSO", r.stdout)
        self.assertAnswers("show " + tso)


def frame(payload):
    return struct.pack(">I", len(payload)) + payload


class Client:
    """A plain ghc-debug client holding the program's one connection: it
    asks VERSION and reads the whole answer, so leaving is clean."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(realghc.timeout(10))
        self.sock.connect(path)
        self.sock.sendall(frame(struct.pack(">I", 1)))
        header = self._read(6)
        blen, status = struct.unpack(">IH", header)
        self._read(blen)
        if status != 0:
            raise AssertionError("VERSION answered with status %#x" % status)

    def _read(self, n):
        got = b""
        while len(got) < n:
            chunk = self.sock.recv(n - len(got))
            if not chunk:
                raise AssertionError("the program closed the connection")
            got += chunk
        return got

    def close(self):
        self.sock.close()


class SecondClient(Program, unittest.TestCase):
    """While another client is connected, heapscope says the debuggee is
    busy and leaves nothing in the queue: when the other client leaves, the
    stub takes the next connection in its queue, and a request left there
    would be answered to a closed socket (an abort)."""

    def test_busy_leaves_no_request_behind(self):
        for cmd in (["census", self.program.socket], ["info", self.program.socket]):
            with self.subTest(cmd=cmd[0]):
                other = Client(self.program.socket)
                try:
                    r = run(*cmd, seconds=60)
                finally:
                    other.close()
                self.assertNotEqual(r.returncode, 0, r.stdout)
                self.assertIn("busy", r.stderr)
                self.assertAnswers("a busy %s" % cmd[0])


class Interrupted(Program, unittest.TestCase):
    """A signal while the program's 400 MiB are read: heapscope reads the
    answer in flight to its end, resumes the program and leaves."""
    ARGS = ("--mb", "400", "--tick", str(TICK_MS))

    def test_signals_while_the_heap_is_read(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            for delay in (0.05, 0.3, 0.8):
                with self.subTest(signal=sig.name, after=delay):
                    p = start(["census", self.program.socket, "--no-cache"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    # the delay counts from its connection: before it (and its
                    # handlers) a slow start (ASan, load) would die of the signal
                    wait_for_a_socket(p)
                    time.sleep(delay)
                    p.send_signal(sig)
                    _, err = p.communicate(timeout=realghc.timeout(60))
                    # a census done before the signal came is fine too
                    self.assertIn(p.returncode, (0, SIGNAL_STATUS[sig]), err)
                    self.assertNotIn("may be left paused", err)
                    self.assertAnswers("%s after %.2f s" % (sig.name, delay))
                    self.assertRuns("after %s" % sig.name)


def wait_for_a_socket(p):
    """Until process p holds a socket (it installs its signal handlers
    before it opens one) or has ended."""
    deadline = time.monotonic() + realghc.timeout(30)
    while p.poll() is None and time.monotonic() < deadline:
        try:
            fds = os.listdir("/proc/%d/fd" % p.pid)
            if any(os.readlink("/proc/%d/fd/%s" % (p.pid, fd)).startswith("socket:") for fd in fds):
                return
        except OSError:  # it ended, or an fd closed while we looked
            pass
        time.sleep(0.005)


def unread_bytes(fd):
    n = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    return n


class BlockedOutput(Program, unittest.TestCase):
    """Output that nobody reads: the program runs again before heapscope
    writes (it is not held paused by a full pipe), and a signal ends
    heapscope within half a second (scaled) though its write blocks."""
    ARGS = ("--list", "100000", "--tick", str(TICK_MS))
    CMDS = (["retainers", "--constructor", "^:$", "--limit", "20000"],
            ["find", "--constructor", "^:$", "--limit", "0"],
            ["strings", "--top", "0"])

    def test_json_says_how_long_the_program_was_paused(self):
        # (the retainers of CMDS print gigabytes: every path down the list)
        for cmd in (["retainers", "--constructor", "^:$", "--limit", "3"], *self.CMDS[1:],
                    ["census", "--by", "constructor,type"]):
            with self.subTest(cmd=cmd[0]):
                r = run(cmd[0], self.program.socket, *cmd[1:], "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                out = json.loads(r.stdout)
                self.assertGreater(out["paused_ms"], 0)
                self.assertLessEqual(out["paused_ms"], out["elapsed_ms"])

    def test_a_signal_ends_a_blocked_writer_and_the_program_runs(self):
        for cmd in self.CMDS:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with self.subTest(cmd=cmd[0], signal=sig.name):
                    self.blocked(cmd, sig)

    def blocked(self, cmd, sig):
        r, w = os.pipe()
        p = None
        try:
            fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: small, so little output fills it
            p = start([cmd[0], self.program.socket, *cmd[1:]], stdout=w,
                      stderr=subprocess.PIPE)
            os.close(w)
            w = -1
            deadline = time.monotonic() + realghc.timeout(60)
            while unread_bytes(r) < 4096 and p.poll() is None:
                self.assertLess(time.monotonic(), deadline, "no output from %s" % cmd[0])
                time.sleep(0.01)
            self.assertIsNone(p.poll(), "%s ended before it filled the pipe" % cmd[0])
            self.assertRuns("while %s waits for its reader" % cmd[0])
            sent = time.monotonic()
            p.send_signal(sig)
            p.wait(timeout=realghc.timeout(10))
            took = time.monotonic() - sent
            self.assertLessEqual(took, realghc.timeout(0.5),
                                 "%s took %.2f s to end after %s" % (cmd[0], took, sig.name))
            self.assertEqual(p.returncode, SIGNAL_STATUS[sig], p.stderr.read())
        finally:
            if p and p.poll() is None:  # a failed case: do not leave it behind
                p.kill()
                p.wait()
            if p:
                p.stderr.close()
            os.close(r)
            if w >= 0:
                os.close(w)
        self.assertAnswers("%s %s with its output blocked" % (sig.name, cmd[0]))


if __name__ == "__main__":
    realghc.main(lambda: unittest.main(verbosity=2))
