"""Whole-binary tests of the heapscope command line (run by meson test)."""
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import valgrind  # noqa: E402

# Under HEAPSCOPE_VALGRIND=1 (meson test --setup valgrind) HEAPSCOPE is a
# script that runs the binary under memcheck, and every test launches it
# through that; the logs are checked when the test file exits.
HEAPSCOPE = valgrind.wrap(sys.argv.pop(1))
DEBUGGEE = os.environ["HEAPSCOPE_DEBUGGEE"]


def run(*args, timeout=120):
    return subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, timeout=timeout)


class Debuggee:
    """heapscope-debuggee on a private socket, for the length of a with-block."""

    def __init__(self, *args, log=False):
        self.dir = tempfile.TemporaryDirectory()
        self.socket = os.path.join(self.dir.name, "d.sock")
        self.args = args
        self.log = os.path.join(self.dir.name, "requests") if log else None
        if log:
            self.args += ("--log-requests", self.log)

    def wait_request(self, name, seconds=120):
        """Waits until a request `name` (e.g. PAUSE) has come (log=True):
        a signal sent then lands while it is in flight, however slow the
        machine or the client (valgrind)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                with open(self.log) as f:
                    if any(line.split()[:1] == [name] for line in f):
                        return
            except FileNotFoundError:
                pass
            time.sleep(0.01)
        raise AssertionError("no %s request came in %d s" % (name, seconds))

    def __enter__(self):
        self.proc = subprocess.Popen([DEBUGGEE, "--socket", self.socket, *self.args],
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("debuggee did not start")

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stderr.close()
        self.dir.cleanup()


TIMING = re.compile(r',\s*"paused_ms": \d+, "elapsed_ms": \d+')


def untimed(out):
    """A command's output without the times --json gives (paused_ms,
    elapsed_ms), which differ from run to run: a JSON text or a parsed
    top-level object."""
    if isinstance(out, dict):
        return {k: v for k, v in out.items() if k not in ("paused_ms", "elapsed_ms")}
    return TIMING.sub("", out)


def request_counts(path, connections, probes=1):
    """What the debuggee wrote with --count-requests once it served
    `connections` connections of heapscope's. The `probes` that found its
    socket open (Debuggee, test_cache_cli.Program) were served first and are
    not among them: counting them, a file written before the last run's was
    taken for it."""
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with open(path) as f:
                rows = dict(line.split() for line in f if line.strip())
            if int(rows["connections"]) >= connections + probes:
                return {k: int(v) for k, v in rows.items()}
        except (OSError, KeyError, ValueError):
            pass
        time.sleep(0.02)
    raise AssertionError("the debuggee did not report %d connections" % connections)


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("debuggee closed the connection")
        data += chunk
    return data


def raw_status(socket_path, command):
    """Sends one payload-less request; returns the final frame's status."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(socket_path)
        s.sendall(struct.pack(">II", 4, command))
        while True:
            length, status = struct.unpack(">IH", recv_exact(s, 6))
            recv_exact(s, length)
            if status != 1:
                return status


class PlantedDebuggee:
    """Mixin of a TestCase class: a debuggee with a planted leak shared by
    the class: subclasses give the generator options in ARGS (a smaller heap
    under valgrind, unless SAME_HEAP_UNDER_VALGRIND: the test weighs the
    leak against the rest); the plan is in cls.plan."""

    ARGS = ()
    SAME_HEAP_UNDER_VALGRIND = False

    @classmethod
    def debuggee_args(cls):
        return cls.ARGS if cls.SAME_HEAP_UNDER_VALGRIND else valgrind.smaller_heap(cls.ARGS)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        plan_path = os.path.join(cls.tmp.name, "plan.json")
        cls.debuggee = Debuggee(*cls.debuggee_args(), "--plan", plan_path)
        cls.debuggee.__enter__()
        with open(plan_path) as f:
            cls.plan = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.debuggee.__exit__(None, None, None)
        cls.tmp.cleanup()

    def json_of(self, command, *args):
        r = run(command, self.debuggee.socket, *args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)


class PlantedCase(PlantedDebuggee, unittest.TestCase):
    pass


class HostileDebuggee(PlantedDebuggee):
    """Mixin: the debuggee is `--hostile KIND` (KIND: the subclass's) on a
    small profiled heap, the same under valgrind."""

    KIND = None
    ARGS = ("--closures", "3000", "--seed", "3", "--profiled", "--eras", "4")
    SAME_HEAP_UNDER_VALGRIND = True

    @classmethod
    def debuggee_args(cls):
        return cls.ARGS + ("--hostile", cls.KIND)


def private_cache():
    """Points XDG_CACHE_HOME at a new directory for the rest of the test
    process; returns it (a TemporaryDirectory: keep it referenced)."""
    cache = tempfile.TemporaryDirectory()
    os.environ["XDG_CACHE_HOME"] = cache.name
    return cache


class Cli(unittest.TestCase):
    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Usage: heapscope", r.stdout)
        self.assertIn("--demo", r.stdout)
        self.assertIn("info TARGET", r.stdout)

    def test_version(self):
        r = run("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^heapscope \d+\.\d+\.\d+\n$")

    def test_usage_errors_exit_2(self):
        self.assertEqual(run().returncode, 2)
        r = run("frobnicate")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown command 'frobnicate'", r.stderr)
        r = run("info")
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: heapscope info TARGET", r.stderr)
        r = run("--timeout", "soon", "info", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--timeout", r.stderr)

    def test_missing_socket_is_a_clear_error(self):
        r = run("info", "/nonexistent/heapscope/socket")
        self.assertEqual(r.returncode, 1)
        self.assertIn("/nonexistent/heapscope/socket", r.stderr)
        self.assertNotIn("Segmentation", r.stderr)

    def test_stale_socket_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "stale.sock")
            s = socket.socket(socket.AF_UNIX)
            s.bind(path)
            s.close()  # the file stays, nothing listens
            r = run("info", path)
            self.assertEqual(r.returncode, 1)
            self.assertIn("refused", r.stderr)

    def test_info_json(self):
        with Debuggee("--closures", "1000", "--profiled") as d:
            r = run("info", d.socket, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            info = json.loads(r.stdout)
            self.assertEqual(info["ghc_version"], "9.10.1")
            self.assertEqual(info["profiling"], "era")
            self.assertEqual(info["profiling_mode"], 4)
            self.assertTrue(info["tables_next_to_code"])
            self.assertEqual(info["target"], d.socket)

    def test_info_text_non_profiled(self):
        with Debuggee("--closures", "1000") as d:
            r = run("info", d.socket)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertRegex(r.stdout, r"ghc\s+9\.10\.1")
            self.assertRegex(r.stdout, r"profiling\s+none")

    def test_demo(self):
        r = run("--demo", timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"socket (\S+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertFalse(os.path.exists(m.group(1)), "the demo debuggee is cleaned up")
        self.assertIn("GHC 9.10.1, profiling: era", r.stdout)
        self.assertRegex(r.stdout, r"GC roots \(\d+, first \d+ shown\)")
        self.assertRegex(r.stdout, r"0x42[0-9a-f]+ +TSO")
        self.assertRegex(r.stdout, r"Saved objects \(\d+\)")


class CommandLineMessages(unittest.TestCase):
    """Issue 9: usage errors exit 2 and speak as 'heapscope:', whatever path
    the binary was started by."""

    MALFORMED = [("tcp:127.0.0.1:99999", "port must be 1-65535"),
                 ("tcp:host", "expected tcp:HOST:PORT"),
                 ("tcp:[::1]80", "expected tcp:HOST:PORT"),
                 ("unix:", "empty socket path"),
                 ("", "no target given"),
                 ("/tmp/" + "x" * 300, "Unix socket paths must be shorter than 108 bytes"),
                 ("tcp:" + "h" * 5000 + ":80", "host name is 5000 bytes long")]

    def test_malformed_targets_are_usage_errors(self):
        for command in ("info", "roots", "census", "find"):
            for target, why in self.MALFORMED:
                r = run(command, target)
                self.assertEqual(r.returncode, 2, (command, target[:40], r.stderr))
                self.assertIn(why, r.stderr)
                self.assertTrue(r.stderr.startswith("heapscope: "), r.stderr)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertLess(len(r.stderr), 200, "a long target is cut short in the message")

    def test_malformed_explorer_target_is_a_usage_error(self):
        for target, why in self.MALFORMED:
            r = subprocess.run([HEAPSCOPE, target], capture_output=True, text=True, timeout=30,
                               stdin=subprocess.DEVNULL)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(why, r.stderr)

    def test_a_long_path_to_a_file_is_a_snapshot_not_a_malformed_socket(self):
        with tempfile.TemporaryDirectory() as d:
            deep = os.path.join(d, *["directory-%02d" % i for i in range(8)])
            os.makedirs(deep)
            path = os.path.join(deep, "not-a-snapshot.db")
            with open(path, "w") as f:
                f.write("plain text\n")
            self.assertGreater(len(path), 108)
            r = run("roots", path)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertNotIn("108 bytes", r.stderr)

    def test_a_well_formed_target_still_connects(self):
        r = run("info", "tcp:127.0.0.1:1", "--timeout", "2000")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cannot connect to tcp:127.0.0.1:1", r.stderr)

    def test_messages_name_heapscope_not_the_invoked_path(self):
        with tempfile.TemporaryDirectory() as d:
            alias = os.path.join(d, "hs-alias")
            os.symlink(os.path.abspath(HEAPSCOPE), alias)
            cases = [(["--bogus"], "unknown option '--bogus'"),
                     (["--bogus=1"], "unknown option '--bogus'"),
                     (["-x"], "unknown option '-x'"),
                     (["--json", "-xV"], "unknown option '-x'"),
                     (["--timeout"], "--timeout needs a value"),
                     (["--json=yes", "info", "x"], "--json takes no value"),
                     (["--t", "info", "x"], "ambiguous option '--t': --timeout, --top"),
                     (["info", "tcp:host"], "malformed target")]
            for args, message in cases:
                r = subprocess.run([alias, *args], capture_output=True, text=True, timeout=30)
                self.assertEqual(r.returncode, 2, (args, r.stderr))
                self.assertNotIn(alias, r.stderr)
                self.assertNotIn("hs-alias", r.stderr)
                self.assertTrue(r.stderr.startswith("heapscope: "), (args, r.stderr))
                self.assertIn(message, r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
