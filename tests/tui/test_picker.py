"""The socket picker (issue 6, part 1): debuggees newest first with their
start time, sockets that come and go, snapshots on Tab, connecting, dead
sockets, and the ways to skip the picker."""
import os
import socket
import time

import harness
from harness import TuiCase


def set_mtime(path, seconds):
    os.utime(path, (seconds, seconds))


def c_time(seconds):
    """What "%c" gives in the C locale, TZ=UTC (wire-protocol.md §3.5)."""
    return time.strftime("%a %b %e %H:%M:%S %Y", time.gmtime(seconds))


def stale_socket(path):
    """A socket file with nothing listening: a debuggee that died."""
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.close()


class Picker(TuiCase):
    def test_lists_debuggees_newest_first_and_follows_new_ones(self):
        first = self.debuggee("1111-first")
        started = int(time.time()) - 3600
        set_mtime(first.socket, started)
        t = self.tui()
        s = t.wait_text("1111-first", what="the running debuggee in the picker")
        line = s.lines[s.row_with("1111-first")]
        self.assertIn(c_time(started), line, "the start time, C-locale %c")

        second = self.debuggee("2222-second")
        s = t.wait_text("2222-second", timeout=2.5, what="a socket that appeared later (within ~2 s)")
        self.assertLess(s.row_with("2222-second"), s.row_with("1111-first"), "newest first")

        second.stop()
        if os.path.exists(second.socket):
            os.unlink(second.socket)
        t.wait_gone("2222-second", timeout=2.5, what="a socket that went away to leave the list")
        self.assertTrue(t.running())

    def test_tab_shows_snapshots_and_back(self):
        self.debuggee("1111-first")
        for name, when in (("monday.snapshot", 1000000), ("tuesday.snapshot", 2000000)):
            path = os.path.join(self.home.snapshots, name)
            with open(path, "w") as f:
                f.write("not a snapshot at all")
            set_mtime(path, when)
        t = self.tui()
        t.wait_text("1111-first")
        t.keys("Tab")
        s = t.wait(lambda s: s.has("monday.snapshot") and not s.has("1111-first"),
                   "the snapshot list after Tab")
        self.assertLess(s.row_with("tuesday.snapshot"), s.row_with("monday.snapshot"), "newest first")
        self.assertIn("not a snapshot", s.lines[s.row_with("tuesday.snapshot")],
                      "a file that is no snapshot says so")

        t.select("tuesday.snapshot")
        before = t.screen()
        t.keys("Enter")
        t.wait_new_line(r"tuesday\.snapshot: not a snapshot", before,
                        what="a message that the file cannot be opened")
        self.assertTrue(t.screen().has("monday.snapshot"), "the picker stays")
        self.assertTrue(t.running())

        t.keys("Tab")
        t.wait(lambda s: s.has("1111-first") and not s.has("monday.snapshot"),
               "the debuggee list after a second Tab")

    def test_enter_connects(self):
        self.debuggee("1111-first")
        t = self.tui()
        t.wait_text("1111-first")
        t.select("1111-first")
        t.keys("Enter")
        s = t.wait_regex(r"(?i)running", what="the running screen after Enter")
        self.assertRegex(s.text, r"(?i)\bp\b[^\n]*pause|pause[^\n]*\bp\b", "says that p pauses")

    def test_dead_socket_gives_a_message_and_the_picker_stays(self):
        live = self.debuggee("1111-live")
        set_mtime(live.socket, time.time() - 60)
        stale_socket(os.path.join(self.home.sockets, "9999-dead"))
        t = self.tui()
        t.wait(lambda s: s.has("9999-dead") and s.has("1111-live"), "both sockets listed")
        t.select("9999-dead")
        before = t.screen()
        t.keys("Enter")
        t.wait_new_line(r"(?i)refused|cannot connect|could not connect|not running|exited",
                        before, what="a message about the dead socket")
        s = t.screen()
        self.assertTrue(s.has("1111-live") and s.has("9999-dead"), "the picker stays:\n" + s.dump())
        self.assertTrue(t.running())
        t.select("1111-live")
        t.keys("Enter")
        t.wait_regex(r"(?i)running", what="connecting to the live one afterwards")

    def test_links_to_sockets_are_debuggees_and_other_files_are_not(self):
        # issue 9, item 9: a symbolic link to a socket is followed, as
        # connect does; a program's log in the directory is no debuggee
        d = self.debuggee("real")
        real = os.path.join(self.home.root, "real.sock")
        os.rename(d.socket, real)  # the bound socket answers at its new name
        os.symlink(real, os.path.join(self.home.sockets, "3333-linked"))
        with open(os.path.join(self.home.sockets, "3333-app.log"), "w") as f:
            f.write("a log, not a socket\n")
        t = self.tui()
        s = t.wait_text("3333-linked", what="the link to a socket in the picker")
        self.assertNotIn("not a socket", s.text, s.dump())
        self.assertNotIn("3333-app.log", s.text, "a plain file listed as a debuggee:\n" + s.dump())
        self.assertIn("Debuggees (1)", s.text)
        t.select("3333-linked")
        t.keys("Enter")
        t.wait_regex(r"(?i)running", what="connecting through the link")

    def test_empty_directory_says_where_sockets_appear(self):
        t = self.tui()
        t.wait_text(self.home.sockets, what="the socket directory named on an empty list")
        self.assertTrue(t.running())
        self.debuggee("5555-late")
        t.wait_text("5555-late", timeout=2.5, what="the first socket to appear")

    def test_target_argument_skips_the_picker(self):
        d = self.debuggee("1111-first")
        t = self.tui(d.socket)
        t.wait_regex(r"(?i)running", what="the running screen without the picker")
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60)

    def test_ghc_debug_socket_skips_the_picker(self):
        d = self.debuggee("1111-first")
        t = self.tui(env={"GHC_DEBUG_SOCKET": d.socket})
        t.wait_regex(r"(?i)running", what="the running screen with GHC_DEBUG_SOCKET set")
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60)


if __name__ == "__main__":
    harness.main()
