/* Drawing a tree view: the filters bar, the tree (only the rows on screen
 * are decoded and drawn, so any number of roots scrolls), the era legend
 * and the details pane.
 * Row: guides, marker, edge label, colour bar (§5), address, type, size,
 * (a search match's retained size once the dominator tree exists), closure
 * text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "details.h"
#include "draw.h"
#include "input.h"
#include "heapscope/closure_type.h"
#include "rows.h"
#include "search.h"
#include "term.h"
#include "tree_view.h"
#include "tui_curses.h"
#include "view.h"

#define LEGEND_MAX 24
#define GUIDE_LEVELS_MAX 512
/* A long edge label (a stack frame's names its code and location) is cut
 * with an ellipsis where the closure would get fewer columns than this;
 * the details pane ("Held by") and the CLI show it whole. */
#define CLOSURE_ROOM 44
#define LABEL_MIN 16

/* ---- rows ------------------------------------------------------------ */

/* Puts text, with the find text highlighted. */
static int put_hl(tui_app *app, int y, int x, const char *text, int cols, int attr) {
    const char *needle = app->ex.find;
    long at = needle[0] && app->ex.find_shown ? tui_find_ci(text, needle) : -1;
    if (at < 0)
        return tui_put(y, x, text, cols, attr);
    char head[1024];
    size_t nl = strlen(needle);
    int used = 0;
    snprintf(head, sizeof head, "%.*s", (int)at, text);
    used += tui_put(y, x, head, cols, attr);
    snprintf(head, sizeof head, "%.*s", (int)nl, text + at);
    used += tui_put(y, x + used, head, cols - used, tui_attr(TUI_ROLE_MATCH));
    used += tui_put(y, x + used, text + at + nl, cols - used, attr);
    return used;
}

/* Tree guides: a pipe for each ancestor level that has more siblings
 * below, then a branch or a last-branch; deep rows keep the innermost
 * levels behind an ellipsis so that the row's text stays visible. */
static int draw_guides(tui_tree *t, tui_node_id id, int y, int x, int cols, int attr) {
    const tui_node *n = tui_tree_node(t, id);
    if (n->depth == 0)
        return 0;
    static bool more[GUIDE_LEVELS_MAX];
    uint32_t d = n->depth;
    tui_node_id a = n->parent;
    for (uint32_t level = d - 1; level >= 1 && a != TUI_NODE_NONE; level--) {
        if (level < GUIDE_LEVELS_MAX)
            more[level] = tui_tree_node(t, a)->next_sibling != TUI_NODE_NONE;
        a = tui_tree_node(t, a)->parent;
    }
    int max_levels = cols / 2 / 3;
    uint32_t first = 1;
    int used = 0;
    if ((int)d > max_levels && max_levels > 1) {
        first = d - (uint32_t)max_levels + 1;
        used += tui_put(y, x, tui_glyph_ellipsis(), cols, attr);
        used += tui_put(y, x + used, " ", cols - used, attr);
    }
    for (uint32_t level = first; level < d; level++) {
        bool m = level < GUIDE_LEVELS_MAX && more[level];
        used += tui_put(y, x + used, m ? tui_glyph_pipe() : "   ", cols - used, attr);
    }
    const char *own = n->next_sibling == TUI_NODE_NONE ? tui_glyph_last() : tui_glyph_branch();
    return used + tui_put(y, x + used, own, cols - used, attr);
}

static void draw_bar(const tui_row *r, int y, int x, int base) {
    tui_put(y, x, "   ", 3, base);
    if (!r)
        return;
    if (r->bar == TUI_BAR_ERA && tui_term_era_colors())
        tui_put(y, x + 1, " ", 1, tui_era_attr(r->era));
    else if (r->bar == TUI_BAR_LDV_USED)
        tui_put(y, x + 1, " ", 1, tui_ldv_attr());
}

static void draw_row(tui_app *app, tui_tree_view *v, size_t row, int y, int w) {
    tui_tree *t = &v->tree;
    size_t n_rows;
    tui_node_id id = tui_tree_rows(t, &n_rows)[row];
    const tui_row *r = tui_row_get(app, t, id);
    const tui_node *n = tui_tree_node(t, id);
    bool sel = row == v->sel, era_bg = false;
    int base = tui_attr(TUI_ROLE_NORMAL);
    if (sel) {
        base = tui_attr(TUI_ROLE_SELECTED);
    } else if (app->ex.era_colors && r && r->bar == TUI_BAR_ERA && tui_term_era_colors()) {
        base = tui_era_attr(r->era);
        era_bg = true;
    }
    bool plain = sel || era_bg; /* one colour for the whole row */
    tui_fill(y, 0, w, base);
    int x = draw_guides(t, id, y, 0, w, plain ? base : tui_attr(TUI_ROLE_GUIDE));
    const char *marker = n->expanded ? tui_glyph_open() : n->leaf ? "  " : tui_glyph_closed();
    x += tui_put(y, x, marker, w - x, plain ? base : tui_attr(TUI_ROLE_GUIDE));
    const char *label = tui_tree_label(t, id);
    if (label) {
        int attr = (plain ? base : tui_attr(TUI_ROLE_LABEL)) | A_BOLD;
        int room = w - x - CLOSURE_ROOM < LABEL_MIN ? LABEL_MIN : w - x - CLOSURE_ROOM;
        if (room >= w - x || tui_text_cols(label, strlen(label)) <= room) {
            x += put_hl(app, y, x, label, w - x, attr);
        } else {
            x += put_hl(app, y, x, label, room - 1, attr);
            x += tui_put(y, x, tui_glyph_ellipsis(), 1, attr);
        }
    }
    if (n->flags & TUI_NODE_LEAK) {
        x += tui_put(y, x, " ", w - x, base);
        x += tui_put(y, x, tui_glyph_leak(), w - x, tui_attr(TUI_ROLE_LEAK_EDGE) | A_BOLD);
    }
    if (n->kind == TUI_NODE_TEXT || !r)
        return;
    if (n->kind != TUI_NODE_CLOSURE || r->error) {
        x += tui_put(y, x, "   ", w - x, base);
        put_hl(app, y, x, r->text, w - x, r->error ? tui_attr(TUI_ROLE_ERROR) : base);
        return;
    }
    if (x + 3 <= w)
        draw_bar(r, y, x, base);
    x += 3;
    char buf[64];
    if (n->addr)
        snprintf(buf, sizeof buf, "0x%" PRIx64, n->addr);
    else
        snprintf(buf, sizeof buf, "null");
    x += put_hl(app, y, x, buf, w - x, plain ? base : tui_attr(TUI_ROLE_ADDRESS));
    if (!n->addr)
        return;
    x += tui_put(y, x, "  ", w - x, base);
    x += put_hl(app, y, x, hs_closure_type_name(r->type), w - x,
                plain ? base : tui_attr(TUI_ROLE_TYPE));
    snprintf(buf, sizeof buf, " %" PRIu32 " B  ", r->size);
    x += tui_put(y, x, buf, w - x, plain ? base : tui_attr(TUI_ROLE_INFO));
    if ((n->flags & TUI_NODE_MATCH) && app->ex.dominators) { /* once computed (R) */
        query_dominated dom;
        if (query_dominators_get(app->ex.dominators, n->addr, &dom))
            snprintf(buf, sizeof buf, "[retains %" PRIu64 " B]  ", dom.retained);
        else
            snprintf(buf, sizeof buf, "[not reachable]  ");
        x += tui_put(y, x, buf, w - x, plain ? base : tui_attr(TUI_ROLE_INFO));
    }
    put_hl(app, y, x, r->text, w - x, base);
}

/* ---- bars ------------------------------------------------------------ */

void tui_filters_draw(tui_app *app, int y) {
    int attr = tui_attr(TUI_ROLE_FILTER);
    tui_fill(y, 0, COLS, attr);
    int x = tui_put(y, 0, " Filters: ", COLS, attr | A_BOLD);
    for (size_t i = 0; i < app->ex.n_filters && x < COLS; i++) {
        char d[320];
        tui_filter_describe(app, i, d, sizeof d);
        char item[400];
        snprintf(item, sizeof item, "%s%zu:%s", i ? "  " : "", i + 1, d);
        x += tui_put(y, x, item, COLS - x, attr);
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The eras of the rows on screen, each in its colour. */
static void draw_legend(tui_tree_view *v, size_t first, size_t count, int y) {
    uint64_t eras[LEGEND_MAX];
    size_t ne = 0, n;
    const uint32_t *rows = tui_tree_rows(&v->tree, &n);
    for (size_t i = first; i < first + count && i < n; i++) {
        const tui_row *r = tui_tree_node(&v->tree, rows[i])->row;
        if (!r || r->bar != TUI_BAR_ERA)
            continue;
        bool seen = false;
        for (size_t k = 0; k < ne && !seen; k++)
            seen = eras[k] == r->era;
        if (!seen && ne < LEGEND_MAX)
            eras[ne++] = r->era;
    }
    qsort(eras, ne, sizeof eras[0], cmp_u64);
    tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    int x = tui_put(y, 0, " Eras on screen: ", COLS, tui_attr(TUI_ROLE_INFO) | A_BOLD);
    if (ne == 0)
        x += tui_put(y, x, "none", COLS - x, tui_attr(TUI_ROLE_INFO));
    for (size_t k = 0; k < ne && x < COLS; k++) {
        char e[32];
        snprintf(e, sizeof e, " %" PRIu64 " ", eras[k]);
        x += tui_put(y, x, e, COLS - x, tui_era_attr(eras[k]));
        x += tui_put(y, x, " ", COLS - x, tui_attr(TUI_ROLE_NORMAL));
    }
}

void tui_tree_view_draw(tui_app *app, tui_tree_view *v, int top, int bottom) {
    /* tree rows [top, bottom) */
    if (app->ex.n_filters > 0 && bottom - top > 3)
        tui_filters_draw(app, top++);
    bool legend = app->ex.era_colors && tui_term_era_colors() &&
                  session_prof_mode(app->sess) == WIRE_PROF_ERA && bottom - top > 3;
    if (legend)
        bottom--;
    int tree_w = COLS, pane_w = 0, pane_h = 0;
    tui_node_id sel = tui_tree_view_selected(v);
    if (app->ex.details && sel != TUI_NODE_NONE) {
        if (COLS >= 140) {
            pane_w = COLS / 3 < 64 ? COLS / 3 : 64;
            tree_w = COLS - pane_w;
        } else {
            int want = tui_details_height(app, v, sel, COLS - 2) + 1;
            int most = (bottom - top) / 2;
            pane_h = want < most ? want : most;
            if (pane_h < 2)
                pane_h = 0;
        }
    }
    int tree_h = bottom - top - pane_h;
    if (tree_h < 1)
        tree_h = 1;
    v->height = tree_h;
    size_t n;
    tui_tree_rows(&v->tree, &n);
    tui_list_scroll(&v->sel, &v->top, n, (size_t)tree_h);
    tui_rows_prefetch(app, &v->tree, v->top, (size_t)tree_h);
    for (int i = 0; i < tree_h && v->top + (size_t)i < n; i++)
        draw_row(app, v, v->top + (size_t)i, top + i, tree_w);
    if (n == 0)
        tui_put(top + 1, 2, v->empty, COLS - 4, tui_attr(TUI_ROLE_INFO));
    if (legend)
        draw_legend(v, v->top, (size_t)tree_h, bottom);
    sel = tui_tree_view_selected(v);
    if (pane_w > 0)
        tui_details_draw(app, v, sel, top, tree_w, bottom - top, pane_w);
    else if (pane_h > 0)
        tui_details_draw(app, v, sel, top + tree_h, 0, pane_h, COLS);
}
