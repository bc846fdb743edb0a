/* Recording the current pause beside a UI: a cache_recorder the session
 * owns, so that nothing the session does can pull the heap from under it.
 * Reading a new pause, resuming, finding the debuggee no longer paused and
 * closing abandon a recording still under way; a UI that wants it whole
 * waits for it first (session_record_finish without abandon). */
#include <stdio.h>

#include "session_internal.h"

hs_status session_record_beside(session *s, hs_error *err) {
    if (!s->opts.cache)
        return hs_fail(err, HS_ERR_USAGE, "recording needs the cache, which is off");
    if (!s->conn || !s->heap)
        return hs_fail(err, HS_ERR_USAGE, "no pause of a debuggee to record");
    session_record_abandon(s);
    hs_error ignored; /* what the heap read so far: the recording reads it from the cache */
    session_flush_cache(s, &ignored);
    cache_link none = {0};
    const cache_link *l = s->linked ? &s->link : &none;
    cache_recorder_config cfg = {.cache = s->opts.cache, .program = l->program,
                                 .moving = l->moving, .n_moving = l->n_moving, .h = s->heap};
    cfg.src = l->source ? cache_source_heap(l->source) : heap_source_live(s->conn);
    cache_link_meta(l, s->target, &cfg.meta);
    snprintf(cfg.exe, sizeof cfg.exe, "%s", l->exe);
    return cache_recorder_start(&cfg, &s->rec, err);
}

cache_recorder *session_recorder(const session *s) { return s ? s->rec : NULL; }

hs_status session_record_finish(session *s, bool abandon, hs_error *err) {
    if (!s || !s->rec)
        return HS_OK;
    hs_status st = cache_recorder_finish(s->rec, abandon, NULL, err);
    s->rec = NULL;
    return st;
}

void session_record_abandon(session *s) {
    hs_error ignored;
    session_record_finish(s, true, &ignored);
}
