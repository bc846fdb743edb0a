/* A debuggee's steps: connect, learn whether it is paused, pause, read its
 * heap through the cache, come back after a cut-short request, and give it
 * back on the way out. */
#include <stdio.h>

#include "heapscope/interrupt.h"
#include "session_internal.h"

/* Longest wait for the RESUME when leaving: a debuggee that does not
 * answer it must not keep heapscope from exiting for the whole timeout
 * (nor past a --timeout shorter than this). */
#define LEAVE_TIMEOUT_MS 5000

hs_status session_live_open(session *s, hs_error *err) {
    wire_options o;
    wire_options_with_timeout(&o, s->opts.timeout_ms);
    if (s->opts.max_answer)
        o.max_response = s->opts.max_answer;
    o.max_response_option = s->opts.max_answer_option;
    o.progress = s->opts.progress;
    o.progress_ctx = s->opts.progress_ctx;
    o.wait = s->opts.wait;
    o.wait_ctx = s->opts.wait_ctx;
    o.drain = s->opts.drain;
    o.drain_ctx = s->opts.drain_ctx;
    hs_status st = wire_connect(s->target, &o, &s->conn, err);
    if (st != HS_OK)
        return st;
    /* first a quick VERSION: is anyone serving us? (a stub busy with another
     * client accepts the connection but answers nothing) */
    st = wire_hello(s->conn, &s->version, err);
    s->have_version = st == HS_OK;
    return st;
}

/* Asks whether the debuggee is paused; a heap read while it was is kept
 * only if it still is. */
static hs_status learn_pause_state(session *s, hs_error *err) {
    hs_status st = wire_query_paused(s->conn, &s->paused, err);
    if (st == HS_ERR_BAD_COMMAND)
        s->paused = false; /* a stub that cannot say: take it as running, as PAUSE will tell */
    else if (st != HS_OK)
        return st;
    if (!s->paused) {
        session_record_abandon(s); /* the pause it records is over */
        s->ours = false;
        s->heap = NULL; /* s->kept stays for the next pause */
    }
    return HS_OK;
}

hs_status session_live_probe(session *s, hs_error *err) { return learn_pause_state(s, err); }

hs_status session_live_pause(session *s, hs_error *err) {
    if (s->paused)
        return HS_OK;
    s->heap = NULL; /* a completed copy (session_let_go) is of the pause before */
    s->gate.offline = false;
    s->ours = true; /* from the moment PAUSE is sent */
    bool already = false;
    hs_status st = wire_pause(s->conn, &already, err);
    if (st == HS_OK) {
        s->paused = true;
        s->ours = !already;
    }
    return st;
}

/* The first heap of the connection reads through the cache when there is
 * one: made here, right before heap_open, whose VERSION proves the
 * fingerprinted process is still the one at the other end. */
heap_source session_live_source(session *s) {
    if (s->linked) /* an earlier first read that failed */
        cache_link_close(&s->link);
    s->linked = true;
    heap_source linked = cache_link_live(s->opts.cache, s->conn, heap_source_live(s->conn),
                                         &s->link);
    return session_gate_source(&s->gate, linked);
}

hs_status session_revive(session *s, hs_error *err) {
    if (!s->conn)
        return HS_OK; /* a file is never cut short */
    /* an open connection is in step (a cancel drains its answer): closing
     * it would only cost a connection */
    hs_status st = wire_conn_is_open(s->conn) ? HS_OK : wire_reconnect(s->conn, err);
    return st == HS_OK ? learn_pause_state(s, err) : st;
}

hs_status session_give_back(session *s, hs_error *err) {
    if (!s->conn || !s->ours)
        return HS_OK;
    wire_conn_set_wait(s->conn, NULL, NULL);
    int t = s->opts.timeout_ms;
    wire_conn_set_io_timeout(s->conn, t > 0 && t < LEAVE_TIMEOUT_MS ? t : LEAVE_TIMEOUT_MS);
    session_record_abandon(s);
    hs_status st = wire_resume_anyway(s->conn, err);
    if (st == HS_OK) {
        s->heap = NULL;
        s->paused = s->ours = false;
        hs_interrupt_note("the debuggee was resumed");
    } else {
        char note[HS_ERROR_MESSAGE_MAX + 64];
        snprintf(note, sizeof note, "the debuggee may be left paused: %s", err->message);
        hs_interrupt_note(note);
    }
    return st;
}

hs_status session_complete(session *s, bool whole, store_progress_fn progress,
                           void *progress_ctx, hs_error *err) {
    if (!s->conn || !s->paused || s->gate.offline)
        return HS_OK;
    if (!s->heap)
        return hs_fail(err, HS_ERR_USAGE, "no pause to complete: the heap was not read");
    return store_complete_pause(s->heap, whole, progress, progress_ctx, err);
}

hs_status session_let_go(session *s, hs_error *err) {
    if (!s->conn || !s->ours)
        return HS_OK; /* a file; a debuggee found paused stays paused */
    if (!s->heap)
        return hs_fail(err, HS_ERR_USAGE, "no pause to let go: the heap was not read");
    session_record_abandon(s); /* it reads through the gate about to shut */
    /* shut whatever the RESUME's answer: after a cut-short one the
     * debuggee may run, and the stream is no use anyway */
    s->gate.offline = true;
    hs_status st = wire_resume(s->conn, err);
    if (st == HS_OK)
        s->paused = s->ours = false;
    return st;
}
