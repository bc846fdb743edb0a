/* A ghc-debug snapshot as TARGET: its converted copy in the cache when
 * the file is unchanged since it was made (cache_find_converted), else the
 * file itself, read whole, then kept converted for the next time. Without
 * the cache (--no-cache, or it cannot be opened) the file is read each
 * time. */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/ghcdebug_file.h"
#include "session_internal.h"

/* Records the pause just read from the file; a failure only warns. */
static void convert(cli_session *s, const char *target) {
    bool tty = isatty(STDERR_FILENO);
    store_write_options opts = {.progress = tty ? cli_show_record_progress : NULL};
    hs_error err = {0};
    hs_status st = cache_record_converted(s->cache, s->heap, target, &opts, &err);
    if (tty)
        fputs("\r\033[K", stderr);
    if (st != HS_OK)
        fprintf(stderr, "heapscope: the ghc-debug snapshot is not kept converted: %s\n",
                err.message);
}

hs_status cli_session_open_ghcdebug(const char *target, const cli_common *common,
                                    cli_session *s, hs_error *err) {
    char copy[PATH_MAX];
    cli_session_open_cache(s, common);
    if (cache_find_converted(s->cache, target, copy, sizeof copy) &&
        cli_session_open_store(copy, s, err) == HS_OK)
        return HS_OK;
    hs_status st = ghcdebug_file_open(target, &s->ghcdebug, err);
    if (st == HS_OK)
        st = heap_open(ghcdebug_file_source(s->ghcdebug), &s->heap, err);
    if (st != HS_OK) { /* the caller closes no session that did not open */
        heap_free(s->heap);
        s->heap = NULL;
        ghcdebug_file_free(s->ghcdebug);
        s->ghcdebug = NULL;
        cache_close(s->cache);
        s->cache = NULL;
        return st;
    }
    if (s->cache)
        convert(s, target);
    return HS_OK;
}
