/* The connection to one debuggee: connect, pause and read the heap with
 * progress and Esc to cancel, resume, disconnect. Only reading the heap may be cancelled inside a request: a
 * cancelled answer closes the connection, so the session reconnects. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "heapscope/store.h"
#include "term.h"

/* Wire progress: shown always; cancels the request only while the heap
 * is read (elsewhere Esc is left for the search to notice between levels). */
static bool io_cancellable;

static bool on_wire_progress(void *ctx, uint32_t cmd, uint64_t bytes) {
    (void)ctx;
    const char *what = cmd == WIRE_CMD_ALL_BLOCKS ? "reading the heap" : "waiting for the debuggee";
    bool go_on = tui_progress(what, bytes >> 20, "MiB");
    return go_on || !io_cancellable;
}

static hs_status open_conn(tui_session *s, int timeout_ms, hs_error *err) {
    wire_options o;
    wire_options_with_timeout(&o, timeout_ms);
    o.progress = on_wire_progress;
    return wire_connect(s->target, &o, &s->conn, err);
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
    hs_status st = open_conn(s, timeout_ms, err);
    if (st != HS_OK)
        return st;
    hs_error ignored;
    s->have_version = wire_get_version(s->conn, &s->version, &ignored) == HS_OK;
    if (!wire_conn_is_open(s->conn)) {
        *err = ignored;
        tui_session_close(s, false);
        return err->status ? err->status : HS_ERR_CLOSED;
    }
    return HS_OK;
}

hs_status tui_session_pause(tui_session *s, int timeout_ms, hs_error *err) {
    if (s->snapshot) {
        hs_status st = s->kept ? HS_OK
                               : heap_open(store_snapshot_source(s->snapshot), &s->kept, err);
        s->heap = s->kept;
        return st;
    }
    if (!s->conn)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    tui_progress_begin("pausing the debuggee");
    hs_status st = wire_pause(s->conn, &s->was_paused, err);
    if (st != HS_OK)
        return st;
    io_cancellable = true;
    tui_progress_begin("reading the heap");
    if (s->kept) { /* an earlier pause: only what the program changed is read again */
        st = heap_refresh(s->kept, err);
        if (st == HS_OK)
            s->heap = s->kept;
    } else {
        st = heap_open(heap_source_live(s->conn), &s->heap, err);
        s->kept = st == HS_OK ? s->heap : NULL;
    }
    io_cancellable = false;
    if (st == HS_OK) {
        s->version = *heap_version(s->heap);
        s->have_version = true;
        return HS_OK;
    }
    s->heap = NULL;
    if (!tui_progress_cancelled())
        return st;
    /* The cancelled answer closed the connection (and the kept heap's source
     * with it): come back, and resume unless it was paused before p, so that
     * Esc leaves the debuggee as it was. */
    heap_free(s->kept);
    s->kept = NULL;
    wire_close(s->conn);
    s->conn = NULL;
    hs_error again;
    if (open_conn(s, timeout_ms, &again) != HS_OK)
        return hs_fail(err, again.status, "pause cancelled, and reconnecting failed: %s",
                       again.message);
    if (!s->was_paused)
        wire_resume(s->conn, &again);
    return hs_fail(err, HS_ERR_USAGE, "cancelled");
}

hs_status tui_session_resume(tui_session *s, hs_error *err) {
    if (s->snapshot)
        return hs_fail(err, HS_ERR_USAGE, "a snapshot file cannot be resumed");
    s->heap = NULL; /* s->kept stays for the next pause */
    if (!s->conn)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    return wire_resume(s->conn, err);
}

void tui_session_close(tui_session *s, bool resume) {
    heap_free(s->kept ? s->kept : s->heap);
    s->heap = s->kept = NULL;
    if (s->conn && resume && wire_conn_is_open(s->conn)) {
        hs_error ignored;
        wire_resume(s->conn, &ignored);
    }
    wire_close(s->conn);
    s->conn = NULL;
    store_snapshot_close(s->snapshot);
    s->snapshot = NULL;
    s->have_version = false;
}

bool tui_session_lost(const tui_session *s) {
    return !s->snapshot && (!s->conn || !wire_conn_is_open(s->conn));
}

int tui_session_prof_mode(const tui_session *s) {
    return s->have_version ? s->version.prof_mode : 0;
}
