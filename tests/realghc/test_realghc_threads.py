"""Threads and stack frames on real programs (issue 20, point 5):
tests/realghc/Tier.hs --stack-held built by GHC VERSION with info-table
provenance. Its threads show their ids and labelThread labels in roots,
find and JSON; its stacks' frames say their kind, and a frame of Main's
code its source location, which is how a value held on a stack (the one
StackHeld) is traced to the function holding it.

usage: test_realghc_threads.py HEAPSCOPE VERSION   (meson test --suite realghc)
Exits 77 (skip) with the reason when the tier cannot run here."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import realghc  # noqa: E402

HEAPSCOPE = sys.argv.pop(1)
VERSION = sys.argv.pop(1)
CACHE = tempfile.TemporaryDirectory(prefix="heapscope-realghc-cache-")
WORKERS = ["tier-worker-%d" % i for i in (1, 2, 3)]


line_of = realghc.line_of


class Threads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.program = realghc.start(VERSION, "ipe", "--stack-held", rts=("-N2",))

    @classmethod
    def tearDownClass(cls):
        cls.program.stop_answering(HEAPSCOPE)

    def heapscope(self, *args):
        env = dict(os.environ, XDG_CACHE_HOME=CACHE.name)
        r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, env=env,
                           timeout=realghc.timeout(120))
        self.assertEqual(r.returncode, 0, "heapscope %s:\n%s%s\nthe program's stderr:\n%s"
                         % (" ".join(args), r.stdout[-2000:], r.stderr, self.program.stderr()))
        self.assertTrue(self.program.alive(), "%s died:\n%s" % (self.program,
                                                                self.program.stderr()))
        return r.stdout

    def json(self, *args):
        return json.loads(self.heapscope(*args, "--json"))

    def threads(self):
        """{label or None: [TSO objects]} of the GC roots."""
        out = {}
        for r in self.json("roots", self.program.socket)["roots"]:
            if r["type"] == "TSO":
                out.setdefault(r["thread_label"], []).append(r)
        return out

    def stack_of(self, tso):
        tree = self.json("show", self.program.socket, tso["address"], "--depth", "1")
        return next(c["closure"] for c in tree["children"] if c["edge"] == "Stack")

    def test_workers_have_their_labels_and_distinct_ids(self):
        threads = self.threads()
        ids = [t["thread_id"] for ts in threads.values() for t in ts]
        self.assertEqual(len(ids), len(set(ids)), ids)
        self.assertTrue(all(i > 0 for i in ids), ids)
        for name in WORKERS + ["tier-stack-holder", "tier-main"]:
            self.assertEqual(len(threads.get(name, [])), 1, (name, sorted(threads, key=str)))
            t = threads[name][0]
            self.assertEqual(t["label"], 'TSO %d "%s": BlockedOnMVar' % (t["thread_id"], name))
        text = self.heapscope("roots", self.program.socket)
        for name in WORKERS:
            t = threads[name][0]
            self.assertIn("%s  TSO  %d B  TSO %d \"%s\": BlockedOnMVar\n"
                          % (t["address"], t["size"], t["thread_id"], name), text)
        found = self.heapscope("find", self.program.socket, "--type", "TSO", "--limit", "0")
        for name in WORKERS:
            self.assertIn('TSO %d "%s": BlockedOnMVar' % (threads[name][0]["thread_id"], name),
                          found)

    def test_main_stack_frames_say_their_kind(self):
        stack = self.stack_of(self.threads()["tier-main"][0])
        self.assertRegex(stack["label"], r"^Stack \(\d+ words, \d+ used\)$")
        frames = stack["frames"]
        self.assertGreaterEqual(len(frames), 3)
        self.assertEqual([f["number"] for f in frames], list(range(len(frames))))
        kinds = [f["kind"] for f in frames]
        self.assertEqual(kinds[-1], "stop frame")  # the bottom of a thread's stack
        self.assertIn("catch frame", kinds)  # the top handler of main
        self.assertIn("case continuation", kinds)
        text = self.heapscope("show", self.program.socket, stack["address"], "--depth", "1")
        for f in frames:  # each a line, with or without pointers
            self.assertIn("Frame %d (%s" % (f["number"], f["kind"]), text)

    def test_a_frame_of_main_has_its_source_location(self):
        stack = self.stack_of(self.threads()["tier-stack-holder"][0])
        line = line_of("      !held -> case takeMVar#")
        mine = [f for f in stack["frames"] if f["location"] and f["location"]["file"] == "Tier.hs"]
        self.assertEqual(len(mine), 1, stack["frames"])
        f = mine[0]
        self.assertEqual((f["kind"], f["type"]), ("case continuation", "RET_SMALL"))
        self.assertEqual(f["location"]["module"], "Main")
        self.assertEqual(f["location"]["label"], "holdOnStack.blocked")
        self.assertTrue(f["location"]["span"].startswith("(%d," % line), f["location"])
        self.assertIn("catch frame", [g["kind"] for g in stack["frames"][f["number"]:]])

    def test_value_held_on_a_stack_names_the_function(self):
        out = self.json("retainers", self.program.socket, "--exact", "StackHeld")
        self.assertEqual(out["count"], 1)
        path = out["matches"][0]["path"]
        self.assertEqual([s["type"] for s in path[:2]], ["TSO", "STACK"])
        self.assertEqual(path[0]["thread_label"], "tier-stack-holder")
        held = path[2]
        self.assertEqual(held["constructor"]["name"], "StackHeld")
        frame = held["frame"]
        where = frame["location"]["position"]
        self.assertTrue(where.startswith("Tier.hs:(%d," % line_of("      !held -> case takeMVar#")),
                        where)
        self.assertEqual(held["edge"], "Frame %d (case continuation in Main.holdOnStack.blocked "
                         "at %s) Pointer" % (frame["number"], where))
        text = self.heapscope("retainers", self.program.socket, "--exact", "StackHeld")
        self.assertRegex(text, r"\n  Frame %d \(case continuation in Main\.holdOnStack\.blocked "
                         r"at %s\) Pointer +%s  CONSTR" % (frame["number"], re.escape(where),
                                                            held["address"]))


if __name__ == "__main__":
    realghc.main(lambda: unittest.main(verbosity=2))
