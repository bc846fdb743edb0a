"""Drives the real heapscope in a tmux pane of fixed size (used by the
test_*.py files here; run by meson test, suite tui).

The pane's environment is pinned: TERM, LANG, TZ=UTC, and private HOME,
XDG_DATA_HOME and XDG_CONFIG_HOME directories, so what the picker lists and
which theme loads depend on the test alone. Keys go in with `tmux
send-keys`; the screen comes back with `tmux capture-pane -p -e` and is
parsed into cells with their colours. Every wait polls with a time-out;
no fixed sleep decides a result.

Usage: python3 test_x.py /path/to/heapscope   (HEAPSCOPE_DEBUGGEE in env)
"""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

if not shutil.which("tmux"):
    msg = "SKIP: tmux is not installed; the TUI tests drive heapscope in tmux (apt-get install tmux)"
    print(msg)
    print(msg, file=sys.stderr)
    sys.exit(77)

HEAPSCOPE = os.path.abspath(sys.argv.pop(1))
DEBUGGEE = os.environ["HEAPSCOPE_DEBUGGEE"]
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXIT_MARK = "HEAPSCOPE-EXIT:"
ADDRESS = re.compile(r"0x[0-9a-f]{6,16}")

# ---- themes ----------------------------------------------------------------


def theme_colours(name="default"):
    """{role: (fg, bg)} and the era palette of a shipped theme, read from its
    file so the tests follow the theme instead of repeating it."""
    names = {n: i for i, n in enumerate(
        "black red green yellow blue magenta cyan white".split())}
    names.update({"bright-" + n: i + 8 for n, i in list(names.items())})

    def colour(word):
        word = word.lower()
        if word == "default":
            return None
        return names[word] if word in names else int(word)

    roles, palette = {}, []
    with open(os.path.join(SOURCE_ROOT, "themes", name + ".theme")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, value = (s.strip() for s in line.split("=", 1))
            words = value.split()
            if key == "era-palette":
                palette = [colour(w) for w in words]
                continue
            fg = bg = None
            if words and words[0].lower() != "on" and words[0].lower() not in (
                    "bold", "underline", "reverse", "dim"):
                fg = colour(words[0])
            if "on" in words:
                bg = colour(words[words.index("on") + 1])
            roles[key] = (fg, bg)
    return roles, palette


DEFAULT_ROLES, DEFAULT_PALETTE = theme_colours()

# ---- the screen ------------------------------------------------------------


class Cell:
    __slots__ = ("ch", "fg", "bg", "bold", "reverse")

    def __init__(self, ch, fg, bg, bold, reverse):
        self.ch, self.fg, self.bg, self.bold, self.reverse = ch, fg, bg, bold, reverse


ACS = {"q": "─", "x": "│", "t": "├", "m": "└", "l": "┌", "k": "┐", "j": "┘", "u": "┤",
       "n": "┼", "w": "┬", "v": "┴"}


class Screen:
    """One capture: lines of text and, per line, cells with fg/bg (None =
    terminal default, else 0-255) and bold/reverse."""

    def __init__(self, raw):
        self.raw = raw
        self.cells = []
        fg = bg = None
        bold = reverse = acs = False
        for line in raw.split("\n"):
            row, i = [], 0
            while i < len(line):
                c = line[i]
                if c == "\x1b" and line[i + 1:i + 2] == "[":
                    end = i + 2
                    while end < len(line) and not line[end].isalpha():
                        end += 1
                    if line[end:end + 1] == "m":
                        fg, bg, bold, reverse = sgr(line[i + 2:end], fg, bg, bold, reverse)
                    i = end + 1
                elif c == "\x1b" and line[i + 1:i + 2] == "(":
                    acs = line[i + 2:i + 3] == "0"
                    i += 3
                elif c == "\x1b":
                    i += 2
                elif c in "\x0e\x0f":  # tmux marks line-drawing cells with SO/SI
                    acs = c == "\x0e"
                    i += 1
                else:
                    row.append(Cell(ACS.get(c, c) if acs else c, fg, bg, bold, reverse))
                    i += 1
            self.cells.append(row)
        if self.cells and not self.cells[-1]:
            self.cells.pop()  # the capture ends with a newline
        self.lines = ["".join(c.ch for c in row) for row in self.cells]
        self.text = "\n".join(self.lines)

    @property
    def footer(self):
        """The last line: progress, messages, key hints."""
        return self.lines[-1] if self.lines else ""

    def rows_with(self, text):
        return [i for i, line in enumerate(self.lines) if text in line]

    def row_with(self, text):
        rows = self.rows_with(text)
        return rows[0] if rows else None

    def search(self, pattern):
        return re.search(pattern, self.text, re.M)

    def has(self, text):
        return text in self.text

    def bgs(self, row, chars=None):
        """Background colours of a row's cells (only those whose char is in
        chars, when given)."""
        return {c.bg for c in self.cells[row] if chars is None or c.ch in chars}

    def colours_used(self):
        return {v for row in self.cells for c in row for v in (c.fg, c.bg) if v is not None}

    def selected_row(self):
        """The row drawn in the selected role: its background (default
        theme), else reverse video (no colours)."""
        sel_bg = DEFAULT_ROLES["selected"][1]
        best, best_n = None, 0
        for i, row in enumerate(self.cells):
            n = sum(1 for c in row if (c.bg == sel_bg and sel_bg is not None) or c.reverse)
            if n > best_n and i not in (0, len(self.cells) - 1):  # not title/footer
                best, best_n = i, n
        return best

    def selected_text(self):
        row = self.selected_row()
        return self.lines[row] if row is not None else ""

    def dump(self):
        return "\n".join("%2d|%s" % (i, line) for i, line in enumerate(self.lines))


def sgr(params, fg, bg, bold, reverse):
    """Applies one SGR sequence to the current attributes."""
    codes = [int(p) if p.isdigit() else 0 for p in re.split("[;:]", params)] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            fg = bg = None
            bold = reverse = False
        elif c == 1:
            bold = True
        elif c == 22:
            bold = False
        elif c == 7:
            reverse = True
        elif c == 27:
            reverse = False
        elif 30 <= c <= 37:
            fg = c - 30
        elif 90 <= c <= 97:
            fg = c - 90 + 8
        elif 40 <= c <= 47:
            bg = c - 40
        elif 100 <= c <= 107:
            bg = c - 100 + 8
        elif c == 39:
            fg = None
        elif c == 49:
            bg = None
        elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
            if c == 38:
                fg = codes[i + 2]
            else:
                bg = codes[i + 2]
            i += 2
        elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
            value = ("rgb", codes[i + 2], codes[i + 3], codes[i + 4])
            if c == 38:
                fg = value
            else:
                bg = value
            i += 4
        i += 1
    return fg, bg, bold, reverse


# ---- tmux ------------------------------------------------------------------


class Tui:
    """heapscope in a detached tmux session of its own (private tmux server),
    inside `sh -c 'heapscope ...; echo HEAPSCOPE-EXIT:$?; stty -a ...'` so
    that what is left on the terminal after exit can be checked."""

    count = 0

    def __init__(self, home, args, width=100, height=30, term="xterm-256color",
                 lang="C.UTF-8", env=None, file_size_limit=None, small_tmpfs=()):
        self.home = home
        Tui.count += 1  # a server of its own: a closed one may still be exiting
        self.tmux_socket = os.path.join(home.root, "tmux-%d.sock" % Tui.count)
        self.pidfile = os.path.join(home.root, "heapscope.pid")
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)
        pinned = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home.home, "XDG_DATA_HOME": home.data, "XDG_CONFIG_HOME": home.config,
            "TERM": term, "LANG": lang, "LC_ALL": lang, "TZ": "UTC",
        }
        for k, v in os.environ.items():  # sanitizer settings of the build
            if k.startswith(("ASAN_", "UBSAN_", "LSAN_", "MSAN_")):
                pinned[k] = v
        pinned.update(env or {})
        inner = "echo $$ > %s; exec %s" % (shlex.quote(self.pidfile),
                                           " ".join(shlex.quote(a) for a in [HEAPSCOPE, *args]))
        if file_size_limit is not None:  # bytes, as `ulimit -f` of sh (512-byte blocks)
            inner = "ulimit -f %d; %s" % (file_size_limit // 512, inner)
        if small_tmpfs:  # directories that are a full disk soon: 256 KiB tmpfs each, seen
            # only by heapscope (a mount namespace of its own; same pid: exec all along)
            mounts = "".join("mount -t tmpfs -o size=256k tmpfs %s && " % shlex.quote(d)
                             for d in small_tmpfs)
            inner = "exec unshare --map-root-user --mount sh -c %s" % shlex.quote(mounts + inner)
        outer = ("sh -c %s; echo %s$?; stty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)$' "
                 "| tr '\\n' ' '; echo; sleep 3600") % (shlex.quote(inner), EXIT_MARK)
        command = "env -i %s sh -c %s" % (
            " ".join(shlex.quote("%s=%s" % kv) for kv in pinned.items()), shlex.quote(outer))
        self.tmux("new-session", "-d", "-x", str(width), "-y", str(height), "-s", "hs", command)
        self.width, self.height = width, height

    def tmux(self, *args):
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color")
        env.pop("TMUX", None)
        r = subprocess.run(["tmux", "-u", "-S", self.tmux_socket, "-f", "/dev/null", *args],
                           capture_output=True, text=True, env=env, timeout=30)
        if r.returncode != 0:
            raise RuntimeError("tmux %s: %s" % (" ".join(args), r.stderr.strip()))
        return r.stdout

    def close(self):
        pid = self.pid(wait=0)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.tmux("kill-server")
        except (RuntimeError, subprocess.TimeoutExpired):
            pass

    def pid(self, wait=10):
        deadline = time.monotonic() + wait
        while True:
            try:
                with open(self.pidfile) as f:
                    return int(f.read())
            except (OSError, ValueError):
                if time.monotonic() >= deadline:
                    return None
                time.sleep(0.05)

    # -- input ---------------------------------------------------------------

    def keys(self, *names):
        """tmux key names: Up Down Left Right Enter Escape Tab PageUp PageDown
        Home End C-e M-Left S-Left, or single characters."""
        for name in names:
            self.tmux("send-keys", "-t", "hs", name)

    def type(self, text):
        self.tmux("send-keys", "-t", "hs", "-l", text)

    def run_command(self, name):
        """Runs a command of the table by name through the Ctrl-P palette."""
        before = self.screen()
        self.keys("C-p")
        self.wait_change(before, what="the palette")
        self.type(name)
        self.wait_text(name, what="%r in the palette" % name)
        self.keys("Enter")

    def resize(self, width, height):
        self.tmux("resize-window", "-t", "hs", "-x", str(width), "-y", str(height))
        self.width, self.height = width, height

    def display(self, fmt):
        return self.tmux("display-message", "-p", "-t", "hs", fmt).strip()

    # -- output --------------------------------------------------------------

    def screen(self):
        return Screen(self.tmux("capture-pane", "-p", "-e", "-t", "hs"))

    def wait(self, pred, what, timeout=15):
        """Polls the screen until pred(screen) is true on a screen that the
        next capture shows unchanged (not a half-drawn one); returns it."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.screen()
            if pred(s):
                time.sleep(0.05)
                if self.screen().raw == s.raw:
                    return s
            if time.monotonic() >= deadline:
                raise AssertionError("waited %gs for %s; the screen:\n%s" % (timeout, what, s.dump()))
            time.sleep(0.05)

    def settle(self, quiet=0.3, timeout=15):
        """The screen once it has stopped changing for `quiet` seconds: a
        redraw reaches tmux in pieces, and a capture in between shows a
        half-drawn screen."""
        deadline = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            s = self.screen()
            if s.raw != last.raw:
                last, since = s, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return s
        raise AssertionError("the screen kept changing for %gs:\n%s" % (timeout, last.dump()))

    def wait_text(self, text, timeout=15, what=None):
        return self.wait(lambda s: text in s.text, what or repr(text), timeout)

    def wait_regex(self, pattern, timeout=15, what=None):
        return self.wait(lambda s: s.search(pattern), what or "/%s/" % pattern, timeout)

    def wait_gone(self, text, timeout=15, what=None):
        return self.wait(lambda s: text not in s.text, what or "%r to go" % text, timeout)

    def wait_change(self, before, timeout=10, what="the screen to change"):
        return self.wait(lambda s: s.raw != before.raw, what, timeout)

    def wait_new_line(self, pattern, before, timeout=10, what=None):
        """Waits for a line matching pattern that was not on the screen before."""
        old = set(before.lines)
        return self.wait(lambda s: any(re.search(pattern, l) and l not in old for l in s.lines),
                         what or "a new line matching /%s/" % pattern, timeout)

    def exit_status(self, screen=None):
        m = re.search(EXIT_MARK + r"(\d+)", (screen or self.screen()).text)
        return int(m.group(1)) if m else None

    def wait_exit(self, timeout=15):
        s = self.wait(lambda s: self.exit_status(s) is not None, "heapscope to exit", timeout)
        if re.search(r"(?i)sanitizer|runtime error:|segmentation fault|core dumped", s.text):
            raise AssertionError("heapscope exited with an error report:\n" + s.dump())
        return self.exit_status(s), s

    def running(self):
        return self.exit_status() is None

    # -- the tree ------------------------------------------------------------

    def select(self, what, timeout=15):
        """Moves the selection (Up/Down) to the first visible row that
        contains the text what, or for which what(line) is true."""
        match = what if callable(what) else (lambda line: what in line)
        deadline = time.monotonic() + timeout
        while True:
            s = self.screen()
            rows = [i for i, line in enumerate(s.lines) if match(line)]
            target, sel = (rows[0] if rows else None), s.selected_row()
            if sel is not None and match(s.lines[sel]):
                return s
            if time.monotonic() >= deadline:
                raise AssertionError("could not select %r; the screen:\n%s" % (what, s.dump()))
            if target is None or sel is None:
                time.sleep(0.05)
                continue
            step = "Down" if target > sel else "Up"
            for _ in range(abs(target - sel)):
                self.keys(step)
            try:
                self.wait(lambda t: t.raw != s.raw, "the selection to move", timeout=5)
            except AssertionError:
                pass  # the loop looks again, until the deadline



def closure_line(step):
    """A predicate for the tree row of one closure: its address, then its
    type (the address alone also shows in the label of the closure that
    points to it, and in the details pane after "Address")."""
    pattern = re.compile(r"(?<![\w])%s\s+%s(?![\w])" % (re.escape(step["address"]),
                                                        re.escape(step["type"])))
    return lambda line: bool(pattern.search(line))


def closure_row(screen, step):
    match = closure_line(step)
    rows = [i for i, line in enumerate(screen.lines) if match(line)]
    return rows[0] if rows else None


def indent(line):
    """Where the text of a tree row starts after the selection mark and the
    tree guides (Unicode or ASCII)."""
    return len(re.match(r"[\s>│├└─|`+\-]*", line).group(0))


# ---- private directories and the debuggee -----------------------------------


class Home:
    """HOME, XDG_DATA_HOME (with the ghc-debug socket and snapshot dirs) and
    XDG_CONFIG_HOME under one temporary directory."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hs-tui-")
        self.root = self.tmp.name
        self.home = os.path.join(self.root, "home")
        self.data = os.path.join(self.root, "data")
        self.config = os.path.join(self.root, "config")
        self.sockets = os.path.join(self.data, "ghc-debug", "debuggee", "sockets")
        self.snapshots = os.path.join(self.data, "ghc-debug", "debuggee", "snapshots")
        for d in (self.home, self.sockets, self.snapshots, self.config):
            os.makedirs(d)

    def user_theme(self, name, text):
        d = os.path.join(self.config, "heapscope", "themes")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name + ".theme"), "w") as f:
            f.write(text)

    def cleanup(self):
        self.tmp.cleanup()


LEAK_ARGS = ("--closures", "30000", "--profiled", "--eras", "6", "--leak-count", "700",
             "--leak-era", "2", "--seed", "5")


class Debuggee:
    """heapscope-debuggee listening on <sockets dir>/<name>, with its plan."""

    def __init__(self, home, name="4242-leaky", args=LEAK_ARGS):
        self.socket = os.path.join(home.sockets, name)
        plan_path = os.path.join(home.root, name + ".plan.json")
        self.proc = subprocess.Popen([DEBUGGEE, "--socket", self.socket, "--plan", plan_path, *args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                break
            except OSError:
                if time.monotonic() >= deadline or self.proc.poll() is not None:
                    raise RuntimeError("debuggee did not start")
                time.sleep(0.05)
        with open(plan_path) as f:
            self.plan = json.load(f)

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=10)

    def status(self, command):
        """Sends one payload-less request on a fresh connection and returns
        the final frame's status (0 = ok, 0x0102 = not paused)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(self.socket)
            s.sendall(struct.pack(">II", 4, command))
            while True:
                length, status = struct.unpack(">IH", recv_exact(s, 6))
                recv_exact(s, length)
                if status != 1:
                    return status

    def pause(self):
        """PAUSE(0) on a fresh connection, as another client would; returns
        the final status (0 = paused now, 0x0101 = it already was)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(self.socket)
            s.sendall(struct.pack(">IIB", 5, 2, 0))
            length, status = struct.unpack(">IH", recv_exact(s, 6))
            return status

    def is_paused(self):
        ROOTS, NOT_PAUSED = 4, 0x0102
        status = self.status(ROOTS)
        self.assert_known(status, (0, NOT_PAUSED))
        return status == 0

    def resume(self):
        self.status(3)

    @staticmethod
    def assert_known(status, known):
        if status not in known:
            raise AssertionError("unexpected stub status 0x%04x" % status)


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("debuggee closed the connection")
        data += chunk
    return data


def roots_json(socket_path):
    """What `heapscope roots --json` lists, to check the tree against."""
    r = subprocess.run([HEAPSCOPE, "roots", socket_path, "--json"], capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("heapscope roots: " + r.stderr)
    return json.loads(r.stdout)


def command_table():
    """`heapscope --keys`: [(keys, where, needs, name, help)]."""
    r = subprocess.run([HEAPSCOPE, "--keys"], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise AssertionError("heapscope --keys failed (%d): %s" % (r.returncode, r.stderr))
    rows = []
    for line in r.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise AssertionError("--keys: not KEYS<TAB>WHERE<TAB>NEEDS<TAB>COMMAND<TAB>HELP: %r" % line)
        keys = [] if fields[0] == "-" else [k.strip() for k in fields[0].split(", ")]
        rows.append((keys, fields[1], fields[2], fields[3], fields[4]))
    return rows


# ---- test cases --------------------------------------------------------------


class TuiCase(unittest.TestCase):
    """Each test gets a private home; tuis and debuggees it starts are
    stopped at the end, whatever happened."""

    def setUp(self):
        self.home = Home()
        self.started = []

    def tearDown(self):
        for thing in reversed(self.started):
            try:
                thing.close() if isinstance(thing, Tui) else thing.stop(signal.SIGKILL)
            except Exception:  # noqa: BLE001 - clean up the rest regardless
                pass
        self.home.cleanup()

    def debuggee(self, name="4242-leaky", args=LEAK_ARGS):
        d = Debuggee(self.home, name, args)
        self.started.append(d)
        return d

    def tui(self, *args, **kw):
        t = Tui(self.home, args, **kw)
        self.started.append(t)
        return t

    def connected(self, d, *args, **kw):
        """heapscope started on d's socket, showing the running screen."""
        t = self.tui(*args, d.socket, **kw)
        t.wait_regex(r"(?i)running", what="the running screen")
        return t

    def paused(self, d, *args, **kw):
        """heapscope paused on d, the roots tree shown."""
        t = self.connected(d, *args, **kw)
        t.keys("p")
        t.wait_text(d.plan["leak"]["root"], timeout=60, what="the roots tree after p")
        return t

    def assert_restored(self, t):
        """After heapscope exited: the normal screen is back, the cursor
        shows, keypad and mouse modes are off, the tty is cooked."""
        self.assertEqual(t.display("#{alternate_on}"), "0", "still on the alternate screen")
        self.assertEqual(t.display("#{cursor_flag}"), "1", "cursor left hidden")
        self.assertEqual(t.display("#{keypad_cursor_flag}"), "0", "keypad mode left on")
        self.assertEqual(t.display("#{mouse_any_flag}"), "0", "mouse reporting left on")
        s = t.wait_regex(r"(?m)^-?icanon -?echo|^-?echo -?icanon", what="the stty report")
        tty = s.search(r"(?m)^(-?icanon|-?echo) (-?icanon|-?echo)").group(0).split()
        self.assertEqual(sorted(tty), ["echo", "icanon"], "the tty is left raw")
        left = s.text.split(EXIT_MARK)[0]
        self.assertFalse(ADDRESS.search(left) or set(left) & set(map(chr, range(0x2500, 0x2580))),
                         "curses output left on the screen:\n" + s.dump())
        self.assertNotRegex(s.text, r"(?i)sanitizer|segmentation|core dumped|runtime error")


def main():
    unittest.main(verbosity=2)
