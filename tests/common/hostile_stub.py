"""A hostile debuggee for whole-binary tests: a man in the middle between
heapscope and a real debuggee (usually heapscope-debuggee) that the test
tells, request by request, what to answer instead.

    with HostileStub(upstream_socket, rule) as stub:
        run("census", stub.socket)

rule(req) is called for every request heapscope sends; it returns
  None                  forward the request and pass the answer on unchanged,
  (status, body)        answer with this status and body (one frame),
  Raw(bytes)            write these bytes as they are (hand-made frames),
  SILENT                answer nothing (the request is still recorded),
  HANG_UP               close heapscope's connection.
req.forward() sends the request upstream and returns its (status, body),
so a rule can alter a real answer. Every request is recorded in
stub.requests as (cmd, payload). Wire format: wire-protocol.md §4, §5."""
import os
import select
import socket
import struct
import tempfile
import threading

VERSION, PAUSE, RESUME, ROOTS, CLOSURES, INFO_TABLES, STACK_BITMAP, POLL, SAVED_OBJECTS = range(1, 10)
CON_DESC, SOURCE_INFO, ALL_BLOCKS, BLOCK, FUN_BITMAP, SRT, CCS, CC, INDEX_TABLE, CCS_MAIN = (
    11, 12, 14, 15, 16, 17, 18, 19, 20, 21)
OKAY, CONTINUES, BAD_COMMAND, ALREADY_PAUSED, NOT_PAUSED = 0x0000, 0x0001, 0x0100, 0x0101, 0x0102

SILENT = object()
HANG_UP = object()


class Raw(bytes):
    """Bytes written to heapscope exactly as given."""


def frame(status, body=b""):
    return struct.pack(">IH", len(body), status) + body


def blobs(records):
    """A CLOSURES / INFO_TABLES body: (u32 len, bytes) per record."""
    return b"".join(struct.pack(">I", len(r)) + r for r in records)


def raw_block(start, data, flags=0):
    """One RawBlock of an ALL_BLOCKS / BLOCK body (§7.13)."""
    return struct.pack("<HQ", flags, start) + struct.pack(">I", len(data)) + data


def ptr_list(payload):
    """The pointers of a CLOSURES / INFO_TABLES / SRT request."""
    (n,) = struct.unpack(">H", payload[:2])
    return list(struct.unpack("<%dQ" % n, payload[2:2 + 8 * n]))


def recv_exact(sock, n):
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(min(n - len(data), 1 << 20))
        if not chunk:
            raise EOFError("peer closed the connection")
        data += chunk
    return bytes(data)


def read_answer(sock):
    """Reassembles one answer (§5.3): (final status, body)."""
    body = bytearray()
    while True:
        length, status = struct.unpack(">IH", recv_exact(sock, 6))
        body += recv_exact(sock, length)
        if status != CONTINUES:
            return status, bytes(body)


class Request:
    def __init__(self, stub, cmd, payload, raw):
        self.stub, self.cmd, self.payload, self.raw = stub, cmd, payload, raw

    def ptrs(self):
        return ptr_list(self.payload)

    def forward(self):
        up = self.stub._upstream_conn()
        up.sendall(self.raw)
        return read_answer(up)


class HostileStub:
    def __init__(self, upstream, rule=lambda req: None):
        self.upstream, self.rule = upstream, rule
        self.requests = []
        self._dir = tempfile.TemporaryDirectory()
        self.socket = os.path.join(self._dir.name, "hostile.sock")
        self._up = None
        self._stop = False

    def __enter__(self):
        self._listener = socket.socket(socket.AF_UNIX)
        self._listener.bind(self.socket)
        self._listener.listen(1)
        self._listener.settimeout(0.1)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop = True
        self._thread.join(timeout=30)
        self._listener.close()
        if self._up:
            self._up.close()
        self._dir.cleanup()

    def commands(self):
        return [cmd for cmd, _ in self.requests]

    def _upstream_conn(self):
        if self._up is None:
            self._up = socket.socket(socket.AF_UNIX)
            self._up.connect(self.upstream)
        return self._up

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            conn.settimeout(None)
            with conn:
                try:
                    self._session(conn)
                except (EOFError, OSError):
                    pass
            # Like the stub, upstream state survives; the next client gets a
            # fresh upstream connection so no half answer is left in it.
            if self._up:
                self._up.close()
                self._up = None

    def _session(self, conn):
        while not self._stop:
            if not select.select([conn], [], [], 0.1)[0]:
                continue
            head = recv_exact(conn, 4)
            (length,) = struct.unpack(">I", head)
            rest = recv_exact(conn, length)
            (cmd,) = struct.unpack(">I", rest[:4])
            req = Request(self, cmd, rest[4:], head + rest)
            self.requests.append((cmd, req.payload))
            out = self.rule(req)
            if out is None:
                out = req.forward()
            if out is SILENT:
                continue
            if out is HANG_UP:
                return
            if isinstance(out, Raw):
                conn.sendall(out)
            else:
                status, body = out
                conn.sendall(frame(status, body))
