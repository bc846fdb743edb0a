/* The explorer of a connected debuggee: pausing and resuming, and the
 * history of a paused heap's views (the roots, then one per search or
 * census, of any kind) with back and forward between them. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdio.h>

#include "app.h"
#include "details.h"
#include "explorer.h"
#include "footer.h"
#include "record.h"
#include "target.h"
#include "term.h"
#include "tree_view.h"
#include "view.h"
#include "views.h"

void tui_explorer_init(tui_explorer *ex) {
    memset(ex, 0, sizeof *ex);
    ex->limit = 100;
    ex->details = true;
}

/* The roots view as a view (NULL before the first pause). */
static tui_view *roots_view(const tui_explorer *ex) {
    return ex->roots ? &ex->roots->base : NULL;
}

void tui_explorer_reset(tui_explorer *ex) {
    tui_details_forget(); /* its trees go */
    for (size_t i = 0; i < ex->n_hist; i++)
        if (ex->hist[i] != roots_view(ex))
            tui_view_free(ex->hist[i]);
    tui_view_free(roots_view(ex));
    ex->roots = NULL;
    ex->n_hist = ex->pos = 0;
    query_dominators_free(ex->dominators);
    ex->dominators = NULL;
    for (size_t i = 0; i < ex->n_cc_strings; i++)
        free(ex->cc_strings[i]);
    free(ex->cc_strings);
    ex->cc_strings = NULL;
    ex->n_cc_strings = ex->cc_strings_cap = 0;
    u64map_free(&ex->cc_text);
    memset(&ex->cc_text, 0, sizeof ex->cc_text);
}

void tui_explorer_title(tui_app *app, tui_view *v, char *buf, size_t cap) {
    snprintf(buf, cap, "heapscope: %s: paused: %s: %s", tui_base_name(session_target(app->sess)),
             v->summary, v->title);
}

static void drop_entry(tui_explorer *ex, size_t i) {
    tui_view *v = ex->hist[i];
    if (v == roots_view(ex))
        return;
    for (size_t k = 0; k < ex->n_hist; k++) /* a view shown twice stays while it is listed */
        if (k != i && ex->hist[k] == v)
            return;
    tui_view_free(v);
}

void tui_explorer_push(tui_app *app, tui_view *v) {
    tui_explorer *ex = &app->ex;
    tui_details_forget(); /* trees of the forward history may go */
    if (ex->n_hist) {
        for (size_t i = ex->pos + 1; i < ex->n_hist; i++) {
            drop_entry(ex, i);
            ex->hist[i] = NULL;
        }
        ex->n_hist = ex->pos + 1;
    }
    if (ex->n_hist == TUI_HISTORY_MAX) {
        drop_entry(ex, 0);
        memmove(ex->hist, ex->hist + 1, (TUI_HISTORY_MAX - 1) * sizeof ex->hist[0]);
        ex->n_hist--;
    }
    ex->hist[ex->n_hist++] = v;
    ex->pos = ex->n_hist - 1;
}

hs_status tui_explorer_open(tui_app *app, hs_error *err) {
    tui_explorer *ex = &app->ex;
    tui_explorer_reset(ex);
    tui_tree_view *v = tui_tree_view_new("No roots.");
    if (!v)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    const wire_ptr_list *saved = heap_saved_objects(session_heap(app->sess));
    const wire_ptr_list *roots = heap_roots(session_heap(app->sess));
    for (size_t i = 0; i < saved->count + roots->count; i++) {
        bool is_saved = i < saved->count;
        uint64_t a = wire_untag(is_saved ? saved->items[i] : roots->items[i - saved->count]);
        if (tui_tree_add(&v->tree, TUI_NODE_NONE, is_saved ? "Saved Object" : "GC Roots",
                         TUI_NODE_CLOSURE, a, 0) == TUI_NODE_NONE) {
            tui_view_free(&v->base);
            return hs_fail(err, HS_ERR_NOMEM, "out of memory listing the roots");
        }
    }
    ex->paused_at = (int64_t)time(NULL); /* a snapshot's own time replaces it */
    snprintf(v->base.title, sizeof v->base.title, "Saved objects and GC roots");
    snprintf(v->base.summary, sizeof v->base.summary, "%zu saved, %zu roots", saved->count,
             roots->count);
    ex->roots = v;
    tui_explorer_push(app, &v->base);
    return HS_OK;
}

/* ---- pause and resume ------------------------------------------------ */

void tui_cmd_pause(tui_app *app, int arg) {
    (void)arg;
    hs_error err = {0};
    hs_status st = tui_target_pause(app, &err);
    session *s = app->sess;
    if (st == HS_OK)
        st = tui_explorer_open(app, &err);
    if (st == HS_OK) {
        const tui_view *v = tui_app_view(app);
        tui_app_message(app, TUI_ROLE_INFO, "%s: %s", session_ours(s) ? "paused" : "paused before",
                        v->summary);
        return;
    }
    if (st == HS_ERR_CANCELLED && !session_lost(s)) {
        tui_app_message(app, TUI_ROLE_INFO, "%s",
                        session_paused(s) ? "cancelled: the debuggee stays paused, as it was found"
                                  : "pause cancelled: the debuggee runs on");
        return;
    }
    tui_app_error(app, "cannot pause", &err);
    if (!session_lost(s) && session_heap(s)) { /* paused, but no view */
        hs_error ignored;
        if (session_ours(s))
            session_resume(s, &ignored);
        session_drop_heap(s);
    }
}

void tui_cmd_resume(tui_app *app, int arg) {
    (void)arg;
    hs_error err = {0}; /* never on a snapshot file: the command table says why */
    tui_explorer_reset(&app->ex);
    if (tui_target_resume(app, &err) != HS_OK) {
        tui_app_error(app, "cannot resume", &err);
        return;
    }
    tui_diff_note_resumed(app); /* for "Diff with the previous pause" */
    tui_app_message(app, TUI_ROLE_INFO, "resumed: the debuggee runs");
}

void tui_cmd_disconnect(tui_app *app, int arg) {
    (void)arg;
    bool paused = session_paused(app->sess) && session_caps_of(app->sess).live;
    tui_record_settle(app); /* it needs the pause this connection holds */
    tui_target_close(app, false);
    tui_app_go_picker(app);
    if (paused)
        tui_app_message(app, TUI_ROLE_INFO, "disconnected; the debuggee stays paused");
}

/* ---- views ----------------------------------------------------------- */

void tui_cmd_back(tui_app *app, int arg) {
    (void)arg;
    if (app->ex.pos == 0) {
        tui_app_message(app, TUI_ROLE_INFO, "no earlier view");
        return;
    }
    app->ex.pos--;
}

void tui_cmd_forward(tui_app *app, int arg) {
    (void)arg;
    if (app->ex.pos + 1 >= app->ex.n_hist) {
        tui_app_message(app, TUI_ROLE_INFO, "no later view");
        return;
    }
    app->ex.pos++;
}

void tui_cmd_roots(tui_app *app, int arg) {
    (void)arg;
    if (tui_app_view(app) == roots_view(&app->ex)) {
        tui_app_message(app, TUI_ROLE_INFO, "this is the roots view");
        return;
    }
    tui_explorer_push(app, roots_view(&app->ex));
}

void tui_cmd_eras(tui_app *app, int arg) {
    (void)arg;
    tui_explorer *ex = &app->ex;
    ex->era_colors = !ex->era_colors;
    if (!ex->era_colors)
        tui_app_message(app, TUI_ROLE_INFO, "era colours off");
    else if (session_prof_mode(app->sess) != WIRE_PROF_ERA) {
        const wire_version *v = app->sess ? session_known_version(app->sess) : NULL;
        char advice[120] = "run the program with +RTS -he";
        if (v)
            heap_era_advice(v, advice, sizeof advice);
        tui_app_message(app, TUI_ROLE_INFO,
                        "era colours on, but this debuggee has no eras (%s): rows stay plain",
                        advice);
    }
    else if (!tui_term_era_colors())
        tui_app_message(app, TUI_ROLE_INFO,
                        "era colours on, but colours are off here (NO_COLOR or the terminal)");
    else
        tui_app_message(app, TUI_ROLE_INFO, "era colours on");
}

void tui_cmd_details(tui_app *app, int arg) {
    (void)arg;
    app->ex.details = !app->ex.details;
}

/* ---- find text in the view ------------------------------------------ */

void tui_cmd_find(tui_app *app, int arg) {
    (void)arg;
    tui_prompt_open(app, TUI_PROMPT_FIND, 0, false, "find: ");
}

void tui_cmd_find_next(tui_app *app, int arg) {
    if (!app->ex.find[0]) {
        tui_cmd_find(app, arg);
        return;
    }
    tui_view_request(app, TUI_REQ_FIND_NEXT);
}

void tui_explorer_find(tui_app *app, const char *text) {
    snprintf(app->ex.find, sizeof app->ex.find, "%s", text);
    if (text[0])
        tui_view_request(app, TUI_REQ_FIND_NEXT);
}
