"""The cache on real GHC 9.0.2 programs (tests/ghc/Rebuilt.hs built twice,
its constructor named Alpha in one build and Omega in the other): a second
census of an unchanged program asks the stub for none of the immutable
answers again, a new run of the same binary reuses them too, and the
rebuilt binary at the same path is never decoded with the first build's
answers. The stub counts what it serves in $HEAPSCOPE_STUB_COUNT.

usage: test_ghc_cache.py HEAPSCOPE PROGRAM_ALPHA PROGRAM_OMEGA
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HEAPSCOPE = sys.argv.pop(1)
ALPHA = sys.argv.pop(1)
OMEGA = sys.argv.pop(1)
IMMUTABLE = ("INFO_TABLES", "SRT", "CON_DESC", "SOURCE_INFO", "FUN_BITMAP")


class Program:
    """A copy of a build at `path`, on a private socket; ends when its stdin
    closes."""

    def __init__(self, tmp, path):
        self.socket = os.path.join(tmp, "sock")
        self.counts_path = os.path.join(tmp, "counts")
        if os.path.exists(self.counts_path):
            os.remove(self.counts_path)
        # GHCRTS: no idle GC, which would move closures between two commands
        env = dict(os.environ, GHC_DEBUG_SOCKET=self.socket, GHCRTS="-I0",
                   HEAPSCOPE_STUB_COUNT=self.counts_path)
        self.log = open(os.path.join(tmp, "stderr"), "w+")
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=self.log, env=env, cwd=tmp)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the program ended early")
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the program did not open its socket")

    def counts(self):
        try:
            with open(self.counts_path) as f:
                return {k: int(v) for k, v in (line.split() for line in f if line.strip())}
        except OSError:
            return {}

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def row(census, key):
    """(bytes, count) of the census row of key, or None."""
    for line in census.splitlines():
        fields = line.split()
        if fields and fields[-1] == key:
            return int(fields[0]), int(fields[1])
    return None


def immutable(counts):
    return {k: counts.get(k, 0) for k in IMMUTABLE}


class RealProgramCache(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="heapscope-ghc-cache-")
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(self.tmp, "cache"))
        self.path = os.path.join(self.tmp, "rebuilt")  # where each build is installed

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def install(self, build):
        """Like a rebuild: a new file at the same path."""
        if os.path.exists(self.path):
            os.remove(self.path)
        shutil.copy(build, self.path)

    def census(self, program):
        r = subprocess.run([HEAPSCOPE, "census", program.socket, "--by", "constructor"],
                           capture_output=True, text=True, timeout=120, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        return r.stdout

    def test_unchanged_program_reuses_and_rebuilt_program_is_asked_afresh(self):
        self.install(ALPHA)
        p = Program(self.tmp, self.path)
        try:
            first = self.census(p)
            one = p.counts()
            second = self.census(p)
            two = p.counts()
        finally:
            p.stop()
        # (the rest of a live heap moves between pauses; the saved list does not)
        self.assertEqual(row(first, "main:Main:Alpha"), (300 * 16, 300))
        self.assertEqual(row(second, "main:Main:Alpha"), (300 * 16, 300))
        self.assertGreater(one["INFO_TABLES"], 0)
        self.assertGreater(one["CON_DESC"], 0)
        # almost none again: only what closures new since the first pause
        # bring (the program runs between the two pauses)
        asked_again = sum(immutable(two).values()) - sum(immutable(one).values())
        self.assertLessEqual(asked_again, sum(immutable(one).values()) // 10,
                             f"the second census asked the stub again: {immutable(one)} -> {immutable(two)}")

        # a new process of the same binary: a GHC executable is not
        # position-independent, so it is the same code at the same place
        p = Program(self.tmp, self.path)
        try:
            third = self.census(p)
            asked = immutable(p.counts())
        finally:
            p.stop()
        self.assertEqual(row(third, "main:Main:Alpha"), (300 * 16, 300))
        self.assertEqual(asked["CON_DESC"], 0, asked)

        # rebuilt with the constructor renamed: other answers at the same path
        self.install(OMEGA)
        p = Program(self.tmp, self.path)
        try:
            rebuilt = self.census(p)
            asked = immutable(p.counts())
        finally:
            p.stop()
        self.assertEqual(row(rebuilt, "main:Main:Omega"), (300 * 16, 300))
        self.assertNotIn("Alpha", rebuilt, "decoded with the first build's answers")
        self.assertGreater(asked["CON_DESC"], 0)
        self.assertGreater(asked["INFO_TABLES"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
