/* Opening a TARGET and the steps every kind shares; a debuggee's own steps
 * are in live.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "session_internal.h"

#define SNAPSHOT_NO_PAUSE "a snapshot file holds one pause: it cannot be paused again"
#define SNAPSHOT_NO_RESUME "a snapshot file cannot be resumed"

bool session_target_is_file(const char *target) {
    struct stat sb;
    return stat(target, &sb) == 0 && !S_ISSOCK(sb.st_mode);
}

/* A ghc-debug snapshot (ghcdebug.c) or, by default, a heapscope snapshot,
 * whose open says what is wrong with other files. */
static hs_status open_file(session *s, hs_error *err) {
    hs_status st;
    if (session_target_is_ghcdebug_file(s->target)) {
        st = session_ghcdebug_open(s, err);
    } else {
        st = store_snapshot_open(s->target, &s->snapshot, err);
        if (st == HS_OK)
            s->version = store_snapshot_meta(s->snapshot)->version;
    }
    s->have_version = st == HS_OK;
    return st;
}

static hs_status new_session(const char *target, session **out, hs_error *err) {
    session *s = calloc(1, sizeof *s);
    if (s)
        s->target = strdup(target); /* a snapshot's path may be long */
    if (!s || !s->target) {
        free(s);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    *out = s;
    return HS_OK;
}

hs_status session_open_source(const char *name, heap_source src, session **out, hs_error *err) {
    session *s;
    *out = NULL;
    hs_status st = new_session(name, &s, err);
    if (st != HS_OK)
        return st;
    s->given = src;
    s->paused = true;
    st = session_read_heap(s, err);
    if (st != HS_OK) {
        session_close(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

hs_status session_open(const char *target, const session_options *opts, session **out,
                       hs_error *err) {
    session *s;
    *out = NULL;
    hs_status st = new_session(target, &s, err);
    if (st != HS_OK)
        return st;
    if (opts)
        s->opts = *opts;
    st = session_target_is_file(target) ? open_file(s, err) : session_live_open(s, err);
    if (st != HS_OK) {
        session_close(s);
        return st;
    }
    *out = s;
    return HS_OK;
}

void session_close(session *s) {
    if (!s)
        return;
    session_record_abandon(s); /* it reads the heap */
    heap_free(s->kept ? s->kept : s->heap);
    if (s->linked)
        cache_link_close(&s->link);
    wire_close(s->conn);
    session_gate_free(&s->gate);
    store_snapshot_close(s->snapshot);
    ghcdebug_file_free(s->ghcdebug);
    free(s->target);
    free(s);
}

session_caps session_caps_of(const session *s) {
    if (s && !s->conn)
        return (session_caps){false, false, false, SNAPSHOT_NO_PAUSE, SNAPSHOT_NO_RESUME};
    return (session_caps){true, true, true, NULL, NULL};
}

const char *session_target(const session *s) { return s ? s->target : ""; }

const store_meta *session_snapshot_meta(const session *s) {
    return s && s->snapshot ? store_snapshot_meta(s->snapshot) : NULL;
}

const cache_link *session_cache_link(const session *s) {
    return s && s->linked ? &s->link : NULL;
}

hs_status session_version(session *s, const wire_version **out, hs_error *err) {
    if (!s->have_version) {
        hs_status st = wire_get_version(s->conn, &s->version, err);
        if (st != HS_OK)
            return st;
        s->have_version = true;
    }
    *out = &s->version;
    return HS_OK;
}

const wire_version *session_known_version(const session *s) {
    return s && s->have_version ? &s->version : NULL;
}

int session_prof_mode(const session *s) {
    return s && s->have_version ? s->version.prof_mode : 0;
}

hs_status session_probe(session *s, hs_error *err) {
    return s->conn ? session_live_probe(s, err) : HS_OK;
}

hs_status session_pause(session *s, hs_error *err) {
    if (s->conn)
        return session_live_pause(s, err);
    s->paused = true; /* a file's pause is shown from now on */
    return HS_OK;
}

static heap_source file_source(session *s) {
    if (s->snapshot)
        return store_snapshot_source(s->snapshot);
    return s->ghcdebug ? ghcdebug_file_source(s->ghcdebug) : s->given;
}

hs_status session_read_heap(session *s, hs_error *err) {
    session_record_abandon(s); /* it reads the heap about to change */
    s->heap = NULL;
    hs_status st;
    if (s->kept && !s->conn) { /* a file's pause does not change */
        st = HS_OK;
    } else if (s->kept) { /* an earlier pause: only what the program changed is read again */
        st = heap_refresh(s->kept, err);
    } else {
        st = heap_open(s->conn ? session_live_source(s) : file_source(s), &s->kept, err);
    }
    if (st != HS_OK)
        return st;
    s->heap = s->kept;
    s->version = *heap_version(s->heap);
    s->have_version = true;
    if (s->convert)
        session_ghcdebug_convert(s);
    return HS_OK;
}

heap *session_heap(const session *s) { return s ? s->heap : NULL; }

void session_drop_heap(session *s) { s->heap = NULL; }

hs_status session_resume(session *s, hs_error *err) {
    if (!s->conn)
        return hs_fail(err, HS_ERR_USAGE, SNAPSHOT_NO_RESUME);
    session_record_abandon(s); /* the pause it records ends */
    s->heap = NULL; /* s->kept stays for the next pause */
    /* not cancellable: a cancelled RESUME is still carried out by the stub
     * (its answer is read and dropped), so a cancel would leave us believing
     * a running program paused (Esc during a heap read undoes the pause
     * with this RESUME, the key still pending); --timeout bounds it */
    wire_conn_set_wait(s->conn, NULL, NULL);
    hs_status st = wire_resume(s->conn, err);
    wire_conn_set_wait(s->conn, s->opts.wait, s->opts.wait_ctx);
    if (st == HS_OK)
        s->paused = s->ours = false;
    return st;
}

bool session_paused(const session *s) { return s && s->paused; }
bool session_ours(const session *s) { return s && s->ours; }
bool session_lost(const session *s) {
    return !s || (s->conn && !wire_conn_is_open(s->conn));
}

hs_status session_record(session *s, const store_write_options *opts, hs_error *err) {
    if (!s->opts.cache)
        return hs_fail(err, HS_ERR_USAGE, "recording needs the cache, which is off");
    if (!s->heap)
        return hs_fail(err, HS_ERR_USAGE, "no pause to record");
    store_meta meta;
    const cache_link *l = session_cache_link(s);
    cache_link none = {0};
    cache_link_meta(l ? l : &none, s->target, &meta);
    return cache_record(s->opts.cache, s->heap, &meta, l ? l->exe : NULL, opts, NULL, err);
}

hs_status session_flush_cache(session *s, hs_error *err) {
    return s && s->linked ? cache_link_flush(&s->link, err) : HS_OK;
}
