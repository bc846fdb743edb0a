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
from test_cli import Debuggee, private_cache, raw_status, run, untimed  # noqa: E402
import hostile_stub as hs  # noqa: E402

SMALL = ("--closures", "3000", "--seed", "3")
# answers cached by an earlier run would never reach the stub: every run
# through it says --no-cache, and nothing lands in the user's cache
CACHE = private_cache()


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
            r = run(*args, "--no-cache")
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
        u = json.loads(r.stdout)["unreadable"]
        self.assertGreaterEqual(u["count"], 1)
        self.assertIn("the debuggee sent 4 bytes for it, fewer than an info pointer",
                      u["problem"])


class Unreadable(HostileCase):
    """Closures the debuggee will not give: skipped, counted, the command finishes."""

    def refuse_one(self, cmd, reply=None):
        """A rule refusing (or answering `reply` for) requests of cmd that hold
        one chosen pointer: the middle one of the first such request."""
        chosen = []

        def rule(req):
            if req.cmd != cmd:
                return None
            ptrs = req.ptrs()
            if not chosen:
                chosen.append(ptrs[len(ptrs) // 2])
            if chosen[0] not in ptrs:
                return None
            if reply is None:
                return hs.BAD_COMMAND, b""
            status, body = req.forward()
            records, at = [], 0
            for _ in ptrs:  # the answer's records, the chosen one replaced
                (n,) = struct.unpack(">I", body[at:at + 4])
                records.append(body[at + 4:at + 4 + n])
                at += 4 + n
            records[ptrs.index(chosen[0])] = reply
            return status, hs.blobs(records)
        return rule, chosen

    def census(self, rule, *more):
        r, stub = self.through(rule, "census", "TARGET", "--json", *more)
        self.assertNoSanitizerReport(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout), stub

    def plain_census(self):
        r = run("census", self.debuggee.socket, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_refused_static_closure(self):
        plain = self.plain_census()
        self.assertEqual(plain["unreadable"], {"count": 0, "first": None, "problem": None})
        _, plain_stub = self.census(lambda req: None)
        rule, chosen = self.refuse_one(hs.CLOSURES)
        got, stub = self.census(rule)
        u = got["unreadable"]
        self.assertEqual(u["count"], 1)
        self.assertEqual(u["first"], hex(chosen[0]))
        self.assertIn("refused", u["problem"])
        self.assertLess(got["total_count"], plain["total_count"])
        self.assertGreater(got["total_count"], plain["total_count"] * 0.9)
        # the batch holding it was split in halves, not given up on
        extra = stub.commands().count(hs.CLOSURES) - plain_stub.commands().count(hs.CLOSURES)
        self.assertLessEqual(extra, 2 * 16)

    def test_text_commands_say_it_once_on_stderr(self):
        for args in (("census", "TARGET"), ("find", "TARGET", "--type", "TSO"),
                     ("retainers", "TARGET", "--type", "TSO", "--limit", "0")):
            rule, chosen = self.refuse_one(hs.CLOSURES)
            r, _ = self.through(rule, *args)
            self.assertNoSanitizerReport(r)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            self.assertRegex(r.stderr, r"^heapscope: 1 closure could not be read and was left "
                             r"out \(the first: closure %s: .*refused.*\)\n$" % hex(chosen[0]),
                             args)

    def test_json_of_searches(self):
        for args in (("find", "TARGET", "--type", "TSO"),
                     ("retainers", "TARGET", "--type", "TSO")):
            rule, chosen = self.refuse_one(hs.CLOSURES)
            r, _ = self.through(rule, *args, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            self.assertEqual(doc["unreadable"]["count"], 1, args)
            self.assertEqual(doc["unreadable"]["first"], hex(chosen[0]))
            self.assertGreater(doc["count"], 0)

    def test_roots_list_an_unreadable_root(self):
        # the first info table asked for is the first root's
        rule, chosen = self.refuse_one(hs.INFO_TABLES)
        r, _ = self.through(rule, "roots", "TARGET")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\n  0x[0-9a-f]+  <could not be read: .*info table %s"
                         % hex(chosen[0]))
        self.assertRegex(r.stderr, r"^heapscope: [0-9]+ closures? could not be read")
        r, _ = self.through(rule, "roots", "TARGET", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        listed = [c for c in doc["saved_objects"] + doc["roots"] if "unreadable" in c]
        self.assertEqual(len(listed), doc["unreadable"]["count"])
        self.assertGreater(len(listed), 0)
        self.assertEqual(listed[0]["address"], doc["unreadable"]["first"])

    def test_show_marks_an_unreadable_child_and_goes_on(self):
        r = run("find", self.debuggee.socket, "--type", "TSO", "--limit", "1", "--json")
        tso = json.loads(r.stdout)["matches"][0]["closure"]["address"]

        def no_statics(req):
            return (hs.BAD_COMMAND, b"") if req.cmd == hs.CLOSURES else None
        r, _ = self.through(no_statics, "show", "TARGET", tso, "--depth", "1", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        children = json.loads(r.stdout)["children"]
        bad = [c for c in children if "unreadable" in c["closure"]]
        self.assertTrue(bad, r.stdout)
        self.assertIn("refused", bad[0]["closure"]["unreadable"])
        self.assertEqual(bad[0]["children"], [])
        self.assertGreater(len(children), len(bad), "the readable children are shown too")
        r, _ = self.through(no_statics, "show", "TARGET", tso, "--depth", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"0x[0-9a-f]+  <could not be read: closure 0x[0-9a-f]+: ")

    def test_refused_info_table(self):
        plain = self.plain_census()
        rule, chosen = self.refuse_one(hs.INFO_TABLES)
        got, _ = self.census(rule)
        self.assertGreaterEqual(got["unreadable"]["count"], 1)
        self.assertIn("info table %s" % hex(chosen[0]), got["unreadable"]["problem"])
        self.assertEqual(got["total_count"] + got["unreadable"]["count"] <= plain["total_count"],
                         True)

    def test_info_table_of_the_wrong_size(self):
        rule, chosen = self.refuse_one(hs.INFO_TABLES, reply=b"\x01" * 12)
        got, _ = self.census(rule)
        self.assertGreaterEqual(got["unreadable"]["count"], 1)
        self.assertIn("12 bytes, expected 16", got["unreadable"]["problem"])


class StubWithoutCostCentres(HostileCase):
    """A profiled program whose stub refuses every cost-centre request."""

    ARGS = SMALL + ("--profiled", "--eras", "4")

    @staticmethod
    def no_cost_centres(req):
        if req.cmd in (hs.CCS, hs.CC, hs.INDEX_TABLE, hs.CCS_MAIN):
            return hs.BAD_COMMAND, b""
        return None

    def test_the_message_blames_the_stub_not_the_program(self):
        r, _ = self.through(self.no_cost_centres, "find", "TARGET", "--cost-centre", "1")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the debuggee's stub does not answer cost-centre requests", r.stderr)
        self.assertNotIn("not a profiled program", r.stderr)


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
        self.assertEqual(untimed(json.loads(r.stdout)), untimed(json.loads(plain.stdout)))

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
