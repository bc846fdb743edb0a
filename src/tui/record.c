/* Every pause the explorer reads is recorded in full into the cache, on a
 * thread (session_record_beside): the main loop polls the recorder's
 * descriptor with the keyboard and answers its requests in short slices,
 * so the UI never waits for it. Resuming, quitting and disconnecting wait
 * for it to end (the recording needs the pause as it is), with its
 * progress in the footer; Esc abandons it and no file is left. A request
 * the debuggee leaves unanswered while the user types is given up at once
 * (tui_record_gave_up), not after --timeout. */
#include <stdio.h>

#include "app.h"
#include "record.h"
#include "target.h"
#include "term.h"

tui_record_mode tui_record_answering;
static char gave_up[160]; /* why the idle loop gave the recording up */

void tui_record_gave_up(const char *request, int waited_ms) {
    snprintf(gave_up, sizeof gave_up,
             "gave up recording this pause: the debuggee left %s unanswered for %.1f s", request,
             waited_ms / 1000.0);
}

void tui_record_start(tui_app *app) {
    if (!app->cache || !session_caps_of(app->sess).live)
        return;
    hs_error err = {0};
    if (session_record_beside(app->sess, &err) != HS_OK)
        snprintf(app->cache_note, sizeof app->cache_note, "cannot record this pause: %s",
                 err.message);
}

int tui_record_fd(const tui_app *app) {
    cache_recorder *r = session_recorder(app->sess);
    return r ? cache_recorder_fd(r) : -1;
}

static bool serve(tui_app *app, int budget_ms, tui_record_mode mode) {
    tui_record_answering = mode;
    bool running = cache_recorder_serve(session_recorder(app->sess), budget_ms);
    tui_record_answering = TUI_RECORD_NOT;
    return running;
}

/* The recorder has ended, or is abandoned: its outcome in the footer when
 * it did not succeed. */
static void finish(tui_app *app, bool abandon) {
    hs_error err = {0};
    tui_record_answering = TUI_RECORD_SETTLE;
    hs_status st = session_record_finish(app->sess, abandon, &err);
    tui_record_answering = TUI_RECORD_NOT;
    if (st == HS_ERR_CANCELLED && gave_up[0])
        tui_app_message(app, TUI_ROLE_INFO, "%s", gave_up);
    else if (st == HS_ERR_TIMEOUT && gave_up[0]) /* its answer never came after all */
        tui_app_message(app, TUI_ROLE_ERROR, "%s; %s", gave_up, err.message);
    else if (st == HS_ERR_CANCELLED)
        tui_app_message(app, TUI_ROLE_INFO, "the recording of this pause was abandoned");
    else if (st != HS_OK)
        tui_app_message(app, TUI_ROLE_ERROR, "%s", err.message);
    gave_up[0] = '\0';
}

void tui_record_serve(tui_app *app, int budget_ms) {
    if (session_recorder(app->sess) && !serve(app, budget_ms, TUI_RECORD_IDLE))
        finish(app, false);
}

void tui_record_settle(tui_app *app) {
    cache_recorder *r = session_recorder(app->sess);
    if (!r)
        return;
    tui_progress_begin("recording the pause");
    bool abandon = false;
    while (serve(app, 50, TUI_RECORD_SETTLE)) {
        cache_recorder_progress p = cache_recorder_get_progress(r);
        char what[96];
        snprintf(what, sizeof what, "recording the pause (%s)", p.phase[0] ? p.phase : "start");
        if (!tui_progress(what, p.total ? 100 * p.done / p.total : 0, "%")) {
            abandon = true;
            break;
        }
    }
    finish(app, abandon);
    tui_progress_reset(); /* the Esc that abandoned it is spent: what follows runs */
    hs_error ignored; /* a failed revive shows in what the caller does next */
    if (session_lost(app->sess))
        tui_target_revive(app, &ignored);
}

bool tui_record_status(const tui_app *app, char *buf, size_t cap) {
    cache_recorder *r = session_recorder(app->sess);
    if (!r)
        return false;
    cache_recorder_progress p = cache_recorder_get_progress(r);
    if (p.total)
        snprintf(buf, cap, " recording %u%% ", (unsigned)(100 * p.done / p.total));
    else
        snprintf(buf, cap, " recording ");
    return true;
}
