"""Snapshot files from elsewhere cannot hang heapscope (run by meson test):
a schema other than the one heapscope writes (a view with an endless
recursive query in place of a table, a trigger) is refused by name before
anything is read, and a FIFO given as TARGET is refused without waiting
for a writer."""
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import Debuggee, run  # noqa: E402

FACTOR = float(os.environ.get("HEAPSCOPE_TIMEOUT_FACTOR") or 1)
# an answer comes at once; a hang is what these tests look for
PROMPT = 20 * FACTOR

ENDLESS = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
           " SELECT i AS ord, 0x4200000000 + 8 * i AS address FROM n ORDER BY address DESC")


class SnapshotTrust(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.good = os.path.join(cls.tmp.name, "good.heapscope")
        with Debuggee("--closures", "2000", "--seed", "3") as d:
            r = run("snapshot", d.socket, "-o", cls.good)
            assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def crafted(self, name, *sql):
        p = os.path.join(self.tmp.name, name)
        shutil.copyfile(self.good, p)
        db = sqlite3.connect(p)
        for s in sql:
            db.execute(s)
        db.commit()
        db.close()
        return p

    def refused(self, path, want, *commands):
        for cmd in commands or ("roots", "info", "census"):
            r = run(cmd, path, timeout=PROMPT)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn(want, r.stderr)

    def test_the_real_file_opens(self):
        self.assertEqual(run("roots", self.good, timeout=PROMPT).returncode, 0)

    def test_endless_view_in_place_of_a_table(self):
        for table in ("roots", "meta", "heap_chunks", "info_tables"):
            cols = {"roots": "ord, address", "meta": "key, value",
                    "heap_chunks": "chunk, groups, groups_checksum, data_checksum, data",
                    "info_tables": "info, raw, srt"}[table]
            n = len(cols.split(","))
            select = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT "
                      + ", ".join(["i"] * n) + " FROM n ORDER BY 1 DESC")
            p = self.crafted(f"view-{table}.heapscope", f"DROP TABLE {table}",
                             f"CREATE VIEW {table} ({cols}) AS {select}")
            self.refused(p, f"not a heapscope snapshot: '{table}' is a view")

    def test_trigger_is_refused(self):
        p = self.crafted("trigger.heapscope",
                         "CREATE TRIGGER t AFTER INSERT ON roots BEGIN DELETE FROM meta; END")
        self.refused(p, "not a heapscope snapshot: 't' is a trigger")

    def test_extra_view_or_table_is_refused(self):
        p = self.crafted("extra.heapscope", "CREATE VIEW slow AS " + ENDLESS)
        self.refused(p, "'slow' is a view")
        p = self.crafted("extra-table.heapscope", "CREATE TABLE notes (x)")
        self.refused(p, "'notes' is a table heapscope does not write")

    def test_generated_column_is_refused(self):
        p = self.crafted("generated.heapscope", "DROP TABLE roots",
                         "CREATE TABLE roots (ord INTEGER PRIMARY KEY, a INTEGER,"
                         " address INTEGER GENERATED ALWAYS AS (a + 1))")
        self.refused(p, "table roots is missing or its columns are not (ord, address)")

    def test_fifo_target(self):
        p = os.path.join(self.tmp.name, "pipe")
        os.mkfifo(p)  # no writer ever comes
        self.refused(p, f"{p} is a FIFO, not a snapshot file")


if __name__ == "__main__":
    unittest.main()
