/* Internals shared by the files of src/wire/ (not a public header). */
#ifndef HEAPSCOPE_WIRE_INTERNAL_H
#define HEAPSCOPE_WIRE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"

/* Frame headers and small frames are read through this buffer so that they
 * do not cost one syscall each; big frame bodies bypass it. */
#define WIRE_RBUF_SIZE ((size_t)256 * 1024)
/* A frame remainder at least this big is read straight into the body. */
#define WIRE_DIRECT_READ_MIN ((size_t)64 * 1024)
/* Room reserved ahead of the bytes received so far while reading a body:
 * a peer announcing gigabytes and then closing costs at most this much. */
#define WIRE_BODY_STEP ((size_t)1024 * 1024)
/* The progress callback runs whenever the answer grows past a multiple of
 * this many bytes. */
#define WIRE_PROGRESS_STEP ((uint64_t)4 * 1024 * 1024)
#define WIRE_FRAME_HEADER ((size_t)6)

struct wire_conn {
    int fd; /* -1 once closed */
    char *target;
    wire_options opts;
    wire_stats stats;
    uint8_t *rbuf; /* WIRE_RBUF_SIZE bytes; [rpos, rlen) not yet consumed */
    size_t rpos;
    size_t rlen;
    wire_buf req;     /* the request being sent */
    wire_buf scratch; /* body of answers the typed calls decode in place */
    char dead_reason[HS_ERROR_MESSAGE_MAX];
    bool reconnectable; /* opened from its target by wire_connect */
    bool accept_pending; /* a Unix connection not yet seen accepted: write nothing */
    bool accepted;       /* a Unix connection seen accepted by the stub (busy.c) */
    bool have_version;  /* a VERSION answer came: prof_mode is the debuggee's */
    uint8_t prof_mode;
};

/* Makes room for `extra` more bytes after b->len, growing geometrically
 * (x1.5, at least 256 bytes) so repeated appends stay linear. */
hs_status wire_buf_reserve(wire_buf *b, size_t extra, hs_error *err);

/* Sends c->req (an encoded request for cmd) and reassembles the answer
 * into body. timeout_ms is the longest silence accepted (< 0: no limit). */
hs_status wire_call_encoded(wire_conn *c, uint32_t cmd, uint64_t max_body, wire_buf *body,
                            int timeout_ms, hs_error *err);

/* Closes the socket after an error that leaves the stream unusable; later
 * calls fail fast quoting `reason`. */
void wire_conn_kill(wire_conn *c, const char *reason);

/* busy.c: whether a connected Unix socket still waits in the listener's
 * queue (sock_diag), and who holds the stub meanwhile. */
typedef enum wire_queue_state {
    WIRE_QUEUE_ACCEPTED,
    WIRE_QUEUE_QUEUED,
    WIRE_QUEUE_UNKNOWN /* no sock_diag here */
} wire_queue_state;
wire_queue_state wire_unix_queue_state(int fd);
/* Before the first request of a Unix connection: waits (at most 2 s, or the
 * connect timeout; the wait function may cancel) until the stub accepted
 * it. One still queued is closed with nothing written: HS_ERR_CONNECT, the
 * debuggee is busy. HS_OK at once when already known, or unknowable. */
hs_status wire_await_accept(wire_conn *c, hs_error *err);
/* "process PID, COMM" of the client the stub serves instead of fd's, or ""
 * when it cannot be told. */
void wire_unix_busy_with(int fd, char *out, size_t len);

/* True for the hs_status values that mirror a stub error status: the answer
 * was complete, so the connection is still in step. */
static inline bool wire_is_stub_status(hs_status st) {
    return st == HS_ERR_BAD_COMMAND || st == HS_ERR_ALREADY_PAUSED || st == HS_ERR_NOT_PAUSED ||
           st == HS_ERR_NO_RESUME || st == HS_ERR_BAD_STACK;
}

/* A bounds-checked cursor over a response body. */
typedef struct wire_reader {
    const uint8_t *p;
    size_t left;
} wire_reader;

static inline bool wire_rd_has(const wire_reader *r, size_t n) { return r->left >= n; }

static inline const uint8_t *wire_rd_take(wire_reader *r, size_t n) {
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

#endif
