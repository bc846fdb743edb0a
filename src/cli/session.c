/* A batch command's hold on a debuggee: connect, pause, read the heap, and
 * give the debuggee back as it was found, also when a signal or a silent
 * debuggee cut the session short (the RESUME then goes over a new
 * connection: the pause survives disconnects). */
#include <stdio.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/interrupt.h"
#include "output.h"

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
    if (isatty(STDERR_FILENO))
        opts->progress = show_fetch_progress;
}

static hs_status pause_debuggee(cli_session *s, hs_error *err) {
    s->ours = true; /* from the moment PAUSE is sent */
    hs_status st = wire_pause(s->conn, &s->was_paused, err);
    if (st != HS_OK)
        return hs_fail_context(err, "cannot pause %s", s->target);
    if (s->was_paused) {
        s->ours = false;
        fprintf(stderr, "heapscope: %s was already paused; it is left paused\n", s->target);
    }
    return HS_OK;
}

hs_status cli_session_open(const char *target, const cli_common *common, cli_session *s,
                           hs_error *err) {
    *s = (cli_session){.target = target};
    wire_options opts;
    cli_wire_options(common, &opts);
    hs_status st = wire_connect(target, &opts, &s->conn, err);
    if (st == HS_OK)
        st = pause_debuggee(s, err);
    if (st == HS_OK) {
        st = heap_open(heap_source_live(s->conn), &s->heap, err);
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
    heap_free(s->heap);
    s->heap = NULL;
    if (s->conn && s->ours && !common->leave_paused)
        st = give_back(s, err);
    else if (s->conn && s->ours)
        hs_interrupt_note("the debuggee is left paused (--leave-paused)");
    else if (s->was_paused)
        hs_interrupt_note("the debuggee is left paused, as it was found");
    wire_close(s->conn);
    s->conn = NULL;
    return st;
}
