/* The explorer of a connected debuggee: pausing and resuming, the views
 * of a paused heap (the roots, then one per search) with back and forward
 * between them, and the tree commands. Selection follows nodes, not row
 * numbers, so opening and closing never moves it to a stranger. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "term.h"

void tui_explorer_init(tui_explorer *ex) {
    memset(ex, 0, sizeof *ex);
    ex->limit = 100;
    ex->details = true;
}

tui_view *tui_view_new(bool is_roots) {
    tui_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->is_roots = is_roots;
    tui_tree_init(&v->tree);
    return v;
}

void tui_view_free(tui_view *v) {
    if (!v)
        return;
    tui_tree_free(&v->tree);
    free(v->steps);
    free(v->matches);
    free(v);
}

void tui_explorer_reset(tui_explorer *ex) {
    tui_details_forget(); /* its trees go */
    for (size_t i = 0; i < ex->n_hist; i++)
        if (ex->hist[i] != ex->roots)
            tui_view_free(ex->hist[i]);
    tui_view_free(ex->roots);
    ex->roots = NULL;
    ex->n_hist = ex->pos = 0;
    heap_closure_free(&ex->scratch);
    memset(&ex->scratch, 0, sizeof ex->scratch);
    for (size_t i = 0; i < ex->n_cc_strings; i++)
        free(ex->cc_strings[i]);
    free(ex->cc_strings);
    ex->cc_strings = NULL;
    ex->n_cc_strings = ex->cc_strings_cap = 0;
    u64map_free(&ex->cc_text);
    memset(&ex->cc_text, 0, sizeof ex->cc_text);
}

tui_view *tui_explorer_view(tui_app *app) {
    tui_explorer *ex = &app->ex;
    return ex->n_hist ? ex->hist[ex->pos] : NULL;
}

static void drop_entry(tui_explorer *ex, size_t i) {
    tui_view *v = ex->hist[i];
    if (v == ex->roots)
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
    tui_view *v = tui_view_new(true);
    if (!v)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    const wire_ptr_list *saved = heap_saved_objects(session_heap(app->sess));
    const wire_ptr_list *roots = heap_roots(session_heap(app->sess));
    for (size_t i = 0; i < saved->count + roots->count; i++) {
        bool is_saved = i < saved->count;
        uint64_t a = wire_untag(is_saved ? saved->items[i] : roots->items[i - saved->count]);
        if (tui_tree_add(&v->tree, TUI_NODE_NONE, is_saved ? "Saved Object" : "GC Roots",
                         TUI_NODE_CLOSURE, a, 0) == TUI_NODE_NONE) {
            tui_view_free(v);
            return hs_fail(err, HS_ERR_NOMEM, "out of memory listing the roots");
        }
    }
    ex->paused_at = (int64_t)time(NULL); /* a snapshot's own time replaces it */
    snprintf(v->title, sizeof v->title, "Saved objects and GC roots");
    snprintf(v->summary, sizeof v->summary, "%zu saved, %zu roots", saved->count, roots->count);
    ex->roots = v;
    tui_explorer_push(app, v);
    return HS_OK;
}

/* ---- selection ------------------------------------------------------- */

tui_node_id tui_view_selected(tui_view *v) {
    size_t n;
    const uint32_t *rows = tui_tree_rows(&v->tree, &n);
    if (n == 0)
        return TUI_NODE_NONE;
    if (v->sel >= n)
        v->sel = n - 1;
    return rows[v->sel];
}

void tui_view_select(tui_view *v, tui_node_id id) {
    long r = tui_tree_row_of(&v->tree, id);
    if (r >= 0)
        v->sel = (size_t)r;
}

void tui_view_scroll(tui_view *v, size_t height) {
    size_t n;
    tui_tree_rows(&v->tree, &n);
    if (height == 0)
        height = 1;
    if (v->sel >= n)
        v->sel = n ? n - 1 : 0;
    if (v->sel < v->top)
        v->top = v->sel;
    if (v->sel >= v->top + height)
        v->top = v->sel - height + 1;
    if (v->top + height > n)
        v->top = n > height ? n - height : 0;
}

void tui_cmd_move(tui_app *app, int how) {
    if (app->screen == TUI_SCREEN_PICKER) {
        tui_picker_move(app, how);
        return;
    }
    tui_view *v = tui_explorer_view(app);
    if (!v)
        return;
    size_t n;
    tui_tree_rows(&v->tree, &n);
    if (n == 0)
        return;
    size_t page = app->ex.tree_h > 1 ? (size_t)app->ex.tree_h - 1 : 1;
    switch (how) {
    case TUI_MOVE_UP: if (v->sel > 0) v->sel--; break;
    case TUI_MOVE_DOWN: if (v->sel + 1 < n) v->sel++; break;
    case TUI_MOVE_PAGE_UP:
        v->sel = v->sel > page ? v->sel - page : 0;
        v->top = v->top > page ? v->top - page : 0;
        break;
    case TUI_MOVE_PAGE_DOWN:
        v->sel = v->sel + page < n ? v->sel + page : n - 1;
        v->top += page;
        break;
    case TUI_MOVE_FIRST: v->sel = 0; break;
    default: v->sel = n - 1; break;
    }
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
        app->screen = TUI_SCREEN_PAUSED;
        const tui_view *v = tui_explorer_view(app);
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
    app->screen = TUI_SCREEN_RUNNING;
    if (tui_target_resume(app, &err) != HS_OK) {
        tui_app_error(app, "cannot resume", &err);
        return;
    }
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

/* ---- the tree -------------------------------------------------------- */

void tui_cmd_expand(tui_app *app, int arg) {
    (void)arg;
    tui_view *v = tui_explorer_view(app);
    tui_node_id id = v ? tui_view_selected(v) : TUI_NODE_NONE;
    if (id == TUI_NODE_NONE)
        return;
    tui_node *n = tui_tree_node(&v->tree, id);
    if (n->expanded) { /* already open: step into it */
        tui_view_select(v, n->first_child);
        return;
    }
    hs_error err = {0};
    if (tui_tree_expand(&v->tree, id, tui_rows_load, app, &err) != HS_OK) {
        tui_app_error(app, "cannot open", &err);
        return;
    }
    if (!tui_tree_node(&v->tree, id)->expanded)
        tui_app_message(app, TUI_ROLE_INFO, "nothing inside");
    tui_view_select(v, id);
}

void tui_cmd_collapse(tui_app *app, int arg) {
    (void)arg;
    tui_view *v = tui_explorer_view(app);
    tui_node_id id = v ? tui_view_selected(v) : TUI_NODE_NONE;
    if (id == TUI_NODE_NONE)
        return;
    bool collapsed;
    tui_view_select(v, tui_tree_left(&v->tree, id, &collapsed));
}

void tui_cmd_collapse_all(tui_app *app, int arg) {
    (void)arg;
    tui_view *v = tui_explorer_view(app);
    tui_node_id id = v ? tui_view_selected(v) : TUI_NODE_NONE;
    if (id == TUI_NODE_NONE)
        return;
    tui_tree_collapse_all(&v->tree);
    tui_view_select(v, tui_tree_top_of(&v->tree, id));
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
    if (tui_explorer_view(app) == app->ex.roots) {
        tui_app_message(app, TUI_ROLE_INFO, "this is the roots view");
        return;
    }
    tui_explorer_push(app, app->ex.roots);
}

void tui_cmd_eras(tui_app *app, int arg) {
    (void)arg;
    tui_explorer *ex = &app->ex;
    ex->era_colors = !ex->era_colors;
    if (!ex->era_colors)
        tui_app_message(app, TUI_ROLE_INFO, "era colours off");
    else if (session_prof_mode(app->sess) != WIRE_PROF_ERA)
        tui_app_message(app, TUI_ROLE_INFO,
                        "era colours on, but this debuggee has no eras (+RTS -he): rows stay plain");
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

/* ---- find text in the tree ------------------------------------------- */

static bool find_progress(void *ctx, size_t done, size_t total) {
    (void)ctx;
    (void)total;
    return tui_progress("finding", done, "rows");
}

static void find_from(tui_app *app, const char *needle) {
    tui_view *v = tui_explorer_view(app);
    if (!v)
        return;
    tui_progress_begin("finding");
    app->ex.find_shown = true;
    size_t found;
    tui_find_result r = tui_tree_find(&v->tree, v->sel, needle, tui_row_find_text, find_progress,
                                      app, &found);
    if (r == TUI_FIND_FOUND) {
        v->sel = found;
        app->msg.text[0] = 0;
    } else if (r == TUI_FIND_CANCELLED) {
        tui_app_message(app, TUI_ROLE_INFO, "find cancelled");
    } else {
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the visible rows", needle);
    }
}

void tui_cmd_find(tui_app *app, int arg) {
    (void)arg;
    tui_prompt_open(app, TUI_PROMPT_FIND, 0, false, "find: ");
}

void tui_cmd_find_next(tui_app *app, int arg) {
    if (!app->ex.find[0]) {
        tui_cmd_find(app, arg);
        return;
    }
    find_from(app, app->ex.find);
}

void tui_explorer_find(tui_app *app, const char *text) {
    snprintf(app->ex.find, sizeof app->ex.find, "%s", text);
    if (text[0])
        find_from(app, text);
}
