/* The tree view's operations: the roots and every search are one of
 * these. Selection follows nodes, not row numbers, so opening and closing
 * never moves it to a stranger; children are read when a node opens. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "heapscope/grow.h"
#include "heapscope/query.h"
#include "commands.h"
#include "explorer.h"
#include "rows.h"
#include "term.h"
#include "tree_view.h"
#include "view.h"
#include "views.h"

static void tree_free(tui_view *base) {
    tui_tree_view *v = (tui_tree_view *)base;
    tui_tree_free(&v->tree);
    free(v->steps);
    free(v->matches);
    tui_merged_ref_drop(v->merged);
    free(v);
}

static void tree_draw(tui_app *app, tui_view *v, int top, int bottom) {
    tui_tree_view_draw(app, (tui_tree_view *)v, top, bottom);
}

/* ---- selection ------------------------------------------------------- */

tui_node_id tui_tree_view_selected(tui_tree_view *v) {
    size_t n;
    const uint32_t *rows = tui_tree_rows(&v->tree, &n);
    if (n == 0)
        return TUI_NODE_NONE;
    if (v->sel >= n)
        v->sel = n - 1;
    return rows[v->sel];
}

void tui_tree_view_select(tui_tree_view *v, tui_node_id id) {
    long r = tui_tree_row_of(&v->tree, id);
    if (r >= 0)
        v->sel = (size_t)r;
}

/* ---- requests -------------------------------------------------------- */

static void expand(tui_app *app, tui_tree_view *v, tui_node_id id) {
    tui_node *n = tui_tree_node(&v->tree, id);
    if (n->expanded) { /* already open: step into it */
        tui_tree_view_select(v, n->first_child);
        return;
    }
    hs_error err = {0};
    tui_rows_ctx ctx = {.app = app, .view = v};
    if (tui_tree_expand(&v->tree, id, tui_rows_load, &ctx, &err) != HS_OK) {
        tui_app_error(app, "cannot open", &err);
        return;
    }
    if (!tui_tree_node(&v->tree, id)->expanded)
        tui_app_message(app, TUI_ROLE_INFO, "nothing inside");
    tui_tree_view_select(v, id);
}

static bool find_progress(void *ctx, size_t done, size_t total) {
    (void)ctx;
    (void)total;
    return tui_progress("finding", done, "rows");
}

static void find_next(tui_app *app, tui_tree_view *v, const char *needle) {
    tui_progress_begin("finding");
    app->ex.find_shown = true;
    size_t found;
    tui_rows_ctx ctx = {.app = app, .view = v};
    tui_find_result r = tui_tree_find(&v->tree, v->sel, needle, tui_row_find_text, find_progress,
                                      &ctx, &found);
    if (r == TUI_FIND_FOUND) {
        v->sel = found;
        app->msg.text[0] = 0;
    } else if (r == TUI_FIND_CANCELLED) {
        tui_app_message(app, TUI_ROLE_INFO, "find cancelled");
    } else {
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the visible rows", needle);
    }
}

static bool tree_request(tui_app *app, tui_view *base, tui_request req) {
    tui_tree_view *v = (tui_tree_view *)base;
    size_t n;
    tui_tree_rows(&v->tree, &n);
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, n, page, req))
        return true;
    if (req == TUI_REQ_FIND_NEXT) {
        find_next(app, v, app->ex.find);
        return true;
    }
    tui_node_id id = tui_tree_view_selected(v);
    switch (req) {
    case TUI_REQ_OPEN:
        if (id != TUI_NODE_NONE)
            expand(app, v, id);
        return true;
    case TUI_REQ_CLOSE:
        if (id != TUI_NODE_NONE) {
            bool collapsed;
            tui_tree_view_select(v, tui_tree_left(&v->tree, id, &collapsed));
        }
        return true;
    case TUI_REQ_CLOSE_ALL:
        if (id != TUI_NODE_NONE) {
            tui_tree_collapse_all(&v->tree);
            tui_tree_view_select(v, tui_tree_top_of(&v->tree, id));
        }
        return true;
    default: return false;
    }
}

static uint64_t tree_selected(tui_app *app, tui_view *base) {
    (void)app;
    tui_tree_view *v = (tui_tree_view *)base;
    tui_node_id id = tui_tree_view_selected(v);
    if (id == TUI_NODE_NONE)
        return 0;
    const tui_node *n = tui_tree_node(&v->tree, id);
    return n->kind == TUI_NODE_CLOSURE ? n->addr : 0;
}

static const tui_hint tree_hints[] = {
    {"Expand", "open"}, {"Collapse or go to parent", "close"}, {"Find text", "find"},
    {"Find retainers", "retainers"}, {"Era colours", "eras"}, {"Resume", "resume"},
    {"Save snapshot", "save"}, {"Help", "help"}, {"Command palette", "commands"},
    {"Quit", "quit"}, {NULL, NULL}};

const tui_view_ops tui_tree_view_ops = {
    .kind = "tree",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = tree_draw,
    .request = tree_request,
    .selected = tree_selected,
    .hints = tree_hints,
    .free = tree_free,
};

tui_tree_view *tui_tree_view_new(const char *empty) {
    tui_tree_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->base.ops = &tui_tree_view_ops;
    v->empty = empty;
    tui_tree_init(&v->tree);
    return v;
}

tui_tree_view *tui_tree_view_of(tui_view *v) {
    return v && v->ops == &tui_tree_view_ops ? (tui_tree_view *)v : NULL;
}

bool tui_tree_view_add_path(tui_tree_view *v, const query_match *m, const char *start,
                            const char *row_label) {
    if (!hs_grow((void **)&v->steps, &v->steps_cap, v->n_steps + m->n_steps,
                 sizeof *v->steps) ||
        !hs_grow((void **)&v->matches, &v->matches_cap, v->n_matches + 1, sizeof *v->matches))
        return false;
    tui_match *keep = &v->matches[v->n_matches];
    *keep = (tui_match){.first_step = v->n_steps, .n_steps = (uint32_t)m->n_steps,
                        .n_newer = (uint32_t)m->n_newer_retains_older,
                        .from_saved = m->from_saved_object};
    for (size_t i = 0; i < m->n_steps; i++) {
        const query_step *s = &m->steps[i];
        uint32_t off = tui_tree_intern(&v->tree, i > 0 && s->edge ? s->edge : start);
        if (off == TUI_STR_NONE)
            return false;
        v->steps[v->n_steps++] = (tui_step){.addr = s->addr, .edge = off,
                                            .newer = s->newer_retains_older};
    }
    tui_node_id id = tui_tree_add(&v->tree, TUI_NODE_NONE, row_label, TUI_NODE_CLOSURE,
                                  m->steps[m->n_steps - 1].addr, v->n_matches);
    if (id == TUI_NODE_NONE)
        return false;
    tui_tree_node(&v->tree, id)->flags = TUI_NODE_MATCH | (keep->n_newer ? TUI_NODE_LEAK : 0);
    v->n_matches++;
    return true;
}
