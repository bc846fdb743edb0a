/* A ghc-debug snapshot as TARGET. The first open reads the whole file and
 * keeps a converted copy as a recorded pause in the cache (heapscope's
 * own snapshot format: it opens lazily, and the picker and `heapscope
 * cache list` show it); later opens of the same file use that copy. The
 * copy is known by the file's real path and modification time. Without
 * the cache (--no-cache, or it cannot be opened) the file is read each
 * time. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/ghcdebug_file.h"
#include "heapscope/store.h"
#include "session_internal.h"

/* The recorded pause converted from this file, opened; false when none. */
static bool open_converted(cli_session *s, const char *real, int64_t mtime) {
    cache_pause_list l = {0};
    hs_error err = {0};
    bool opened = false;
    if (cache_list_pauses(s->cache, &l, &err) != HS_OK)
        return false;
    for (size_t i = 0; i < l.count && !opened; i++) {
        const cache_pause *p = &l.items[i];
        if (p->pid != 0 || p->paused_at != mtime || strcmp(p->target, real) != 0)
            continue;
        opened = cli_session_open_store(p->file, s, &err) == HS_OK;
    }
    cache_pause_list_free(&l);
    return opened;
}

/* Records the pause just read from the file; a failure only warns. */
static void convert(cli_session *s, const char *real, int64_t mtime) {
    store_meta meta = {.paused_at = mtime};
    snprintf(meta.target, sizeof meta.target, "%s", real);
    const char *base = strrchr(real, '/');
    snprintf(meta.program, sizeof meta.program, "ghc-debug:%s", base ? base + 1 : real);
    bool tty = isatty(STDERR_FILENO);
    store_write_options opts = {.progress = tty ? cli_show_record_progress : NULL};
    hs_error err = {0};
    hs_status st = cache_record(s->cache, s->heap, &meta, NULL, &opts, NULL, &err);
    if (tty)
        fputs("\r\033[K", stderr);
    if (st != HS_OK)
        fprintf(stderr, "heapscope: the ghc-debug snapshot is not kept converted: %s\n",
                err.message);
}

hs_status cli_session_open_ghcdebug(const char *target, const cli_common *common,
                                    cli_session *s, hs_error *err) {
    char real[PATH_MAX];
    struct stat sb;
    bool known = realpath(target, real) && stat(real, &sb) == 0 &&
                 strlen(real) < sizeof ((store_meta *)0)->target;
    if (known) {
        cli_session_open_cache(s, common);
        if (s->cache && open_converted(s, real, (int64_t)sb.st_mtime))
            return HS_OK;
    }
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
    if (known && s->cache)
        convert(s, real, (int64_t)sb.st_mtime);
    return HS_OK;
}
