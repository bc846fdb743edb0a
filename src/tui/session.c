/* The connection to one debuggee: connect (and find out whether it is
 * paused already), pause and read the heap, resume, and leave.
 *
 * Every wait on the debuggee runs on_wire_wait: the footer's spinner moves,
 * and Esc, Ctrl-C or a quit signal cancel. A cancelled request leaves the
 * stream unusable, so the session connects again in place
 * (tui_session_revive) and asks whether the debuggee is paused: while it
 * is, the heap read before stays valid. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "heapscope/interrupt.h"
#include "heapscope/store.h"
#include "term.h"

/* Longest wait for the RESUME when leaving after a signal. */
#define LEAVE_TIMEOUT_MS 5000

static bool on_wire_progress(void *ctx, uint32_t cmd, uint64_t bytes) {
    (void)ctx;
    const char *what = cmd == WIRE_CMD_ALL_BLOCKS ? "reading the heap" : "waiting for the debuggee";
    return tui_progress(what, bytes >> 20, "MiB");
}

static bool on_wire_wait(void *ctx, uint32_t cmd, int waited_ms) {
    (void)ctx;
    if (waited_ms < WIRE_WAIT_SLICE_MS) /* a quick answer shows nothing and leaves */
        return !hs_interrupt_signal();   /* typed-ahead keys alone */
    char what[80];
    snprintf(what, sizeof what, "waiting for the debuggee (%s)",
             cmd ? wire_command_name(cmd) : "connecting");
    return tui_progress(what, (uint64_t)waited_ms / 1000, "s");
}

/* Asks whether the debuggee is paused; a heap read while it was is kept
 * only if it still is. */
static hs_status learn_pause_state(tui_session *s, hs_error *err) {
    hs_status st = wire_query_paused(s->conn, &s->paused, err);
    if (st == HS_ERR_BAD_COMMAND)
        s->paused = false; /* a stub that cannot say: take it as running, as PAUSE will tell */
    else if (st != HS_OK)
        return st;
    if (!s->paused) {
        s->ours = false;
        s->heap = NULL; /* s->kept stays for the next pause */
    }
    return HS_OK;
}

/* A snapshot file: its version is in the file, its heap read on pause. */
static hs_status open_file(tui_session *s, hs_error *err) {
    hs_status st = store_snapshot_open(s->target, &s->snapshot, err);
    if (st == HS_OK) {
        s->version = store_snapshot_meta(s->snapshot)->version;
        s->have_version = true;
    }
    return st;
}

hs_status tui_session_connect(tui_session *s, const char *target, int timeout_ms, hs_error *err) {
    tui_session_close(s, false);
    snprintf(s->target, sizeof s->target, "%s", target);
    struct stat sb;
    if (stat(target, &sb) == 0 && !S_ISSOCK(sb.st_mode))
        return open_file(s, err);
    wire_options o;
    wire_options_with_timeout(&o, timeout_ms);
    if (s->max_answer)
        o.max_response = s->max_answer;
    o.max_response_option = "--max-answer";
    o.progress = on_wire_progress;
    o.wait = on_wire_wait;
    hs_status st = wire_connect(s->target, &o, &s->conn, err);
    if (st == HS_OK)
        st = wire_hello(s->conn, &s->version, err);
    if (st == HS_OK) {
        s->have_version = true;
        st = learn_pause_state(s, err);
    }
    if (st != HS_OK)
        tui_session_close(s, false);
    return st;
}

hs_status tui_session_revive(tui_session *s, hs_error *err) {
    if (!s->conn)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    tui_progress_begin("connecting again");
    hs_status st = wire_reconnect(s->conn, err);
    return st == HS_OK ? learn_pause_state(s, err) : st;
}

/* After a failed pause: connect again if the stream died, and resume a
 * debuggee this pause stopped, so that Esc leaves it as it was. */
static void undo_pause(tui_session *s) {
    hs_error ignored;
    if (!wire_conn_is_open(s->conn) && tui_session_revive(s, &ignored) != HS_OK)
        return;
    if (s->ours) {
        tui_progress_begin("resuming the debuggee");
        tui_session_resume(s, &ignored);
    }
}

hs_status tui_session_pause(tui_session *s, hs_error *err) {
    if (s->snapshot) {
        hs_status st = s->kept ? HS_OK
                               : heap_open(store_snapshot_source(s->snapshot), &s->kept, err);
        s->heap = s->kept;
        return st;
    }
    if (!s->conn)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    hs_status st = HS_OK;
    if (!s->paused) {
        tui_progress_begin("pausing the debuggee");
        s->ours = true; /* from the moment PAUSE is sent */
        bool already;
        st = wire_pause(s->conn, &already, err);
        if (st == HS_OK) {
            s->paused = true;
            s->ours = !already;
        }
    }
    if (st == HS_OK) {
        tui_progress_begin("reading the heap");
        if (s->kept) { /* an earlier pause: only what the program changed is read again */
            st = heap_refresh(s->kept, err);
            if (st == HS_OK)
                s->heap = s->kept;
        } else {
            st = heap_open(heap_source_live(s->conn), &s->heap, err);
            s->kept = st == HS_OK ? s->heap : NULL;
        }
    }
    if (st == HS_OK) {
        s->version = *heap_version(s->heap);
        s->have_version = true;
        return HS_OK;
    }
    s->heap = NULL;
    bool cancelled = st == HS_ERR_CANCELLED || tui_progress_cancelled();
    undo_pause(s);
    return cancelled ? hs_fail(err, HS_ERR_CANCELLED, "cancelled") : st;
}

hs_status tui_session_resume(tui_session *s, hs_error *err) {
    if (s->snapshot)
        return hs_fail(err, HS_ERR_USAGE, "a snapshot file cannot be resumed");
    s->heap = NULL; /* s->kept stays for the next pause */
    if (!s->conn)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    hs_status st = wire_resume(s->conn, err);
    if (st == HS_OK)
        s->paused = s->ours = false;
    return st;
}

/* Resumes a debuggee we paused on the way out after a signal: over a new
 * connection if the stream died, not cancelled by that signal (a second
 * one kills heapscope), and at most LEAVE_TIMEOUT_MS. */
static void give_back(tui_session *s) {
    wire_conn_set_wait(s->conn, NULL, NULL);
    wire_conn_set_io_timeout(s->conn, LEAVE_TIMEOUT_MS);
    hs_error err = {0};
    if (wire_resume_anyway(s->conn, &err) == HS_OK) {
        s->paused = s->ours = false;
        hs_interrupt_note("the debuggee was resumed");
        return;
    }
    char note[HS_ERROR_MESSAGE_MAX + 64];
    snprintf(note, sizeof note, "the debuggee may be left paused: %s", err.message);
    hs_interrupt_note(note);
}

void tui_session_close(tui_session *s, bool give_ours_back) {
    heap_free(s->kept ? s->kept : s->heap);
    s->heap = s->kept = NULL;
    if (s->conn && s->ours && give_ours_back)
        give_back(s);
    else if (s->conn && s->paused)
        hs_interrupt_note(s->ours ? "the debuggee is left paused"
                                  : "the debuggee is left paused, as it was found");
    wire_close(s->conn);
    s->conn = NULL;
    store_snapshot_close(s->snapshot);
    s->snapshot = NULL;
    s->have_version = s->paused = s->ours = false;
}

bool tui_session_lost(const tui_session *s) {
    return !s->snapshot && (!s->conn || !wire_conn_is_open(s->conn));
}

int tui_session_prof_mode(const tui_session *s) {
    return s->have_version ? s->version.prof_mode : 0;
}
