"""The command line, its --help and the man page come from one table of
commands and one of options (src/cli/commands.c, src/cli/options.c), as the
explorer's keys do (tests/tui/test_keys_doc.py): the COMMANDS and OPTIONS
sections and the list of the FILTERS section of man/heapscope.1 are what
`heapscope --commands=man`, `--options=man` and `--filters=man` generate;
every option and command is in --help and the man page; and the parser
accepts each option exactly where its row says it applies.

Usage: python3 test_cli_doc.py HEAPSCOPE MAN_PAGE. With --write after the
arguments, it rewrites the generated parts of the man page instead."""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from man_page import replace_generated, section, unroff  # noqa: E402
import valgrind  # noqa: E402

HEAPSCOPE = valgrind.wrap(sys.argv.pop(1))  # under memcheck in tests/run's valgrind run
MAN = sys.argv.pop(1)
BLOCKS = {"commands": "COMMANDS", "options": "OPTIONS", "filters": "FILTERS"}
# A well-formed value for each kind of option value, to test where it applies.
SAMPLES = {"MS": "1000", "N": "1", "KIND": "type", "REGEX": "x", "NAME": "x", "0xA": "0x10",
           "0xP": "0x10", "TYPE": "THUNK", "RANGE": "1", "ID": "1", "SIZE": "1G",
           "TEXT": "x", "A[,B]": "type,era", "COLUMN": "count", "KIND=KEY": "type=THUNK"}
MISSING_SOCKET = "/nonexistent/heapscope-doc-test.sock"


def run(*args):
    return subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def generated(kind):
    r = run("--%s=man" % kind)
    if r.returncode != 0 or not r.stdout:
        raise AssertionError("heapscope --%s=man failed (%d): %s" % (kind, r.returncode, r.stderr))
    return r.stdout


def listing(kind):
    """The tab-separated rows of `heapscope --commands` or `--options`."""
    r = run("--" + kind)
    if r.returncode != 0:
        raise AssertionError("heapscope --%s failed: %s" % (kind, r.stderr))
    return [line.split("\t") for line in r.stdout.splitlines()]


class CliDoc(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(MAN) as f:
            cls.roff = f.read()
        cls.commands = {row[0]: row for row in listing("commands")}
        cls.options = []
        for name, arg, where, kind, help_text in listing("options"):
            long_name = name.split(", ")[-1]
            cls.options.append({"name": long_name, "short": name.split(", ")[0] if ", " in name
                                else None, "arg": None if arg == "-" else arg,
                                "where": [] if where == "-" else where.split(), "kind": kind,
                                "help": help_text})
        cls.help = run("--help").stdout
        cls.help_words = " ".join(cls.help.split())  # --help wraps its text

    def test_tables_are_not_empty(self):
        self.assertEqual(set(self.commands),
                         {"info", "roots", "show", "census", "thunks", "retainers", "find", "cache",
                          "snapshot", "strings", "dump", "dominators", "diff", "leaks"})
        names = [o["name"] for o in self.options]
        for wanted in ("--json", "--timeout", "--depth", "--limit", "--constructor",
                       "--not-era", "--theme", "--keys", "--help", "--version"):
            self.assertIn(wanted, names)

    def test_man_sections_are_generated_from_the_tables(self):
        for kind, name in BLOCKS.items():
            self.assertIn(generated(kind), section(self.roff, name),
                          "the %s section differs from `heapscope --%s=man`; regenerate it: "
                          "python3 tests/integration/test_cli_doc.py HEAPSCOPE man/heapscope.1 "
                          "--write" % (name, kind))

    def test_every_command_is_in_help_and_man(self):
        man = unroff(section(self.roff, "COMMANDS"))
        for name, args, summary in self.commands.values():
            self.assertIn("%s %s" % (name, args), self.help)
            self.assertIn(summary, self.help_words)
            self.assertRegex(man, r"(?m)^\.BI \"%s \"" % re.escape(name))

    def test_every_option_is_in_help_and_man_and_hidden_ones_are_not(self):
        man = unroff(section(self.roff, "OPTIONS") + section(self.roff, "FILTERS"))
        help_words = set(re.findall(r"--[\w-]+", self.help))
        for o in self.options:
            base = re.sub(r"^--not-", "--", o["name"])
            if o["kind"] == "hidden":
                self.assertNotIn(o["name"], help_words)
                self.assertNotIn(o["name"], man)
                continue
            self.assertIn(base, help_words)
            self.assertIn(base, man)
            if o["short"]:
                self.assertIn(o["short"] + ", " + o["name"], self.help)
                self.assertIn(o["short"] + ", " + o["name"], man)

    def test_keys_option_is_documented(self):
        """issue 9: --keys was in --help but not in the man page."""
        self.assertIn("--keys", unroff(section(self.roff, "OPTIONS")))

    def test_options_apply_exactly_where_the_table_says(self):
        problems = []
        # under memcheck: the first run of each command (one parser, table-driven)
        os.environ[valgrind.BY_COMMAND] = "1"
        self.addCleanup(os.environ.pop, valgrind.BY_COMMAND)
        for o in self.options:
            if not o["where"]:
                continue  # --help and its kind act wherever they are given
            value = [] if o["arg"] is None else [SAMPLES.get(o["arg"], "1")]
            for command in ["explorer", *self.commands]:
                if command == "explorer":
                    if o["name"] == "--demo":
                        continue  # it would start the demo; test_cli.py runs it
                    args = [o["name"], *value]
                else:
                    operands = [MISSING_SOCKET] + (["0x10"] if command in ("show", "dump") else
                                                   [MISSING_SOCKET] if command == "diff" else [])
                    args = [command, *operands, o["name"], *value]
                r = run(*args)
                refused = "does not apply" in r.stderr or "takes no target" in r.stderr
                if command in o["where"] and (refused or "wants" in r.stderr):
                    problems.append("%s refused: %s" % (" ".join(args), r.stderr.strip()))
                if command not in o["where"] and (r.returncode != 2 or not refused):
                    problems.append("%s accepted (%d): %s" % (" ".join(args), r.returncode,
                                                              r.stderr.strip()))
        self.assertEqual(problems, [])

    def test_short_options_are_the_long_ones(self):
        self.assertEqual(run("-h").stdout, self.help)
        self.assertEqual(run("-V").stdout, run("--version").stdout)


def write_generated():
    with open(MAN) as f:
        roff = f.read()
    for kind in BLOCKS:
        roff = replace_generated(roff, kind, generated(kind))
    with open(MAN, "w") as f:
        f.write(roff)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_generated()
    else:
        unittest.main(verbosity=2)
