/* The cache's place in a session with a live debuggee: fingerprint the
 * program at the other end of the socket, find its rows, and put a caching
 * source between the connection and the heap. Nothing here fails a
 * session: without a cache or a fingerprint the live source is used as it
 * is, and why_not says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/wire.h"
#include "cache_internal.h"

static heap_source without(cache_link *l, heap_source live, const char *why) {
    snprintf(l->why_not, sizeof l->why_not, "%s", why);
    return live;
}

heap_source cache_link_live(cache *c, wire_conn *conn, heap_source live, cache_link *l) {
    *l = (cache_link){.cache = c};
    if (!c)
        return without(l, live, "the cache is off");
    cache_fingerprint fp;
    hs_error err = {0};
    pid_t pid = l->pid = wire_conn_peer_pid(conn);
    /* The request the heap sends next proves the peer is still alive, so
     * the pid was not reused by another program in between. */
    if (cache_fingerprint_pid(pid, &fp, &err) != HS_OK)
        return without(l, live, err.message);
    snprintf(l->exe, sizeof l->exe, "%s", fp.exe);
    hs_status st = cache_program(c, &fp, &l->program, &err);
    l->moving = fp.moving; /* the link keeps them, for a recording's own source */
    l->n_moving = fp.n_moving;
    fp.moving = NULL;
    cache_fingerprint_free(&fp);
    if (st == HS_OK)
        st = cache_source_new(c, l->program, live, &l->source, &err);
    if (st == HS_OK && !cache_source_set_moving(l->source, l->moving, l->n_moving))
        st = hs_fail(&err, HS_ERR_NOMEM, "out of memory");
    if (st != HS_OK) {
        cache_source_free(l->source);
        l->source = NULL;
        return without(l, live, err.message);
    }
    return cache_source_heap(l->source);
}

void cache_link_meta(const cache_link *l, const char *target, store_meta *m) {
    *m = (store_meta){.pid = l->pid, .paused_at = cache_now()};
    snprintf(m->target, sizeof m->target, "%s", target);
    /* a ghc-debug socket is named "<pid>-<program>" by the program itself:
     * the name its picker row shows */
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    char *end;
    long pid = strtol(base, &end, 10);
    if (end != base && *end == '-' && end[1] && pid > 0) {
        snprintf(m->program, sizeof m->program, "%s", end + 1);
        if (!m->pid)
            m->pid = pid;
        return;
    }
    const char *slash = strrchr(l->exe, '/');
    if (slash && slash[1]) {
        snprintf(m->program, sizeof m->program, "%s", slash + 1);
        char *deleted = strstr(m->program, " (deleted)"); /* rebuilt since it started */
        if (deleted)
            *deleted = '\0';
    }
}

hs_status cache_link_flush(cache_link *l, hs_error *err) {
    if (!l->source)
        return HS_OK;
    hs_status st = cache_source_flush(l->source, err);
    return st == HS_OK ? HS_OK : hs_fail_context(err, "keeping answers in the cache");
}

void cache_link_close(cache_link *l) {
    cache_source_free(l->source);
    free(l->moving);
    *l = (cache_link){0};
}
