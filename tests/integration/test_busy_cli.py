"""A debuggee that another client holds (issue 9, item 8; issue 19): the
stub serves one client at a time, so heapscope's connection waits in the
kernel's queue. Every command says within seconds that another debugger is
connected (and which process), instead of waiting out --timeout and saying
"no answer", and writes nothing into the queued connection: the debuggee
runs --fragile (it dies, as the official stub aborts, when it answers a
request whose client left), and must serve the next client once the
holder leaves. Run by meson test, also under ASan/UBSan by tests/run."""
import os
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import HEAPSCOPE, Debuggee, raw_status  # noqa: E402

SMALL = ("--closures", "3000", "--seed", "3", "--fragile")
ROOTS, NOT_PAUSED = 4, 0x0102
BUSY = "is busy: another debugger is connected to it"


class Busy(unittest.TestCase):
    def run_held(self, d, *args):
        """Runs heapscope with args while another client holds d; returns
        (result, seconds)."""
        with socket.socket(socket.AF_UNIX) as holder:
            holder.connect(d.socket)  # served first: heapscope queues behind it
            t0 = time.monotonic()
            r = subprocess.run([HEAPSCOPE, *args], capture_output=True, text=True, timeout=60)
            return r, time.monotonic() - t0

    def test_every_command_says_so_quickly(self):
        for command in ("info", "roots", "census", "find"):
            with self.subTest(command), Debuggee(*SMALL) as d:
                r, took = self.run_held(d, command, d.socket, "--timeout", "60000")
                # the holder left: the debuggee now accepts heapscope's
                # connection, which must hold no request
                status = None
                try:
                    status = raw_status(d.socket, ROOTS)
                except (OSError, EOFError):
                    pass
                d.proc.poll()
                self.assertIsNone(d.proc.returncode, "the debuggee died of a request left in "
                                  "heapscope's queued connection: " + d.proc.stderr.read()
                                  if d.proc.returncode is not None else "")
                self.assertEqual(status, NOT_PAUSED, "nothing was paused")
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(BUSY, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertLess(took, 10, "waited out the 60 s timeout")
                self.assertIn("(process %d, python3)" % os.getpid(), r.stderr, "who holds it")
                self.assertIn("nothing was sent", r.stderr)
                r = subprocess.run([HEAPSCOPE, command, d.socket], capture_output=True,
                                   text=True, timeout=60)
                self.assertEqual(r.returncode, 0, "served once the other client left: " + r.stderr)

    def test_a_full_connection_queue_says_so_too(self):
        """Behind the holder, one connection fills the stub's backlog of 1:
        the next one cannot even connect."""
        with Debuggee(*SMALL) as d:
            with socket.socket(socket.AF_UNIX) as queued:
                with socket.socket(socket.AF_UNIX) as holder:
                    holder.connect(d.socket)
                    time.sleep(0.2)  # accepted
                    queued.connect(d.socket)
                    r = subprocess.run([HEAPSCOPE, "census", d.socket], capture_output=True,
                                       text=True, timeout=60)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(BUSY, r.stderr)
            self.assertEqual(raw_status(d.socket, ROOTS), NOT_PAUSED)
            self.assertIsNone(d.proc.poll(), "the debuggee lives on")

    def test_a_short_timeout_is_not_lengthened(self):
        with Debuggee(*SMALL) as d:
            r, _ = self.run_held(d, "info", d.socket, "--timeout", "300")
            self.assertEqual(r.returncode, 1)
            self.assertIn("within 300 ms", r.stderr)


if __name__ == "__main__":
    unittest.main()
