/* What the explorer's nodes show and contain, asked of the heap only when
 * a row comes on screen (decoded once, kept with the node) or a node is
 * opened (its children added then): the tree of a big heap costs what was
 * looked at, not what exists. Children follow retainers-and-eras.md §6.3:
 * a profiled closure's cost-centre stack first, then its fields. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "explorer.h"
#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "rows.h"
#include "tree_view.h"

#define LDV_USED UINT64_C(0x1000000000000000)
#define CCS_CHAIN_MAX 256

static tui_row *new_row(const char *text) {
    size_t n = strlen(text);
    tui_row *r = calloc(1, sizeof *r + n + 1);
    if (r)
        memcpy(r->text, text, n + 1);
    return r;
}

static void set_bar(tui_app *app, tui_row *r, const heap_closure *c) {
    if (!c->prof.present) {
        r->bar = TUI_BAR_NONE;
        return;
    }
    int mode = session_prof_mode(app->sess);
    r->bar = TUI_BAR_PLAIN;
    if (mode == WIRE_PROF_ERA) {
        r->bar = TUI_BAR_ERA;
        r->era = c->prof.word;
    } else if (mode == WIRE_PROF_LDV && (c->prof.word & LDV_USED)) {
        r->bar = TUI_BAR_LDV_USED;
    }
}

static tui_row *closure_row(tui_app *app, tui_tree *t, tui_node_id id) {
    tui_node *n = tui_tree_node(t, id);
    if (n->addr == 0) {
        n->leaf = true;
        return new_row("null");
    }
    heap *h = session_heap(app->sess);
    hs_error err = {0};
    heap_closure *c = &app->ex.scratch;
    if (heap_decode(h, n->addr, c, &err) != HS_OK) {
        char text[HS_ERROR_MESSAGE_MAX + 32];
        snprintf(text, sizeof text, "cannot read it: %s", err.message);
        n->leaf = true;
        tui_row *r = new_row(text);
        if (r)
            r->error = true;
        return r;
    }
    char text[1024];
    heap_closure_label(h, c, text, sizeof text);
    tui_row *r = new_row(text);
    if (!r)
        return NULL;
    r->type = c->type;
    r->size = c->size;
    set_bar(app, r, c);
    bool has_ccs = c->prof.present && c->prof.ccs != 0;
    if (c->n_edges == 0 && !has_ccs && !(n->flags & TUI_NODE_MATCH))
        n->leaf = true;
    return r;
}

const tui_row *tui_row_get(tui_app *app, tui_tree *t, tui_node_id id) {
    tui_node *n = tui_tree_node(t, id);
    if (n->row || n->kind == TUI_NODE_TEXT || !session_heap(app->sess))
        return n->row;
    tui_row *r = NULL;
    if (n->kind == TUI_NODE_CLOSURE) {
        r = closure_row(app, t, id);
    } else {
        hs_error err = {0};
        const char *text = tui_cc_text(app, n->addr, n->kind == TUI_NODE_CCS, &err);
        r = new_row(text ? text : err.message);
        if (r)
            r->error = !text;
    }
    tui_tree_node(t, id)->row = r;
    return r;
}

void tui_rows_prefetch(tui_app *app, tui_tree *t, size_t first, size_t count) {
    heap *h = session_heap(app->sess);
    size_t n;
    const uint32_t *rows = tui_tree_rows(t, &n);
    if (!h || first >= n)
        return;
    if (count > n - first)
        count = n - first;
    uint64_t *addrs = malloc((count ? count : 1) * sizeof *addrs);
    if (!addrs)
        return;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        const tui_node *node = tui_tree_node(t, rows[first + i]);
        if (!node->row && node->kind == TUI_NODE_CLOSURE && node->addr)
            addrs[k++] = node->addr;
    }
    hs_error err;
    /* batched; a failure here just leaves the work to the row-by-row decode */
    if (k)
        (void)heap_prefetch(h, addrs, k, &err);
    free(addrs);
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
    heap *h = session_heap(app->sess);
    uint64_t cc_addr = addr;
    if (is_ccs) {
        const wire_ccs *ccs;
        if (heap_ccs(h, addr, &ccs, err) != HS_OK)
            return NULL;
        cc_addr = ccs->cc;
    }
    const wire_cc *cc;
    if (heap_cc(h, cc_addr, &cc, err) != HS_OK)
        return NULL;
    char text[768];
    heap_cc_text(cc, text, sizeof text);
    const char *kept = remember(ex, addr, text);
    if (!kept)
        hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return kept;
}

/* ---- children -------------------------------------------------------- */

static hs_status add(tui_tree *t, tui_node_id parent, const char *label, uint8_t kind,
                     uint64_t addr, hs_error *err) {
    tui_node_id id = tui_tree_add(t, parent, label, kind, addr, 0);
    if (id == TUI_NODE_NONE)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (kind == TUI_NODE_CC || kind == TUI_NODE_TEXT)
        tui_tree_node(t, id)->leaf = true; /* nothing below a cost centre */
    return HS_OK;
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

/* A cost-centre stack lists its own cost centre, then each ancestor's,
 * the last one twice (ghc-debug's quirk, §6.3). */
static hs_status load_ccs(tui_app *app, tui_tree *t, tui_node_id id, hs_error *err) {
    uint64_t ccs = tui_tree_node(t, id)->addr, cc = 0;
    char label[24];
    int i = 0;
    for (; ccs && i < CCS_CHAIN_MAX; i++) {
        const wire_ccs *payload;
        hs_status st = heap_ccs(session_heap(app->sess), ccs, &payload, err);
        if (st != HS_OK)
            return st;
        cc = payload->cc;
        snprintf(label, sizeof label, "%d", i);
        if ((st = add(t, id, label, TUI_NODE_CC, cc, err)) != HS_OK)
            return st;
        ccs = payload->prev;
    }
    if (i > 0) {
        snprintf(label, sizeof label, "%d", i);
        return add(t, id, label, TUI_NODE_CC, cc, err);
    }
    return HS_OK;
}

static hs_status load_closure(tui_app *app, tui_tree *t, tui_node_id id, hs_error *err) {
    heap *h = session_heap(app->sess);
    heap_closure *c = &app->ex.scratch;
    hs_status st = heap_decode(h, tui_tree_node(t, id)->addr, c, err);
    if (st != HS_OK)
        return st;
    if (c->prof.present && c->prof.ccs && (st = add(t, id, "CCS", TUI_NODE_CCS, c->prof.ccs, err)))
        return st;
    char label[128];
    for (size_t i = 0; i < c->n_edges; i++) {
        heap_edge_label(&c->edges[i], label, sizeof label);
        if ((st = add(t, id, label, TUI_NODE_CLOSURE, wire_untag(c->edges[i].addr), err)))
            return st;
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
    switch (n->kind) {
    case TUI_NODE_CLOSURE: return n->addr ? load_closure(app, t, id, err) : HS_OK;
    case TUI_NODE_CCS: return load_ccs(app, t, id, err);
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
