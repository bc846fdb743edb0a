"""Addresses a person gives (issue 19, point 1): heapscope asks the debuggee
about an address only when it is a closure of this pause (a GC root, a saved
object, a closure reached from them); anything else is "no closure at ADDR
in this pause", said locally with nothing sent. The debuggee runs with
--fragile: like the official ghc-debug stub, it dies (status 139, a line
'fragile: ...') when a request names an address that is no closure or info
table of its heap. Run by meson test (suite cli)."""
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import Debuggee, HostileDebuggee, PlantedDebuggee, run  # noqa: E402

NO_CLOSURE = re.compile(r"^heapscope: no closure at 0x[0-9a-f]+ in this pause\b.*$")
IN_HEAP = "the address is in the heap, whose closures move whenever the program runs"
FRAGILE_EXIT = 139


def addresses(tree):
    """Every "address" in a JSON tree (show --json, roots --json)."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            if k == "address" and isinstance(v, str):
                yield int(v, 16)
            else:
                yield from addresses(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from addresses(v)


class FragileCase(PlantedDebuggee, unittest.TestCase):
    ARGS = ("--closures", "3000", "--seed", "3", "--fragile")

    def run_hs(self, *args):
        return run(*args[:1], self.debuggee.socket, *args[1:], "--no-cache")

    def assertAlive(self, what):
        """The fragile debuggee still runs and answers."""
        code = self.debuggee.proc.poll()
        if code is not None:
            self.fail("%s: the debuggee died (status %s): %s"
                      % (what, code, self.debuggee.proc.stderr.read()))
        r = self.run_hs("roots")
        self.assertEqual(r.returncode, 0, (what, r.stderr))

    def assertNoClosure(self, r, what, wording=None):
        self.assertEqual(r.returncode, 1, (what, r.stdout, r.stderr))
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, (what, r.stderr))
        self.assertRegex(lines[0], NO_CLOSURE, what)
        if wording:
            self.assertIn(wording, lines[0], what)
        self.assertEqual(r.stdout, "", what)
        self.assertAlive(what)

    def roots(self):
        r = self.run_hs("roots", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)


class Addresses(FragileCase):
    def test_show_of_no_closure_is_answered_locally(self):
        root = list(addresses(self.roots()["roots"]))[0]
        for addr, wording in (("0xdeadbeef", None), ("0x10", None),
                              ("0x4200000000", IN_HEAP),  # the first megablock's start
                              ("0x4200100000", IN_HEAP),
                              ("0x400000", None),  # code: the first info table's page
                              ("0x7f0000001000", None),
                              (hex(root + 8), "it lies inside the")):  # inside a closure
            with self.subTest(addr):
                self.assertNoClosure(self.run_hs("show", addr), "show " + addr, wording)
                self.assertNoClosure(self.run_hs("show", addr, "--json"), "show --json " + addr)

    def test_filters_by_address_ask_nothing_about_it(self):
        # find / retainers compare addresses and info pointers with what the
        # traversal reads; a made-up one matches nothing and is never sent
        for args in (("find", "--address", "0xdeadbeef"), ("retainers", "--address", "0x10"),
                     ("find", "--info", "0x8"), ("retainers", "--info", "0x4200000000")):
            with self.subTest(args):
                r = self.run_hs(*args, "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(json.loads(r.stdout)["count"], 0)
                self.assertAlive(" ".join(args))

    def test_dump_of_no_closure_is_answered_locally(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "f")
            for addr in ("0xdeadbeef", "0x10", "0x4200000000", "0x4200100000"):
                with self.subTest(addr):
                    self.assertNoClosure(self.run_hs("dump", addr, "-o", out), "dump " + addr)
                    self.assertFalse(os.path.exists(out))

    def test_closures_of_this_pause_still_show(self):
        roots = self.roots()
        root = list(addresses(roots["roots"]))[0]
        saved = list(addresses(roots["saved_objects"]))[0]
        r = self.run_hs("show", hex(saved), "--depth", "2", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        below = [a for a in addresses(json.loads(r.stdout)) if a != saved]
        heap_child = next(a for a in below if a >= 0x4200000000)
        static = next(a for a in below if a < 0x4200000000)  # END_TSO_QUEUE, in the data
        for addr in (root, saved, heap_child, static):
            with self.subTest(hex(addr)):
                r = self.run_hs("show", hex(addr))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertTrue(r.stdout.startswith(hex(addr)), r.stdout)
                self.assertAlive(hex(addr))
        # a static closure met first through a show of it (not a census)
        r = self.run_hs("show", hex(static), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_a_byte_array_still_dumps(self):
        saved = self.roots()["saved_objects"]
        arr = next(c for c in saved if c["type"] == "ARR_WORDS")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "f")
            r = self.run_hs("dump", arr["address"], "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(os.path.getsize(out) + 16, arr["size"])
        self.assertAlive("dump")


class EarlierPause(unittest.TestCase):
    """Addresses taken in an earlier pause: the program ran since
    (--grow-per-pause: each resume conses N more Span closures onto a list
    an IORef holds). The synthetic program moves nothing, so an address of
    an earlier pause that still names a closure is shown as any other; an
    address in the heap that names none now is refused locally, saying that
    closures move as the program runs."""

    def test_addresses_of_an_earlier_pause(self):
        with Debuggee("--closures", "3000", "--seed", "5", "--fragile",
                      "--grow-per-pause", "4") as d:
            def show(addr, *more):
                return run("show", d.socket, hex(addr), *more, "--no-cache")

            r = run("roots", d.socket, "--json", "--no-cache")  # pause 1
            self.assertEqual(r.returncode, 0, r.stderr)
            ioref = list(addresses(json.loads(r.stdout)["roots"]))[-1]
            r = show(ioref, "--depth", "1", "--json")  # pause 2
            self.assertEqual(r.returncode, 0, r.stderr)
            head = json.loads(r.stdout)["children"][0]["closure"]["address"]
            head = int(head, 16)
            r = show(head)  # pause 3: the list head of pause 2 is still a closure
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("CONSTR_2_0", r.stdout)
            # the end of the block the list grows in: fetched, and no closure
            # starts there in pause 4 (3 rounds of 4 x 48 bytes after the head)
            end = (head & ~4095) + 4088
            self.assertLess(head % 4096 + 3 * 4 * 48, 4088, "the premise")
            r = show(end)  # pause 4
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertRegex(r.stderr.strip(), NO_CLOSURE)
            self.assertIn(IN_HEAP, r.stderr)
            self.assertIn("take it from this pause", r.stderr)
            self.assertIsNone(d.proc.poll(), "the debuggee died")
            r = show(ioref)  # pause 5: still answering
            self.assertEqual(r.returncode, 0, r.stderr)


class HostileFragile(unittest.TestCase):
    """A corrupt heap (--hostile KIND): dangling and interior pointers in
    reachable closures, cycles. Every command reads what it can and the
    fragile debuggee is never asked about a pointer that is no closure."""

    def test_commands_never_ask_about_wild_pointers(self):
        for kind in ("dangling", "interior", "cycles", "huge-size", "absurd-info", "bad-sp",
                     "long-bitmap", "bad-ccs"):
            with self.subTest(kind), Debuggee(*HostileDebuggee.ARGS, "--fragile",
                                              "--hostile", kind) as d:
                for args in (("census",), ("roots",), ("retainers", "--constructor", "Leak",
                                                        "--limit", "3"),
                             ("dominators",), ("leaks",), ("strings",), ("thunks",),
                             ("snapshot", "-o", os.path.join(d.dir.name, "s.heapscope"),
                              "--force")):
                    r = run(args[0], d.socket, *args[1:], "--no-cache")
                    code = d.proc.poll()
                    self.assertIsNone(code, "%s %s: the debuggee died: %s"
                                      % (kind, args[0], d.proc.stderr.read() if code else ""))
                    self.assertEqual(r.returncode, 0, (kind, args, r.stderr))


class FragileDebuggee(unittest.TestCase):
    """The test tool itself: --fragile dies on a wild CLOSURES request,
    as the official stub's program would, and serves a real one."""

    def test_fragile_dies_on_a_wild_address(self):
        import socket
        import struct
        with Debuggee("--closures", "2000", "--fragile") as d:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(d.socket)
                s.sendall(struct.pack(">IIB", 5, 2, 0))  # PAUSE
                s.sendall(struct.pack(">IIH", 4 + 2 + 8, 5, 1) + struct.pack("<Q", 0xdeadbee8))
                try:
                    while s.recv(4096):
                        pass
                except OSError:
                    pass
            self.assertEqual(d.proc.wait(timeout=10), FRAGILE_EXIT)
            self.assertIn("fragile: CLOSURES for 0xdeadbee8, not a closure: the official stub "
                          "would have crashed", d.proc.stderr.read())


if __name__ == "__main__":
    unittest.main()
