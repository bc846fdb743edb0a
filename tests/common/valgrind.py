"""The CLI integration tests under valgrind memcheck (tests/run does it with
`meson test --setup valgrind`, which sets HEAPSCOPE_VALGRIND=1).

wrap(binary) returns the binary itself, or under HEAPSCOPE_VALGRIND=1 the
path of a script that execs it under memcheck: a test launches it as it
would the binary (same pid, so signals reach heapscope; same stdout and
stderr, since memcheck writes to a log file per process). When the test
file's process exits, every log is read: any error or definitely lost block
prints the log and makes the test fail, and so does a test file that never
started heapscope (it would prove nothing)."""
import atexit
import glob
import os
import re
import shlex
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


def wrap(binary):
    if not ENABLED:
        return binary
    logs = tempfile.mkdtemp(prefix="hs-valgrind-")
    script = os.path.join(logs, "heapscope")
    command = ["valgrind", "--tool=memcheck", "--error-exitcode=%d" % ERROR_EXIT,
               "--leak-check=full", "--show-leak-kinds=definite",
               "--errors-for-leak-kinds=definite", "--track-origins=no", "--num-callers=30",
               "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                "valgrind.supp"),
               "--log-file=" + os.path.join(logs, "vg.%p.log"), os.path.abspath(binary)]
    with open(script, "w") as f:
        f.write("#!/bin/sh\nexec %s \"$@\"\n" % " ".join(shlex.quote(w) for w in command))
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
    for path in found:
        os.unlink(path)
    os.unlink(os.path.join(logs, "heapscope"))
    os.rmdir(logs)
    if bad or not found:
        sys.stderr.write("valgrind: %d of %d heapscope runs had memory errors or leaks\n"
                         % (len(bad), len(found)))
        sys.stderr.flush()
        os._exit(1)
