"""The CLI integration tests under valgrind memcheck (tests/run does it with
`meson test --setup valgrind`, which sets HEAPSCOPE_VALGRIND=1).

wrap(binary) returns the binary itself, or under HEAPSCOPE_VALGRIND=1 the
path of a script that execs it under memcheck: a test launches it as it
would the binary (same pid, so signals reach heapscope; same stdout and
stderr, since memcheck writes to a log file per process). When the test
file's process exits, every log is read: any error or definitely lost block
prints the log and makes the test fail, and so does a test file that never
started heapscope (it would prove nothing).

Most of memcheck's cost is the number of heapscope processes, and a test
file runs the same command many times over with other values (eras, seeds,
addresses, sockets, patterns): the script runs memcheck on the first
PER_SHAPE run(s) of each command shape (argv with digits, hex addresses,
directories and option values other than choices taken out, see shape())
and the binary itself on the rest, so every assertion still runs and every
command and option form is still checked. The files in
EVERY_RUN feed different hostile bytes through the same command: there every
run is under memcheck."""
import atexit
import glob
import os
import re
import shlex
import shutil
import sys
import tempfile

ENABLED = os.environ.get("HEAPSCOPE_VALGRIND") == "1"
# Errors and definite leaks exit with this status too (a test that checks
# the status fails at once); the log check catches the rest.
ERROR_EXIT = 97
BAD = re.compile(r"ERROR SUMMARY: [1-9]|definitely lost: [1-9]")


def scaled(normal, under_valgrind):
    """How many times to repeat something, or how large a heap to make:
    memcheck runs heapscope some 30 times slower, and a start costs it 0.3 s
    of CPU; a loop of 300 commands or a heap of 100 000 closures finds no
    memory error that 10 commands or 3000 closures miss."""
    return under_valgrind if ENABLED else normal


def smaller_heap(args, closures=5000):
    """Debuggee options with --closures cut to `closures` under valgrind
    (the planted structures and the plan stay as asked)."""
    args = list(args)
    if ENABLED and "--closures" in args:
        i = args.index("--closures") + 1
        args[i] = str(min(int(args[i]), closures))
    return tuple(args)


PER_SHAPE = 1
BY_COMMAND = "HEAPSCOPE_VALGRIND_BY_COMMAND"  # set (to 1): shape() is the command word
EVERY_RUN = {"test_hostile_cli.py", "test_hostile_heap_cli.py", "test_hostile_wire_cli.py",
             "test_faults_cli.py"}


def shape(argv):
    """What two runs of one command form have in common: each argument with
    its directory, hex addresses and digit runs taken out, and an option's
    value taken out unless it is a lowercase word (a choice, such as
    `--by source`, picks other code; a pattern, a name or a range feeds
    other bytes to the same code). Under BY_COMMAND (a test that feeds
    every option to the parser): the command word alone."""
    if os.environ.get(BY_COMMAND):
        return argv[0] if argv else ""
    words = []
    option = False  # the word before was an option that may take a value
    for a in argv:
        if "/" in a:
            a = os.path.basename(a)
        elif option and not a.startswith("-") and not re.fullmatch(r"[a-z][a-z_-]*", a):
            a = "VALUE"
        words.append(re.sub(r"\d+", "9", re.sub(r"0x[0-9a-fA-F]+", "0x", a)))
        option = a.startswith("--") and "=" not in a
    return "\0".join(words)


# The script: memcheck for the first PER_SHAPE runs of a shape (a file per
# run slot, created exclusively: parallel runs cannot both take one), the
# binary itself for the rest (listed in native.list for the summary).
SCRIPT = """import hashlib, os, sys
sys.path.insert(0, %(common)r)
import valgrind
logs, binary, command, per_shape = %(logs)r, %(binary)r, %(command)r, %(per_shape)d
key = hashlib.sha1(valgrind.shape(sys.argv[1:]).encode(errors="surrogateescape")).hexdigest()
for slot in range(per_shape):
    try:
        os.close(os.open(os.path.join(logs, "shape.%%s.%%d" %% (key, slot)),
                         os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        continue
    os.execvp(command[0], command + sys.argv[1:])
with open(os.path.join(logs, "native.list"), "a", errors="surrogateescape") as f:
    f.write(" ".join(sys.argv[1:]) + chr(10))
os.execv(binary, [binary] + sys.argv[1:])
"""


def wrap(binary):
    if not ENABLED:
        return binary
    logs = tempfile.mkdtemp(prefix="hs-valgrind-")
    script = os.path.join(logs, "heapscope")
    command = ["valgrind", "--tool=memcheck", "--error-exitcode=%d" % ERROR_EXIT,
               "--leak-check=full", "--show-leak-kinds=definite",
               "--errors-for-leak-kinds=definite", "--track-origins=no", "--num-callers=12",
               "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                "valgrind.supp"),
               "--log-file=" + os.path.join(logs, "vg.%p.log"), os.path.abspath(binary)]
    if os.path.basename(sys.argv[0]) in EVERY_RUN:
        body = "#!/bin/sh\nexec %s \"$@\"\n" % " ".join(shlex.quote(w) for w in command)
    else:
        body = "#!%s -S\n" % sys.executable + SCRIPT % {
            "common": os.path.dirname(os.path.abspath(__file__)), "logs": logs,
            "binary": os.path.abspath(binary), "command": command, "per_shape": PER_SHAPE}
    with open(script, "w") as f:
        f.write(body)
    os.chmod(script, 0o755)
    atexit.register(check, logs)
    return script


def check(logs):
    """At exit: fails the process (status 1) if a log shows an error, or if
    there is no log at all."""
    found = sorted(glob.glob(os.path.join(logs, "vg.*.log")))
    bad = []
    for path in found:
        with open(path, errors="replace") as f:
            text = f.read()
        if BAD.search(text):
            bad.append(text)
    for text in bad:
        sys.stderr.write("---- valgrind ----\n" + text)
    if not found:
        sys.stderr.write("valgrind: this test file never started heapscope under valgrind\n")
    native = 0
    if os.path.exists(os.path.join(logs, "native.list")):
        with open(os.path.join(logs, "native.list"), "rb") as f:
            native = f.read().count(b"\n")
    sys.stderr.write("valgrind: %d heapscope runs under memcheck, %d more of the same shapes "
                     "without it\n" % (len(found), native))
    shutil.rmtree(logs)
    if bad or not found:
        sys.stderr.write("valgrind: %d of %d heapscope runs had memory errors or leaks\n"
                         % (len(bad), len(found)))
        sys.stderr.flush()
        os._exit(1)
