/* One request and its answer: sending, reading with an idle timeout, and
 * reassembling the response frames (wire-protocol.md §5.3).
 *
 * No request is abandoned: the official stub aborts the program when it
 * writes to a closed connection or reads from a reset one, so a cancel (the
 * wait or progress function says stop) or an answer over its cap does not
 * close the connection. The call finishes sending the request and reads
 * the answer to its end, discarding it, and then fails: the stream is in
 * step and the connection stays usable. Only an idle timeout (the
 * debuggee stopped sending) or bytes that are no answer at all close it.
 *
 * Small frames are parsed out of the connection's read buffer; the bodies
 * of big frames are read straight into the answer buffer. The answer buffer
 * grows only as bytes arrive, so an announced length costs nothing until the
 * peer actually sends the bytes. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "heapscope/size.h"
#include "wire_internal.h"

/* State of one call. */
typedef struct call {
    wire_conn *c;
    uint32_t cmd;
    const char *name; /* command name for messages */
    int timeout_ms;   /* longest silence; < 0 = none */
    uint64_t answer_bytes;
    uint64_t frame_left; /* bytes the frame being read still announces */
    uint64_t next_progress;
    int64_t started;   /* CLOCK_MONOTONIC ms */
    int64_t next_tick; /* when the wait function is due */
    hs_error *err;
    /* Draining: the call failed (cancelled, answer too large) but reads the
     * rest of the answer, discarding it, before it says so. */
    bool draining;
    hs_status failure; /* what the call returns once drained */
    char why[HS_ERROR_MESSAGE_MAX]; /* and its message, kept for a timeout meanwhile */
    int64_t drain_started;
    int64_t next_note; /* when the drain function is due */
} call;

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the wait function when it is due: HS_ERR_CANCELLED when it says
 * stop. */
static void drain_note(call *x);

/* From now on the answer is read to its end and dropped; the call then
 * fails with st (err already says why). */
static hs_status start_draining(call *x, hs_status st) {
    if (!x->draining) {
        x->draining = true;
        x->failure = st;
        snprintf(x->why, sizeof x->why, "%s", x->err->message);
        x->drain_started = now_ms();
        x->next_note = x->drain_started + WIRE_DRAIN_NOTE_MS;
    }
    return HS_OK;
}

static hs_status tick(call *x) {
    if (x->draining) {
        drain_note(x);
        return HS_OK;
    }
    wire_wait_fn fn = x->c->opts.wait;
    if (!fn)
        return HS_OK;
    int64_t t = now_ms();
    if (t < x->next_tick)
        return HS_OK;
    x->next_tick = t + WIRE_WAIT_SLICE_MS;
    int64_t waited = t - x->started;
    if (fn(x->c->opts.wait_ctx, x->cmd, waited > INT32_MAX ? INT32_MAX : (int)waited))
        return HS_OK;
    return start_draining(x, hs_fail(x->err, HS_ERR_CANCELLED, "%s: cancelled", x->name));
}

/* A drain that lasts says so, every slice once it took WIRE_DRAIN_NOTE_MS. */
static void drain_note(call *x) {
    wire_drain_fn fn = x->c->opts.drain;
    int64_t t = now_ms();
    if (!fn || t < x->next_note)
        return;
    x->next_note = t + WIRE_WAIT_SLICE_MS;
    int64_t took = t - x->drain_started;
    fn(x->c->opts.drain_ctx, x->cmd, x->answer_bytes, x->frame_left,
       took > INT32_MAX ? INT32_MAX : (int)took);
}

/* The idle timeout: an answer that stopped half-way says so, and how much
 * its frame still announced (a peer claiming 4 GiB and then falling silent
 * is not a debuggee that never answered). */
static hs_status timed_out(call *x, short events) {
    /* The connection is closed with the request unanswered: a stub that
     * answers later writes to a closed socket, and the official one aborts
     * the program when it does. */
    const char *harm = "closing the connection may kill the program";
    const char *was = x->draining ? " (finishing a cancelled answer)" : "";
    if (x->draining && x->failure != HS_ERR_CANCELLED) {
        /* what was wrong first (an answer over the cap), then the timeout */
        char first[HS_ERROR_MESSAGE_MAX];
        snprintf(first, sizeof first, "%s", x->why);
        return hs_fail(x->err, HS_ERR_TIMEOUT,
                       "%s; finishing it, nothing more came from %s for %d ms after %llu bytes: %s",
                       first, x->c->target, x->timeout_ms, (unsigned long long)x->answer_bytes,
                       harm);
    }
    if (events == POLLOUT || x->answer_bytes == 0)
        return hs_fail(x->err, HS_ERR_TIMEOUT, "%s: no %s from %s for %d ms%s; %s", x->name,
                       events == POLLOUT ? "progress sending the request" : "answer",
                       x->c->target, x->timeout_ms, was, harm);
    char left[64] = "";
    if (x->frame_left > 0)
        snprintf(left, sizeof left, ", %llu short of its frame",
                 (unsigned long long)x->frame_left);
    return hs_fail(x->err, HS_ERR_TIMEOUT,
                   "%s: the answer stopped after %llu bytes%s: nothing more from %s for %d ms%s; "
                   "the debuggee stopped answering mid-answer, and %s",
                   x->name, (unsigned long long)x->answer_bytes, left, x->c->target,
                   x->timeout_ms, was, harm);
}

/* Waits until the socket is ready for `events`, in slices that run the
 * wait function. HS_OK when ready (errors and hang-ups count as ready: the
 * next recv/send reports them). */
static hs_status wait_ready(call *x, short events) {
    int64_t deadline = x->timeout_ms < 0 ? -1 : now_ms() + x->timeout_ms;
    for (;;) {
        hs_status st = tick(x);
        if (st != HS_OK)
            return st;
        int64_t t = now_ms();
        if (deadline >= 0 && t >= deadline)
            return timed_out(x, events);
        int64_t left = deadline < 0 ? -1 : deadline - t;
        if (x->c->opts.wait) {
            int64_t slice = x->next_tick - t;
            slice = slice < 1 ? 1 : slice;
            left = left < 0 || slice < left ? slice : left;
        }
        struct pollfd p = {.fd = x->c->fd, .events = events};
        int r = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (r > 0)
            return HS_OK;
        if (r < 0 && errno != EINTR)
            return hs_fail(x->err, HS_ERR_IO, "%s: waiting for %s: %s", x->name, x->c->target,
                           strerror(errno));
        if (r < 0)
            x->next_tick = 0; /* a signal: let the wait function see it now */
    }
}

static hs_status send_all(call *x, const uint8_t *p, size_t len) {
    while (len > 0) {
        ssize_t n = send(x->c->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            x->c->stats.bytes_sent += (uint64_t)n;
            continue;
        }
        int e = errno;
        if (n < 0 && e == EINTR)
            continue;
        if (n < 0 && (e == EAGAIN || e == EWOULDBLOCK)) {
            hs_status st = wait_ready(x, POLLOUT);
            if (st != HS_OK)
                return st;
            continue;
        }
        if (n < 0 && (e == EPIPE || e == ECONNRESET))
            return hs_fail(x->err, HS_ERR_CLOSED,
                           "%s: the debuggee closed the connection before the request was sent",
                           x->name);
        return hs_fail(x->err, HS_ERR_IO, "%s: sending to %s: %s", x->name, x->c->target,
                       n < 0 ? strerror(e) : "no progress");
    }
    return HS_OK;
}

/* Receives at least one byte into dst (at most cap), waiting at most the
 * idle timeout, and runs the progress callback at each 4 MiB mark. */
static hs_status recv_some(call *x, uint8_t *dst, size_t cap, size_t *got) {
    for (;;) {
        ssize_t n = recv(x->c->fd, dst, cap, 0);
        if (n > 0) {
            *got = (size_t)n;
            x->c->stats.bytes_received += (uint64_t)n;
            x->answer_bytes += (uint64_t)n;
            if (x->answer_bytes >= x->next_progress) {
                x->next_progress = (x->answer_bytes / WIRE_PROGRESS_STEP + 1) * WIRE_PROGRESS_STEP;
                wire_progress_fn fn = x->c->opts.progress;
                if (fn && !x->draining && !fn(x->c->opts.progress_ctx, x->cmd, x->answer_bytes))
                    start_draining(x, hs_fail(x->err, HS_ERR_CANCELLED, "%s: cancelled",
                                              x->name));
            }
            return tick(x); /* a long answer that keeps coming is waited on too */
        }
        if (n == 0)
            return x->answer_bytes == 0
                       ? hs_fail(x->err, HS_ERR_CLOSED,
                                 "%s: the debuggee closed the connection without answering",
                                 x->name)
                       : hs_fail(x->err, HS_ERR_CLOSED,
                                 "%s: the debuggee closed the connection mid-answer (after %llu "
                                 "bytes)",
                                 x->name, (unsigned long long)x->answer_bytes);
        int e = errno;
        if (e == EINTR)
            continue;
        if (e == EAGAIN || e == EWOULDBLOCK) {
            hs_status st = wait_ready(x, POLLIN);
            if (st != HS_OK)
                return st;
            continue;
        }
        if (e == ECONNRESET)
            return hs_fail(x->err, HS_ERR_CLOSED, "%s: the debuggee reset the connection",
                           x->name);
        return hs_fail(x->err, HS_ERR_IO, "%s: reading from %s: %s", x->name, x->c->target,
                       strerror(e));
    }
}

/* Makes at least `need` unread bytes available in the read buffer
 * (need <= WIRE_RBUF_SIZE). */
static hs_status fill_rbuf(call *x, size_t need) {
    wire_conn *c = x->c;
    size_t avail = c->rlen - c->rpos;
    if (c->rpos > 0) {
        /* At most a partial frame header (< 6 bytes) is left: cheap to move. */
        memmove(c->rbuf, c->rbuf + c->rpos, avail);
        c->rpos = 0;
        c->rlen = avail;
    }
    while (c->rlen < need) {
        size_t got = 0;
        hs_status st = recv_some(x, c->rbuf + c->rlen, WIRE_RBUF_SIZE - c->rlen, &got);
        if (st != HS_OK)
            return st;
        c->rlen += got;
    }
    return HS_OK;
}

/* Appends the next n bytes of the stream to body, or drops them when body
 * is NULL. */
static hs_status read_body(call *x, wire_buf *body, uint32_t n) {
    wire_conn *c = x->c;
    if (x->draining)
        body = NULL; /* a cancelled answer is read, not kept */
    size_t rem = n;
    for (x->frame_left = rem; rem > 0; x->frame_left = rem) {
        size_t avail = c->rlen - c->rpos;
        if (avail > 0) {
            size_t k = avail < rem ? avail : rem;
            if (body && !x->draining) {
                hs_status st = wire_buf_reserve(body, k, x->err);
                if (st != HS_OK)
                    return st;
                memcpy(body->data + body->len, c->rbuf + c->rpos, k);
                body->len += k;
            }
            c->rpos += k;
            rem -= k;
            continue;
        }
        if (x->draining)
            body = NULL; /* cancelled meanwhile */
        if (body && rem >= WIRE_DIRECT_READ_MIN) {
            /* Straight into the body, reserving at most one step ahead of
             * what has arrived. */
            size_t step = rem < WIRE_BODY_STEP ? rem : WIRE_BODY_STEP;
            hs_status st = wire_buf_reserve(body, step, x->err);
            if (st != HS_OK)
                return st;
            /* At most one step per recv, so progress sees every 4 MiB. */
            size_t room = body->cap - body->len, got = 0;
            size_t want = room < step ? room : step;
            st = recv_some(x, body->data + body->len, want, &got);
            if (st != HS_OK)
                return st;
            body->len += got;
            rem -= got;
            continue;
        }
        hs_status st = fill_rbuf(x, 1);
        if (st != HS_OK)
            return st;
    }
    x->frame_left = 0;
    return HS_OK;
}

/* Why the stub answered BAD_COMMAND: the stub refuses the cost-centre
 * tree (INDEX_TABLE, CCS_MAIN) of a program that is not profiled, but a
 * stub may also lack the cost-centre requests altogether, which VERSION
 * then gives away by saying the program is profiled. */
static const char *bad_command_reason(const call *x) {
    bool tree = x->cmd == WIRE_CMD_INDEX_TABLE || x->cmd == WIRE_CMD_CCS_MAIN;
    bool cost = tree || x->cmd == WIRE_CMD_CCS || x->cmd == WIRE_CMD_CC;
    if (cost && x->c->have_version && x->c->prof_mode != WIRE_PROF_NONE)
        return "the debuggee's stub does not answer cost-centre requests (though the program "
               "is profiled, as its VERSION answer says)";
    if (tree && x->c->have_version)
        return "the debuggee has no cost centres (not a profiled program)";
    if (tree)
        return "the debuggee has no cost centres (not a profiled program, or a stub that does "
               "not answer cost-centre requests)";
    return "the debuggee refused the request (an address it does not know, or a command it "
           "does not support)";
}

static hs_status stub_error(call *x, uint16_t code) {
    const char *what = "";
    switch (code) {
    case WIRE_STATUS_BAD_COMMAND: what = bad_command_reason(x); break;
    case WIRE_STATUS_ALREADY_PAUSED: what = "the debuggee is already paused"; break;
    case WIRE_STATUS_NOT_PAUSED: what = "the debuggee is not paused"; break;
    case WIRE_STATUS_NO_RESUME:
        what = "the debuggee refuses to resume: it paused itself after a POLL";
        break;
    case WIRE_STATUS_BAD_STACK: what = "the debuggee cannot describe this stack frame"; break;
    }
    return hs_fail(x->err, wire_status_to_hs(code), "%s: %s", x->name, what);
}

/* An answer that would pass `limit` with its next frame. When the limit is
 * the connection's cap (not the command's own), say how to raise it. */
static hs_status too_large(call *x, uint64_t limit, size_t got, uint32_t frame) {
    char cap[32], size[32];
    hs_size_format(limit, cap, sizeof cap);
    hs_size_format(got + (uint64_t)frame, size, sizeof size);
    const char *option = x->c->opts.max_response_option;
    if (limit != x->c->opts.max_response || !option)
        return hs_fail(x->err, HS_ERR_TOO_LARGE,
                       "%s: the answer would exceed %llu bytes (a frame of %u bytes after %zu)",
                       x->name, (unsigned long long)limit, frame, got);
    return hs_fail(x->err, HS_ERR_TOO_LARGE,
                   "%s: the answer is at least %s, over the %s cap on one answer (%s SIZE "
                   "raises it)",
                   x->name, size, cap, option);
}

static hs_status reassemble(call *x, uint64_t limit, wire_buf *body) {
    wire_conn *c = x->c;
    for (;;) {
        if (c->rlen - c->rpos < WIRE_FRAME_HEADER) {
            hs_status st = fill_rbuf(x, WIRE_FRAME_HEADER);
            if (st != HS_OK)
                return st;
        }
        const uint8_t *h = c->rbuf + c->rpos;
        uint32_t blen = hs_load_be32(h);
        uint16_t status = hs_load_be16(h + 4);
        c->rpos += WIRE_FRAME_HEADER;
        c->stats.frames_received++;

        if (status == WIRE_STATUS_OKAY || status == WIRE_STATUS_OKAY_CONTINUES) {
            /* Checked before reading: the length is the peer's claim. */
            if (!x->draining && blen > limit - body->len) {
                /* Over the connection's cap (what the user may raise): a
                 * real answer, finished and dropped. Over a command's own
                 * cap: no answer a stub sends; the connection goes. */
                hs_status st = too_large(x, limit, body->len, blen);
                if (limit != x->c->opts.max_response)
                    return st;
                start_draining(x, st);
            }
            hs_status st = read_body(x, body, blen);
            if (st != HS_OK)
                return st;
            if (status == WIRE_STATUS_OKAY)
                return x->draining ? x->failure : HS_OK;
        } else if (wire_status_to_hs(status) != HS_ERR_PROTOCOL) {
            /* The stub's error frames are empty; anything bigger than the
             * answer could be is not one. */
            if (blen > limit)
                return hs_fail(x->err, HS_ERR_TOO_LARGE,
                               "%s: an error frame of %u bytes exceeds the %llu-byte limit",
                               x->name, blen, (unsigned long long)limit);
            hs_status st = read_body(x, NULL, blen);
            if (st != HS_OK)
                return st;
            body->len = 0;
            return x->draining ? x->failure : stub_error(x, status);
        } else {
            return hs_fail(x->err, HS_ERR_PROTOCOL, "%s: unknown status 0x%04x in an answer",
                           x->name, status);
        }
    }
}

hs_status wire_call_encoded(wire_conn *c, uint32_t cmd, uint64_t max_body, wire_buf *body,
                            int timeout_ms, hs_error *err) {
    hs_error local;
    if (!err)
        err = &local;
    call x = {.c = c, .cmd = cmd, .name = wire_command_name(cmd), .timeout_ms = timeout_ms,
              .next_progress = WIRE_PROGRESS_STEP, .started = now_ms(), .err = err};
    x.next_tick = x.started; /* due when the call first waits: a signal that came
                                while we were busy is seen at the next request */
    body->len = 0;
    if (c->fd < 0)
        return hs_fail(err, HS_ERR_CLOSED, "%s: the connection to %s is closed (%s)", x.name,
                       c->target, c->dead_reason);
    hs_status st = wire_await_accept(c, err);
    if (st != HS_OK)
        return st;
    uint64_t limit = max_body < c->opts.max_response ? max_body : c->opts.max_response;
    if (limit > SIZE_MAX)
        limit = SIZE_MAX;
    c->stats.requests++;
    st = send_all(&x, c->req.data, c->req.len);
    if (st == HS_OK)
        st = reassemble(&x, limit, body);
    bool drained = x.draining && st == x.failure; /* the answer was read to its end */
    if (x.draining) {
        body->len = 0;
        c->stats.drained++;
        if (drained)
            c->stats.drain_ms += (uint64_t)(now_ms() - x.drain_started);
    }
    if (st != HS_OK && !wire_is_stub_status(st) && !drained) {
        body->len = 0;
        /* The stream position is unknown now: no later answer can be trusted. */
        wire_conn_kill(c, err->message);
    }
    return st;
}

hs_status wire_call(wire_conn *c, uint32_t cmd, const uint8_t *payload, size_t payload_len,
                    uint64_t max_body, wire_buf *body, hs_error *err) {
    if (!c || !body)
        return hs_fail(err, HS_ERR_USAGE, "wire_call: no connection or body buffer");
    c->req.len = 0;
    hs_status st = wire_encode_request(&c->req, cmd, payload, payload_len, err);
    if (st != HS_OK)
        return st;
    return wire_call_encoded(c, cmd, max_body, body, c->opts.io_timeout_ms, err);
}
