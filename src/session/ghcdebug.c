/* A ghc-debug snapshot as TARGET: its converted copy in the cache when the
 * file is unchanged since it was made (cache_find_converted), else the
 * file itself, read whole, then kept converted for the next time once its
 * heap is read. Without a cache the file is read each time. */
#include <limits.h>
#include <stdio.h>

#include "session_internal.h"

bool session_target_is_ghcdebug_file(const char *target) {
    return session_target_is_file(target) && !store_is_snapshot_file(target) &&
           ghcdebug_file_sniff_path(target);
}

hs_status session_ghcdebug_open(session *s, hs_error *err) {
    char copy[PATH_MAX];
    if (cache_find_converted(s->opts.cache, s->target, copy, sizeof copy) &&
        store_snapshot_open(copy, &s->snapshot, err) == HS_OK) {
        s->version = store_snapshot_meta(s->snapshot)->version;
        return HS_OK;
    }
    hs_status st = ghcdebug_file_open(s->target, &s->ghcdebug, err);
    if (st == HS_OK) {
        s->version = *ghcdebug_file_version(s->ghcdebug);
        s->convert = s->opts.cache != NULL;
    }
    return st;
}

void session_ghcdebug_convert(session *s) {
    s->convert = false;
    store_write_options opts = {.progress = s->opts.record_progress,
                                .progress_ctx = s->opts.record_progress_ctx};
    hs_error err = {0};
    if (cache_record_converted(s->opts.cache, s->heap, s->target, &opts, &err) == HS_OK ||
        !s->opts.warn)
        return;
    char msg[HS_ERROR_MESSAGE_MAX + 64];
    snprintf(msg, sizeof msg, "the ghc-debug snapshot is not kept converted: %s", err.message);
    s->opts.warn(s->opts.warn_ctx, msg);
}
