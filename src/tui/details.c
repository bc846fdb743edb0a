/* The details pane of the selected node: address, info pointer, closure
 * type, constructor (package, module, name), size, the profiling header
 * (era or LDV, cost-centre stack) and the source location from the info
 * table (IPE: name, type, label, module, location). Items flow left to
 * right in a wide bottom pane, one per line in a side pane. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "heapscope/query_node.h"
#include "details.h"
#include "draw.h"
#include "heapscope/closure_type.h"
#include "heapscope/plural.h"
#include "rows.h"
#include "term.h"
#include "tree_view.h"
#include "tui_curses.h"

#define ITEMS_MAX 20
#define KEY_COLS 13 /* at least */

typedef struct item {
    const char *key;
    char value[600];
    tui_role role;
} item;

typedef struct items {
    item it[ITEMS_MAX];
    size_t n;
} items;

static item *add(items *s, const char *key, tui_role role) {
    if (s->n == ITEMS_MAX)
        return NULL;
    item *i = &s->it[s->n++];
    i->key = key;
    i->role = role;
    i->value[0] = 0;
    return i;
}

#define ADD(s, key, role, ...)                                                                 \
    do {                                                                                       \
        item *it_ = add(s, key, role);                                                         \
        if (it_)                                                                               \
            snprintf(it_->value, sizeof it_->value, __VA_ARGS__);                             \
    } while (0)

static void size_text(uint64_t bytes, char *buf, size_t cap) {
    if (bytes < 1024)
        snprintf(buf, cap, "%" PRIu64 " B", bytes);
    else if (bytes < 1024 * 1024)
        snprintf(buf, cap, "%.1f KiB (%" PRIu64 " B)", (double)bytes / 1024, bytes);
    else
        snprintf(buf, cap, "%.1f MiB (%" PRIu64 " B)", (double)bytes / 1048576, bytes);
}

/* The profiling header rows (retainers-and-eras.md §5), worded by the
 * heap module as the CLI words them. */
static void prof_items(items *s, const heap_prof_info *p) {
    const char *key = heap_prof_state_key(p);
    if (!key)
        return;
    item *it = add(s, key, TUI_ROLE_DETAILS);
    if (it)
        heap_prof_state_text(p, tui_term_caps_get()->utf8 ? HEAP_PROF_PANE : HEAP_PROF_PANE_ASCII,
                             it->value, sizeof it->value);
    if (p->ccs) {
        char cc[sizeof it->value - 24];
        heap_prof_cc_text(p, HEAP_PROF_PANE, cc, sizeof cc);
        ADD(s, "CCS", p->cc ? TUI_ROLE_DETAILS : TUI_ROLE_ERROR, "0x%" PRIx64 "  %s", p->ccs, cc);
    }
}

static void ipe_items(items *s, const query_node_details *d) {
    const wire_source_info *ipe = d->ipe;
    if (d->source_failed) {
        ADD(s, "Source", TUI_ROLE_ERROR, "%s", d->source_error);
        return;
    }
    if (!ipe) {
        if (d->advice[0])
            ADD(s, "Source", TUI_ROLE_INFO, "no info-table location: %s", d->advice);
        return;
    }
    ADD(s, "Name", TUI_ROLE_DETAILS, "%s", ipe->name ? ipe->name : "");
    if (ipe->type && *ipe->type)
        ADD(s, "Type", TUI_ROLE_DETAILS, "%s", ipe->type);
    if (ipe->label && *ipe->label)
        ADD(s, "Label", TUI_ROLE_DETAILS, "%s", ipe->label);
    if (ipe->module && *ipe->module)
        ADD(s, "Module", TUI_ROLE_DETAILS, "%s", ipe->module);
    char where[sizeof s->it[0].value];
    heap_ipe_location(ipe, where, sizeof where);
    if (where[0])
        ADD(s, "Location", TUI_ROLE_LOCATION, "%s", where);
}

static void match_items(const tui_tree_view *v, items *s, const tui_node *n) {
    if (n->flags & TUI_NODE_MATCH && n->aux < v->n_matches) {
        const tui_match *m = &v->matches[n->aux];
        uint32_t steps = m->n_steps ? m->n_steps - 1 : 0;
        if (v->match_what)
            ADD(s, "Match", TUI_ROLE_MATCH, "%" PRIu64 " of %zu, %s", n->aux + 1, v->n_matches,
                v->match_what);
        else
            ADD(s, "Match", TUI_ROLE_MATCH, "%" PRIu64 " of %zu, %u %s from a %s", n->aux + 1,
                v->n_matches, steps, hs_plural(steps, "step", "steps"),
                m->from_saved ? "saved object" : "GC root");
        if (m->n_newer)
            ADD(s, "Eras", TUI_ROLE_LEAK_EDGE, "%u %s where a newer era retains an older one",
                m->n_newer, hs_plural(m->n_newer, "edge", "edges"));
    }
    if ((n->flags & TUI_NODE_LEAK) && !(n->flags & TUI_NODE_MATCH))
        ADD(s, "Retained", TUI_ROLE_LEAK_EDGE, "by a closure of a newer era (the row above)");
}

static void closure_items(tui_app *app, items *s, const tui_node *n) {
    ADD(s, "Address", TUI_ROLE_ADDRESS, "0x%" PRIx64, n->addr);
    if (!n->addr)
        return;
    static query_node_details d; /* (big: not on the stack) */
    query_node_details_get(session_heap(app->sess), n->addr, &d);
    if (d.status != HS_OK) {
        ADD(s, "Error", TUI_ROLE_ERROR, "%s", d.error);
        return;
    }
    ADD(s, "Info pointer", TUI_ROLE_ADDRESS, "0x%" PRIx64, d.info_ptr);
    ADD(s, "Closure type", TUI_ROLE_TYPE, "%s", hs_closure_type_name(d.type));
    if (d.con_name && heap_con_is_srt(d.con_package, d.con_module, d.con_name))
        ADD(s, "Constructor", TUI_ROLE_DETAILS, "%s  (a static reference table of GHC's code)",
            d.con_name);
    else if (d.con_name)
        ADD(s, "Constructor", TUI_ROLE_DETAILS, "%s  (package %s, module %s)", d.con_name,
            d.con_package ? d.con_package : "?", d.con_module ? d.con_module : "?");
    item *sz = add(s, "Size", TUI_ROLE_DETAILS);
    if (sz)
        size_text(d.size, sz->value, sizeof sz->value);
    query_dominated dom; /* only once the dominator tree was computed for this pause */
    item *ret = app->ex.dominators && query_dominators_get(app->ex.dominators, n->addr, &dom)
                    ? add(s, "Retained", TUI_ROLE_DETAILS)
                    : NULL;
    if (ret)
        size_text(dom.retained, ret->value, sizeof ret->value);
    prof_items(s, &d.prof);
    ipe_items(s, &d);
}

/* The items of the last node whose reading was cut short (Esc, a
 * timeout): redrawing that node shows them again instead of asking a
 * debuggee that does not answer on every redraw. */
static struct {
    bool held;
    const tui_tree *t;
    tui_node_id id;
    items s;
} memo;

void tui_details_forget(void) { memo.held = false; }

static void read_items(tui_app *app, tui_tree_view *v, tui_node_id id, items *s);

static void collect(tui_app *app, tui_tree_view *v, tui_node_id id, items *s) {
    const tui_tree *t = &v->tree;
    if (memo.held && memo.t == t && memo.id == id) {
        *s = memo.s;
        return;
    }
    read_items(app, v, id, s);
    memo.held = app->sess && session_lost(app->sess);
    if (memo.held) {
        memo.t = t;
        memo.id = id;
        memo.s = *s;
    }
}

static void read_items(tui_app *app, tui_tree_view *v, tui_node_id id, items *s) {
    s->n = 0;
    if (id == TUI_NODE_NONE || !session_heap(app->sess))
        return;
    const tui_node *n = tui_tree_node(&v->tree, id);
    match_items(v, s, n);
    const char *label = tui_tree_label(&v->tree, id);
    if (n->kind == TUI_NODE_CLOSURE && label && strncmp(label, "Frame ", 6) == 0)
        ADD(s, "Held by", TUI_ROLE_DETAILS, "%s", label); /* whole: a row may cut it */
    if (n->kind == TUI_NODE_CLOSURE) {
        closure_items(app, s, n);
    } else if (n->kind == TUI_NODE_CCS || n->kind == TUI_NODE_CC) {
        hs_error err = {0};
        const char *text = tui_cc_text(app, n->addr, n->kind == TUI_NODE_CCS, &err);
        ADD(s, n->kind == TUI_NODE_CCS ? "CCS" : "Cost centre", TUI_ROLE_ADDRESS, "0x%" PRIx64,
            n->addr);
        ADD(s, "Cost centre", text ? TUI_ROLE_DETAILS : TUI_ROLE_ERROR, "%s",
            text ? text : err.message);
    }
}

/* Lays the items out in w columns from (y, x); draws when h > 0. Returns
 * the lines used. Side panes (narrow) get one item per line. */
static int layout(const items *s, int y, int x, int h, int w, bool one_per_line) {
    int line = 0, col = 0, key_cols = KEY_COLS; /* a side pane's keys: the longest + a space */
    for (size_t i = 0; i < s->n; i++)
        if ((int)strlen(s->it[i].key) + 1 > key_cols)
            key_cols = (int)strlen(s->it[i].key) + 1;
    for (size_t i = 0; i < s->n; i++) {
        const item *it = &s->it[i];
        int kw = one_per_line ? key_cols : (int)strlen(it->key) + 1;
        int need = kw + tui_text_cols(it->value, strlen(it->value));
        if (i > 0 && (one_per_line || col + need > w)) {
            line++;
            col = 0;
        }
        if (line < h)
            tui_put(y + line, x + col, it->key, w - col, tui_attr(TUI_ROLE_DETAILS_KEY) | A_BOLD);
        if (one_per_line && w > kw) { /* a side pane wraps long values under themselves */
            const char *v = it->value;
            for (;;) {
                size_t n = tui_text_wrap(v, w - kw);
                char part[sizeof it->value];
                snprintf(part, sizeof part, "%.*s", (int)n, v);
                if (line < h)
                    tui_put(y + line, x + kw, part, w - kw, tui_attr(it->role));
                v += n;
                while (*v == ' ')
                    v++;
                if (!*v || n == 0)
                    break;
                line++;
            }
        } else if (line < h) {
            tui_put(y + line, x + col + kw, it->value, w - col - kw, tui_attr(it->role));
        }
        col += need + 3;
    }
    return s->n ? line + 1 : 0;
}

int tui_details_height(tui_app *app, tui_tree_view *v, tui_node_id id, int w) {
    static items s;
    collect(app, v, id, &s);
    return layout(&s, 0, 0, 0, w, false);
}

void tui_details_draw(tui_app *app, tui_tree_view *v, tui_node_id id, int y, int x, int h,
                      int w) {
    static items s;
    collect(app, v, id, &s);
    bool side = x > 0;
    int attr = tui_attr(TUI_ROLE_DETAILS);
    for (int r = 0; r < h; r++)
        tui_fill(y + r, x, w, attr);
    if (side) {
        tui_vline(y, x, h, tui_attr(TUI_ROLE_GUIDE));
        tui_put(y, x + 2, "Details", w - 3, tui_attr(TUI_ROLE_DETAILS_KEY) | A_BOLD);
        layout(&s, y + 1, x + 2, h - 1, w - 3, true);
    } else {
        tui_hline(y, x, w, tui_attr(TUI_ROLE_GUIDE));
        tui_put(y, x + 2, " Details ", w - 4, tui_attr(TUI_ROLE_DETAILS_KEY) | A_BOLD);
        layout(&s, y + 1, x + 1, h - 1, w - 2, false);
    }
}
