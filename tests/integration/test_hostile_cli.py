"""heapscope against a hostile debuggee: a man in the middle in front of the
synthetic debuggee alters chosen answers (tests/common/hostile_stub.py).
Run by meson test, also under ASan/UBSan by tests/run."""
import json
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from test_cli import Debuggee, raw_status, run  # noqa: E402
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


class AnswerCap(HostileCase):
    """--max-answer: the cap on one answer, and the way out when it is hit."""

    ARGS = ("--closures", "60000", "--seed", "3")

    def assertRunning(self):
        # RESUME on a running debuggee is refused with NOT_PAUSED
        self.assertEqual(raw_status(self.debuggee.socket, hs.RESUME), hs.NOT_PAUSED)

    def test_over_the_cap_names_size_cap_and_option_and_resumes(self):
        r = run("census", self.debuggee.socket, "--max-answer", "1M")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stderr, r"^heapscope: .*ALL_BLOCKS: the answer is at least "
                         r"[0-9.]+ MiB, over the 1 MiB cap on one answer "
                         r"\(--max-answer SIZE raises it\)\n$")
        self.assertRunning()
        r = run("census", self.debuggee.socket, "--max-answer", "64M", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(json.loads(r.stdout)["total_count"], 50000)

    def test_a_claimed_4_gib_frame_is_refused_before_it_is_read(self):
        def huge_blocks(req):
            if req.cmd == hs.ALL_BLOCKS:  # a frame header, and then nothing
                return hs.Raw(struct.pack(">IH", 0xFFFFFFFF, hs.CONTINUES))
            return None
        r, stub = self.through(huge_blocks, "find", "TARGET", "--max-answer", "1G")
        self.assertNoSanitizerReport(r)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("at least 4 GiB, over the 1 GiB cap", r.stderr)
        self.assertIn("--max-answer", r.stderr)
        cmds = stub.commands()
        self.assertIn(hs.RESUME, cmds[cmds.index(hs.ALL_BLOCKS):], "resumed after the error")
        self.assertRunning()

    def test_bad_sizes_are_usage_errors(self):
        for bad in ("", "12X", "1.5G", "512K", "2T", "-1M"):
            r = run("census", self.debuggee.socket, "--max-answer", bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertIn("--max-answer wants a size from 1 MiB to 1 TiB", r.stderr)
        r = run("--max-answer", "512M", "info", self.debuggee.socket)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
