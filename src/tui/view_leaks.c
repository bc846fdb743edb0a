/* The leaks view: the era-boundary report (query_leaks), where closures
 * of a newer era retain older ones, grouped by the names of the retainers
 * and the retained closures and by what the retainers are (a thunk,
 * function or stack holds; the rest contain), ranked as `heapscope leaks`
 * does. Enter opens a group's edges (query_leaks_group_edges, as `leaks
 * --group` lists them) as a tree view whose rows open into each edge's two
 * closures. Needs era profiling; uses the pause's dominator tree (computed
 * once, view_dominators.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "heapscope/plural.h"
#include "term.h"
#include "tree_view.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

typedef struct leaks_view {
    tui_view base;
    query_leaks leaks;
    size_t sel, top;
    int height;
} leaks_view;

static void leaks_free(tui_view *base) {
    leaks_view *v = (leaks_view *)base;
    query_leaks_free(&v->leaks);
    free(v);
}

static void leaks_draw(tui_app *app, tui_view *base, int top, int bottom) {
    (void)app;
    leaks_view *v = (leaks_view *)base;
    char buf[160];
    snprintf(buf, sizeof buf, "%14s %10s %10s  %-11s  %s", "bytes", "older", "edges", "kind",
             "newer retainer -> older closure retained");
    tui_fill(top, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    tui_put(top++, 1, buf, COLS - 1, tui_attr(TUI_ROLE_LABEL) | A_BOLD);
    v->height = bottom - top > 1 ? bottom - top : 1;
    size_t n = v->leaks.n_groups;
    tui_list_scroll(&v->sel, &v->top, n, (size_t)v->height);
    const char *arrow = tui_term_caps_get()->utf8 ? " → " : " -> ";
    for (int r = 0; r < v->height && v->top + (size_t)r < n; r++) {
        size_t i = v->top + (size_t)r;
        const query_leak_group *g = &v->leaks.groups[i];
        bool sel = i == v->sel;
        int y = top + r, attr = tui_attr(sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
        tui_fill(y, 0, COLS, attr);
        snprintf(buf, sizeof buf, "%14" PRIu64 " %10" PRIu64 " %10" PRIu64 "  %-11s  ", g->bytes,
                 g->older, g->edges, query_leak_kind_name(g->kind));
        int x = 1 + tui_put(y, 1, buf, COLS - 1, attr);
        x += tui_put(y, x, g->retainer, COLS - x,
                     sel ? attr : tui_attr(g->named_by_ipe ? TUI_ROLE_LOCATION : TUI_ROLE_ADDRESS));
        x += tui_put(y, x, arrow, COLS - x, attr);
        tui_put(y, x, g->retained, COLS - x, sel ? attr : tui_attr(TUI_ROLE_LEAK_EDGE));
    }
    if (n == 0)
        tui_put(top + 1, 2, "No closure of a newer era retains one of an older era.", COLS - 4,
                tui_attr(TUI_ROLE_INFO));
}

static bool on_progress(void *ctx, uint64_t done) {
    (void)ctx;
    return tui_progress("era boundaries", done, "closures");
}

/* The edges of group i as rows of a tree view: each row the older closure
 * (labelled with the two eras), opening into its newer retainer and the
 * field of the retainer that holds it; those open as anywhere, and the
 * retainers search of a row's closure says why it is alive. */
static tui_tree_view *edges_view(heap *h, const query_leak_edges *edges) {
    tui_tree_view *list = tui_tree_view_new("The group has no edges.");
    if (list)
        list->match_what = "an edge of the leak group: its newer retainer holds this closure";
    const char *arrow = tui_term_caps_get()->utf8 ? "→" : "->";
    for (size_t k = 0; list && k < edges->count; k++) {
        const query_leak_edge *e = &edges->items[k];
        char field[64], start[64], row[64];
        query_leak_edge_label(h, e, field, sizeof field);
        snprintf(start, sizeof start, "Newer retainer (era %" PRIu64 ")", e->from_era);
        /* no bytes: the older closure is reachable without this retainer */
        snprintf(row, sizeof row, "era %" PRIu64 " %s %" PRIu64 "%s", e->from_era, arrow,
                 e->to_era, e->bytes ? "" : ", held elsewhere too");
        query_step steps[2] = {{.addr = e->from},
                               {.addr = e->to, .edge = field, .newer_retains_older = true}};
        query_match m = {.number = k + 1, .steps = steps, .n_steps = 2,
                         .n_newer_retains_older = 1};
        if (!tui_tree_view_add_path(list, &m, start, row)) {
            tui_view_free(&list->base);
            list = NULL;
        }
    }
    return list;
}

static void group_edges(tui_app *app, leaks_view *v) {
    if (v->sel >= v->leaks.n_groups)
        return;
    heap *h = session_heap(app->sess);
    hs_error err = {0};
    query_leak_edges edges = {0};
    tui_progress_begin("era boundaries");
    if (query_leaks_group_edges(h, app->ex.dominators, &v->leaks, v->sel, app->ex.limit,
                                on_progress, NULL, &edges, &err) != HS_OK) {
        if (tui_progress_cancelled())
            err.status = HS_ERR_CANCELLED;
        tui_app_error(app, "leak group", &err);
        return;
    }
    tui_tree_view *list = edges_view(h, &edges);
    if (!list) {
        query_leak_edges_free(&edges);
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    const query_leak_group *g = &v->leaks.groups[v->sel];
    const char *arrow = tui_term_caps_get()->utf8 ? " → " : " -> ";
    snprintf(list->base.title, sizeof list->base.title, "Edges of leak group %zu: %s%s%s",
             v->sel + 1, g->retainer, arrow, g->retained);
    snprintf(list->base.summary, sizeof list->base.summary, "%zu of %" PRIu64 " %s",
             edges.count, edges.total, hs_plural(edges.total, "edge", "edges"));
    tui_explorer_push(app, &list->base);
    tui_app_message(app, TUI_ROLE_INFO,
                    "%zu of %" PRIu64 " %s (the search limit), most bytes first; Enter opens "
                    "an edge: the newer retainer, then its field holding the older closure",
                    edges.count, edges.total, hs_plural(edges.total, "edge", "edges"));
    query_leak_edges_free(&edges);
}

static bool leaks_group_shows(const void *ctx, size_t i, const char *needle) {
    const leaks_view *v = ctx;
    return tui_find_ci(v->leaks.groups[i].retainer, needle) >= 0 ||
           tui_find_ci(v->leaks.groups[i].retained, needle) >= 0;
}

static void find_next(tui_app *app, leaks_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->leaks.n_groups, needle, leaks_group_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the groups", needle);
}

static bool leaks_request(tui_app *app, tui_view *base, tui_request req) {
    leaks_view *v = (leaks_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->leaks.n_groups, page, req))
        return true;
    switch (req) {
    case TUI_REQ_OPEN: group_edges(app, v); return true;
    case TUI_REQ_FIND_NEXT: find_next(app, v, app->ex.find); return true;
    default: return false;
    }
}

static uint64_t leaks_selected(tui_app *app, tui_view *base) {
    (void)app;
    leaks_view *v = (leaks_view *)base;
    return v->sel < v->leaks.n_groups ? v->leaks.groups[v->sel].from : 0;
}

static const tui_hint leaks_hints[] = {
    {"Expand", "edges"}, {"Back", "back"}, {"Help", "help"},
    {"Command palette", "commands"}, {"Quit", "quit"}, {NULL, NULL}};

static const tui_view_ops leaks_ops = {
    .kind = "leaks",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = leaks_draw,
    .request = leaks_request,
    .selected = leaks_selected,
    .hints = leaks_hints,
    .free = leaks_free,
};

void tui_cmd_leaks(tui_app *app, int arg) {
    (void)arg;
    hs_error err = {0};
    heap *h = session_heap(app->sess);
    /* refused before the whole heap's dominator tree is computed */
    if (query_leaks_usable(h, &err) != HS_OK || tui_dominators_compute(app, &err) != HS_OK) {
        tui_app_error(app, "leaks", &err);
        return;
    }
    leaks_view *v = calloc(1, sizeof *v);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    v->base.ops = &leaks_ops;
    tui_progress_begin("era boundaries");
    hs_status st = query_leaks_run(h, app->ex.dominators, on_progress, NULL, &v->leaks, &err);
    if (st != HS_OK) {
        if (tui_progress_cancelled())
            err.status = HS_ERR_CANCELLED;
        leaks_free(&v->base);
        tui_app_error(app, "leaks", &err);
        return;
    }
    const query_leaks *l = &v->leaks;
    snprintf(v->base.title, sizeof v->base.title,
             "Leaks: where a newer era retains an older one");
    snprintf(v->base.summary, sizeof v->base.summary, "%zu %s, %" PRIu64 " bytes", l->n_groups,
             hs_plural(l->n_groups, "group", "groups"), l->bytes);
    tui_explorer_push(app, &v->base);
    query_dominators_info info; /* the leaks are read off the dominator tree's walk */
    query_dominators_stats(app->ex.dominators, &info);
    char skipped[HS_ERROR_MESSAGE_MAX + 96];
    tui_unreadable_note(&info.unreadable, skipped, sizeof skipped);
    tui_app_message(app, TUI_ROLE_INFO,
                    "%" PRIu64 " %s from a newer era to an older one; %" PRIu64
                    " bytes retained only through them; Enter: a group's edges%s",
                    l->edges, hs_plural(l->edges, "edge", "edges"), l->bytes, skipped);
}
