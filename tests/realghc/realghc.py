"""The real-GHC tier: tests/realghc/Tier.hs linked with the official
ghc-debug stub, built and run by real GHCs in Debian chroots (the script
`chroot` beside this file builds them on first use and keeps them).

    import realghc
    why = realghc.skip_reason()      # None, or why the tier cannot run here
    with realghc.start("9.10", "prof", "--list", "100000", rts=["-N2", "-he"]) as p:
        p.socket                     # the program's socket, as a host path
        p.alive()                    # still running, no abort or crash in its stderr
        p.answers(HEAPSCOPE)         # alive, and `heapscope info` on it works
        p.stderr(); p.pid; p.ticks() # its stderr; pid; "tick" times with --tick MS

VERSIONS names the GHCs (9.6: Debian trixie, 9.10: Debian sid), FLAVOURS
the builds ("ipe": info-table provenance; "ipe-O": the same optimised, so
that library code such as Data.Map's insertWith is specialised into Main and
its closures get IPE entries without a source position; "prof": profiled,
with user eras on 9.10). The stub's folder comes from HEAPSCOPE_GHC_DEBUG_STUB. A program
is built once per GHC, flavour and content of its sources and flags, and
kept in the chroot (/var/cache/heapscope-tier/KEY/tier), so every build dir
and test file reuses it. Started programs are quiescent after "ready" (see
Tier.hs): nothing moves between two commands. Waits scale with
HEAPSCOPE_TIMEOUT_FACTOR (default 1)."""
import atexit
import ctypes
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHROOT = os.path.join(HERE, "chroot")
SOURCE = os.path.join(HERE, "Tier.hs")
STUB_ENV = "HEAPSCOPE_GHC_DEBUG_STUB"
TIMEOUT_FACTOR = float(os.environ.get("HEAPSCOPE_TIMEOUT_FACTOR") or 1)

# version -> (chroot, the GHC it must hold)
VERSIONS = {"9.6": ("trixie", "9.6.6"), "9.10": ("sid", "9.10.3")}


def flavour_flags(version, flavour):
    if flavour == "ipe":
        return ["-finfo-table-map", "-fdistinct-constructor-tables"]
    if flavour == "ipe-O":
        return ["-finfo-table-map", "-fdistinct-constructor-tables", "-O"]
    if flavour == "prof":
        if version == "9.6":  # no eras before GHC 9.10
            return ["-prof"]
        return ["-prof", "-optcxx-DPROFILING", "-optcxx-DGHC_SUPPORTS_ERAS", "-DTIER_ERAS"]
    raise ValueError("no flavour %r (ipe, ipe-O or prof)" % flavour)


FLAVOURS = ("ipe", "ipe-O", "prof")
# what every build gets: the stub's C++ server for the threaded RTS, and no
# idle GC (+RTS -I0) so that the heap stays where it is between commands
BASE_FLAGS = ["-v0", "-threaded", "-rtsopts", "-with-rtsopts=-I0",
              "-optcxx-std=gnu++11", "-optcxx-DTHREADED_RTS", "-lstdc++"]
STUB_FILES = ["stub/cbits/stub.cpp", "stub/cbits/socket.cpp", "stub/cbits/trace.cpp"]


def timeout(seconds):
    return seconds * TIMEOUT_FACTOR


def _privilege():
    """The prefix that runs a command as root: [] as root, sudo -n when it
    works without a password, None otherwise."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n", "env", "HEAPSCOPE_CHROOTS=" + chroot_root()]  # sudo resets the env
    return None


def stub_dir():
    return os.environ.get(STUB_ENV) or None


def chroot_root():
    return os.environ.get("HEAPSCOPE_CHROOTS") or "/var/cache/heapscope/chroots"


def skip_reason():
    """None when the tier can run, else why not (a test then exits 77)."""
    stub = stub_dir()
    if not stub:
        return ("%s is not set: the real-GHC tier needs the official ghc-debug stub's folder "
                "(.ci/run sets it to ../shared/ghc-debug-stub)" % STUB_ENV)
    if not os.path.isfile(os.path.join(stub, STUB_FILES[0])):
        return "%s=%s has no %s" % (STUB_ENV, stub, STUB_FILES[0])
    if _privilege() is None:
        return "the real-GHC tier needs root or sudo without a password (mmdebstrap, chroot)"
    for tool in ("unshare", "chroot", "flock"):
        if not shutil.which(tool):
            return "%s is not installed (util-linux, coreutils)" % tool
    built = all(os.path.isdir(os.path.join(chroot_root(), c)) for c, _ in VERSIONS.values())
    if not built and not shutil.which("mmdebstrap"):
        return "mmdebstrap is not installed: it builds the tier's chroots (apt-get install mmdebstrap)"
    return None


_chroots = {}


def chroot_dir(version):
    """The chroot of GHC `version`, built first if missing (a minute or
    more; progress on stderr)."""
    if version in _chroots:
        return _chroots[version]
    name, ghc = VERSIONS[version]
    out = subprocess.run([*_privilege(), CHROOT, "path", name], stdout=subprocess.PIPE, text=True,
                         check=True)
    path = out.stdout.strip()
    got = _in_chroot(version, ["ghc", "--numeric-version"]).stdout.strip()
    if got != ghc:
        raise RuntimeError("the %s chroot %s holds GHC %s, not %s: remove it to rebuild it"
                           % (name, path, got, ghc))
    _chroots[version] = path
    return path


def _in_chroot(version, argv, **kw):
    name = VERSIONS[version][0]
    return subprocess.run([*_privilege(), CHROOT, "run", name, *argv], stdout=subprocess.PIPE,
                          text=True, check=True, **kw)


def _copy_stub(into, version):
    """The stub's sources, writable (ghc writes the C++ objects beside
    them); on GHC 9.10.2 and later with the closure_desc guard of ghc-debug
    0.7 (see the stub's README)."""
    src = stub_dir()
    for top in ("stub", "convention"):
        for d, _, files in os.walk(os.path.join(src, top)):
            rel = os.path.relpath(d, src)
            os.makedirs(os.path.join(into, rel), exist_ok=True)
            for f in files:
                shutil.copyfile(os.path.join(d, f), os.path.join(into, rel, f))
    if version == "9.10":
        path = os.path.join(into, STUB_FILES[0])
        with open(path) as f:
            text = f.read()
        old = "MIN_VERSION_GLASGOW_HASKELL(9,11,0,0)"
        if text.count(old) != 1:
            raise RuntimeError("%s: expected one %s to change" % (path, old))
        with open(path, "w") as f:
            f.write(text.replace(old, "MIN_VERSION_GLASGOW_HASKELL(9,10,2,0)"))


def _key(version, flavour):
    h = hashlib.sha256()
    h.update(repr((VERSIONS[version], BASE_FLAGS, flavour_flags(version, flavour))).encode())
    paths = [SOURCE] + sorted(os.path.join(d, f) for top in ("stub", "convention")
                              for d, _, fs in os.walk(os.path.join(stub_dir(), top)) for f in fs)
    for p in paths:
        with open(p, "rb") as f:
            h.update(os.path.basename(p).encode() + b"\0" + f.read())
    return "%s-%s-%s" % (version, flavour, h.hexdigest()[:16])


def program(version, flavour):
    """The path inside the chroot of Tier.hs built by GHC `version` in
    `flavour`, built first if not kept yet."""
    root = chroot_dir(version)
    inner = "/var/cache/heapscope-tier"
    cache = root + inner
    if not os.path.isdir(cache):
        subprocess.run([*_privilege(), "mkdir", "-p", "-m", "1777", cache], check=True)
    key = _key(version, flavour)
    exe = os.path.join(inner, key, "tier")
    with open(os.path.join(cache, key + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build per key at a time
        if os.path.exists(root + exe):
            return exe
        part = os.path.join(cache, key + ".partial")
        shutil.rmtree(part, ignore_errors=True)
        os.makedirs(part)
        _copy_stub(part, version)
        shutil.copyfile(SOURCE, os.path.join(part, "Tier.hs"))
        argv = ["ghc", *BASE_FLAGS, *flavour_flags(version, flavour), "-istub/src",
                "-iconvention/src", *STUB_FILES, "-outputdir", "out", "-o", "tier", "Tier.hs"]
        started = time.time()
        print("realghc: building %s (GHC %s, %s)" % (key, VERSIONS[version][1], flavour),
              file=sys.stderr, flush=True)
        # GHC's output only on failure (g++ warns about GHC's own headers)
        out = subprocess.run([*_privilege(), CHROOT, "run", VERSIONS[version][0], "sh", "-c",
                              'cd "$1" && shift && exec nice "$@"', "sh",
                              os.path.join(inner, key + ".partial"), *argv],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if out.returncode != 0:
            raise RuntimeError("building %s failed (%s):\n%s" % (key, " ".join(argv), out.stdout))
        os.rename(part, os.path.join(cache, key))  # whole, or not there
        for old in os.listdir(cache):  # builds of older sources
            if old.startswith("%s-%s-" % (version, flavour)) and not old.startswith(key):
                path = os.path.join(cache, old)
                if os.path.isdir(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.remove(path)
        print("realghc: built %s in %.0f s" % (key, time.time() - started), file=sys.stderr,
              flush=True)
    return exe


_running = set()  # programs not stopped yet: stopped at exit


@atexit.register
def _stop_all():
    for p in list(_running):
        p.stop()


def _die_with_parent():
    """In the child before exec: SIGKILL when the test process dies (a
    timeout's kill leaves no program behind; not through sudo, which is
    setuid and clears it)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _listening(path):
    """Whether a Unix socket bound to `path` listens (from /proc/net/unix,
    without connecting: the stub takes any connection for a client)."""
    with open("/proc/net/unix") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if len(cols) >= 8 and cols[7] == path and int(cols[3], 16) & 0x10000:
                return True
    return False


class Program:
    """One running Tier program in its chroot; see start()."""

    def __init__(self, version, flavour, args, rts):
        self.version, self.flavour = version, flavour
        exe = program(version, flavour)
        root = chroot_dir(version)
        self.dir = tempfile.mkdtemp(prefix="heapscope-", dir=root + "/tmp")
        os.chmod(self.dir, 0o755)
        inner_socket = self.dir[len(root):] + "/sock"
        self.socket = self.dir + "/sock"  # the same file, seen from the host
        self.log = open(os.path.join(self.dir, "stderr"), "w+")
        rts_args = ["+RTS", *rts, "-RTS"] if rts else []
        self.proc = subprocess.Popen(
            [*_privilege(), CHROOT, "run", VERSIONS[version][0],
             "GHC_DEBUG_SOCKET=" + inner_socket, exe, *args, *rts_args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log,
            preexec_fn=_die_with_parent)
        _running.add(self)
        # as root, the program itself (the chroot script execs it); under sudo, sudo
        self.pid = self.proc.pid
        self._ready, self._ticks = threading.Event(), []
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self._wait_ready(inner_socket, timeout(120))
        except BaseException:
            self.stop()
            raise

    def _read(self):
        """Every line of its stdout, with the time it came (a thread: the
        pipe never fills, and --tick's lines are timed as they arrive)."""
        for line in iter(self.proc.stdout.readline, b""):
            now = time.monotonic()
            text = line.decode(errors="replace").rstrip("\n")
            if text.startswith("tick "):
                self._ticks.append(now)
            elif text == "ready":
                self._ready.set()
        self._ready.set()  # ended: _wait_ready sees it

    def _wait_ready(self, inner_socket, seconds):
        deadline = time.time() + seconds
        if not self._ready.wait(seconds) or self.proc.poll() is not None:
            raise RuntimeError("%s: no 'ready' within %.0f s (status %s):\n%s"
                               % (self, seconds, self.proc.poll(), self.stderr()))
        while not _listening(inner_socket):
            if time.time() > deadline or self.proc.poll() is not None:
                raise RuntimeError("%s: no socket listening at %s:\n%s"
                                   % (self, self.socket, self.stderr()))
            time.sleep(0.02)

    def ticks(self):
        """The times (time.monotonic()) of the "tick" lines so far, with
        --tick MS: a gap longer than MS is a time the program did not run."""
        return list(self._ticks)

    def __str__(self):
        return "the GHC %s %s program" % (VERSIONS[self.version][1], self.flavour)

    def stderr(self):
        self.log.flush()
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def alive(self):
        """Still running, and nothing in its stderr says it failed (the stub
        aborts on a broken connection; a bad address is a segfault)."""
        if self.proc.poll() is not None:
            return False
        err = self.stderr()
        return not any(m in err for m in ("terminate called", "Segmentation fault", "internal error"))

    def answers(self, heapscope):
        """Alive, and `heapscope info` on its socket succeeds."""
        if not self.alive():
            return False
        r = subprocess.run([heapscope, "info", self.socket], capture_output=True,
                           timeout=timeout(30))
        return r.returncode == 0 and self.alive()

    def stop_answering(self, heapscope):
        """Ends the program after checking it still answers (a test class's
        or case's last step): AssertionError, with its stderr, when not."""
        alive = self.answers(heapscope)
        err = self.stderr()
        self.stop()
        if not alive:
            raise AssertionError("%s did not survive:\n%s" % (self, err))

    def stop(self):
        """Ends the program (SIGTERM, then SIGKILL); returns its exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout(10))
            except subprocess.TimeoutExpired:
                self.proc.kill()
        status = self.proc.wait()
        _running.discard(self)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def line_of(text):
    """The number of the line of Tier.hs that starts with `text` (to check a
    source location without writing its line number into a test)."""
    with open(SOURCE) as f:
        for n, line in enumerate(f, 1):
            if line.startswith(text):
                return n
    raise AssertionError("no line %r in Tier.hs" % text)


def start(version, flavour, *args, rts=()):
    """Starts Tier.hs built by GHC `version` ("9.6", "9.10") in `flavour`
    ("ipe", "prof") with its switches (--list N, --mb M, --tick MS: see
    Tier.hs) and RTS options,
    on a private socket; returns once it printed "ready" and its socket
    listens."""
    return Program(version, flavour, list(args), list(rts))


def main(run_tests):
    """A test file's main: exits 77 (a skip) with the reason when the tier
    cannot run here, else run_tests()."""
    why = skip_reason()
    if why:
        print("SKIP: " + why)
        sys.exit(77)
    run_tests()


if __name__ == "__main__":
    # realghc.py build [VERSION...]: build the chroots and programs ahead
    why = skip_reason()
    if why:
        sys.exit("realghc: " + why)
    for v in sys.argv[2:] or VERSIONS:
        for fl in FLAVOURS:
            print(program(v, fl))
