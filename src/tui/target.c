/* The explorer's TARGET over the session module: what the user sees while
 * heapscope connects, pauses, reads and leaves.
 *
 * Every wait on the debuggee runs on_wire_wait: the footer's spinner moves,
 * and Esc, Ctrl-C or a quit signal cancel. A cancelled request reads its
 * answer to the end first (the footer says so when that lasts), and the
 * connection stays usable. One lost to a timeout is connected again in
 * place (tui_target_revive), which asks whether the debuggee is paused:
 * while it is, the heap read before stays valid. */
#include <stdio.h>

#include <string.h>

#include "app.h"
#include "heapscope/interrupt.h"
#include "record.h"
#include "target.h"
#include "term.h"

static bool on_wire_progress(void *ctx, uint32_t cmd, uint64_t bytes) {
    (void)ctx;
    if (tui_record_answering)
        return true; /* a recording's request, between keypresses: no footer, no keys */
    if (cmd == WIRE_CMD_ALL_BLOCKS)
        return tui_progress("reading the heap", bytes >> 20, "MiB");
    return !tui_progress_poll(); /* the wait's ticks show any other long answer */
}

static bool on_wire_wait(void *ctx, uint32_t cmd, int waited_ms) {
    (void)ctx;
    if (tui_record_answering == TUI_RECORD_IDLE) { /* nothing shown, typed-ahead keys alone */
        if (waited_ms >= TUI_RECORD_PATIENCE_MS && tui_key_typed()) {
            tui_record_gave_up(wire_command_name(cmd), waited_ms);
            return false; /* the keyboard is the user's, not the debuggee's */
        }
        return !hs_interrupt_signal();
    }
    if (tui_record_answering == TUI_RECORD_SETTLE && waited_ms < WIRE_WAIT_SLICE_MS)
        return !hs_interrupt_signal(); /* the settle looks for Esc between requests */
    if (waited_ms < WIRE_WAIT_SLICE_MS && !tui_progress_working())
        return !hs_interrupt_signal(); /* a row decoded for the screen: typed-ahead keys stay */
    const char *request = cmd ? wire_command_name(cmd) : "to accept the connection";
    return !hs_interrupt_signal() && tui_progress_waiting(request, waited_ms);
}

/* Esc (or a signal) cancelled a request: its answer is read to the end
 * first, so that the debuggee's stub never writes to a closed connection. */
static void on_wire_drain(void *ctx, uint32_t cmd, uint64_t bytes, uint64_t frame_left,
                          int draining_ms) {
    (void)ctx, (void)frame_left;
    if (tui_record_answering == TUI_RECORD_NOT) /* a recording's keys act afterwards */
        tui_progress_poll(); /* keys typed meanwhile do not act later; a resize redraws */
    char text[160];
    snprintf(text, sizeof text, "finishing the answer in flight to %s (%llu MiB so far, %d s)",
             wire_command_name(cmd), (unsigned long long)(bytes >> 20), draining_ms / 1000);
    tui_progress_finishing(text);
}

/* What went wrong in the session but did not stop it (the cache). */
static void on_warning(void *ctx, const char *message) {
    tui_app *app = ctx;
    snprintf(app->cache_note, sizeof app->cache_note, "%s", message);
}

/* The cache is a help, never a condition: opened once, and the footer says
 * once why it is off. */
cache *tui_app_cache(tui_app *app) {
    if (app->opts.no_cache || app->cache || app->cache_tried)
        return app->cache;
    app->cache_tried = true;
    cache_options o = {.max_bytes = app->opts.cache_size};
    hs_error err = {0};
    if (cache_open(&o, &app->cache, &err) != HS_OK) {
        snprintf(app->cache_error, sizeof app->cache_error, "%s", err.message);
        snprintf(app->cache_note, sizeof app->cache_note, "going on without the cache: %s",
                 err.message);
    }
    return app->cache;
}

const char *tui_base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

hs_status tui_target_connect(tui_app *app, const char *target, hs_error *err) {
    tui_target_close(app, false);
    session_options o = {.timeout_ms = app->opts.timeout_ms,
                         .cache = tui_app_cache(app),
                         .warn = on_warning,
                         .warn_ctx = app,
                         .max_answer = app->opts.max_answer,
                         .max_answer_option = "--max-answer",
                         .progress = on_wire_progress,
                         .wait = on_wire_wait,
                         .drain = on_wire_drain};
    hs_status st = session_open(target, &o, &app->sess, err);
    if (st == HS_OK)
        st = session_probe(app->sess, err);
    if (st != HS_OK)
        tui_target_close(app, false);
    return st;
}

hs_status tui_target_revive(tui_app *app, hs_error *err) {
    if (!app->sess)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    tui_progress_begin("connecting again");
    return session_revive(app->sess, err);
}

hs_status tui_target_resume(tui_app *app, hs_error *err) {
    if (!app->sess)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    tui_record_settle(app); /* it needs the pause that resuming ends */
    return session_resume(app->sess, err);
}

/* After a failed pause: connect again if the stream died, and resume a
 * debuggee this pause stopped, so that Esc leaves it as it was. */
static void undo_pause(tui_app *app) {
    hs_error ignored;
    if (session_lost(app->sess) && tui_target_revive(app, &ignored) != HS_OK)
        return;
    if (session_ours(app->sess)) {
        tui_progress_begin("resuming the debuggee");
        session_resume(app->sess, &ignored);
    }
}

hs_status tui_target_pause(tui_app *app, hs_error *err) {
    session *s = app->sess;
    if (!s)
        return hs_fail(err, HS_ERR_CLOSED, "not connected");
    bool live = session_caps_of(s).live;
    if (live && !session_paused(s))
        tui_progress_begin("pausing the debuggee");
    hs_status st = session_pause(s, err);
    if (st == HS_OK) {
        if (live)
            tui_progress_begin("reading the heap");
        st = session_read_heap(s, err);
    }
    if (st == HS_OK && live)
        tui_record_start(app);
    if (st == HS_OK || !live)
        return st;
    /* a cancelled answer that stopped coming was left after the timeout:
     * that, not the cancel, is what the user must read */
    bool cancelled = st == HS_ERR_CANCELLED || (tui_progress_cancelled() && st != HS_ERR_TIMEOUT);
    undo_pause(app);
    return cancelled ? hs_fail(err, HS_ERR_CANCELLED, "cancelled") : st;
}

void tui_target_close(tui_app *app, bool give_ours_back) {
    session *s = app->sess;
    hs_error ignored;
    if (session_ours(s) && give_ours_back)
        session_give_back(s, &ignored);
    else if (session_caps_of(s).live && session_paused(s))
        hs_interrupt_note(session_ours(s) ? "the debuggee is left paused"
                                          : "the debuggee is left paused, as it was found");
    session_close(s);
    app->sess = NULL;
}
