/* A batch command's hold on its TARGET, over the session module: open a
 * snapshot file, or connect, pause and read the heap (through the cache),
 * and give the debuggee back as it was found, also when a signal or a
 * silent debuggee cut the command short; what the command prints about it
 * on stderr. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/interrupt.h"
#include "output.h"

/* How long the command ran and how long its debuggee was paused: what
 * --json reports (cli_json_timing). Milliseconds of CLOCK_MONOTONIC. */
static struct {
    double start;   /* the command's start */
    double paused;  /* the current pause began (ours, or found so); 0: none */
    double before;  /* ms of the pauses that ended (diff has two sides) */
} timing;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void cli_timing_start(void) { timing.start = now_ms(); }

/* The current pause ended (our RESUME was answered). */
static void resumed(void) {
    if (timing.paused)
        timing.before += now_ms() - timing.paused;
    timing.paused = 0;
}

void cli_json_timing(FILE *out) {
    double now = now_ms();
    double paused = timing.before + (timing.paused ? now - timing.paused : 0);
    fprintf(out, "\"paused_ms\": %.0f, \"elapsed_ms\": %.0f", paused,
            timing.start ? now - timing.start : 0);
}

bool cli_keep_going(void) { return hs_interrupt_signal() == 0 && !cli_output_failed(); }

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

/* A cancel (a signal, the output gone) finishes the answer in flight first:
 * the debuggee's stub must not write to a closed connection. Said once it
 * lasts a second, then kept up to date on a terminal. */
static void show_drain(void *ctx, uint32_t cmd, uint64_t bytes, uint64_t frame_left,
                       int draining_ms) {
    (void)ctx, (void)frame_left;
    static int last = -1; /* one line a drain when stderr is not a terminal */
    bool tty = isatty(STDERR_FILENO);
    bool new_drain = last < 0 || draining_ms < last;
    last = draining_ms;
    if (!tty && !new_drain)
        return;
    fprintf(cli_status_line(), "%sheapscope: finishing the answer in flight to %s (%.1f MiB so far, %d s)%s",
            tty ? "\r\033[K" : "", wire_command_name(cmd), (double)bytes / (1024.0 * 1024.0),
            draining_ms / 1000, tty ? "" : "; the debuggee must not be left writing to a closed connection\n");
}

/* Recording's progress on a terminal; a quit signal or a failed output
 * cancels it (it leaves no file), also where no request is waited on. */
static bool show_record_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    bool tty = !ctx || *(const bool *)ctx;
    if (tty && total)
        fprintf(cli_status_line(), "\r\033[Kheapscope: recording the pause: %s %.0f%%", phase,
                100.0 * (double)done / (double)total);
    else if (tty)
        fprintf(cli_status_line(), "\r\033[Kheapscope: recording the pause: %s", phase);
    return cli_keep_going();
}

static void warn(void *ctx, const char *message) {
    (void)ctx;
    fprintf(stderr, "heapscope: %s\n", message);
}

void cli_session_options(const cli_common *common, session_options *o) {
    *o = (session_options){.timeout_ms = common->timeout_ms,
                           .max_answer = common->max_answer,
                           .max_answer_option = "--max-answer",
                           .wait = wait_unless_signalled,
                           .drain = show_drain,
                           .warn = warn};
    if (isatty(STDERR_FILENO)) {
        o->progress = show_fetch_progress;
        o->record_progress = show_record_progress;
    }
}

/* The cache is a help, never a condition: one warning when it cannot be
 * used, and the command goes on without it. */
static cache *open_cache(const cli_common *common) {
    cache *c = NULL;
    if (common->no_cache)
        return NULL;
    cache_options o = {.max_bytes = common->cache_size};
    hs_error err = {0};
    if (cache_open(&o, &c, &err) != HS_OK)
        fprintf(stderr, "heapscope: going on without the cache: %s\n", err.message);
    return c;
}

/* A debuggee: pause (saying so when it was paused already), then read. */
static hs_status pause_and_read(cli_session *s, hs_error *err) {
    resumed(); /* an earlier side's that stays paused counts until now */
    timing.paused = now_ms();
    if (session_pause(s->sess, err) != HS_OK)
        return hs_fail_context(err, "cannot pause %s", s->target);
    if (!session_ours(s->sess))
        fprintf(stderr, "heapscope: %s was already paused; it is left paused\n", s->target);
    hs_status st = session_read_heap(s->sess, err);
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", cli_status_line());
    if (st != HS_OK)
        return hs_fail_context(err, "reading the heap of %s", s->target);
    return HS_OK;
}

static bool show_completing(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    if (*(const bool *)ctx && total)
        fprintf(cli_status_line(), "\r\033[Kheapscope: completing the pause: %s %.0f%%", phase,
                100.0 * (double)done / (double)total);
    else if (*(const bool *)ctx)
        fprintf(cli_status_line(), "\r\033[Kheapscope: completing the pause: %s: %llu", phase,
                (unsigned long long)done);
    return cli_keep_going();
}

/* The debuggee runs again as soon as heapscope needs no more answers from
 * it: the pause is completed (session_complete) and resumed before the
 * command computes what it prints. --leave-paused, and a debuggee found
 * paused, stay paused. */
static hs_status let_go(cli_session *s, const cli_common *common, bool whole, hs_error *err) {
    if (!session_ours(s->sess) || common->leave_paused)
        return HS_OK;
    bool tty = isatty(STDERR_FILENO);
    hs_status st = session_complete(s->sess, whole, show_completing, &tty, err);
    if (tty)
        fputs("\r\033[K", cli_status_line());
    if (st != HS_OK)
        return st;
    hs_error resume_err;
    if (session_let_go(s->sess, &resume_err) == HS_OK) {
        resumed();
        hs_interrupt_note("the debuggee was resumed");
    } /* else the pause is complete all the same: the command goes on, and
         leaving (session_give_back) tries again and says what came of it */
    return HS_OK;
}

hs_status cli_session_open(const char *target, const cli_common *common, cli_session *s,
                           hs_error *err) {
    return cli_session_open_prepared(target, common, NULL, NULL, true, s, err);
}

hs_status cli_session_open_prepared(const char *target, const cli_common *common,
                                    cli_prepare_fn prepare, void *prepare_ctx, bool whole,
                                    cli_session *s, hs_error *err) {
    *s = (cli_session){.target = target};
    session_options o;
    cli_session_options(common, &o);
    bool live = !session_target_is_file(target);
    if (live || session_target_is_ghcdebug_file(target)) /* kept converted in the cache */
        o.cache = s->cache = open_cache(common);
    hs_status st = session_open(target, &o, &s->sess, err);
    if (st == HS_OK && live) {
        st = pause_and_read(s, err);
    } else if (st == HS_OK) {
        st = session_read_heap(s->sess, err);
        if (isatty(STDERR_FILENO) && s->cache) /* the conversion's progress */
            fputs("\r\033[K", cli_status_line());
    }
    if (st == HS_OK) {
        s->heap = session_heap(s->sess);
        if (prepare) /* what the command asks beyond the reachable heap, while paused */
            st = prepare(prepare_ctx, s->heap, err);
        if (st == HS_OK && live)
            st = let_go(s, common, whole, err);
        if (st == HS_OK)
            return HS_OK;
    }
    hs_error ignored;
    cli_session_close(s, common, &ignored);
    return st;
}

/* --record: the pause into the cache, in full: from the completed copy
 * once the debuggee runs again (session_let_go), else while paused. */
static hs_status record(cli_session *s, hs_error *err) {
    if (!s->cache)
        return hs_fail(err, HS_ERR_USAGE, "--record needs the cache, which is off");
    bool tty = isatty(STDERR_FILENO);
    store_write_options opts = {.progress = show_record_progress, .progress_ctx = &tty};
    hs_status st = session_record(s->sess, &opts, err);
    if (tty)
        fputs("\r\033[K", cli_status_line());
    return st;
}

hs_status cli_session_close(cli_session *s, const cli_common *common, hs_error *err) {
    hs_status st = HS_OK;
    bool live = session_caps_of(s->sess).live;
    if (common->record && s->sess && live && s->heap && cli_keep_going())
        st = record(s, err);
    s->heap = NULL;
    hs_error resume_err;
    if (session_ours(s->sess) && !common->leave_paused) {
        if (session_give_back(s->sess, &resume_err) == HS_OK) {
            resumed();
        } else {
            hs_fail_context(&resume_err, "the debuggee may be left paused");
            s->resume_err = resume_err;
            if (st == HS_OK) {
                st = resume_err.status;
                *err = resume_err;
            }
        }
    } else if (session_ours(s->sess)) {
        hs_interrupt_note("the debuggee is left paused (--leave-paused)");
    } else if (live && session_paused(s->sess)) {
        hs_interrupt_note("the debuggee is left paused, as it was found");
    }
    hs_error flush_err = {0}; /* after the resume: a busy cache must not keep it paused */
    if (session_flush_cache(s->sess, &flush_err) != HS_OK)
        fprintf(stderr, "heapscope: %s\n", flush_err.message);
    session_close(s->sess);
    s->sess = NULL;
    cache_close(s->cache);
    s->cache = NULL;
    return st;
}

/* Whether a failed resume leaves a debuggee paused: one that stays silent
 * or answers with a refusal is still there; one that closed, reset or
 * refused the connection has most likely exited, leaving nothing paused. */
static bool still_there(hs_status resume) {
    switch (resume) {
    case HS_ERR_TIMEOUT: case HS_ERR_BAD_COMMAND: case HS_ERR_NO_RESUME:
    case HS_ERR_PROTOCOL: case HS_ERR_TOO_LARGE:
        return true;
    default:
        return false;
    }
}

int cli_session_open_failed(const cli_session *s, const hs_error *err) {
    int rc = cli_report(err);
    if (still_there(s->resume_err.status) && !hs_interrupt_signal())
        cli_report(&s->resume_err); /* "the debuggee may be left paused: ..." */
    return rc;
}

int cli_session_finish(cli_session *s, const cli_common *common, hs_status st,
                       const hs_error *err) {
    hs_error close_err = {0};
    hs_status cst = cli_session_close(s, common, &close_err);
    if (st == HS_OK)
        return cst == HS_OK ? 0 : cli_report(&close_err);
    int rc = cli_report(err);
    if (still_there(s->resume_err.status) && !hs_interrupt_signal()) /* else the exit line says */
        cli_report(&s->resume_err); /* "the debuggee may be left paused: ..." */
    return rc;
}
