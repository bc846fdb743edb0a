"""The cache is not trusted blindly (issue 21): a row naming a file outside
the cache's pauses/ folder is never deleted nor opened, a cache directory or
database another user could write to (or a symlink) is refused with one
line and the command goes on without it, a time out of range is printed as
such, concurrent first uses all succeed, and the temporary files of a
recording killed mid-way are counted and removed once their writer is dead
(run by meson test)."""
import json
import os
import sqlite3
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE  # noqa: E402
from test_cache_cli import CacheCase  # noqa: E402

ROW = ("INSERT INTO pauses(file, program, exe, pid, target, paused_at, closures,"
       " heap_bytes, file_bytes, recorded_at) VALUES (?, 'x', '', 1, 't', ?, 0, 0, ?, 0)")


class Trust(CacheCase):
    def dir(self):
        return os.path.join(self.tmp, "cache", "heapscope")

    def pauses(self):
        return os.path.join(self.dir(), "pauses")

    def heapscope(self, *args):
        return subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True,
                              timeout=120, env=self.env)

    def add_row(self, file, paused_at=0, file_bytes=10**15):
        with sqlite3.connect(self.db()) as db:
            db.execute(ROW, (file, paused_at, file_bytes))

    def test_a_row_naming_a_file_elsewhere_never_deletes_nor_opens_it(self):
        self.run_ok("cache", "list")  # creates the cache
        precious = os.path.join(self.tmp, "precious.txt")
        with open(precious, "w") as f:
            f.write("mine")
        os.makedirs(self.pauses(), exist_ok=True)
        link = os.path.join(self.pauses(), "link.hsnap")
        os.symlink(precious, link)
        for file in (precious, os.path.join(self.pauses(), "..", "..", "..", "precious.txt"),
                     link):
            self.add_row(file)
        text = self.run_ok("cache", "list")
        self.assertIn("ignored: a row names %s, not a file of this cache" % precious, text)
        self.assertNotIn("cache:1", text)
        listing = json.loads(self.run_ok("cache", "list", "--json"))
        self.assertEqual(listing["pauses"], [])
        self.assertEqual(len(listing["foreign_files"]), 3)
        r = self.heapscope("diff", "cache:1", "cache:1")
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("precious", r.stdout + r.stderr)
        p = self.program("--closures", "3000")
        self.census(p, "--top", "1", "--record")
        self.assertTrue(os.path.exists(precious), "a cache row deleted a file of the user")
        self.assertTrue(os.path.islink(link) or not os.path.exists(link))
        with open(precious) as f:
            self.assertEqual(f.read(), "mine")
        # the 10^15 bytes the rows claimed pushed out no real pause
        self.assertEqual(len(json.loads(self.run_ok("cache", "list", "--json"))["pauses"]), 1)

    def test_a_time_out_of_range_is_said_so(self):
        p = self.program("--closures", "3000")
        self.census(p, "--record")
        with sqlite3.connect(self.db()) as db:
            db.execute("UPDATE pauses SET paused_at = ?", (2**62,))
        text = self.run_ok("cache", "list")
        self.assertIn("(time out of range)", text)

    def refused(self, why):
        r = self.heapscope("cache", "list")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(why, r.stderr)
        p = self.program("--closures", "3000")
        r = self.heapscope("census", p.socket, "--top", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("going on without the cache", lines[0])
        self.assertIn(why, lines[0])

    def test_new_cache_is_private(self):
        self.run_ok("cache", "list")
        self.assertEqual(os.stat(self.dir()).st_mode & 0o777, 0o700)
        self.assertEqual(os.stat(self.db()).st_mode & 0o777, 0o600)

    def test_world_writable_directory_is_refused(self):
        os.makedirs(self.dir())
        os.chmod(self.dir(), 0o777)
        self.refused("writable by others")
        self.assertFalse(os.path.exists(self.db()))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to give a directory away")
    def test_directory_of_another_user_is_refused(self):
        os.makedirs(self.dir(), mode=0o700)
        os.chown(self.dir(), 65534, 65534)
        self.refused("belongs to another user")

    def test_symlinked_directory_is_refused(self):
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere, mode=0o700)
        os.makedirs(os.path.dirname(self.dir()))
        os.symlink(elsewhere, self.dir())
        self.refused("is a symlink")
        self.assertEqual(os.listdir(elsewhere), [])

    def test_symlinked_pauses_folder_is_never_written_nor_cleared(self):
        self.run_ok("cache", "list")
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere, mode=0o700)
        kept = os.path.join(elsewhere, "mine.hsnap")
        with open(kept, "w") as f:
            f.write("mine")
        os.symlink(elsewhere, self.pauses())
        p = self.program("--closures", "3000")
        r = self.heapscope("census", p.socket, "--top", "1", "--record")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is a symlink", r.stderr)
        self.assertEqual(os.listdir(elsewhere), ["mine.hsnap"])
        self.run_ok("cache", "clear")
        self.assertTrue(os.path.exists(kept), "cache clear followed the symlink")

    def test_clear_refuses_a_symlinked_directory(self):
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere, mode=0o700)
        with open(os.path.join(elsewhere, "cache.db"), "w") as f:
            f.write("someone's")
        os.makedirs(os.path.dirname(self.dir()))
        os.symlink(elsewhere, self.dir())
        r = self.heapscope("cache", "clear")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is a symlink", r.stderr)
        self.assertTrue(os.path.exists(os.path.join(elsewhere, "cache.db")))

    def test_writable_or_symlinked_database_is_refused(self):
        self.run_ok("cache", "list")
        os.chmod(self.db(), 0o666)
        self.refused("writable by others")
        os.chmod(self.db(), 0o600)
        os.rename(self.db(), self.db() + ".real")
        os.symlink(self.db() + ".real", self.db())
        self.refused("is a symlink")

    def test_concurrent_first_uses_all_succeed(self):
        for attempt in range(3):
            self.env["XDG_CACHE_HOME"] = os.path.join(self.tmp, "race%d" % attempt)
            procs = [subprocess.Popen([HEAPSCOPE, "cache", "list"], env=self.env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True) for _ in range(10)]
            for proc in procs:
                out, err = proc.communicate(timeout=120)
                self.assertNotIn("not a heapscope cache", err)
                self.assertEqual(proc.returncode, 0, err)

    def test_temporary_files_of_a_dead_writer_are_counted_then_removed(self):
        self.run_ok("cache", "list")
        os.makedirs(self.pauses(), exist_ok=True)
        dead = subprocess.Popen(["true"])
        dead.wait()
        size = 3 * 10**6
        names = {"dead": ".20260101-000000-1-%d-0.hsnap.AbCdEf.tmp" % dead.pid,
                 "live": ".20260101-000000-1-%d-0.hsnap.GhIjKl.tmp" % os.getpid()}
        for name in names.values():
            with open(os.path.join(self.pauses(), name), "wb") as f:
                f.truncate(size)
        # cache list opens the cache: the dead writer's file goes
        listing = json.loads(self.run_ok("cache", "list", "--json"))
        left = os.listdir(self.pauses())
        self.assertNotIn(names["dead"], left)
        self.assertIn(names["live"], left, "a live writer's file is left alone")
        self.assertEqual(listing["tmp_files"], 1)
        self.assertEqual(listing["tmp_bytes"], size)
        self.assertIn("1 unfinished recording being written: 3.0 MB",
                      self.run_ok("cache", "list"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
