/* A batch command's hold on a debuggee (or a snapshot file): connect,
 * pause, read the heap, and give the debuggee back as it was found, also
 * when a signal or a silent debuggee cut the session short (the RESUME
 * then goes over a new connection: the pause survives disconnects). */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/ghcdebug_file.h"
#include "heapscope/interrupt.h"
#include "heapscope/store.h"
#include "output.h"
#include "session_internal.h"

/* Longest wait for the RESUME when leaving: a debuggee that does not
 * answer it must not keep heapscope from exiting for the whole timeout. */
#define LEAVE_TIMEOUT_MS 5000

bool cli_keep_going(void) { return hs_interrupt_signal() == 0; }

static bool wait_unless_signalled(void *ctx, uint32_t cmd, int waited_ms) {
    (void)ctx, (void)cmd, (void)waited_ms;
    return cli_keep_going();
}

static bool show_fetch_progress(void *ctx, uint32_t cmd, uint64_t bytes) {
    (void)ctx;
    if (cmd == WIRE_CMD_ALL_BLOCKS)
        fprintf(stderr, "\rheapscope: fetching heap blocks: %.1f MB", (double)bytes / 1e6);
    return true;
}

void cli_wire_options(const cli_common *common, wire_options *opts) {
    wire_options_with_timeout(opts, common->timeout_ms);
    opts->wait = wait_unless_signalled;
    if (common->max_answer)
        opts->max_response = common->max_answer;
    opts->max_response_option = "--max-answer";
    if (isatty(STDERR_FILENO))
        opts->progress = show_fetch_progress;
}

static hs_status pause_debuggee(cli_session *s, hs_error *err) {
    wire_version v; /* first a quick VERSION: is anyone serving us? */
    hs_status st = wire_hello(s->conn, &v, err);
    if (st != HS_OK)
        return st;
    s->ours = true; /* from the moment PAUSE is sent */
    st = wire_pause(s->conn, &s->was_paused, err);
    if (st != HS_OK)
        return hs_fail_context(err, "cannot pause %s", s->target);
    if (s->was_paused) {
        s->ours = false;
        fprintf(stderr, "heapscope: %s was already paused; it is left paused\n", s->target);
    }
    return HS_OK;
}

bool cli_target_is_file(const char *target) {
    struct stat sb;
    return stat(target, &sb) == 0 && !S_ISSOCK(sb.st_mode);
}

hs_status cli_session_open_store(const char *path, cli_session *s, hs_error *err) {
    hs_status st = store_snapshot_open(path, &s->snapshot, err);
    if (st == HS_OK)
        st = heap_open(store_snapshot_source(s->snapshot), &s->heap, err);
    if (st != HS_OK) {
        store_snapshot_close(s->snapshot);
        s->snapshot = NULL;
    }
    return st;
}

/* A snapshot file: nothing to pause or resume. */
static hs_status open_file(const char *target, const cli_common *common, cli_session *s,
                           hs_error *err) {
    if (!store_is_snapshot_file(target) && ghcdebug_file_sniff_path(target))
        return cli_session_open_ghcdebug(target, common, s, err);
    return cli_session_open_store(target, s, err);
}

bool cli_show_record_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
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
void cli_session_open_cache(cli_session *s, const cli_common *common) {
    if (common->no_cache || s->cache)
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
        return open_file(target, common, s, err);
    wire_options opts;
    cli_wire_options(common, &opts);
    hs_status st = wire_connect(target, &opts, &s->conn, err);
    if (st == HS_OK)
        st = pause_debuggee(s, err);
    if (st == HS_OK) {
        cli_session_open_cache(s, common);
        heap_source src = cache_link_live(s->cache, s->conn, heap_source_live(s->conn), &s->link);
        st = heap_open(src, &s->heap, err);
        if (isatty(STDERR_FILENO))
            fputs("\r\033[K", stderr);
        if (st != HS_OK)
            hs_fail_context(err, "reading the heap of %s", target);
    }
    if (st != HS_OK) {
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
    store_write_options opts = {.progress = tty ? cli_show_record_progress : NULL};
    hs_status st = cache_record(s->cache, s->heap, &meta, s->link.exe, &opts, NULL, err);
    if (tty)
        fputs("\r\033[K", stderr);
    return st;
}

/* Resumes a debuggee we paused, on the connection or a new one; the wait
 * is no longer cancelled by the signal that may have brought us here (a
 * second one kills heapscope). */
static hs_status give_back(cli_session *s, hs_error *err) {
    wire_conn_set_wait(s->conn, NULL, NULL);
    wire_conn_set_io_timeout(s->conn, LEAVE_TIMEOUT_MS);
    hs_status st = wire_resume_anyway(s->conn, err);
    if (st == HS_OK) {
        s->ours = false;
        hs_interrupt_note("the debuggee was resumed");
    } else {
        char note[HS_ERROR_MESSAGE_MAX + 64];
        snprintf(note, sizeof note, "the debuggee may be left paused: %s", err->message);
        hs_interrupt_note(note);
    }
    return st;
}

hs_status cli_session_close(cli_session *s, const cli_common *common, hs_error *err) {
    hs_status st = HS_OK;
    if (common->record && s->conn && s->heap && cli_keep_going())
        st = record(s, err);
    heap_free(s->heap);
    s->heap = NULL;
    store_snapshot_close(s->snapshot);
    s->snapshot = NULL;
    ghcdebug_file_free(s->ghcdebug);
    s->ghcdebug = NULL;
    hs_error resume_err;
    if (s->conn && s->ours && !common->leave_paused) {
        if (give_back(s, &resume_err) != HS_OK && st == HS_OK) {
            st = resume_err.status;
            *err = resume_err;
        }
    } else if (s->conn && s->ours) {
        hs_interrupt_note("the debuggee is left paused (--leave-paused)");
    } else if (s->was_paused) {
        hs_interrupt_note("the debuggee is left paused, as it was found");
    }
    wire_close(s->conn);
    s->conn = NULL;
    close_cache(s); /* after the resume: a busy cache must not keep it paused */
    return st;
}
