/* What the explorer's nodes show and contain, asked of the query module
 * (query_node.h) only when a row comes on screen (described once, kept
 * with the node; the rows on screen in one batch) or a node is opened
 * (its children added then): the tree of a big heap costs what was looked
 * at, not what exists. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "heapscope/query_node.h"
#include "rows.h"
#include "tree_view.h"

static tui_row *new_row(const char *text) {
    size_t n = strlen(text);
    tui_row *r = calloc(1, sizeof *r + n + 1);
    if (r)
        memcpy(r->text, text, n + 1);
    return r;
}

static uint8_t bar_of(const query_node *q) {
    switch (q->prof) {
    case HEAP_PROF_ABSENT: return TUI_BAR_NONE;
    case HEAP_PROF_ERA: return TUI_BAR_ERA;
    case HEAP_PROF_LDV: return q->ldv_used ? TUI_BAR_LDV_USED : TUI_BAR_PLAIN;
    default: return TUI_BAR_PLAIN;
    }
}

/* The rows being described: the nodes in the order of their addresses. */
typedef struct describing {
    tui_tree *t;
    const tui_node_id *ids;
    size_t next;
} describing;

static bool on_node(void *ctx, const query_node *q) {
    describing *d = ctx;
    tui_node *n = tui_tree_node(d->t, d->ids[d->next++]);
    tui_row *r = new_row(q->text);
    if (!r)
        return false;
    if (q->status != HS_OK) {
        r->error = true;
        n->leaf = true;
    } else {
        r->type = q->type;
        r->size = q->size;
        r->bar = bar_of(q);
        r->era = q->era;
        if (!q->has_children && !(n->flags & TUI_NODE_MATCH))
            n->leaf = true;
    }
    n->row = r;
    return true;
}

/* Rows for the closure nodes ids[0..n) (non-null, not yet described). */
static void describe_closures(tui_app *app, tui_tree *t, const tui_node_id *ids, size_t n) {
    uint64_t *addrs = malloc((n ? n : 1) * sizeof *addrs);
    if (!addrs)
        return;
    for (size_t i = 0; i < n; i++)
        addrs[i] = tui_tree_node(t, ids[i])->addr;
    describing d = {.t = t, .ids = ids};
    hs_error err;
    (void)query_nodes_describe(session_heap(app->sess), addrs, n, on_node, &d, &err);
    free(addrs);
}

const tui_row *tui_row_get(tui_app *app, tui_tree *t, tui_node_id id) {
    tui_node *n = tui_tree_node(t, id);
    if (n->row || n->kind == TUI_NODE_TEXT || !session_heap(app->sess))
        return n->row;
    if (n->kind == TUI_NODE_CLOSURE && n->addr == 0) {
        n->leaf = true;
        n->row = new_row("null");
    } else if (n->kind == TUI_NODE_CLOSURE) {
        describe_closures(app, t, &id, 1);
    } else {
        hs_error err = {0};
        const char *text = tui_cc_text(app, n->addr, n->kind == TUI_NODE_CCS, &err);
        tui_row *r = new_row(text ? text : err.message);
        if (r)
            r->error = !text;
        tui_tree_node(t, id)->row = r;
    }
    return tui_tree_node(t, id)->row;
}

void tui_rows_prefetch(tui_app *app, tui_tree *t, size_t first, size_t count) {
    size_t n;
    const uint32_t *rows = tui_tree_rows(t, &n);
    if (!session_heap(app->sess) || first >= n)
        return;
    if (count > n - first)
        count = n - first;
    tui_node_id *ids = malloc((count ? count : 1) * sizeof *ids);
    if (!ids)
        return;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        const tui_node *node = tui_tree_node(t, rows[first + i]);
        if (!node->row && node->kind == TUI_NODE_CLOSURE && node->addr)
            ids[k++] = rows[first + i];
    }
    if (k)
        describe_closures(app, t, ids, k);
    free(ids);
}

/* ---- cost centres ---------------------------------------------------- */

static const char *remember(tui_explorer *ex, uint64_t addr, const char *text) {
    if (!hs_grow((void **)&ex->cc_strings, &ex->cc_strings_cap, ex->n_cc_strings + 1,
                 sizeof *ex->cc_strings))
        return NULL;
    char *copy = strdup(text);
    if (!copy)
        return NULL;
    if (!u64map_put(&ex->cc_text, addr, ex->n_cc_strings + 1)) {
        free(copy);
        return NULL;
    }
    ex->cc_strings[ex->n_cc_strings++] = copy;
    return copy;
}

const char *tui_cc_text(tui_app *app, uint64_t addr, bool is_ccs, hs_error *err) {
    tui_explorer *ex = &app->ex;
    uint64_t *known = u64map_find(&ex->cc_text, addr);
    if (known)
        return ex->cc_strings[*known - 1];
    char text[768];
    if (query_cc_text(session_heap(app->sess), addr, is_ccs, text, sizeof text, err) != HS_OK)
        return NULL;
    const char *kept = remember(ex, addr, text);
    if (!kept)
        hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return kept;
}

/* ---- children -------------------------------------------------------- */

typedef struct adding {
    tui_tree *t;
    tui_node_id parent;
} adding;

static bool on_child(void *ctx, query_child_kind kind, const char *label, uint64_t addr) {
    adding *a = ctx;
    uint8_t k = kind == QUERY_CHILD_CCS ? TUI_NODE_CCS
                : kind == QUERY_CHILD_CC ? TUI_NODE_CC
                                         : TUI_NODE_CLOSURE;
    tui_node_id id = tui_tree_add(a->t, a->parent, label, k, addr, 0);
    if (id == TUI_NODE_NONE)
        return false;
    if (k == TUI_NODE_CC)
        tui_tree_node(a->t, id)->leaf = true; /* nothing below a cost centre */
    return true;
}

/* A match opens into its path from the start set, root first, ending at
 * the match itself; an edge where a newer era holds an older closure is
 * flagged on the older one. */
static hs_status load_path(tui_tree_view *v, tui_tree *t, tui_node_id id, hs_error *err) {
    const tui_match *m = &v->matches[tui_tree_node(t, id)->aux];
    for (uint32_t i = 0; i < m->n_steps; i++) {
        const tui_step *s = &v->steps[m->first_step + i];
        tui_node_id c = tui_tree_add(t, id, tui_tree_str(t, s->edge), TUI_NODE_CLOSURE, s->addr, 0);
        if (c == TUI_NODE_NONE)
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        if (s->newer)
            tui_tree_node(t, c)->flags |= TUI_NODE_LEAK;
    }
    return HS_OK;
}

hs_status tui_rows_load(void *ctx, tui_tree *t, tui_node_id id, hs_error *err) {
    const tui_rows_ctx *x = ctx;
    tui_app *app = x->app;
    if (!session_heap(app->sess))
        return hs_fail(err, HS_ERR_NOT_PAUSED, "the debuggee is not paused");
    const tui_node *n = tui_tree_node(t, id);
    if (n->flags & TUI_NODE_MATCH)
        return load_path(x->view, t, id, err);
    adding a = {.t = t, .parent = id};
    heap *h = session_heap(app->sess);
    switch (n->kind) {
    case TUI_NODE_CLOSURE: return n->addr ? query_node_children(h, n->addr, on_child, &a, err) : HS_OK;
    case TUI_NODE_CCS: return query_ccs_children(h, n->addr, on_child, &a, err);
    default: return HS_OK;
    }
}

const char *tui_row_find_text(void *ctx, tui_tree *t, tui_node_id id) {
    static char buf[1536];
    tui_app *app = ((const tui_rows_ctx *)ctx)->app;
    const tui_node *n = tui_tree_node(t, id);
    const char *label = tui_tree_label(t, id);
    const tui_row *r = tui_row_get(app, t, id);
    if (!r) {
        snprintf(buf, sizeof buf, "%s", label ? label : "");
        return buf;
    }
    if (n->kind == TUI_NODE_CLOSURE && !r->error)
        snprintf(buf, sizeof buf, "%s 0x%" PRIx64 " %s %s", label ? label : "", n->addr,
                 hs_closure_type_name(r->type), r->text);
    else
        snprintf(buf, sizeof buf, "%s %s", label ? label : "", r->text);
    return buf;
}
