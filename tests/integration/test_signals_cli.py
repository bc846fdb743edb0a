"""Quit signals during a batch command (issue 9): SIGINT, SIGTERM and SIGHUP
stop the command, resume a debuggee heapscope paused, and exit with 128 + N
and one line. A request in flight is never abandoned (issue 19): its answer
is awaited (a stub left writing to a closed connection dies); only a
debuggee silent for --timeout is left, saying so, and resumed over a new
connection. Each test then asks the debuggee on a fresh connection whether
it runs. Run by meson test, also under ASan/UBSan by tests/run."""
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, raw_status  # noqa: E402
import valgrind  # noqa: E402  (tests/common, on the path test_cli set)

SMALL = ("--closures", "3000", "--seed", "3")
PAUSE, RESUME, ROOTS = 2, 3, 4
OKAY, ALREADY_PAUSED, NOT_PAUSED = 0, 0x0101, 0x0102
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Under memcheck heapscope takes seconds to reach its first request, and
# its exit (the leak check) one more: waits and bounds grow.
START = valgrind.scaled(0, 4)
QUICK = valgrind.scaled(5, 20)
DELAY = str(valgrind.scaled(40, 100))  # ms before each answer: the census lasts 8 s or more
# --timeout where a request is never answered: how long a cancel awaits it
# (its "finishing the answer" line comes after a second of that)
SILENT_MS = valgrind.scaled(3000, 4500)  # (below the 5 s cap of the final RESUME)


def pause(socket_path):
    """PAUSE(0) on a connection of its own; returns the final status."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(socket_path)
        s.sendall(struct.pack(">IIB", 5, PAUSE, 0))
        return struct.unpack(">IH", s.recv(6))[1]


def is_paused(socket_path):
    status = raw_status(socket_path, ROOTS)
    if status not in (OKAY, NOT_PAUSED):
        raise AssertionError("ROOTS answered 0x%04x" % status)
    return status == OKAY


class Interrupted(unittest.TestCase):
    def start(self, d, *args, timeout="60000"):
        p = subprocess.Popen([HEAPSCOPE, *args, d.socket, "--timeout", timeout],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.reap, p)
        return p

    @staticmethod
    def reap(p):
        if p.poll() is None:
            p.kill()
        p.communicate()

    def interrupt(self, proc, sig, after, start=START):
        """Sends sig after `after` seconds (and the start of memcheck);
        returns (status, stdout, stderr, seconds from the signal to the exit)."""
        time.sleep(after + start)
        self.assertIsNone(proc.poll(), "heapscope finished before the signal")
        proc.send_signal(sig)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=30)
        return proc.returncode, out, err, time.monotonic() - sent

    def interrupt_in(self, d, proc, sig, command):
        """Sends sig once the debuggee got `command` (which it leaves
        unanswered); returns what interrupt does."""
        d.wait_request(command)
        self.assertIsNone(proc.poll(), "heapscope finished before the signal")
        proc.send_signal(sig)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=60)
        return proc.returncode, out, err, time.monotonic() - sent

    def assert_one_line(self, err, sig, what):
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertEqual(lines[0], "heapscope: interrupted by %s: %s" % (sig.name, what))

    def assert_left_after_the_timeout(self, err, command):
        """The answer in flight was awaited, said so, and left after
        --timeout (SILENT_MS) with the risk named."""
        self.assertIn("heapscope: finishing the answer in flight to %s" % command, err)
        self.assertIn("%s: no answer from" % command, err)
        self.assertIn("for %d ms (finishing a cancelled answer); closing the connection may kill "
                      "the program" % SILENT_MS, err)

    def test_during_a_silent_wait_the_answer_is_awaited_until_the_timeout(self):
        """The PAUSE is carried out but never answered: the signal waits
        for its answer up to --timeout (a real stub would still write it),
        then leaves it, and the RESUME needs a connection of its own."""
        for sig in SIGNALS:
            with self.subTest(sig.name), Debuggee(*SMALL, "--silent-on", "PAUSE", log=True) as d:
                started = time.monotonic()
                p = self.start(d, "census", timeout=str(SILENT_MS))
                status, out, err, took = self.interrupt_in(d, p, sig, "PAUSE")
                ran = time.monotonic() - started
                self.assertEqual(status, 128 + sig, err)
                self.assertEqual(out, "")
                self.assert_left_after_the_timeout(err, "PAUSE")
                self.assertEqual(err.strip().splitlines()[-1],
                                 "heapscope: interrupted by %s: the debuggee was resumed"
                                 % sig.name)
                # the PAUSE went out after the start: its silence was awaited
                # in full (not measured from the signal, which a loaded
                # machine may send late)
                self.assertGreaterEqual(ran, SILENT_MS / 1000, "the answer was awaited")
                self.assertLess(took, SILENT_MS / 1000 + QUICK)
                self.assertFalse(is_paused(d.socket), "the debuggee was left paused")

    def test_during_long_work_the_debuggee_is_resumed(self):
        """A slow debuggee: the census makes many requests that are answered;
        the signal stops it in the middle."""
        for sig in SIGNALS:
            with self.subTest(sig.name), Debuggee(*SMALL, "--answer-delay", DELAY) as d:
                p = self.start(d, "census")
                status, out, err, took = self.interrupt(p, sig, 1.5)
                self.assertEqual(status, 128 + sig, err)
                self.assertEqual(out, "", "the census finished after all")
                self.assert_one_line(err, sig, "the debuggee was resumed")
                self.assertLess(took, QUICK)
                self.assertFalse(is_paused(d.socket), "the debuggee was left paused")

    def test_a_debuggee_found_paused_is_left_paused(self):
        with Debuggee(*SMALL, "--answer-delay", DELAY) as d:
            self.assertEqual(pause(d.socket), OKAY)
            p = self.start(d, "census")
            status, out, err, _ = self.interrupt(p, signal.SIGINT, 1.5)
            self.assertEqual(status, 130, err)
            self.assertEqual(err.strip().splitlines()[-1],
                             "heapscope: interrupted by SIGINT: the debuggee is left paused, "
                             "as it was found")
            self.assertTrue(is_paused(d.socket), "heapscope resumed a pause that was not its own")

    def test_leave_paused_is_honoured(self):
        with Debuggee(*SMALL, "--silent-on", "PAUSE", log=True) as d:
            p = self.start(d, "census", "--leave-paused", timeout=str(SILENT_MS))
            status, _, err, _ = self.interrupt_in(d, p, signal.SIGTERM, "PAUSE")
            self.assertEqual(status, 128 + signal.SIGTERM, err)
            self.assert_left_after_the_timeout(err, "PAUSE")
            self.assertEqual(err.strip().splitlines()[-1], "heapscope: interrupted by SIGTERM: "
                             "the debuggee is left paused (--leave-paused)")
            self.assertTrue(is_paused(d.socket))

    def test_a_resume_that_is_not_answered_gives_up_and_says_so(self):
        with Debuggee(*SMALL, "--silent-on", "PAUSE", "--silent-on", "RESUME", log=True) as d:
            p = self.start(d, "census", timeout=str(SILENT_MS))
            status, _, err, took = self.interrupt_in(d, p, signal.SIGINT, "PAUSE")
            self.assertEqual(status, 130, err)
            self.assert_left_after_the_timeout(err, "PAUSE")
            self.assertRegex(err.strip().splitlines()[-1],
                             r"^heapscope: interrupted by SIGINT: the debuggee may be left paused: "
                             r"RESUME: no answer .* for %d ms; closing the connection may kill "
                             r"the program$" % SILENT_MS)
            self.assertLess(took, 2 * SILENT_MS / 1000 + QUICK, "the answer, then leaving")

    def test_a_second_signal_is_obeyed_at_once(self):
        with Debuggee(*SMALL, "--silent-on", "PAUSE", "--silent-on", "RESUME") as d:
            p = self.start(d, "census")
            time.sleep(1.0 + START)
            p.send_signal(signal.SIGINT)
            time.sleep(valgrind.scaled(0.5, 4))  # now waiting for the unanswered RESUME
            self.assertIsNone(p.poll())
            p.send_signal(signal.SIGINT)
            sent = time.monotonic()
            p.communicate(timeout=10)
            self.assertLess(time.monotonic() - sent, valgrind.scaled(2, 10))
            self.assertEqual(p.returncode, -signal.SIGINT, "killed by the second signal")

    def test_info_on_a_silent_debuggee(self):
        with Debuggee(*SMALL, "--silent-on", "VERSION") as d:
            p = self.start(d, "info", timeout=str(SILENT_MS))
            # the connection was accepted: VERSION is awaited up to --timeout
            status, out, err, took = self.interrupt(p, signal.SIGINT, 1.0,
                                                    start=valgrind.scaled(0, 1))
            self.assertEqual(status, 130, err)
            self.assert_left_after_the_timeout(err, "VERSION")
            self.assertEqual(err.strip().splitlines()[-1], "heapscope: interrupted by SIGINT")
            self.assertLess(took, SILENT_MS / 1000 + QUICK)


if __name__ == "__main__":
    unittest.main()
