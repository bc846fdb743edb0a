"""heapscope against a hostile debuggee: a man in the middle in front of the
synthetic debuggee alters chosen answers (tests/common/hostile_stub.py).
Run by meson test, also under ASan/UBSan by tests/run."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from test_cli import Debuggee, run  # noqa: E402
import hostile_stub as hs  # noqa: E402

SMALL = ("--closures", "3000", "--seed", "3")


class HostileCase(unittest.TestCase):
    """One synthetic debuggee shared by the tests of a class."""

    ARGS = SMALL

    @classmethod
    def setUpClass(cls):
        cls.debuggee = Debuggee(*cls.ARGS).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.debuggee.__exit__(None, None, None)

    def through(self, rule, *args):
        """Runs heapscope ARGS on the hostile stub; returns (result, stub)."""
        with hs.HostileStub(self.debuggee.socket, rule) as stub:
            args = [a.replace("TARGET", stub.socket) for a in args]
            r = run(*args)
        return r, stub

    def assertNoSanitizerReport(self, r):
        self.assertNotIn("Sanitizer", r.stderr)
        self.assertNotIn("runtime error", r.stderr)


class ShortStaticClosure(HostileCase):
    """A CLOSURES answer whose records are shorter than an info pointer."""

    @staticmethod
    def short_closures(req):
        if req.cmd != hs.CLOSURES:
            return None
        return hs.OKAY, hs.blobs([b"AAAA"] * len(req.ptrs()))

    def test_census_skips_it_and_leaks_nothing(self):
        r, stub = self.through(self.short_closures, "census", "TARGET", "--json")
        self.assertNoSanitizerReport(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        # the 4 bytes sent must never come back as (half) an info pointer
        for cmd, payload in stub.requests:
            if cmd == hs.INFO_TABLES:
                for p in hs.ptr_list(payload):
                    self.assertNotEqual(p & 0xFFFFFFFF, 0x41414141, hex(p))
        self.assertIn(hs.CLOSURES, stub.commands())
        self.assertEqual(stub.commands()[-1], hs.RESUME)


class FarBlock(HostileCase):
    """ALL_BLOCKS with one more block group half a pebibyte past the heap."""

    FAR = 0x7F0000000000

    @classmethod
    def with_far_block(cls, req):
        if req.cmd != hs.ALL_BLOCKS:
            return None
        status, body = req.forward()
        return status, body + hs.raw_block(cls.FAR, bytes(4096))

    def test_census_is_sized_by_what_was_received(self):
        plain = run("census", self.debuggee.socket, "--json")
        self.assertEqual(plain.returncode, 0, plain.stderr)
        r, _ = self.through(self.with_far_block, "census", "TARGET", "--json")
        self.assertNoSanitizerReport(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), json.loads(plain.stdout))

    def test_retainers_too(self):
        r, _ = self.through(self.with_far_block, "retainers", "TARGET", "--type", "TSO",
                            "--json")
        self.assertNoSanitizerReport(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(json.loads(r.stdout)["count"], 0)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
