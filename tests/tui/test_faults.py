"""Faults during the explorer's long work (issue 13 §3), each as a user
meets it in a terminal: the debuggee killed during a search and while a
snapshot is saved, the terminal shrunk to 10x5 and back, SIGINT, SIGTERM
and SIGHUP in the middle of a search and of a save, a file size limit
(`ulimit -f`) and a full disk (a small tmpfs) under the cache's recording
and a save, and heapscope killed (-9) while it saves over an older file.
Each time one message says what happened, no snapshot is half-written
under its name, the cache opens next time, and the terminal is given back
cooked (test_terminal.py: idle cases; test_interrupt.py: signals while
paused or waiting)."""
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time

import harness
from harness import HEAPSCOPE, LEAK_ARGS, TuiCase

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SLOW = LEAK_ARGS + ("--answer-delay", "30")  # a search takes 10 s or more
PROMPT = "Save snapshot as: "
LOST = r"lost the connection to .*the debuggee (closed|reset) the\s*connection"


class Faults(TuiCase):
    def searching(self, d, *args, **kw):
        """heapscope paused on d (no cache: nothing recorded beside) and
        searching the retainers of the planted leak."""
        t = self.paused(d, "--no-cache", *args, **kw)
        t.keys("C-e")
        t.wait_text("constructor name (regex): ", what="the search prompt")
        t.type(d.plan["leak"]["constructor"])
        t.keys("Enter")
        t.wait_text("searching", timeout=30, what="the search under way")
        return t

    def saving(self, d, name, *args, replace=False):
        """heapscope paused on d saving the pause as name (Ctrl-X)."""
        t = self.paused(d, "--no-cache", *args)
        t.keys("C-x")
        t.wait_text(PROMPT, what="the name prompt")
        t.type(name)
        t.wait(lambda s: (PROMPT + name) in s.footer, "the typed name")
        t.keys("Enter")
        if replace:
            t.wait_regex(r"(?i)replace", what="the question before replacing")
            t.keys("y")
        t.wait_text("saving the snapshot", timeout=30, what="the saving progress")
        return t

    def quit(self, t, paused):
        t.keys("q")
        if paused:
            t.wait_text("Resume the debuggee", what="the quit question")
            t.keys("y")
        status, s = t.wait_exit(timeout=30)
        self.assertEqual(status, 0, s.dump())
        self.assert_restored(t)

    @staticmethod
    def message(s):
        """The footer's message, its wrapped lines joined (each is drawn
        after a margin of one column)."""
        return "".join(line[1:] for line in s.lines[-3:])

    def wait_message(self, t, pattern, what, timeout=30):
        return t.wait(lambda s: re.search(pattern, self.message(s)), what, timeout)

    def test_debuggee_killed_during_a_search(self):
        d = self.debuggee(args=SLOW)
        t = self.searching(d)
        d.stop(signal.SIGKILL)
        s = self.wait_message(t, LOST, "the lost connection, in the footer")
        self.assertIn("pick a debuggee", s.lines[0], "back in the list, usable")
        self.quit(t, paused=False)

    def test_debuggee_killed_while_saving(self):
        d = self.debuggee(args=SLOW)
        t = self.saving(d, "lost")
        d.stop(signal.SIGKILL)
        s = self.wait_message(t, LOST, "the lost connection, in the footer")
        self.assertRegex(self.message(s), r"writing .*/lost:")
        self.assertEqual(os.listdir(self.home.snapshots), [], "a file or a part of one is left")
        self.quit(t, paused=False)

    def test_resized_to_10x5_and_back_during_a_search(self):
        d = self.debuggee(args=SLOW)
        t = self.searching(d)
        t.resize(10, 5)
        t.wait(lambda s: len(s.lines) <= 5 and any(l.strip() for l in s.lines),
               "a 10x5 screen drawn")
        time.sleep(0.5)  # a few turns of the loop at that size
        self.assertTrue(t.running())
        t.resize(100, 30)
        s = t.wait(lambda s: "matches" in s.footer, timeout=120,
                   what="the search finishing at full size")
        self.assertRegex(s.text, r"\b%s\b" % d.plan["leak"]["constructor"])
        t.run_command("Redraw the screen")  # a full repaint: the resized screen is that
        self.assertEqual(t.settle().lines[:-1], s.lines[:-1],
                         "the resized screen kept pieces of 10x5")
        self.quit(t, paused=True)
        self.assertFalse(d.is_paused())

    def test_signals_during_a_search(self):
        for sig in SIGNALS:
            with self.subTest(sig.name):
                d = self.debuggee(name="44%d-search" % sig, args=SLOW)
                t = self.searching(d)
                os.kill(t.pid(), sig)
                status, s = t.wait_exit(timeout=20)
                self.assertEqual(status, 128 + sig, s.dump())
                self.assert_restored(t)
                self.assertIn("heapscope: interrupted by %s: the debuggee was resumed" % sig.name,
                              s.text)
                self.assertFalse(d.is_paused())

    def test_sigterm_while_saving_leaves_no_file(self):
        d = self.debuggee(args=SLOW)
        t = self.saving(d, "cut")
        os.kill(t.pid(), signal.SIGTERM)
        status, s = t.wait_exit(timeout=20)
        self.assertEqual(status, 128 + signal.SIGTERM)
        self.assert_restored(t)
        self.assertIn("interrupted by SIGTERM: the debuggee was resumed", s.text)
        self.assertEqual(os.listdir(self.home.snapshots), [])
        self.assertFalse(d.is_paused())

    def test_kill_9_while_saving_over_a_file_keeps_it(self):
        old = os.path.join(self.home.snapshots, "kept")
        with open(old, "wb") as f:
            f.write(b"the snapshot saved before")
        d = self.debuggee(args=SLOW)
        t = self.saving(d, "kept", replace=True)
        os.kill(t.pid(), signal.SIGKILL)
        self.assertEqual(t.wait_exit()[0], 128 + signal.SIGKILL)
        with open(old, "rb") as f:
            self.assertEqual(f.read(), b"the snapshot saved before", "the old file was touched")
        parts = [n for n in os.listdir(self.home.snapshots) if n != "kept"]
        self.assertTrue(all(n.startswith(".kept.") for n in parts), parts)
        d.resume()  # the pause the killed heapscope held
        # the next explorer lists the old file and nothing of the part
        t = self.tui()
        t.wait_text("Debuggees (")
        t.keys("Tab")
        s = t.wait_text("kept", what="the Snapshots tab")
        self.assertFalse(s.search(r"\.kept\.|\.tmp\b"), "the part written is listed:\n" + s.dump())
        self.quit(t, paused=False)

    def test_a_file_size_limit_under_the_recording_and_a_save(self):
        """`ulimit -f`: before, SIGXFSZ killed the explorer with the terminal
        raw and the debuggee paused."""
        d = self.debuggee()
        t = self.paused(d, file_size_limit=128 * 1024)
        s = self.wait_message(t, r"recording the pause in the cache: .*ulimit -f",
                              "the recording's failure", timeout=60)
        self.assertIn("is 131072 bytes", self.message(s))
        t.keys("C-x")
        t.wait_text(PROMPT, what="the name prompt")
        t.type("big")
        t.keys("Enter")
        s = self.wait_message(t, r"cannot save: writing .*/big: .*ulimit -f",
                              "the save's failure", timeout=60)
        self.assertIn(d.plan["leak"]["root"], s.text, "the tree stays")
        self.assertEqual(os.listdir(self.home.snapshots), [])
        self.quit(t, paused=True)
        self.assertFalse(d.is_paused())
        env = dict(os.environ, HOME=self.home.home)
        env.pop("XDG_CACHE_HOME", None)  # the explorer's pinned environment has none
        r = subprocess.run([HEAPSCOPE, "cache", "list", "--json"], capture_output=True,
                           text=True, timeout=60, env=env)
        self.assertEqual((r.returncode, r.stderr), (0, ""), "the cache opens next time")
        self.assertEqual(json.loads(r.stdout)["pauses"], [])

    def test_a_full_disk_under_the_recording_and_a_save(self):
        """The cache and the snapshots directory on 256 KiB tmpfs: what
        the user sees is the disk that is full, and nothing is left on it
        (looked at through /proc/PID/root: the mounts are heapscope's own)."""
        d = self.debuggee()
        cache = os.path.join(self.home.home, ".cache")
        os.makedirs(cache)
        t = self.paused(d, small_tmpfs=(cache, self.home.snapshots))
        self.wait_message(t, r"recording the pause in the cache: .*the disk is full",
                          "the recording's failure", timeout=60)
        t.keys("C-x")
        t.wait_text(PROMPT, what="the name prompt")
        t.type("big")
        t.keys("Enter")
        s = self.wait_message(t, r"cannot save: writing .*/big: writing the snapshot: the disk "
                                 r"is full", "the save's failure", timeout=60)
        self.assertIn(d.plan["leak"]["root"], s.text, "the tree stays")
        seen = "/proc/%d/root" % t.pid()
        self.assertEqual(os.listdir(seen + self.home.snapshots), [], "a file or a part of one")
        self.assertEqual(os.listdir(seen + os.path.join(cache, "heapscope", "pauses")), [])
        # a copy of cache.db and its WAL: SQLite would resolve the /proc link
        # to this namespace's path, where the tmpfs is not
        copy = os.path.join(self.home.root, "cache-copy")
        os.makedirs(copy)
        for name in ("cache.db", "cache.db-wal"):
            if os.path.exists(seen + os.path.join(cache, "heapscope", name)):
                shutil.copy(seen + os.path.join(cache, "heapscope", name), copy)
        db = sqlite3.connect(os.path.join(copy, "cache.db"))
        try:
            self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
            self.assertEqual(db.execute("SELECT count(*) FROM pauses").fetchall(), [(0,)])
        finally:
            db.close()
        self.quit(t, paused=True)
        self.assertFalse(d.is_paused())


if __name__ == "__main__":
    harness.main()
