"""The man page and the TUI's command table agree (issue 6, part 7): every
command that `heapscope --keys` prints, with each of its keys, is in the
KEYS section of man/heapscope.1, and that section is what
`heapscope --keys=man` generates.

Usage: python3 test_keys_doc.py HEAPSCOPE MAN_PAGE TUI_H (no tmux needed).
With --write after the arguments, it rewrites the generated part of the
KEYS section from `heapscope --keys=man` instead of testing."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from man_page import replace_generated, section, unroff  # noqa: E402

HEAPSCOPE = sys.argv.pop(1)
MAN = sys.argv.pop(1)
TUI_H = sys.argv.pop(1)


def keys_table():
    r = subprocess.run([HEAPSCOPE, "--keys"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise AssertionError("heapscope --keys failed (%d): %s" % (r.returncode, r.stderr))
    rows = []
    for line in r.stdout.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise AssertionError("not KEYS<TAB>WHERE<TAB>NEEDS<TAB>COMMAND<TAB>WHAT: %r" % line)
        keys = [] if fields[0] == "-" else fields[0].split(", ")
        rows.append({"keys": keys, "where": fields[1], "needs": fields[2], "name": fields[3],
                     "help": fields[4]})
    return rows


def entries(keys_section):
    """The .TP entries of the KEYS section: [(tag, body)], unroffed."""
    out = []
    for chunk in re.split(r"^\.TP\n", keys_section, flags=re.M)[1:]:
        lines = chunk.split("\n")
        tag = re.sub(r"^\.[BI]R? ", "", lines[0])
        body = " ".join(l for l in lines[1:] if not l.startswith(".SS") and not l.startswith('.\\"'))
        out.append((unroff(tag).replace('"', ""), unroff(body)))
    return out


class KeysDoc(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = keys_table()
        with open(MAN) as f:
            cls.roff = f.read()
        cls.keys = section(cls.roff, "KEYS")
        cls.entries = entries(cls.keys)

    def test_table_is_not_empty(self):
        self.assertGreater(len(self.table), 20)
        names = [r["name"] for r in self.table]
        for wanted in ("Help", "Command palette", "Quit", "Pause", "Resume", "Expand",
                       "Find retainers", "Era colours"):
            self.assertIn(wanted, names)

    def test_every_command_and_key_is_documented(self):
        problems = []
        for row in self.table:
            own = [tag for tag, body in self.entries if body.startswith(row["name"] + ":")]
            found = own or [tag for tag, body in self.entries if re.search(
                r"(?<![\w-])%s(?![\w-])" % re.escape(row["name"]), body)]
            if not found:
                problems.append("command %r is not in KEYS" % row["name"])
                continue
            tag_keys = set(re.split(r",\s*", found[0]))
            for key in row["keys"]:
                if key not in tag_keys:
                    problems.append("key %s of %r is not in its KEYS entry (%s)"
                                    % (key, row["name"], found[0]))
        self.assertEqual(problems, [])

    def test_keys_section_is_generated_from_the_table(self):
        r = subprocess.run([HEAPSCOPE, "--keys=man"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        generated = r.stdout
        self.assertIn(generated, self.keys,
                      "the KEYS section differs from `heapscope --keys=man`; regenerate it: "
                      "python3 tests/tui/test_keys_doc.py HEAPSCOPE man/heapscope.1 "
                      "include/heapscope/tui.h --write")

    def test_tui_sections_exist(self):
        for name in ("KEYS", "THEMES", "FILES", "ENVIRONMENT"):
            section(self.roff, name)
        env = unroff(section(self.roff, "ENVIRONMENT"))
        for var in ("GHC_DEBUG_SOCKET", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "HOME", "NO_COLOR",
                    "TERM"):
            self.assertIn(var, env)
        themes = unroff(section(self.roff, "THEMES"))
        for word in ("era-palette", "default", "light", "high-contrast", "--theme"):
            self.assertIn(word, themes)
        with open(TUI_H) as f:
            roles = re.findall(r'X\(\w+, "([\w-]+)"\)', f.read())
        self.assertGreater(len(roles), 10)
        for role in roles:
            self.assertIn(role, themes, "theme role %s is documented" % role)


def write_generated():
    generated = subprocess.run([HEAPSCOPE, "--keys=man"], capture_output=True, text=True,
                               check=True).stdout
    with open(MAN) as f:
        roff = f.read()
    roff = replace_generated(roff, "keys", generated)
    with open(MAN, "w") as f:
        f.write(roff)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_generated()
    else:
        unittest.main(verbosity=2)
