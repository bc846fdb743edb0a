"""Snapshots in the explorer (issue 10, part 4): Ctrl-X saves the pause on
screen into ghc-debug's snapshot directory under a name it asks for (a
file the CLI then reads exactly as it reads the live debuggee), asks before
replacing a file, and Esc leaves no file; the picker's Snapshots tab lists
snapshot files and the cache's recorded pauses with program, time,
closures and size, dims what it cannot read, and Enter opens a snapshot
read-only."""
import json
import os
import re
import subprocess
import time

import harness
from harness import LEAK_ARGS, TuiCase, closure_row

PROMPT = "Save snapshot as: "


class Snapshots(TuiCase):
    def setUp(self):
        super().setUp()
        self.env = dict(os.environ, HOME=self.home.home, XDG_DATA_HOME=self.home.data,
                        TZ="UTC")
        self.env.pop("XDG_CACHE_HOME", None)  # the cache under the private HOME

    def cli(self, *args, ok=True):
        r = subprocess.run([harness.HEAPSCOPE, *args], capture_output=True, text=True,
                           timeout=180, env=self.env)
        if ok:
            self.assertEqual(r.returncode, 0, "heapscope %s: %s" % (" ".join(args), r.stderr))
        return r

    def snapshot(self, d, path):
        """heapscope snapshot of d into path; its --json report."""
        return json.loads(self.cli("snapshot", d.socket, "-o", path, "--json").stdout)

    def save(self, t, name):
        """Ctrl-X, the name typed over the default, Enter."""
        t.keys("C-x")
        t.wait_text(PROMPT, what="the name prompt")
        t.type(name)
        t.wait(lambda s: (PROMPT + name) in s.footer, "the typed name")
        t.keys("Enter")

    def test_ctrl_x_saves_what_census_reads_like_live(self):
        d = self.debuggee()
        t = self.paused(d)
        t.keys("C-x")
        s = t.wait_text(PROMPT, what="the name prompt")
        default = s.footer.split(PROMPT, 1)[1].strip()
        self.assertRegex(default, r"^leaky-\d{8}-\d{6}$", "PROGRAM-YYYYMMDD-HHMMSS")
        t.keys("Escape")
        t.wait_gone(PROMPT, what="Esc to close the prompt")

        self.save(t, "mine")
        path = os.path.join(self.home.snapshots, "mine")
        s = t.wait_regex(r"saved mine: \d+ closures, [\d.]+ [KM]iB, in ", timeout=120,
                         what="the saved message")
        self.assertTrue(os.path.isfile(path))
        self.assertEqual([n for n in os.listdir(self.home.snapshots) if n != "mine"], [],
                         "no temporary file left")
        self.assertIn(d.plan["leak"]["root"], t.screen().text, "the tree stays")
        # quit leaving it paused (a debuggee serves one client at a time):
        # the CLI finds the same pause, and leaves it so
        t.keys("q")
        t.wait_text("Resume the debuggee", what="the quit question")
        t.keys("n")
        self.assertEqual(t.wait_exit()[0], 0)
        for args in (("census",), ("census", "--by", "constructor", "--json")):
            # without the times --json gives, which differ from run to run
            times = r', "paused_ms": \d+, "elapsed_ms": \d+'
            live = re.sub(times, "", self.cli(*args, d.socket).stdout)
            saved = re.sub(times, "", self.cli(*args, path).stdout)
            self.assertEqual(saved, live, "heapscope %s FILE prints what it prints live" % args[0])
        d.resume()

    def test_ctrl_x_asks_before_replacing_and_takes_a_path(self):
        d = self.debuggee()
        t = self.paused(d)
        path = os.path.join(self.home.snapshots, "twice")
        self.save(t, "twice")
        t.wait_text("saved twice: ", timeout=120)
        first = os.stat(path).st_ino
        self.save(t, "twice")
        t.wait_regex(r"twice exists\. Replace it\?", what="the replace question")
        t.keys("n")
        t.wait_text("not saved", what="n keeps the file")
        self.assertEqual(os.stat(path).st_ino, first, "the file was left alone")
        self.save(t, "twice")
        t.wait_regex(r"Replace it\?", what="the replace question again")
        t.keys("y")
        t.wait_text("saved twice: ", timeout=120, what="y replaces it")
        self.assertNotEqual(os.stat(path).st_ino, first, "a new file took its place")
        # a name with a slash is a path; its directory is listed from now on
        other = os.path.join(self.home.root, "elsewhere")
        os.mkdir(other)
        self.save(t, other + "/there.snap")
        t.wait_text("saved there.snap: ", timeout=120)
        self.assertTrue(os.path.isfile(os.path.join(other, "there.snap")))
        t.run_command("Resume")
        t.wait_regex(r"(?i)running", what="the running screen")
        t.run_command("Disconnect")
        t.wait_text("Debuggees (", what="the picker")
        t.keys("Tab")
        s = t.wait_text("there.snap", what="the new directory's file in the Snapshots tab")
        self.assertTrue(s.has("twice"))

    def test_esc_while_saving_leaves_no_file(self):
        d = self.debuggee(args=LEAK_ARGS + ("--answer-delay", "150"))
        # no recording into the cache: on this slow debuggee it would hold
        # the quit below (test_cache.py covers quitting while recording)
        t = self.paused(d, "--no-cache")
        self.save(t, "slow")
        t.wait_text("saving the snapshot", timeout=30, what="the saving progress")
        t.keys("Escape")
        s = t.wait_text("saving cancelled: no file was written", timeout=30)
        self.assertEqual(os.listdir(self.home.snapshots), [], "nothing, not even a temporary")
        self.assertIn(d.plan["leak"]["root"], s.text, "the tree stays")
        t.keys("q")
        t.wait_text("Resume the debuggee", what="the quit question: still paused")
        t.keys("y")
        self.assertEqual(t.wait_exit()[0], 0)
        self.assertFalse(d.is_paused())
        self.assertEqual(os.listdir(self.home.snapshots), [])

    def test_a_snapshot_opens_read_only_and_saves_a_copy(self):
        d = self.debuggee()
        original = os.path.join(self.home.root, "original.heapscope")
        self.snapshot(d, original)
        d.stop()  # the file alone from now on
        t = self.tui(original)
        s = t.wait_text(d.plan["leak"]["root"], timeout=60, what="the pause, without p")
        self.assertRegex(s.text, r"(?i)snapshot, read-only")
        t.keys("p")
        t.wait_regex(r"Pause: a snapshot file holds one pause", what="why p does nothing")
        t.keys("r")
        t.wait_regex(r"Resume: a snapshot file cannot be resumed", what="why r does nothing")
        self.assertIsNotNone(closure_row(t.screen(), d.plan["leak"]["path"][0]), "the tree stays")
        t.keys("Escape")  # the message goes: the footer shows the keys that work here
        s = t.wait(lambda s: "help" in s.footer, "the footer's keys")
        self.assertRegex(s.footer, r"\^X save")
        self.assertNotIn("resume", s.footer)
        t.keys("C-x")
        s = t.wait_text(PROMPT)
        self.assertRegex(s.footer, PROMPT + r"leaky-\d{8}-\d{6}", "named after the file's program")
        t.keys("Enter")
        s = t.wait_regex(r"saved leaky-\d{8}-\d{6}: \d+ closures", timeout=120)
        copy = os.path.join(self.home.snapshots, os.listdir(self.home.snapshots)[0])
        self.assertEqual(self.cli("census", copy).stdout, self.cli("census", original).stdout)
        t.keys("q")
        self.assertEqual(t.wait_exit()[0], 0, "q asks nothing on a snapshot")

    def test_snapshots_tab_lists_files_and_recorded_pauses(self):
        d = self.debuggee()
        older = os.path.join(self.home.snapshots, "older.heapscope")
        report = self.snapshot(d, older)
        time.sleep(1.1)  # the recorded pause is a second newer
        self.cli("census", d.socket, "--record")
        with open(os.path.join(self.home.snapshots, "notes.txt"), "w") as f:
            f.write("not a snapshot\n")
        with open(older, "rb") as f:
            head = f.read(4096)
        with open(os.path.join(self.home.snapshots, "cut.heapscope"), "wb") as f:
            f.write(head)  # a heapscope snapshot cut short
        d.stop()

        t = self.tui()
        t.wait_text("Debuggees (")
        t.keys("Tab")
        s = t.wait(lambda s: s.has("older.heapscope") and s.has("recorded pause"),
                   "the file and the recorded pause")
        rec, old = s.row_with("recorded pause"), s.row_with("older.heapscope")
        self.assertLess(rec, old, "newest first")
        closures = str(report["closures"])
        # both named after the socket's <pid>-<program>, as the debuggee list shows it
        for row, program in ((rec, "leaky"), (old, "leaky")):
            self.assertRegex(s.lines[row], r"\b%s\b.*\b%s\b" % (program, closures),
                             "program and closures:\n" + s.dump())
        self.assertRegex(s.lines[old], r"\d+(\.\d)? [KM]iB", "the file's size")
        self.assertRegex(s.text, r"Snapshots \(4\)")
        notes = s.lines[s.row_with("notes.txt")]
        self.assertRegex(notes, r"not a snapshot")
        self.assertRegex(s.lines[s.row_with("cut.heapscope")], r"truncated")
        dim = harness.DEFAULT_ROLES["disabled"][0]
        row = s.cells[s.row_with("notes.txt")]
        self.assertIn(dim, {c.fg for c in row if c.ch.strip()}, "an unreadable file is dimmed")

        t.select("notes.txt")
        before = t.screen()
        t.keys("Enter")
        t.wait_new_line(r"notes\.txt: not a snapshot", before, what="why it cannot open")
        self.assertTrue(t.running())

        t.select("older.heapscope")
        t.keys("Enter")
        s = t.wait_text(d.plan["leak"]["root"], timeout=60, what="the file's pause")
        self.assertRegex(s.text, r"older\.heapscope: a snapshot, read-only")
        t.run_command("Disconnect")
        s = t.wait_text("Snapshots (", what="back in the picker")
        self.assertNotIn("stays paused", s.text, "a file has no debuggee to leave paused")
        t.select("recorded pause")
        t.keys("Enter")
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the recorded pause")
        t.keys("q")
        self.assertEqual(t.wait_exit()[0], 0)

    def test_a_ghc_debug_snapshot_is_listed_and_opens(self):
        path = os.path.join(self.home.snapshots, "taken-by-ghc-debug")
        r = subprocess.run([harness.DEBUGGEE, *LEAK_ARGS, "--ghc-debug-snapshot", path],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        plan = json.loads(subprocess.run([harness.DEBUGGEE, *LEAK_ARGS, "--plan-only"],
                                         capture_output=True, text=True, timeout=60).stdout)
        t = self.tui()
        t.wait_text("Debuggees (")
        t.keys("Tab")
        s = t.wait_text("taken-by-ghc-debug")
        self.assertRegex(s.lines[s.row_with("taken-by-ghc-debug")], r"\(ghc-debug\)\s.*\?",
                         "a ghc-debug file, its closures unknown until opened")
        t.keys("Enter")
        s = t.wait_text(plan["leak"]["root"], timeout=60, what="the ghc-debug snapshot's pause")
        self.assertRegex(s.text, r"taken-by-ghc-debug: a snapshot, read-only")
        t.keys("C-x")
        s = t.wait_text(PROMPT)
        self.assertRegex(s.footer, PROMPT + r"taken-by-ghc-debug-\d{8}-\d{6}",
                         "named after the file: ghc-debug does not record the program")
        t.keys("Enter")
        t.wait_regex(r"saved taken-by-ghc-debug-\d{8}-\d{6}: \d+ closures", timeout=120)
        copy = [n for n in os.listdir(self.home.snapshots) if n != "taken-by-ghc-debug"][0]
        self.assertEqual(self.cli("census", os.path.join(self.home.snapshots, copy)).stdout,
                         self.cli("census", path, "--no-cache").stdout,
                         "the copy reads like the ghc-debug file")

    def test_a_ghc_debug_snapshot_opened_before_is_listed_once_with_its_closures(self):
        path = os.path.join(self.home.snapshots, "taken-by-ghc-debug")
        r = subprocess.run([harness.DEBUGGEE, *LEAK_ARGS, "--ghc-debug-snapshot", path],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.cli("census", path)  # the first open keeps it converted in the cache
        pauses = json.loads(self.cli("cache", "list", "--json").stdout)["pauses"]
        self.assertEqual(len(pauses), 1, "the conversion is a recorded pause")
        t = self.tui()
        t.wait_text("Debuggees (")
        t.keys("Tab")
        s = t.wait_text("taken-by-ghc-debug")
        self.assertRegex(s.lines[s.row_with("taken-by-ghc-debug")],
                         r"\(ghc-debug\)\s.*\b%d\b" % pauses[0]["closures"],
                         "the closures the conversion counted")
        self.assertRegex(s.text, r"Snapshots \(1\)", "its conversion is not listed again")
        self.assertFalse(s.has("recorded pause"))

    def test_snapshots_tab_follows_new_files(self):
        d = self.debuggee()
        t = self.tui()
        t.wait_text("Debuggees (")
        t.keys("Tab")
        t.wait_text("No snapshots.")
        self.snapshot(d, os.path.join(self.home.snapshots, "later.heapscope"))
        s = t.wait_text("later.heapscope", timeout=3, what="a file saved meanwhile (within ~2 s)")
        self.assertRegex(s.lines[s.row_with("later.heapscope")], r"\bleaky\b")
        os.unlink(os.path.join(self.home.snapshots, "later.heapscope"))
        t.wait_gone("later.heapscope", timeout=3, what="a removed file to leave the list")

    def test_snapshot_dir_is_listed_too(self):
        d = self.debuggee()
        mine = os.path.join(self.home.root, "my-snapshots")
        os.mkdir(mine)
        self.snapshot(d, os.path.join(mine, "kept.heapscope"))
        self.snapshot(d, os.path.join(self.home.snapshots, "usual.heapscope"))
        t = self.tui("--snapshot-dir", mine)
        t.wait_text("Debuggees (")
        t.keys("Tab")
        t.wait(lambda s: s.has("kept.heapscope") and s.has("usual.heapscope"),
               "the files of both directories")

    def test_no_cache_lists_files_only(self):
        d = self.debuggee()
        self.cli("census", d.socket, "--record")
        self.snapshot(d, os.path.join(self.home.snapshots, "a.heapscope"))
        t = self.tui("--no-cache")
        t.wait_text("Debuggees (")
        t.keys("Tab")
        s = t.wait_text("a.heapscope")
        self.assertFalse(s.has("recorded pause"), "--no-cache: the cache is not read")


if __name__ == "__main__":
    harness.main()
