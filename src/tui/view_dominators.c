/* The dominator view: the closures that retain most (the bytes that would
 * become unreachable without them), as a tree whose children are what a
 * closure immediately dominates, read when it is opened. The tree is
 * computed once per pause (Esc cancels) and kept by the explorer, so the
 * details pane of every view can show retained sizes afterwards. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "heapscope/closure_type.h"
#include "heapscope/plural.h"
#include "heapscope/query_node.h"
#include "term.h"
#include "tree_view.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

#define DOM_TOP 200      /* rows of the top level */
#define DOM_CHILDREN 200 /* children read when a closure is opened */
#define NUM_COLS 30      /* retained 14 + own 10 + spaces */

typedef struct dom_line {
    query_dominated c;
    unsigned depth;
    bool open;
    uint32_t type;
    char *label;    /* closure text, or why it could not be read */
    char *location; /* its info table's source location, or NULL */
    uint64_t more;  /* children left out when opened (0: none) */
} dom_line;

typedef struct dom_view {
    tui_view base;
    dom_line *lines;
    size_t n_lines, cap;
    size_t sel, top;
    int height;
} dom_view;

static void line_free(dom_line *l) {
    free(l->label);
    free(l->location);
}

static void dom_free(tui_view *base) {
    dom_view *v = (dom_view *)base;
    for (size_t i = 0; i < v->n_lines; i++)
        line_free(&v->lines[i]);
    free(v->lines);
    free(v);
}

/* ---- reading the rows ----------------------------------------------------- */

typedef struct describe_ctx {
    dom_line *lines;
    size_t next;
} describe_ctx;

static bool on_node(void *ctx, const query_node *n) {
    describe_ctx *x = ctx;
    dom_line *l = &x->lines[x->next++];
    l->type = n->status == HS_OK ? n->type : 0;
    l->label = strdup(n->text ? n->text : "");
    return l->label != NULL;
}

/* Fills the labels, types and locations of lines[0..n). */
static hs_status describe(heap *h, dom_line *lines, size_t n, hs_error *err) {
    uint64_t *addrs = calloc(n ? n : 1, sizeof *addrs);
    if (!addrs)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        addrs[i] = lines[i].c.addr;
    describe_ctx x = {.lines = lines};
    hs_status st = query_nodes_describe(h, addrs, n, on_node, &x, err);
    free(addrs);
    if (st == HS_OK && x.next < n)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    static query_node_details d; /* (big: not on the stack) */
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        query_node_details_get(h, lines[i].c.addr, &d);
        char where[512] = "";
        if (d.status == HS_OK)
            heap_ipe_location(d.ipe, where, sizeof where);
        if (where[0] && !(lines[i].location = strdup(where)))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    return st;
}

/* Inserts the closures cs[0..n) at depth after row (SIZE_MAX: at the start). */
static hs_status insert(tui_app *app, dom_view *v, size_t row, const query_dominated *cs,
                        size_t n, hs_error *err) {
    size_t at = row == SIZE_MAX ? 0 : row + 1;
    unsigned depth = row == SIZE_MAX ? 0 : v->lines[row].depth + 1;
    if (v->n_lines + n > v->cap) {
        size_t cap = (v->n_lines + n) * 2;
        dom_line *grown = realloc(v->lines, cap * sizeof *grown);
        if (!grown)
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        v->lines = grown;
        v->cap = cap;
    }
    dom_line *fresh = calloc(n ? n : 1, sizeof *fresh);
    if (!fresh)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        fresh[i] = (dom_line){.c = cs[i], .depth = depth};
    hs_status st = describe(session_heap(app->sess), fresh, n, err);
    if (st != HS_OK) {
        for (size_t i = 0; i < n; i++)
            line_free(&fresh[i]);
        free(fresh);
        return st;
    }
    memmove(&v->lines[at + n], &v->lines[at], (v->n_lines - at) * sizeof *v->lines);
    memcpy(&v->lines[at], fresh, n * sizeof *fresh);
    free(fresh);
    v->n_lines += n;
    return HS_OK;
}

/* Inserts what row immediately dominates after it (lazily, on opening). */
static hs_status insert_children(tui_app *app, dom_view *v, size_t row, hs_error *err) {
    query_dominator_row r = {0};
    hs_status st = query_dominators_children(app->ex.dominators, v->lines[row].c.addr,
                                             DOM_CHILDREN, &r, err);
    if (st == HS_OK)
        st = insert(app, v, row, r.children, r.n_children, err);
    free(r.children);
    if (st == HS_OK) {
        v->lines[row].open = true;
        v->lines[row].more = r.more_children;
    }
    return st;
}

/* The top level: the closures retaining most, as `heapscope dominators` lists them. */
static hs_status insert_top(tui_app *app, dom_view *v, hs_error *err) {
    query_dominator_row *rows = NULL;
    size_t n = 0;
    hs_status st = query_dominators_top(app->ex.dominators, DOM_TOP, 0, &rows, &n, err);
    query_dominated *cs = st == HS_OK ? calloc(n ? n : 1, sizeof *cs) : NULL;
    if (st == HS_OK && !cs)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == HS_OK && i < n; i++)
        cs[i] = rows[i].closure;
    if (st == HS_OK)
        st = insert(app, v, SIZE_MAX, cs, n, err);
    free(cs);
    query_dominator_rows_free(rows, n);
    return st;
}

/* The rows below row, deeper than it. */
static size_t subtree_end(const dom_view *v, size_t row) {
    size_t end = row + 1;
    while (end < v->n_lines && v->lines[end].depth > v->lines[row].depth)
        end++;
    return end;
}

static void close_row(dom_view *v, size_t row) {
    size_t end = subtree_end(v, row);
    for (size_t i = row + 1; i < end; i++)
        line_free(&v->lines[i]);
    memmove(&v->lines[row + 1], &v->lines[end], (v->n_lines - end) * sizeof *v->lines);
    v->n_lines -= end - row - 1;
    v->lines[row].open = false;
    v->lines[row].more = 0;
}

/* ---- drawing ---------------------------------------------------------- */

static bool dominates(const dom_line *l) { return l->c.retained > l->c.size; }

static void draw_head(int y) {
    int attr = tui_attr(TUI_ROLE_LABEL) | A_BOLD;
    tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    char head[96];
    snprintf(head, sizeof head, "%14s %10s  %s", "retained", "own", "closure (what it dominates below)");
    tui_put(y, 1, head, COLS - 1, attr);
}

static void draw_line(const dom_view *v, size_t i, int y) {
    const dom_line *l = &v->lines[i];
    bool sel = i == v->sel;
    int base = tui_attr(sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
    tui_fill(y, 0, COLS, base);
    char buf[64];
    snprintf(buf, sizeof buf, "%14" PRIu64 " %10" PRIu64 "  ", l->c.retained, l->c.size);
    int x = 1 + tui_put(y, 1, buf, COLS - 1, base);
    for (unsigned d = 0; d < l->depth && x < COLS; d++)
        x += tui_put(y, x, "  ", COLS - x, base);
    bool utf8 = tui_term_caps_get()->utf8;
    const char *mark = !dominates(l) ? "  " : l->open ? (utf8 ? "▾ " : "- ") : (utf8 ? "▸ " : "+ ");
    x += tui_put(y, x, mark, COLS - x, base);
    x += tui_put(y, x, hs_closure_type_name(l->type), COLS - x, sel ? base : tui_attr(TUI_ROLE_TYPE));
    x += tui_put(y, x, " ", COLS - x, base);
    x += tui_put(y, x, l->label ? l->label : "", COLS - x, base);
    if (l->location) {
        x += tui_put(y, x, "  ", COLS - x, base);
        tui_put(y, x, l->location, COLS - x, sel ? base : tui_attr(TUI_ROLE_LOCATION));
    }
}

static void dom_draw(tui_app *app, tui_view *base, int top, int bottom) {
    (void)app;
    dom_view *v = (dom_view *)base;
    draw_head(top++);
    v->height = bottom - top > 1 ? bottom - top : 1;
    tui_list_scroll(&v->sel, &v->top, v->n_lines, (size_t)v->height);
    for (int i = 0; i < v->height && v->top + (size_t)i < v->n_lines; i++)
        draw_line(v, v->top + (size_t)i, top + i);
    if (v->n_lines == 0)
        tui_put(top + 1, 2, "Nothing reachable.", COLS - 4, tui_attr(TUI_ROLE_INFO));
}

/* ---- requests ----------------------------------------------------------- */

static void open_row(tui_app *app, dom_view *v) {
    if (v->sel >= v->n_lines)
        return;
    dom_line *l = &v->lines[v->sel];
    if (l->open) { /* as in the tree: on an open one, go to its first child */
        if (v->sel + 1 < v->n_lines && v->lines[v->sel + 1].depth > l->depth)
            v->sel++;
        return;
    }
    if (!dominates(l)) {
        tui_app_message(app, TUI_ROLE_INFO, "it dominates nothing");
        return;
    }
    hs_error err = {0};
    if (insert_children(app, v, v->sel, &err) != HS_OK) {
        tui_app_error(app, "cannot open", &err);
        return;
    }
    if (v->lines[v->sel].more)
        tui_app_message(app, TUI_ROLE_INFO, "the %d largest shown; %" PRIu64 " more dominated",
                        DOM_CHILDREN, v->lines[v->sel].more);
}

static void close_sel(dom_view *v) {
    if (v->sel >= v->n_lines)
        return;
    if (v->lines[v->sel].open) {
        close_row(v, v->sel);
        return;
    }
    unsigned depth = v->lines[v->sel].depth; /* to its parent */
    while (depth > 0 && v->sel > 0 && v->lines[v->sel].depth >= depth)
        v->sel--;
}

static bool dom_line_shows(const void *ctx, size_t i, const char *needle) {
    const dom_line *l = &((const dom_view *)ctx)->lines[i];
    return (l->label && tui_find_ci(l->label, needle) >= 0) ||
           (l->location && tui_find_ci(l->location, needle) >= 0) ||
           tui_find_ci(hs_closure_type_name(l->type), needle) >= 0;
}

static void find_next(tui_app *app, dom_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->n_lines, needle, dom_line_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the rows", needle);
}

static bool dom_request(tui_app *app, tui_view *base, tui_request req) {
    dom_view *v = (dom_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->n_lines, page, req))
        return true;
    switch (req) {
    case TUI_REQ_OPEN: open_row(app, v); return true;
    case TUI_REQ_CLOSE: close_sel(v); return true;
    case TUI_REQ_CLOSE_ALL: /* the selection goes to its top-level row, which stays */
        while (v->sel > 0 && v->sel < v->n_lines && v->lines[v->sel].depth > 0)
            v->sel--;
        for (size_t i = 0; i < v->n_lines; i++)
            if (v->lines[i].depth == 0 && v->lines[i].open) {
                if (i < v->sel)
                    v->sel -= subtree_end(v, i) - i - 1;
                close_row(v, i);
            }
        return true;
    case TUI_REQ_FIND_NEXT: find_next(app, v, app->ex.find); return true;
    default: return false;
    }
}

static uint64_t dom_selected(tui_app *app, tui_view *base) {
    (void)app;
    dom_view *v = (dom_view *)base;
    return v->sel < v->n_lines ? v->lines[v->sel].c.addr : 0;
}

static const tui_hint dom_hints[] = {
    {"Expand", "open"}, {"Collapse or go to parent", "close"}, {"Back", "back"},
    {"Help", "help"}, {"Command palette", "commands"}, {"Quit", "quit"}, {NULL, NULL}};

static const tui_view_ops dom_ops = {
    .kind = "dominators",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = dom_draw,
    .request = dom_request,
    .selected = dom_selected,
    .hints = dom_hints,
    .free = dom_free,
};

/* ---- opening ------------------------------------------------------------ */

static bool on_progress(void *ctx, uint64_t done) {
    (void)ctx;
    return tui_progress("dominator tree", done, "closures");
}

const query_dominators *tui_dominators_get(tui_app *app) { return app->ex.dominators; }

hs_status tui_dominators_compute(tui_app *app, hs_error *err) {
    if (app->ex.dominators)
        return HS_OK;
    tui_progress_begin("dominator tree");
    hs_status st = query_dominators_run(session_heap(app->sess), on_progress, NULL,
                                        &app->ex.dominators, err);
    if (st != HS_OK && tui_progress_cancelled())
        err->status = HS_ERR_CANCELLED;
    if (st != HS_OK)
        app->ex.dominators = NULL;
    return st;
}

void tui_cmd_retained(tui_app *app, int arg) {
    (void)arg;
    hs_error err = {0};
    bool had = app->ex.dominators != NULL;
    if (tui_dominators_compute(app, &err) != HS_OK) {
        tui_app_error(app, "retained sizes", &err);
        return;
    }
    tui_view *v = tui_app_view(app);
    if (v->ops->request && v->ops->request(app, v, TUI_REQ_RETAINED))
        return; /* the view said what it shows */
    tui_app_message(app, TUI_ROLE_INFO,
                    "%s: search results, a census and the details pane show retained sizes",
                    had ? "the dominator tree of this pause was computed already"
                        : "dominator tree computed");
}

void tui_cmd_dominators(tui_app *app, int arg) {
    (void)arg;
    hs_error err = {0};
    if (tui_dominators_compute(app, &err) != HS_OK) {
        tui_app_error(app, "dominators", &err);
        return;
    }
    dom_view *v = calloc(1, sizeof *v);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    v->base.ops = &dom_ops;
    if (insert_top(app, v, &err) != HS_OK) {
        dom_free(&v->base);
        tui_app_error(app, "dominators", &err);
        return;
    }
    query_dominators_info info;
    query_dominators_stats(app->ex.dominators, &info);
    snprintf(v->base.title, sizeof v->base.title, "Dominators: the closures that retain most");
    snprintf(v->base.summary, sizeof v->base.summary, "%" PRIu64 " %s, %" PRIu64 " bytes",
             info.closures, hs_plural(info.closures, "closure", "closures"), info.bytes);
    tui_explorer_push(app, &v->base);
    char skipped[HS_ERROR_MESSAGE_MAX + 96];
    tui_unreadable_note(&info.unreadable, skipped, sizeof skipped);
    tui_app_message(app, TUI_ROLE_INFO,
                    "%" PRIu64 " reachable %s, %" PRIu64 " bytes; Enter: what a closure dominates%s",
                    info.closures, hs_plural(info.closures, "closure", "closures"), info.bytes,
                    skipped);
}
