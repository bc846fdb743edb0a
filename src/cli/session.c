#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/ghcdebug_file.h"
#include "heapscope/store.h"
#include "output.h"

static bool show_fetch_progress(void *ctx, uint32_t cmd, uint64_t bytes) {
    (void)ctx;
    if (cmd == WIRE_CMD_ALL_BLOCKS)
        fprintf(stderr, "\rheapscope: fetching heap blocks: %.1f MB", (double)bytes / 1e6);
    return true;
}

static void connect_options(const cli_common *common, wire_options *opts) {
    wire_options_with_timeout(opts, common->timeout_ms);
    if (isatty(STDERR_FILENO))
        opts->progress = show_fetch_progress;
}

hs_status cli_open_paused(const char *target, const cli_common *common, wire_conn **out,
                          bool *was_paused, hs_error *err) {
    wire_options opts;
    connect_options(common, &opts);
    hs_status st = wire_connect(target, &opts, out, err);
    if (st != HS_OK)
        return st;
    st = wire_pause(*out, was_paused, err);
    if (st != HS_OK) {
        hs_fail_context(err, "cannot pause %s", target);
        wire_close(*out);
        *out = NULL;
    }
    return st;
}

bool cli_target_is_file(const char *target) {
    struct stat sb;
    return stat(target, &sb) == 0 && !S_ISSOCK(sb.st_mode);
}

/* A ghc-debug snapshot: read whole, answered from memory. */
static hs_status open_ghcdebug(const char *target, cli_session *s, hs_error *err) {
    hs_status st = ghcdebug_file_open(target, &s->ghcdebug, err);
    if (st == HS_OK)
        st = heap_open(ghcdebug_file_source(s->ghcdebug), &s->heap, err);
    if (st != HS_OK) {
        ghcdebug_file_free(s->ghcdebug);
        s->ghcdebug = NULL;
    }
    return st;
}

/* A snapshot file: nothing to pause or resume. */
static hs_status open_file(const char *target, cli_session *s, hs_error *err) {
    if (!store_is_snapshot_file(target) && ghcdebug_file_sniff_path(target))
        return open_ghcdebug(target, s, err);
    hs_status st = store_snapshot_open(target, &s->snapshot, err);
    if (st == HS_OK)
        st = heap_open(store_snapshot_source(s->snapshot), &s->heap, err);
    if (st != HS_OK) {
        store_snapshot_close(s->snapshot);
        s->snapshot = NULL;
    }
    return st;
}

static bool show_record_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    (void)ctx;
    if (total)
        fprintf(stderr, "\r\033[Kheapscope: recording the pause: %s %.0f%%", phase,
                100.0 * (double)done / (double)total);
    else
        fprintf(stderr, "\r\033[Kheapscope: recording the pause: %s", phase);
    return true;
}

/* The cache is a help, never a condition: one warning when it cannot be
 * used, and the command goes on without it. */
static void open_cache(cli_session *s, const cli_common *common) {
    if (common->no_cache)
        return;
    cache_options o = {.max_bytes = common->cache_size};
    hs_error err = {0};
    if (cache_open(&o, &s->cache, &err) != HS_OK)
        fprintf(stderr, "heapscope: going on without the cache: %s\n", err.message);
}

static void close_cache(cli_session *s) {
    hs_error err = {0};
    if (cache_link_flush(&s->link, &err) != HS_OK)
        fprintf(stderr, "heapscope: %s\n", err.message);
    cache_link_close(&s->link);
    cache_close(s->cache);
    s->cache = NULL;
}

hs_status cli_session_open(const char *target, const cli_common *common, cli_session *s,
                           hs_error *err) {
    *s = (cli_session){.target = target};
    if (cli_target_is_file(target))
        return open_file(target, s, err);
    hs_status st = cli_open_paused(target, common, &s->conn, &s->was_paused, err);
    if (st != HS_OK)
        return st;
    open_cache(s, common);
    heap_source src = cache_link_live(s->cache, s->conn, heap_source_live(s->conn), &s->link);
    st = heap_open(src, &s->heap, err);
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    if (st != HS_OK) {
        hs_fail_context(err, "reading the heap of %s", target);
        hs_error ignored;
        cli_session_close(s, common, &ignored);
    }
    return st;
}

/* --record: the pause into the cache, in full, while it is still paused. */
static hs_status record(cli_session *s, hs_error *err) {
    if (!s->cache)
        return hs_fail(err, HS_ERR_USAGE, "--record needs the cache, which is off");
    store_meta meta;
    cache_link_meta(&s->link, s->target, &meta);
    bool tty = isatty(STDERR_FILENO);
    store_write_options opts = {.progress = tty ? show_record_progress : NULL};
    hs_status st = cache_record(s->cache, s->heap, &meta, s->link.exe, &opts, NULL, err);
    if (tty)
        fputs("\r\033[K", stderr);
    return st;
}

hs_status cli_session_close(cli_session *s, const cli_common *common, hs_error *err) {
    hs_status st = HS_OK;
    if (common->record && s->conn && s->heap)
        st = record(s, err);
    heap_free(s->heap);
    s->heap = NULL;
    store_snapshot_close(s->snapshot);
    s->snapshot = NULL;
    ghcdebug_file_free(s->ghcdebug);
    s->ghcdebug = NULL;
    hs_error resume_err;
    if (s->conn && wire_conn_is_open(s->conn) && !s->was_paused && !common->leave_paused &&
        wire_resume(s->conn, &resume_err) != HS_OK && st == HS_OK) {
        st = resume_err.status;
        *err = resume_err;
    }
    wire_close(s->conn);
    s->conn = NULL;
    close_cache(s); /* after the resume: a busy cache must not keep it paused */
    return st;
}
