"""The explorer records every pause it reads into the cache, beside the UI
(see CACHE in the man page): the recording shows in the title bar, keys
work while it runs, resuming and quitting wait for it with its progress in
the footer, and Esc abandons it, leaving no file."""
import json
import os
import subprocess
import time

import harness
from harness import HEAPSCOPE, TuiCase

# big enough that recording it takes a few seconds
BIG_ARGS = ("--closures", "3000000", "--seed", "11")


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
        d = self.debuggee(args=BIG_ARGS)
        t = self.connected(d)
        t.keys("p")
        t.wait_regex(r"Saved Object", timeout=120, what="the roots tree")
        t.keys("r")  # resuming waits for the recording...
        t.wait_regex(r"recording the pause", timeout=10, what="the recording's progress")
        t.keys("Escape")  # ...which Esc abandons
        t.wait_regex(r"(?i)abandoned|resumed", timeout=30, what="the resume after Esc")
        t.wait_regex(r"(?i)running", timeout=30, what="the running screen")
        t.keys("q")
        status, _ = t.wait_exit(timeout=30)
        self.assertEqual(status, 0)
        self.assertFalse(d.is_paused(), "the debuggee was resumed")
        self.assertEqual(self.pauses(), [])
        self.assertEqual(self.pause_files(), [], "no snapshot or temporary file left")

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
