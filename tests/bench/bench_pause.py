#!/usr/bin/env python3
"""How long each batch command keeps the program paused, against how long it
runs (issue 19, point 4): the synthetic debuggee with a big heap, and per
command the time from the PAUSE to the RESUME it received (its
--log-requests log, so any heapscope binary can be measured, one from before
this change too) and the command's wall time, its output read and dropped.

  tests/bench/run bench_pause [--closures N] [--leak-count N] [--heapscope BIN] [--repeat K]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def start_debuggee(exe, sock, log, args):
    p = subprocess.Popen([exe, "--socket", sock, "--log-requests", log, *args],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while time.time() < deadline:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(sock)
            return p
        except OSError:
            time.sleep(0.05)
    p.kill()
    sys.exit("bench_pause: the debuggee did not start")


def log_times(log):
    with open(log) as f:
        rows = [line.split() for line in f if line.strip()]
    return [(name, float(t)) for name, t in rows]


def measure(heapscope, args, log):
    open(log, "w").close()
    start = time.monotonic() * 1e3
    p = subprocess.Popen([heapscope, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    size = 0
    while True:  # read and drop, as a fast reader would
        chunk = p.stdout.read1(1 << 20)
        if not chunk:
            break
        size += len(chunk)
    err = p.stderr.read().decode()
    rc = p.wait()
    end = time.monotonic() * 1e3
    if rc != 0:
        sys.exit("bench_pause: %s failed (%d): %s" % (" ".join(args), rc, err.strip()))
    rows = log_times(log)
    pause = next(t for n, t in rows if n == "PAUSE")
    resume = next((t for n, t in rows if n == "RESUME"), end)
    last_before = max(t for n, t in rows if n != "RESUME")
    return {"paused": resume - pause, "total": end - start, "last_request": last_before - start,
            "bytes": size}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--closures", type=int, default=2000000)
    ap.add_argument("--leak-count", type=int, default=2000)
    ap.add_argument("--heapscope", default=os.environ.get("HEAPSCOPE_BENCH_BIN"))
    ap.add_argument("--repeat", type=int, default=1, help="best of K runs per command")
    ap.add_argument("--build", default="build-release")
    o = ap.parse_args()
    heapscope = o.heapscope or os.path.join(o.build, "heapscope")
    debuggee = os.environ.get("HEAPSCOPE_DEBUGGEE", os.path.join(o.build, "heapscope-debuggee"))
    with tempfile.TemporaryDirectory() as tmp:
        sock, log = os.path.join(tmp, "d.sock"), os.path.join(tmp, "requests")
        common = ("--closures", str(o.closures), "--leak-count", str(o.leak_count), "--seed", "7")
        plain = start_debuggee(debuggee, sock, log, [*common, "--strings"])
        prof_sock = os.path.join(tmp, "p.sock")
        prof_log = os.path.join(tmp, "prof-requests")
        prof = start_debuggee(debuggee, prof_sock, prof_log, [*common, "--profiled", "--eras", "5"])
        try:
            found = subprocess.run([heapscope, "find", sock, "--exact", "Leak", "--limit", "1",
                                    "--json", "--no-cache"], capture_output=True, text=True)
            addr = json.loads(found.stdout)["matches"][0]["closure"]["address"]
            snap = os.path.join(tmp, "snap.heapscope")
            commands = [
                ("roots", ["roots", sock]),
                ("show", ["show", sock, addr, "--depth", "5"]),
                ("find --limit 0", ["find", sock, "--limit", "0"]),
                ("retainers", ["retainers", sock, "--constructor", "^Leak$", "--limit", "0"]),
                ("retainers --merged", ["retainers", sock, "--constructor", "^Leak$", "--merged"]),
                ("census", ["census", sock]),
                ("census 2 levels", ["census", sock, "--by", "type,constructor", "--top", "0"]),
                ("thunks", ["thunks", sock]),
                ("strings", ["strings", sock, "--top", "0"]),
                ("dominators", ["dominators", sock, "--top", "1000"]),
                ("leaks", ["leaks", prof_sock]),
                ("snapshot", ["snapshot", sock, "-o", snap, "--force"]),
            ]
            print("heapscope %s, debuggee --closures %d --leak-count %d (best of %d)"
                  % (heapscope, o.closures, o.leak_count, o.repeat))
            print("%-20s %11s %11s %13s %12s" % ("command", "paused ms", "total ms",
                                                 "last request", "output MB"))
            for name, args in commands:
                best = None
                for _ in range(o.repeat):
                    m = measure(heapscope, [*args, "--no-cache"],
                                prof_log if name == "leaks" else log)
                    if best is None or m["total"] < best["total"]:
                        best = m
                print("%-20s %11.0f %11.0f %13.0f %12.1f" % (name, best["paused"], best["total"],
                                                             best["last_request"],
                                                             best["bytes"] / 1e6), flush=True)
        finally:
            for p in (plain, prof):
                p.terminate()
                p.wait()


if __name__ == "__main__":
    main()
