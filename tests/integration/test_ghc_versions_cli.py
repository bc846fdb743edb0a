"""heapscope on the heaps of GHC 9.12 and 9.14 (heapscope-debuggee
--ghc-version, doc/ghc-versions.md): census, roots, show, retainers, find and
a snapshot round trip read everything (nothing unreadable) and count what
the generator says it planted; 9.14's annotation frames (ANN_FRAME) are
walked through; a closure type the debuggee's GHC does not have
(--unknown-type) is an opaque leaf named UNKNOWN_TYPE_<n>, and every command
still exits 0. Run by meson test, also under ASan/UBSan and valgrind by
tests/run."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import PlantedDebuggee, private_cache, run  # noqa: E402

CACHE = private_cache()
# "Frame 2 Pointer", or with the frame's kind: "Frame 2 (annotation frame ...) Pointer"
FRAME_POINTER = re.compile(r"Frame (\d+) (?:\((.*)\) )?Pointer")
ANN_KIND = r"ANN_FRAME|[Aa]nnotation"


class VersionHeap(PlantedDebuggee):
    """One debuggee per class: GHC version VERSION (as --ghc-version takes
    it), VERSION_ANSWER (what `info` shows), a closure of type UNKNOWN."""

    VERSION = None
    VERSION_ANSWER = None
    UNKNOWN = None
    EXTRA = ()

    @classmethod
    def debuggee_args(cls):
        return ("--closures", "6000", "--seed", "4", "--ghc-version", cls.VERSION,
                "--unknown-type", str(cls.UNKNOWN)) + cls.EXTRA

    def ok(self, *args):
        """Runs heapscope: exit 0 and nothing on stderr (no closure left
        out as unreadable, no error)."""
        r = run(*args, *(("--no-cache",) if args[0] != "info" else ()))
        self.assertEqual(r.returncode, 0, (args, r.stderr))
        self.assertEqual(r.stderr, "", args)
        return r.stdout

    def ok_json(self, *args):
        return json.loads(self.ok(*args, "--json"))

    @property
    def unknown_name(self):
        return "UNKNOWN_TYPE_%d" % self.UNKNOWN

    def test_plan_describes_the_version(self):
        self.assertEqual(self.plan["ghc_version"], int(self.VERSION.replace(".", "")))
        self.assertEqual(self.plan["unknown_type"]["type"], self.UNKNOWN)
        self.assertEqual(self.plan["unknown_type"]["name"], self.unknown_name)

    def test_info_answers_the_version(self):
        out = self.ok("info", self.debuggee.socket)
        self.assertRegex(out, r"(?m)^ghc +%s$" % re.escape(self.VERSION_ANSWER))

    def check_census(self, target):
        census = self.ok_json("census", target, "--by", "type")
        self.assertEqual(census["unreadable"]["count"], 0)
        self.assertEqual(census["total_count"], self.plan["reachable"]["count"])
        self.assertEqual(census["total_bytes"], self.plan["reachable"]["bytes"])
        rows = {r["key"]: r for r in census["rows"]}
        for key, want in self.plan["by_type"].items():
            self.assertEqual((rows[key]["count"], rows[key]["bytes"]),
                             (want["count"], want["bytes"]), key)
        self.assertEqual(rows[self.unknown_name]["count"], 1)
        self.assertEqual(self.plan["by_type"][self.unknown_name]["count"], 1)
        by_con = self.ok_json("census", target, "--by", "constructor")
        rows = {r["key"]: r for r in by_con["rows"]}
        for key, want in self.plan["by_constructor"].items():
            self.assertEqual((rows[key]["count"], rows[key]["bytes"]),
                             (want["count"], want["bytes"]), key)

    def test_census_counts_what_was_planted(self):
        self.check_census(self.debuggee.socket)

    def test_unknown_type_is_an_opaque_leaf_with_its_name(self):
        addr = self.plan["unknown_type"]["address"]
        size = self.plan["by_type"][self.unknown_name]["bytes"]  # header, one pointer, one word
        self.assertEqual(size, 40 if "--profiled" in self.EXTRA else 24)
        roots = self.ok_json("roots", self.debuggee.socket)["roots"]
        mine = [r for r in roots if r["address"] == addr]
        self.assertEqual(len(mine), 1, roots)
        self.assertEqual(mine[0]["type"], self.unknown_name)
        self.assertEqual(mine[0]["label"], self.unknown_name)
        # its line: address, type, size, (era and cost centre,) label
        line = r"%s  %s  %d B  (.*  )?%s" % (addr, self.unknown_name, size, self.unknown_name)
        self.assertRegex(self.ok("roots", self.debuggee.socket), r"(?m)^  %s$" % line)
        shown = self.ok_json("show", self.debuggee.socket, addr, "--depth", "3")
        self.assertEqual(shown["closure"]["type"], self.unknown_name)
        self.assertEqual(shown["closure"]["size"], size)
        self.assertEqual(shown["children"], [], "its pointer is not followed")
        out = self.ok("show", self.debuggee.socket, addr)
        self.assertRegex(out, r"^%s\n$" % line)
        # the name it prints is one a type filter takes
        found = self.ok_json("find", self.debuggee.socket, "--type", self.unknown_name,
                             "--limit", "0")
        self.assertEqual([m["closure"]["address"] for m in found["matches"]], [addr])

    def test_retainers_and_find_follow_the_planted_leak(self):
        out = self.ok_json("retainers", self.debuggee.socket, "--exact", "Leak", "--limit", "1")
        self.assertEqual(out["unreadable"]["count"], 0)
        path = [s["address"] for s in out["matches"][0]["path"]]
        self.assertEqual(path, [s["address"] for s in self.plan["leak"]["path"]])
        found = self.ok_json("find", self.debuggee.socket, "--exact", "Leak", "--limit", "0")
        self.assertEqual(found["count"], self.plan["leak"]["count"])
        self.assertEqual(found["unreadable"]["count"], 0)

    def test_snapshot_round_trip(self):
        snap = os.path.join(self.tmp.name, "v.heapscope")
        out = self.ok_json("snapshot", self.debuggee.socket, "-o", snap, "--force")
        self.assertEqual(out["unreadable"]["count"], 0)
        self.assertRegex(self.ok("info", snap), r"(?m)^ghc +%s$" % re.escape(self.VERSION_ANSWER))
        self.check_census(snap)
        addr = self.plan["unknown_type"]["address"]
        self.assertEqual(self.ok_json("show", snap, addr)["closure"]["type"], self.unknown_name)


class Ghc912(VersionHeap, unittest.TestCase):
    """9.12: 65, ANN_FRAME's number from 9.14 on, is no closure type yet."""

    VERSION = "9.12"
    VERSION_ANSWER = "9.12.2"
    UNKNOWN = 65

    def test_no_annotation_frames(self):
        self.assertNotIn("annotation_frames", self.plan)


class AnnotationFrames:
    """9.14: the main and worker threads' stacks hold an annotation frame
    each; its annotation is reachable through the stack, and the frames
    below it are walked too."""

    def test_annotation_frames_are_walked(self):
        frames = self.plan["annotation_frames"]
        self.assertEqual(len(frames), 2)
        for ann in frames:
            tso = self.ok_json("show", self.debuggee.socket, ann["thread"], "--depth", "1")
            stack = [c for c in tso["children"] if c["edge"] == "Stack"][0]["closure"]
            shown = self.ok_json("show", self.debuggee.socket, stack["address"], "--depth", "1")
            edges = [(c["edge"], c["closure"]["address"]) for c in shown["children"]]
            holders = [e for e, a in edges if a == ann["annotation"]]
            self.assertEqual(len(holders), 1, edges)
            m = FRAME_POINTER.fullmatch(holders[0])
            self.assertTrue(m, holders[0])
            if m.group(2) is not None:  # a label that says the frame's kind must say this one
                self.assertRegex(m.group(2), ANN_KIND)
            below = [e for e, _ in edges
                     if re.match(r"Frame (\d+) ", e) and
                     int(re.match(r"Frame (\d+) ", e).group(1)) > int(m.group(1))]
            self.assertTrue(below, "the walk goes on below the annotation frame: %s" % edges)
            text = self.ok("show", self.debuggee.socket, ann["annotation"])
            self.assertRegex(text, r"ARR_WORDS .*\"(main|worker-1): ")

    def test_retainers_of_an_annotation_go_through_its_frame(self):
        out = self.ok_json("retainers", self.debuggee.socket, "--value",
                           "main: serving requests", "--limit", "1")
        path = out["matches"][0]["path"]
        self.assertEqual([s["type"] for s in path], ["TSO", "STACK", "ARR_WORDS"])
        m = FRAME_POINTER.fullmatch(path[-1]["edge"])
        self.assertTrue(m, path[-1]["edge"])
        if m.group(2) is not None:
            self.assertRegex(m.group(2), ANN_KIND)
        self.assertEqual(path[-1]["address"], self.plan["annotation_frames"][0]["annotation"])


class Ghc914(AnnotationFrames, VersionHeap, unittest.TestCase):
    VERSION = "9.14"
    VERSION_ANSWER = "9.14.1"
    UNKNOWN = 70


class Ghc914Profiled(AnnotationFrames, VersionHeap, unittest.TestCase):
    """Profiled: an annotation frame carries a closure header's two
    profiling words before its annotation."""

    VERSION = "9.14"
    VERSION_ANSWER = "9.14.1"
    UNKNOWN = 200
    EXTRA = ("--profiled", "--eras", "4")


if __name__ == "__main__":
    unittest.main(verbosity=2)
