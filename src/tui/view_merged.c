/* The merged paths view: the prefix tree of a search's retainer paths
 * (query_merged), each closure once under the one holding it, with the
 * matches at or below it and their bytes: why every match is alive, on
 * one screen. A search view builds the tree while it searches; the
 * toggle switches between its list of matches and this view. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "heapscope/closure_type.h"
#include "heapscope/plural.h"
#include "term.h"
#include "tree_view.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

struct tui_merged_ref {
    query_merged *tree;
    unsigned refs;
};

tui_merged_ref *tui_merged_ref_new(void) {
    tui_merged_ref *r = calloc(1, sizeof *r);
    hs_error err = {0};
    if (r && query_merged_new(&r->tree, &err) != HS_OK) {
        free(r);
        return NULL;
    }
    if (r)
        r->refs = 1;
    return r;
}

query_merged *tui_merged_ref_tree(tui_merged_ref *r) { return r ? r->tree : NULL; }

void tui_merged_ref_drop(tui_merged_ref *r) {
    if (r && --r->refs == 0) {
        query_merged_free(r->tree);
        free(r);
    }
}

typedef struct merged_line {
    size_t node;
    unsigned depth;
    bool open;
} merged_line;

typedef struct merged_view {
    tui_view base;
    tui_merged_ref *ref;
    merged_line *lines;
    size_t n_lines, cap;
    size_t sel, top;
    int height;
} merged_view;

static void merged_free(tui_view *base) {
    merged_view *v = (merged_view *)base;
    tui_merged_ref_drop(v->ref);
    free(v->lines);
    free(v);
}

static const query_merged_node *node_of(const merged_view *v, size_t i) {
    return query_merged_node_at(v->ref->tree, v->lines[i].node);
}

/* Inserts nodes[0..n) at depth after row (SIZE_MAX: at the start). */
static bool insert(merged_view *v, size_t row, const size_t *nodes, size_t n) {
    size_t at = row == SIZE_MAX ? 0 : row + 1;
    unsigned depth = row == SIZE_MAX ? 0 : v->lines[row].depth + 1;
    if (v->n_lines + n > v->cap) {
        size_t cap = (v->n_lines + n) * 2;
        merged_line *grown = realloc(v->lines, cap * sizeof *grown);
        if (!grown)
            return false;
        v->lines = grown;
        v->cap = cap;
    }
    memmove(&v->lines[at + n], &v->lines[at], (v->n_lines - at) * sizeof *v->lines);
    for (size_t i = 0; i < n; i++)
        v->lines[at + i] = (merged_line){.node = nodes[i], .depth = depth};
    v->n_lines += n;
    return true;
}

/* Opens row, and on down while a node has one child (a path's single
 * stretch shows at once); false when out of memory. */
static bool open_chain(merged_view *v, size_t row) {
    for (;;) {
        const query_merged_node *n = node_of(v, row);
        if (v->lines[row].open || n->n_children == 0)
            return true;
        if (!insert(v, row, n->children, n->n_children))
            return false;
        v->lines[row].open = true;
        if (n->n_children != 1)
            return true;
        row++;
    }
}

static size_t subtree_end(const merged_view *v, size_t row) {
    size_t end = row + 1;
    while (end < v->n_lines && v->lines[end].depth > v->lines[row].depth)
        end++;
    return end;
}

static void close_row(merged_view *v, size_t row) {
    size_t end = subtree_end(v, row);
    memmove(&v->lines[row + 1], &v->lines[end], (v->n_lines - end) * sizeof *v->lines);
    v->n_lines -= end - row - 1;
    v->lines[row].open = false;
}

/* ---- drawing ---------------------------------------------------------- */

static void merged_draw(tui_app *app, tui_view *base, int top, int bottom) {
    merged_view *v = (merged_view *)base;
    if (app->ex.n_filters > 0 && bottom - top > 3)
        tui_filters_draw(app, top++);
    char head[96];
    snprintf(head, sizeof head, "%8s %12s  %s", "matches", "bytes", "path (the matches below)");
    tui_fill(top, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    tui_put(top++, 1, head, COLS - 1, tui_attr(TUI_ROLE_LABEL) | A_BOLD);
    v->height = bottom - top > 1 ? bottom - top : 1;
    tui_list_scroll(&v->sel, &v->top, v->n_lines, (size_t)v->height);
    bool utf8 = tui_term_caps_get()->utf8;
    for (int r = 0; r < v->height && v->top + (size_t)r < v->n_lines; r++) {
        size_t i = v->top + (size_t)r;
        const query_merged_node *n = node_of(v, i);
        const query_step *s = &n->step;
        bool sel = i == v->sel;
        int y = top + r, base_attr = tui_attr(sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
        tui_fill(y, 0, COLS, base_attr);
        char buf[96];
        snprintf(buf, sizeof buf, "%8" PRIu64 " %12" PRIu64 "  ", n->matches, n->bytes);
        int x = 1 + tui_put(y, 1, buf, COLS - 1, base_attr);
        for (unsigned d = 0; d < v->lines[i].depth && x < COLS; d++)
            x += tui_put(y, x, "  ", COLS - x, base_attr);
        const char *mark = n->n_children == 0 ? "  "
                           : v->lines[i].open ? (utf8 ? "▾ " : "- ")
                                              : (utf8 ? "▸ " : "+ ");
        x += tui_put(y, x, mark, COLS - x, base_attr);
        const char *edge = n->parent == QUERY_MERGED_NONE
                               ? (n->from_saved_object ? "Saved Object" : "GC Roots")
                               : s->edge ? s->edge : "";
        snprintf(buf, sizeof buf, "%s  0x%" PRIx64 "  ", edge, s->addr);
        x += tui_put(y, x, buf, COLS - x,
                     sel ? base_attr : tui_attr(s->newer_retains_older ? TUI_ROLE_LEAK_EDGE
                                                                       : TUI_ROLE_NORMAL));
        x += tui_put(y, x, hs_closure_type_name(s->type), COLS - x,
                     sel ? base_attr : tui_attr(TUI_ROLE_TYPE));
        snprintf(buf, sizeof buf, " %" PRIu32 " B  ", s->size);
        x += tui_put(y, x, buf, COLS - x, base_attr);
        x += tui_put(y, x, s->label ? s->label : "", COLS - x,
                     sel || !n->match ? base_attr : tui_attr(TUI_ROLE_MATCH));
        char where[512];
        heap_ipe_location(s->ipe, where, sizeof where);
        if (where[0]) {
            x += tui_put(y, x, "  ", COLS - x, base_attr);
            tui_put(y, x, where, COLS - x, sel ? base_attr : tui_attr(TUI_ROLE_LOCATION));
        }
    }
    if (v->n_lines == 0)
        tui_put(top + 1, 2, "Nothing matched.", COLS - 4, tui_attr(TUI_ROLE_INFO));
}

/* ---- requests ----------------------------------------------------------- */

static bool merged_line_shows(const void *ctx, size_t i, const char *needle) {
    const query_step *s = &node_of((const merged_view *)ctx, i)->step;
    return (s->label && tui_find_ci(s->label, needle) >= 0) ||
           (s->edge && tui_find_ci(s->edge, needle) >= 0) ||
           tui_find_ci(hs_closure_type_name(s->type), needle) >= 0;
}

static void find_next(tui_app *app, merged_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->n_lines, needle, merged_line_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the rows", needle);
}

static bool merged_request(tui_app *app, tui_view *base, tui_request req) {
    merged_view *v = (merged_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->n_lines, page, req))
        return true;
    if (v->sel >= v->n_lines)
        return req == TUI_REQ_OPEN || req == TUI_REQ_CLOSE || req == TUI_REQ_CLOSE_ALL;
    switch (req) {
    case TUI_REQ_OPEN:
        if (v->lines[v->sel].open) {
            if (v->sel + 1 < v->n_lines && v->lines[v->sel + 1].depth > v->lines[v->sel].depth)
                v->sel++;
        } else if (!open_chain(v, v->sel)) {
            tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        }
        return true;
    case TUI_REQ_CLOSE:
        if (v->lines[v->sel].open)
            close_row(v, v->sel);
        else
            for (unsigned d = v->lines[v->sel].depth; d > 0 && v->lines[v->sel].depth >= d;)
                v->sel--;
        return true;
    case TUI_REQ_CLOSE_ALL:
        while (v->lines[v->sel].depth > 0)
            v->sel--;
        for (size_t i = 0; i < v->n_lines; i++)
            if (v->lines[i].open && v->lines[i].depth == 0) {
                if (i < v->sel)
                    v->sel -= subtree_end(v, i) - i - 1;
                close_row(v, i);
            }
        return true;
    case TUI_REQ_FIND_NEXT: find_next(app, v, app->ex.find); return true;
    default: return false;
    }
}

static uint64_t merged_selected(tui_app *app, tui_view *base) {
    (void)app;
    merged_view *v = (merged_view *)base;
    return v->sel < v->n_lines ? node_of(v, v->sel)->step.addr : 0;
}

static const tui_hint merged_hints[] = {
    {"Expand", "open"}, {"Collapse or go to parent", "close"}, {"Merged paths", "matches"},
    {"Back", "back"}, {"Help", "help"}, {"Command palette", "commands"}, {"Quit", "quit"},
    {NULL, NULL}};

static const tui_view_ops merged_ops = {
    .kind = "merged paths",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = merged_draw,
    .request = merged_request,
    .selected = merged_selected,
    .hints = merged_hints,
    .free = merged_free,
};

/* ---- opening ------------------------------------------------------------ */

/* A new view of ref's tree (finished), its starts shown, the first opened. */
static merged_view *merged_new(tui_merged_ref *ref, const tui_view *list) {
    merged_view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->base.ops = &merged_ops;
    v->ref = ref;
    ref->refs++;
    size_t n_starts;
    const size_t *starts = query_merged_starts(ref->tree, &n_starts);
    if (!insert(v, SIZE_MAX, starts, n_starts) || (n_starts && !open_chain(v, 0))) {
        merged_free(&v->base);
        return NULL;
    }
    snprintf(v->base.title, sizeof v->base.title, "Merged paths: %.*s",
             (int)(sizeof v->base.title - 15), list->title);
    uint64_t matches = 0, bytes = 0;
    for (size_t i = 0; i < n_starts; i++) {
        matches += query_merged_node_at(ref->tree, starts[i])->matches;
        bytes += query_merged_node_at(ref->tree, starts[i])->bytes;
    }
    snprintf(v->base.summary, sizeof v->base.summary, "%" PRIu64 " %s, %" PRIu64 " bytes",
             matches, hs_plural(matches, "match", "matches"), bytes);
    return v;
}

void tui_cmd_merged(tui_app *app, int arg) {
    (void)arg;
    tui_explorer *ex = &app->ex;
    tui_view *cur = tui_app_view(app);
    if (cur->ops == &merged_ops) { /* back to the list it was opened from */
        merged_view *m = (merged_view *)cur;
        tui_tree_view *prev = ex->pos > 0 ? tui_tree_view_of(ex->hist[ex->pos - 1]) : NULL;
        if (prev && prev->merged == m->ref)
            tui_cmd_back(app, 0);
        else
            tui_app_message(app, TUI_ROLE_ERROR, "its list of matches is no longer in the history");
        return;
    }
    tui_tree_view *list = tui_tree_view_of(cur);
    if (!list || !list->merged) {
        tui_app_message(app, TUI_ROLE_ERROR, "Merged paths: only on the results of a search");
        return;
    }
    if (ex->pos + 1 < ex->n_hist) { /* toggled before: the same view is next */
        tui_view *next = ex->hist[ex->pos + 1];
        if (next->ops == &merged_ops && ((merged_view *)next)->ref == list->merged) {
            tui_cmd_forward(app, 0);
            return;
        }
    }
    merged_view *v = merged_new(list->merged, cur);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    tui_explorer_push(app, &v->base);
    char key[32];
    tui_app_message(app, TUI_ROLE_INFO, "%s: why every match is alive; %s again: the list",
                    v->base.summary, tui_command_key("Merged paths", key, sizeof key));
}
