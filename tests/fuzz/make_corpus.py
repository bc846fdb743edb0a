#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/TARGET/)
from the synthetic debuggee's real answers:

    tests/fuzz/make_corpus.py [BUILD_DIR]     (default: build)

A recording man in the middle (tests/common/hostile_stub.py) sits between
`heapscope snapshot` and the debuggee, once non-profiled and once
era-profiled, and keeps every request with its answer. From those answers
come the wire targets' bodies and frames, the heap targets' records (a
window of heap around closures of every kind, with the info tables,
descriptions, SRTs, bitmaps and cost centres it refers to), the stacks of
the STACK closures, the snapshot files (rewritten with 512-byte pages so
they stay small), ghc-debug snapshot files written by the debuggee, the
installed themes and typical typed text. Kept small: a few hundred KB."""
import hashlib
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "common"))
import hostile_stub as hs  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")
HEAP_LO = 0x4200000000
STACK = 53
WINDOW = 2048  # bytes of heap per heap seed
WINDOWS = 10  # heap seeds per debuggee
CMD_VERSION, CMD_ROOTS, CMD_CLOSURES, CMD_INFO, CMD_STACK_BITMAP = 1, 4, 5, 6, 7
CMD_SAVED, CMD_CON_DESC, CMD_SOURCE_INFO, CMD_ALL_BLOCKS, CMD_BLOCK = 9, 11, 12, 14, 15
CMD_FUN_BITMAP, CMD_SRT, CMD_CCS, CMD_CC, CMD_INDEX, CMD_CCS_MAIN = 16, 17, 18, 19, 20, 21

# fuzz_source.h record kinds
(R_BLOCK, R_STATIC, R_INFO, R_SRT, R_CON_DESC, R_SOURCE_INFO, R_FRAME_BITMAP, R_FUN_BITMAP,
 R_ROOT, R_SAVED, R_CCS, R_CC, R_INDEX, R_CCS_MAIN) = range(14)


def put(target, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def record(kind, key, data=b""):
    return struct.pack("<BQH", kind, key & 0xFFFFFFFFFFFFFFFF, len(data)) + data


class Recording:
    """Every (cmd, payload, status, body) of one heapscope run. Trimmed, the
    heap is cut to its first TRIM_BYTES (the synthetic heap has 300 KB at
    least) and closures in the part cut off are refused, so that snapshot
    files of it stay small."""

    TRIM_BYTES = 24 * 1024
    TRIM_GROUP = 8 * 1024

    def __init__(self, build, debuggee_args, trim=False):
        self.build, self.args, self.trim = build, debuggee_args, trim
        self.answers = []
        self.kept = []

    def in_cut_heap(self, p):
        return HEAP_LO <= p < HEAP_LO * 5 and not any(s <= p < e for s, e in self.kept)

    def trim_blocks(self, body):
        out, total = [], 0
        for start, flags, data in parse_blocks(body):
            data = data[:self.TRIM_GROUP]
            if total + len(data) > self.TRIM_BYTES:
                break
            total += len(data)
            self.kept.append((start, start + len(data)))
            out.append(hs.raw_block(start, data, flags))
        return b"".join(out)

    def rule(self, req):
        if self.trim and req.cmd == CMD_CLOSURES and any(map(self.in_cut_heap, req.ptrs())):
            return hs.BAD_COMMAND, b""
        if self.trim and req.cmd == CMD_BLOCK and self.in_cut_heap(struct.unpack("<Q", req.payload[:8])[0]):
            return hs.BAD_COMMAND, b""
        status, body = req.forward()
        if self.trim and req.cmd == CMD_ALL_BLOCKS and status == hs.OKAY:
            body = self.trim_blocks(body)
        self.answers.append((req.cmd, req.payload, status, body))
        return status, body

    def run(self, snapshot_path, ghcdebug_path=None):
        tmp = tempfile.mkdtemp(prefix="heapscope-corpus-")
        sock = os.path.join(tmp, "debuggee.sock")
        debuggee = subprocess.Popen([os.path.join(self.build, "heapscope-debuggee"),
                                     "--socket", sock, "--seed", "7"] + self.args)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            with hs.HostileStub(sock, self.rule) as stub:
                subprocess.run([os.path.join(self.build, "heapscope"), "snapshot", stub.socket,
                                "-o", snapshot_path, "--no-cache", "--force"], check=True,
                               stdout=subprocess.DEVNULL)
                if ghcdebug_path:
                    subprocess.run([os.path.join(self.build, "heapscope-debuggee"),
                                    "--ghc-debug-snapshot", ghcdebug_path,
                                    "--ghc-debug-snapshot-of", stub.socket], check=True,
                                   stdout=subprocess.DEVNULL)
        finally:
            debuggee.terminate()
            debuggee.wait()
            shutil.rmtree(tmp)
        return self

    def of(self, cmd):
        return [(p, s, b) for c, p, s, b in self.answers if c == cmd]


def parse_blocks(body):
    out, off = [], 0
    while off + 14 <= len(body):
        flags, start = struct.unpack_from("<HQ", body, off)
        (n,) = struct.unpack_from(">I", body, off + 10)
        out.append((start, flags, body[off + 14:off + 14 + n]))
        off += 14 + n
    return out


def blobs(body):
    out, off = [], 0
    while off + 4 <= len(body):
        (n,) = struct.unpack_from(">I", body, off)
        out.append(body[off + 4:off + 4 + n])
        off += 4 + n
    return out


class Heap:
    """The answers of one recording, keyed as the heap module asks them."""

    def __init__(self, rec):
        self.rec = rec
        version = rec.of(CMD_VERSION)[0][2]
        self.prof_mode = version[8]
        self.blocks = parse_blocks(rec.of(CMD_ALL_BLOCKS)[0][2])
        self.roots = [p for _, _, b in rec.of(CMD_ROOTS) for p in struct.unpack("<%dQ" % (len(b) // 8), b)]
        self.saved = [p for _, _, b in rec.of(CMD_SAVED) for p in struct.unpack("<%dQ" % (len(b) // 8), b)]
        self.infos, self.statics, self.srts = {}, {}, {}
        for cmd, table in ((CMD_INFO, self.infos), (CMD_CLOSURES, self.statics)):
            for payload, status, body in rec.of(cmd):
                if status == hs.OKAY:
                    for ptr, blob in zip(hs.ptr_list(payload), blobs(body)):
                        table[ptr] = blob
        for payload, status, body in rec.of(CMD_SRT):
            ptrs = hs.ptr_list(payload)
            if status == hs.OKAY and len(body) == 8 * len(ptrs):
                for i, p in enumerate(ptrs):
                    self.srts[p] = body[8 * i:8 * i + 8]
        self.one = {}  # (cmd, key) -> body, for one-pointer requests
        for cmd in (CMD_CON_DESC, CMD_SOURCE_INFO, CMD_CCS, CMD_CC, CMD_INDEX):
            for payload, status, body in rec.of(cmd):
                if status == hs.OKAY and len(payload) == 8:
                    self.one[(cmd, struct.unpack("<Q", payload)[0])] = body
        self.ccs_main = [struct.unpack("<Q", b)[0] for _, s, b in rec.of(CMD_CCS_MAIN)
                         if s == hs.OKAY and len(b) == 8]
        self.frame_maps = {}  # frame info -> entries
        for payload, status, body in rec.of(CMD_STACK_BITMAP):
            if status == hs.OKAY and len(payload) >= 12:
                sp, off = struct.unpack("<QI", payload[:12])
                info = self.word(sp + off)
                if info is not None:
                    self.frame_maps[info] = body[4:]
        self.fun_maps = {}
        for payload, status, body in rec.of(CMD_FUN_BITMAP):
            if status == hs.OKAY and len(payload) >= 8:
                info = self.word(struct.unpack("<Q", payload[:8])[0])
                if info is not None:
                    self.fun_maps[info] = body[4:]

    def word(self, addr):
        for start, _, data in self.blocks:
            if start <= addr < start + len(data) - 7:
                return struct.unpack_from("<Q", data, addr - start)[0]
        return None

    def header(self):
        return bytes([self.prof_mode, 5])  # GHC 9.10, tables next to code

    def info_type(self, ptr):
        raw = self.infos.get(ptr)
        return struct.unpack_from("<I", raw, len(raw) - 8)[0] if raw and len(raw) >= 16 else None

    def answers_for(self, words):
        """Records answering what closures with these words may ask."""
        out, seen = [], set()
        for w in words:
            if w in seen:
                continue
            seen.add(w)
            if w in self.infos:
                out.append(record(R_INFO, w, self.infos[w]))
                if w in self.srts:
                    out.append(record(R_SRT, w, self.srts[w]))
                for cmd, kind in ((CMD_CON_DESC, R_CON_DESC), (CMD_SOURCE_INFO, R_SOURCE_INFO)):
                    if (cmd, w) in self.one:
                        body = self.one[(cmd, w)]
                        out.append(record(kind, w, body[4:] if cmd == CMD_CON_DESC else body))
                if w in self.frame_maps:
                    out.append(record(R_FRAME_BITMAP, w, self.frame_maps[w]))
                if w in self.fun_maps:
                    out.append(record(R_FUN_BITMAP, w, self.fun_maps[w]))
            elif w in self.statics:
                out.append(record(R_STATIC, w, self.statics[w][:512]))
            for cmd, kind in ((CMD_CCS, R_CCS), (CMD_CC, R_CC), (CMD_INDEX, R_INDEX)):
                if (cmd, w) in self.one:
                    out.append(record(kind, w, self.one[(cmd, w)]))
        return out

    def window_seed(self, start, flags, data, lo):
        """A heap seed: WINDOW bytes of a block group from offset lo."""
        piece = data[lo:lo + WINDOW]
        base = start + lo
        words = [struct.unpack_from("<Q", piece, i)[0] for i in range(0, len(piece) - 7, 8)]
        rec = [record(R_BLOCK, base, struct.pack("<H", flags) + piece)]
        roots = [r for r in self.roots + self.saved if base <= r < base + len(piece)]
        rec += [record(R_ROOT, r) for r in roots[:8]] or [record(R_ROOT, base)]
        rec += self.answers_for(words)
        # what the answers point at: SRTs, static closures, cost centres
        more = [struct.unpack("<Q", self.srts[w])[0] for w in words if w in self.srts]
        for k, v in list(self.one.items()):
            if k[0] == CMD_CCS and len(v) >= 16:
                more += [k[1], struct.unpack_from("<Q", v, 8)[0]]
        rec += self.answers_for(more)
        rec += [record(R_CCS_MAIN, m) for m in self.ccs_main]
        return self.header() + b"".join(rec)

    def stack_seeds(self):
        """heap_stack inputs: the stack area and sp of each STACK closure."""
        hdr = 24 if self.prof_mode else 8
        for start, flags, data in self.blocks:
            for off in range(0, len(data) - hdr - 16, 8):
                if self.info_type(struct.unpack_from("<Q", data, off)[0]) != STACK:
                    continue
                (words,) = struct.unpack_from("<I", data, off + hdr)
                (sp,) = struct.unpack_from("<Q", data, off + hdr + 8)
                area_lo = start + off + hdr + 16
                if not area_lo <= sp <= area_lo + 8 * words:
                    continue
                area = data[off + hdr + 16:off + hdr + 16 + 8 * words]
                # keep the frames from sp: the area is cut to 4 KiB from there
                skip = max(0, (sp - area_lo) - 4096 + 256) // 8 * 8
                area = area[skip:skip + 4096]
                sp_word = (sp - area_lo - skip) // 8
                if sp_word > 255:
                    continue
                frames = [struct.unpack_from("<Q", area, i)[0] for i in range(0, len(area) - 7, 8)]
                yield (self.header() + bytes([sp_word]) + struct.pack("<H", len(area)) + area +
                       b"".join(self.answers_for(frames)))


BIG_FRAME = []  # made already


def wire_seeds(rec):
    """wire_decoders: pick byte then body; wire_frames: calls then frames."""
    def pick(base, count=0):
        return next(p for p in range(256) if p % 13 == base and p >> 4 == count)

    decoder = {CMD_VERSION: 0, CMD_ROOTS: 1, CMD_SAVED: 1, CMD_CLOSURES: 2, CMD_INFO: 2,
               CMD_SRT: 3, CMD_STACK_BITMAP: 4, CMD_FUN_BITMAP: 4, CMD_CON_DESC: 5,
               CMD_SOURCE_INFO: 7, CMD_ALL_BLOCKS: 8, CMD_BLOCK: 8, CMD_CCS: 9, CMD_CC: 10,
               CMD_INDEX: 11, CMD_CCS_MAIN: 12}
    call = {CMD_VERSION: 0, CMD_ROOTS: 3, CMD_SAVED: 4, CMD_CLOSURES: 5, CMD_INFO: 6,
            CMD_SRT: 7, CMD_STACK_BITMAP: 8, CMD_FUN_BITMAP: 9, CMD_CON_DESC: 10,
            CMD_SOURCE_INFO: 11, CMD_ALL_BLOCKS: 12, CMD_BLOCK: 13, CMD_CCS: 14, CMD_CC: 15,
            CMD_CCS_MAIN: 17}
    per_cmd = {}
    for cmd, payload, status, body in rec.answers:
        if cmd == CMD_ALL_BLOCKS and status == hs.OKAY and not BIG_FRAME:
            # one frame past the 64 KiB a read takes straight into the body:
            # whole, and cut short (the peer hangs up inside it); once
            BIG_FRAME.append(cmd)
            start, flags, data = parse_blocks(body)[0]
            big = bytes([0, call[CMD_ALL_BLOCKS]]) + hs.frame(
                hs.OKAY, hs.raw_block(start, data.ljust(70000, b"\0"), flags))
            put("wire_frames", big)
            put("wire_frames", big[:300])
        if cmd == CMD_ALL_BLOCKS or cmd == CMD_BLOCK:
            body = b"".join(hs.raw_block(s, d[:256], f) for s, f, d in parse_blocks(body)[:2])
        if cmd in (CMD_CLOSURES, CMD_INFO):
            items = blobs(body)[:3]
            body = b"".join(struct.pack(">I", len(b)) + b[:512] for b in items)
            count = len(items)
        elif cmd == CMD_SRT:
            count = min(len(body) // 8, 3)
            body = body[:8 * count]
        else:
            count = 0
        seen = per_cmd.setdefault(cmd, 0)
        if seen >= 4 or status != hs.OKAY:
            continue
        per_cmd[cmd] = seen + 1
        if cmd in decoder:
            put("wire_decoders", bytes([pick(decoder[cmd], count)]) + body[:2048])
        if cmd in call and (cmd not in (CMD_CLOSURES, CMD_INFO) or count == 3) and \
                (cmd != CMD_SRT or count == 3):
            which = call[cmd] + (18 * 2 if cmd in (CMD_CLOSURES, CMD_INFO) else 0)
            # the answer in one frame, and split into continued frames
            put("wire_frames", bytes([0, which]) + hs.frame(status, body))
            half = len(body) // 2
            put("wire_frames", bytes([1, which, 0]) + hs.frame(hs.CONTINUES, body[:half]) +
                hs.frame(status, body[half:]) + hs.frame(hs.OKAY, rec.answers[0][3]))


def small_snapshot(src, dst):
    """The snapshot rewritten with 512-byte pages (VACUUM keeps the ids)."""
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    db.execute("PRAGMA page_size = 512")
    db.execute("VACUUM")
    db.close()


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    shutil.rmtree(CORPUS, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix="heapscope-corpus-")
    try:
        for n, args in enumerate((["--closures", "150"],
                                  ["--closures", "150", "--profiled", "--eras", "3"],
                                  ["--closures", "80", "--strings", "--no-ipe"])):
            snap = os.path.join(tmp, "s%d.heapscope" % n)
            rec = Recording(build, args).run(snap)
            wire_seeds(rec)
            heap = Heap(rec)
            starts = set(heap.roots + heap.saved)
            windows = [(start, flags, data, lo) for start, flags, data in heap.blocks
                       for lo in range(0, len(data), WINDOW)
                       if any(start + lo <= r < start + lo + WINDOW for r in starts)]
            for i, w in enumerate(windows[::max(1, len(windows) // WINDOWS)][:WINDOWS]):
                seed = heap.window_seed(*w)
                put("heap_closures", seed)
                if i < WINDOWS // 2:
                    put("snapshot_rows", seed)
            for seed in list(heap.stack_seeds())[:4]:
                put("heap_stack", seed)
            gd = os.path.join(tmp, "g%d.snapshot" % n)
            Recording(build, args, trim=True).run(snap, gd)
            small = os.path.join(tmp, "small%d.heapscope" % n)
            small_snapshot(snap, small)
            for path, target in ((small, "snapshot_file"), (gd, "ghcdebug_snapshot")):
                with open(path, "rb") as f:
                    put(target, f.read())
    finally:
        shutil.rmtree(tmp)
    for name in sorted(os.listdir(os.path.join(ROOT, "themes"))):
        with open(os.path.join(ROOT, "themes", name), "rb") as f:
            put("theme_files", f.read())
    texts = [(0, "3"), (0, "2-5"), (0, " 0x10 - "), (0, "-7"), (0, "-"), (1, "-42"),
             (1, "0xdeadbeef"), (1, "512M"), (1, "1.5 GiB"), (1, "constructor"),
             (1, "THUNK_SELECTOR"), (2, "main:Main.Leak"), (2, "ghc-prim:GHC.Types.:"),
             (3, "tcp:[::1]:2000"), (3, "unix:/tmp/x.sock"), (3, "tcp:localhost:80")]
    # filters: pick byte 4 + 6 * kind (kind < 11), bit 7 inverts
    for kind, text in ((0, "^Le(a|b)k$"), (1, "Leak"), (2, "sat_s1Ab_info"),
                       (3, "0x4200001000"), (4, "0x403000"), (5, "THUNK_2_0"), (6, "64"),
                       (7, "2-"), (8, "12"), (9, "type=THUNK"), (10, "ab\\x00c")):
        texts.append((4 + 6 * kind, text))
    for p, text in texts:
        put("user_text", bytes([p]) + text.encode())
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(CORPUS) for f in fs)
    print("corpus: %d KB" % (total // 1024))


if __name__ == "__main__":
    main()
