"""No raw terminal escapes in heapscope's output (run by meson test): a
snapshot whose strings (source locations, cost centres, constructors, the
program's name) carry escape sequences, BEL, CR and C1 characters, and a
debuggee on a socket whose name carries ESC and BEL, are shown by every
command with those characters as visible escapes; --json escapes them as
\\u00XX and reads back as the very strings."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, DEBUGGEE  # noqa: E402

# what a terminal obeys: a title change (OSC ... BEL), a clear screen (CSI),
# a carriage return, and C1 controls (NEL, CSI as one character)
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\r\x85\x9b"


def hostile(text):
    return None if text is None else text + HOSTILE


def forbidden(text):
    """The characters of text a terminal would obey, as a set."""
    return {c for c in text if c in "\x1b\x07\r" or "\x80" <= c <= "\x9f"}


def rewrite(path):
    """Makes every outside string of the snapshot at path hostile."""
    columns = {
        "source_infos": ("name", "type", "label", "module", "position"),
        "cost_centres": ("label", "module", "srcloc"),
        "con_descs": ("description",),
        "closure_kinds": ("constructor", "package", "module", "location"),
    }
    with sqlite3.connect(path) as db:
        db.create_function("hostile", 1, hostile)
        for table, cols in columns.items():
            sets = ", ".join(f"{c} = hostile({c})" for c in cols)
            db.execute(f"UPDATE {table} SET {sets}")
        db.execute("UPDATE meta SET value = hostile(value) WHERE key IN ('program', 'target')")
        # and a C1 control as a raw byte, which is no UTF-8
        db.execute("UPDATE source_infos SET position = position || CAST(X'9B' AS TEXT)")


def run(*args, env=None):
    return subprocess.run([HEAPSCOPE, *args], capture_output=True, timeout=300, env=env)


class Escapes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(cls.tmp.name, "cache"))
        # the socket's name is hostile too: messages and `cache list` quote it
        sock_dir = os.path.join(cls.tmp.name, "s\x1b]0;pwned\x07\x9b")
        os.mkdir(sock_dir)
        cls.sock = os.path.join(sock_dir, "d\x1b[2J.sock")
        cls.debuggee = subprocess.Popen(
            [DEBUGGEE, "--socket", cls.sock, "--profiled", "--closures", "3000", "--strings"],
            stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while not os.path.exists(cls.sock) and time.time() < deadline:
            time.sleep(0.05)
        cls.file = os.path.join(cls.tmp.name, "p\x1b[2J\x07.heapscope")
        cls.snapshot = run("snapshot", cls.sock, "-o", cls.file, "--record", env=cls.env)
        assert cls.snapshot.returncode == 0, cls.snapshot.stderr
        rewrite(cls.file)
        cls.older = os.path.join(cls.tmp.name, "older.heapscope")
        r = run("snapshot", cls.sock, "-o", cls.older, env=cls.env)
        assert r.returncode == 0, r.stderr
        rewrite(cls.older)

    @classmethod
    def tearDownClass(cls):
        cls.debuggee.terminate()
        cls.debuggee.wait(timeout=10)
        cls.tmp.cleanup()

    def clean(self, r, what):
        for name, stream in (("stdout", r.stdout), ("stderr", r.stderr)):
            bad = forbidden(stream.decode("utf-8", errors="surrogateescape"))
            self.assertFalse(bad, f"{what}: {name} holds {sorted(map(hex, map(ord, bad)))}")
            # a C1 control as a raw byte (not UTF-8) counts too
            raw = {c for c in stream.decode("utf-8", errors="surrogateescape")
                   if "\udc80" <= c <= "\udc9f"}
            self.assertFalse(raw, f"{what}: {name} holds raw C1 bytes")

    def text_and_json(self, *args, code=0):
        r = run(*args, env=self.env)
        self.assertEqual(r.returncode, code, r.stderr)
        self.clean(r, " ".join(args))
        if code == 0:
            j = run(*args, "--json", env=self.env)
            self.assertEqual(j.returncode, 0, j.stderr)
            self.clean(j, " ".join(args) + " --json")
            return r, json.loads(j.stdout)
        return r, None

    def test_the_strings_show_as_visible_escapes(self):
        r, _ = self.text_and_json("census", self.file, "--by", "source")
        out = r.stdout.decode()
        self.assertIn("\\e]0;pwned\\x07\\e[2J\\r\\u0085\\u009b", out)
        self.assertIn("\\x9b", out)

    def test_every_command(self):
        _, roots = self.text_and_json("roots", self.file)
        addr = roots["roots"][0]["address"] if "roots" in roots else None
        for by in ("type", "constructor", "era", "source", "closure-name", "cost-centre",
                   "thunk", "source,cost-centre"):
            self.text_and_json("census", self.file, "--by", by)
        self.text_and_json("thunks", self.file)
        self.text_and_json("find", self.file, "--limit", "50")
        self.text_and_json("retainers", self.file, "--type", "CONSTR", "--limit", "5")
        self.text_and_json("retainers", self.file, "--type", "CONSTR", "--limit", "5",
                           "--merged")
        self.text_and_json("dominators", self.file)
        self.text_and_json("strings", self.file)
        self.text_and_json("diff", self.older, self.file)
        self.text_and_json("leaks", self.file)
        self.text_and_json("info", self.file)
        self.text_and_json("info", self.sock)
        self.text_and_json("cache", "list")
        if addr:
            self.text_and_json("show", self.file, addr)
        self.clean(self.snapshot, "snapshot --record")

    def test_json_reads_back_as_the_strings(self):
        _, census = self.text_and_json("census", self.file, "--by", "source")
        text = json.dumps(census, ensure_ascii=False)
        self.assertIn(json.dumps(HOSTILE, ensure_ascii=False)[1:-1], text)
        _, cache = self.text_and_json("cache", "list")
        self.assertIn(self.sock, [p["target"] for p in cache["pauses"]])

    def test_messages_on_stderr(self):
        missing = os.path.join(self.tmp.name, "gone\x1b]0;pwned\x07\x9b.sock")
        r, _ = self.text_and_json("info", missing, code=1)
        self.assertIn(b"pwned", r.stderr)
        r, _ = self.text_and_json("show", self.file, "0x1\x1b[2J", code=2)


if __name__ == "__main__":
    unittest.main()
