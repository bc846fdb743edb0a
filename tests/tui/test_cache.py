"""The explorer records every pause it reads into the cache, beside the UI
(see CACHE in the man page): the recording shows in the title bar, keys
work while it runs, resuming and quitting wait for it with its progress in
the footer, and Esc abandons it, leaving no file."""
import json
import os
import subprocess
import sys
import threading
import time

import harness
from harness import HEAPSCOPE, TuiCase

sys.path.insert(0, os.path.join(harness.SOURCE_ROOT, "tests", "common"))
import hostile_stub as hs  # noqa: E402

# big enough that recording it takes a few seconds
BIG_ARGS = ("--closures", "3000000", "--seed", "11")


class FunBitmapGate:
    """A hostile-stub rule that holds each FUN_BITMAP request until the
    test lets it through (one at a time, or all once opened). The stub
    serves one request at a time, so at most one is held."""

    def __init__(self):
        self.cond = threading.Condition()
        self.arrived = self.gone = 0
        self.passes = 0
        self.since = 0.0
        self.is_open = False

    def rule(self, req):
        if req.cmd != hs.FUN_BITMAP:
            return None
        with self.cond:
            self.arrived += 1
            self.since = time.monotonic()
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.is_open or self.passes > 0, timeout=120)
            self.passes = max(0, self.passes - 1)
            self.gone += 1
        return None

    def wait_held(self, n, what, timeout=60):
        """Until the n-th request is the one held."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.arrived >= n and self.gone < n, timeout):
                raise AssertionError("waited %gs for %s (%d arrived, %d let through)"
                                     % (timeout, what, self.arrived, self.gone))

    def let_one_through(self):
        # held longer than the explorer's slice of answering (20 ms), so
        # that it reads the keys typed meanwhile before answering more
        time.sleep(max(0.0, self.since + 0.2 - time.monotonic()))
        with self.cond:
            self.passes += 1
            self.cond.notify_all()

    def open(self):
        with self.cond:
            self.is_open = True
            self.cond.notify_all()


class Recording(TuiCase):
    def cache_dir(self):
        return os.path.join(self.home.home, ".cache", "heapscope")

    def pauses(self):
        env = dict(os.environ, HOME=self.home.home)
        env.pop("XDG_CACHE_HOME", None)  # the explorer's pinned environment has none
        r = subprocess.run([HEAPSCOPE, "cache", "list", "--json"], capture_output=True,
                           text=True, timeout=60, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["pauses"]

    def pause_files(self):
        d = os.path.join(self.cache_dir(), "pauses")
        return sorted(os.listdir(d)) if os.path.isdir(d) else []

    def wait_recorded(self, n, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            p = self.pauses()
            if len(p) >= n:
                return p
            time.sleep(0.1)
        raise AssertionError("%d pauses recorded, not %d" % (len(self.pauses()), n))

    def quit_running_with_nothing_recorded(self, t, d):
        """Once the debuggee runs again: q exits 0 and no pause of it, nor
        a part of one, is in the cache."""
        t.wait_regex(r"(?i)running", timeout=30, what="the running screen")
        t.keys("q")
        status, _ = t.wait_exit(timeout=30)
        self.assertEqual(status, 0)
        self.assertFalse(d.is_paused(), "the debuggee was resumed")
        self.assertEqual(self.pauses(), [])
        self.assertEqual(self.pause_files(), [], "no snapshot or temporary file left")

    def test_every_pause_is_recorded(self):
        d = self.debuggee()
        t = self.paused(d)
        first = self.wait_recorded(1)
        self.assertEqual(first[0]["closures"], d.plan["reachable"]["count"])
        self.assertEqual(first[0]["target"], d.socket)
        t.wait_gone(" recording", what="the title without the recording")
        t.keys("r")
        t.wait_regex(r"(?i)resumed", what="resumed")
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the second pause")
        pauses = self.wait_recorded(2)
        self.assertGreaterEqual(pauses[0]["paused_at"], pauses[1]["paused_at"])
        t.keys("q")
        t.keys("y")
        status, _ = t.wait_exit(timeout=60)
        self.assertEqual(status, 0)
        # the recorded pause opens like any snapshot and has the live census
        r = subprocess.run([HEAPSCOPE, "census", pauses[0]["file"], "--json"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["total_count"], d.plan["reachable"]["count"])

    def test_keys_work_while_a_pause_is_recorded(self):
        d = self.debuggee(args=BIG_ARGS)
        t = self.connected(d)
        t.keys("p")
        t.wait_regex(r"Saved Object", timeout=120, what="the roots tree")
        t.keys("?")
        # the help overlay comes up while the title still says "recording"
        deadline = time.monotonic() + 10
        seen = None
        while time.monotonic() < deadline and seen is None:
            s = t.screen()
            if s.lines and "recording" not in s.lines[0]:
                break
            if any("Help" in l or "help" in l for l in s.lines[1:]) and \
                    s.search(r"(?i)\bkeys?\b"):
                seen = s
            time.sleep(0.02)
        self.assertIsNotNone(seen, "the help overlay did not show while recording:\n%s"
                             % t.screen().dump())
        self.assertIn("recording", seen.lines[0])
        t.keys("Escape")
        self.wait_recorded(1, timeout=120)

    def test_quit_waits_for_the_recording(self):
        d = self.debuggee(args=BIG_ARGS)
        t = self.connected(d)
        t.keys("p")
        t.wait_regex(r"Saved Object", timeout=120, what="the roots tree")
        t.keys("q")
        t.wait_regex(r"(?i)resume", what="the quit question")
        t.keys("n")  # leave it paused: quitting waits for the recording
        status, _ = t.wait_exit(timeout=120)
        self.assertEqual(status, 0)
        self.assertEqual(len(self.pauses()), 1)
        self.assert_restored(t)

    def test_esc_abandons_the_recording_and_leaves_no_file(self):
        # The recording must still be running when Esc arrives, however fast
        # the machine: a stub between heapscope and the debuggee holds the
        # recording's FUN_BITMAP requests (only the recording asks for them
        # here; the explorer's thread answers them between keypresses, so
        # while one is held the explorer waits and keys queue up).
        d = self.debuggee(args=BIG_ARGS)
        gate = FunBitmapGate()
        with hs.HostileStub(d.socket, gate.rule) as stub:
            t = self.tui(stub.socket)
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_regex(r"Saved Object", timeout=120, what="the roots tree")
            gate.wait_held(1, what="the recording's first FUN_BITMAP")
            t.keys("r")  # resuming waits for the recording...
            gate.let_one_through()
            t.wait_regex(r"recording the pause", timeout=30, what="the recording's progress")
            gate.wait_held(2, what="the recording's next FUN_BITMAP, during the resume")
            t.keys("Escape")  # ...which Esc abandons, before the recording can end
            gate.open()
            t.wait_regex(r"(?i)abandoned|resumed", timeout=30, what="the resume after Esc")
            self.quit_running_with_nothing_recorded(t, d)

    def test_a_request_left_unanswered_gives_way_to_a_key(self):
        """The debuggee never answers one of the recording's requests while
        the explorer is idle: a key typed then gives the recording up; the
        request's answer is still awaited (a stub left writing to a closed
        connection dies) until --timeout, short here, and only then is the
        connection closed and connected again; the footer says why the
        recording was given up, and the pause goes on as before."""
        d = self.debuggee(args=BIG_ARGS)
        held = []

        def rule(req):  # the recording's first FUN_BITMAP, never answered
            if req.cmd == hs.FUN_BITMAP and not held:
                held.append(time.monotonic())
                return hs.SILENT
            return None

        with hs.HostileStub(d.socket, rule) as stub:
            t = self.tui("--timeout", "3000", stub.socket)
            t.wait_regex(r"(?i)running", what="the running screen")
            t.keys("p")
            t.wait_regex(r"Saved Object", timeout=120, what="the roots tree")
            deadline = time.monotonic() + 60
            while not held and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertTrue(held, "the recording asked for no FUN_BITMAP")
            typed = time.monotonic()
            t.keys("?")
            t.wait_text("Keys (Esc closes", timeout=20, what="the help overlay")
            self.assertLess(time.monotonic() - typed, 15, "the key waited past --timeout")
            t.keys("Escape")
            t.wait_regex(r"gave up recording this pause: the debuggee left FUN_BITMAP "
                         r"unanswered for [0-9.]+ s", timeout=20, what="why, in the footer")
            t.keys("r")
            self.quit_running_with_nothing_recorded(t, d)

    def test_no_cache_records_nothing(self):
        d = self.debuggee()
        t = self.paused(d, "--no-cache")
        t.keys("q")
        t.keys("y")
        status, _ = t.wait_exit(timeout=30)
        self.assertEqual(status, 0)
        self.assertFalse(os.path.exists(self.cache_dir()))


if __name__ == "__main__":
    harness.main()
