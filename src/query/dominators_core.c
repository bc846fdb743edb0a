/* Dominator tree and retained sizes over a plain graph: semi-NCA
 * (Georgiadis) on a depth-first numbering, iterative throughout.
 *
 * 1. Depth first from the virtual root, with a stack of pending edges
 *    (target node, source's preorder number); a target already numbered
 *    when its source is visited is no tree edge and is dealt with at once:
 *    from an ancestor (smaller number) it lowers the target's semi-
 *    dominator candidate right away; from a later node it is kept in the
 *    target's list of late edges, which step 2 needs.
 * 2. Semi-dominators in decreasing preorder, with a link-eval forest that
 *    keeps, per node, the least semi-dominator on its compressed path
 *    (path compression by pointer reversal: no stack).
 * 3. Immediate dominators in increasing preorder: the nearest ancestor
 *    of the parent in the tree built so far that is not below the semi-
 *    dominator.
 * 4. Retained sizes in decreasing preorder: each node adds its own to
 *    its immediate dominator, which always comes earlier.
 *
 * Memory (n nodes reached), the budget of issue 12 being 24 bytes per
 * closure: steps 1-3 hold five 4-byte arrays by preorder number at once
 * (20 bytes: step 1 needs the preorder number of each node, its node,
 * parent, semi-dominator and late-edge list head; steps 2-3 trade the
 * first for the link-eval ancestors, and reuse the list heads as the path
 * minima); the late edges (8 bytes each in a list, or about 1-2 bytes in
 * a hub's delta-coded array: on a heap nearly all of them go to a few
 * hundred static closures) and the pending edges (16 bytes each; a few
 * thousand on real heaps, as each node's first successor is explored
 * first and a list's tail last) come on top. Step 4 holds the result (12
 * bytes by node: idom and a 64-bit retained size) and, briefly, the
 * preorder idoms and nodes (8 more). The heap adapter's closure numbers
 * add about a byte (dominators_heap.c): 22.7 bytes per closure in all on
 * bench_dominators' 10 million closures. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"
#include "dominators_internal.h"

bool dom_ids_push(dom_ids *l, uint32_t v, uint64_t key) {
    if (l->count == l->cap) {
        size_t cap = l->cap, cap2 = l->cap;
        if (!hs_grow((void **)&l->items, &cap, l->count + 1, sizeof *l->items) ||
            !hs_grow((void **)&l->keys, &cap2, l->count + 1, sizeof *l->keys))
            return false;
        l->cap = cap < cap2 ? cap : cap2;
    }
    l->keys[l->count] = key;
    l->items[l->count++] = v;
    return true;
}

#define NIL UINT32_MAX
/* Nodes done between two progress reports. */
#define PROGRESS_EVERY (UINT32_C(1) << 16)

typedef struct pending {
    uint64_t key;  /* the graph's key of node */
    uint32_t node; /* not numbered when pushed */
    uint32_t from; /* preorder number of the source */
} pending;

typedef struct late_edge {
    uint32_t from; /* preorder number of the source, above the target's */
    uint32_t next; /* index of the target's next late edge, or NIL */
} late_edge;

/* The late edges into one hub: their sources' preorder numbers, which
 * come increasing, as LEB128 deltas from the one before (1 or 2 bytes
 * each for the nearby sources a hub mostly has, instead of 4). */
typedef struct hub {
    uint8_t *bytes;
    size_t len, cap;
    size_t last_at;        /* where the last source's delta starts */
    uint32_t last, before; /* the last source and the one before it (0: none) */
} hub;

typedef struct dom_run {
    const dom_graph *g;
    hs_error *err;
    size_t bytes, peak; /* held now, most held at once */
    uint32_t count;     /* nodes numbered, the root included */
    uint32_t *pre;      /* by node: preorder number, 0 = not reached (step 1) */
    uint32_t *vertex;   /* by number: the node */
    uint32_t *parent;   /* by number: the parent's number in the depth-first tree */
    uint32_t *semi;     /* by number: semi-dominator (a candidate during step 1) */
    uint32_t *label;    /* by number: late-edge list head (step 1), least semi on path (2) */
    uint32_t *ancestor; /* by number: link-eval forest (step 2), then the idom (3) */
    late_edge *late;
    size_t n_late, late_cap;
    hub *hubs;          /* by node - hubs_from */
    size_t n_hubs;
    pending *stack;
    size_t n_stack, stack_cap;
    dom_ids succ;
} dom_run;

static hs_status nomem(dom_run *r) {
    return hs_fail(r->err, HS_ERR_NOMEM, "out of memory for the dominator tree");
}

static void *take(dom_run *r, size_t count, size_t elem) {
    void *p = malloc(count * elem);
    if (p) {
        r->bytes += count * elem;
        if (r->bytes > r->peak)
            r->peak = r->bytes;
    }
    return p;
}

static void give(dom_run *r, void *p, size_t count, size_t elem) {
    if (p)
        r->bytes -= count * elem;
    free(p);
}

/* Growth of a list counted in the run's memory (the old and the new block
 * are both held while realloc copies). */
static bool grow(dom_run *r, void **p, size_t *cap, size_t need, size_t elem) {
    size_t old = *cap;
    if (!hs_grow(p, cap, need, elem))
        return false;
    r->bytes += (*cap - old) * elem;
    if (r->bytes + old * elem > r->peak)
        r->peak = r->bytes + old * elem;
    return true;
}

static hs_status progress(dom_run *r, uint64_t done) {
    if (r->g->progress && !r->g->progress(r->g->progress_ctx, done))
        return hs_fail(r->err, HS_ERR_CANCELLED, "cancelled");
    return HS_OK;
}

static hs_status push_pending(dom_run *r, uint32_t node, uint64_t key, uint32_t from) {
    if (r->n_stack == r->stack_cap &&
        !grow(r, (void **)&r->stack, &r->stack_cap, r->n_stack + 1, sizeof *r->stack))
        return nomem(r);
    r->stack[r->n_stack++] = (pending){key, node, from};
    return HS_OK;
}

/* Grows a hub by a quarter (its slack counts against the memory budget);
 * large blocks move by remapping, not copying, so only the growth counts. */
static hs_status hub_add(dom_run *r, hub *hb, uint32_t from, uint32_t up) {
    if (hb->last && (hb->last == from || hb->last == up)) { /* replaces the last */
        hb->len = hb->last_at;
        hb->last = hb->before;
    }
    if (hb->len + 5 > hb->cap) {
        size_t cap = hb->cap + hb->cap / 4 + 64;
        uint8_t *p = realloc(hb->bytes, cap);
        if (!p)
            return nomem(r);
        r->bytes += cap - hb->cap;
        if (r->bytes > r->peak)
            r->peak = r->bytes;
        hb->bytes = p;
        hb->cap = cap;
    }
    hb->last_at = hb->len;
    for (uint32_t d = from - hb->last; ; d >>= 7) {
        hb->bytes[hb->len++] = (uint8_t)(d >= 0x80 ? (d & 0x7f) | 0x80 : d);
        if (d < 0x80)
            break;
    }
    hb->before = hb->last;
    hb->last = from;
    return HS_OK;
}

/* An edge from number `from` to the numbered node `to`, not a tree edge. */
static hs_status non_tree_edge(dom_run *r, uint32_t from, uint32_t to, uint32_t phase_lo) {
    if (to < phase_lo || to == from) /* an earlier phase's node, or a loop */
        return HS_OK;
    if (from < to) { /* from an ancestor: a semi-dominator candidate now */
        if (from < r->semi[to])
            r->semi[to] = from;
        return HS_OK;
    }
    if (r->semi[to] == 0) /* the root already: nothing is lower */
        return HS_OK;
    /* A late edge from a node's tree parent is worth no more than one from
     * the node (eval climbs through the parent), so the node's replaces
     * it: a list whose cells all hold one static closure keeps one edge. */
    uint32_t v = r->vertex[to], up = r->parent[from];
    if (r->n_hubs && v >= r->g->hubs_from)
        return hub_add(r, &r->hubs[v - r->g->hubs_from], from, up);
    uint32_t head = r->label[to];
    if (head != NIL && (r->late[head].from == from || r->late[head].from == up)) {
        r->late[head].from = from;
        return HS_OK;
    }
    if (r->n_late == r->late_cap &&
        !grow(r, (void **)&r->late, &r->late_cap, r->n_late + 1, sizeof *r->late))
        return nomem(r);
    r->late[r->n_late] = (late_edge){from, r->label[to]};
    r->label[to] = (uint32_t)r->n_late++;
    return HS_OK;
}

/* Numbers node v (reached from number `from`) and queues its edges. */
static hs_status number(dom_run *r, uint32_t v, uint64_t key, uint32_t from,
                        uint32_t phase_lo) {
    uint32_t w = r->count++;
    r->pre[v] = w;
    r->vertex[w] = v;
    r->parent[w] = r->semi[w] = from;
    r->label[w] = NIL;
    r->succ.count = 0;
    hs_status st = r->g->successors(r->g->ctx, v, key, &r->succ, r->err);
    for (size_t i = r->succ.count; st == HS_OK && i-- > 0;) { /* first successor on top */
        uint32_t s = r->succ.items[i];
        if (s == DOM_ROOT || s > r->g->n)
            continue;
        st = r->pre[s] ? non_tree_edge(r, w, r->pre[s], phase_lo)
                       : push_pending(r, s, r->succ.keys[i], w);
    }
    if (st == HS_OK && r->count % PROGRESS_EVERY == 0)
        st = progress(r, r->count - 1);
    return st;
}

/* Step 1: depth-first numbering, phase after phase. */
static hs_status search(dom_run *r) {
    hs_status st = HS_OK;
    r->count = 1; /* the root */
    r->vertex[0] = DOM_ROOT;
    r->parent[0] = r->semi[0] = 0;
    r->label[0] = NIL;
    for (size_t p = 0; st == HS_OK && p < r->g->n_phases; p++) {
        const dom_phase *ph = &r->g->phases[p];
        uint32_t phase_lo = r->count;
        for (size_t i = ph->count; st == HS_OK && i-- > 0;) {
            uint32_t s = ph->starts[i];
            if (s != DOM_ROOT && s <= r->g->n)
                st = r->pre[s] ? non_tree_edge(r, 0, r->pre[s], phase_lo)
                               : push_pending(r, s, ph->keys ? ph->keys[i] : 0, 0);
        }
        while (st == HS_OK && r->n_stack > 0) {
            pending e = r->stack[--r->n_stack];
            st = r->pre[e.node] ? non_tree_edge(r, e.from, r->pre[e.node], phase_lo)
                                : number(r, e.node, e.key, e.from, phase_lo);
        }
    }
    return st;
}

/* The least semi-dominator on the forest path from v (above the current
 * node w) up to, not including, the first node at or below w; compresses
 * that path. The path is walked up reversing the ancestor links, then
 * down again pointing each node at the path's top and folding minima. */
static uint32_t eval(dom_run *r, uint32_t v, uint32_t w) {
    uint32_t *anc = r->ancestor, *label = r->label;
    if (anc[v] <= w)
        return label[v];
    uint32_t below = NIL, x = v;
    while (anc[x] > w) {
        uint32_t up = anc[x];
        anc[x] = below;
        below = x;
        x = up;
    }
    uint32_t top = anc[x], p = x;
    while (below != NIL) {
        uint32_t next = anc[below];
        anc[below] = top;
        if (label[p] < label[below])
            label[below] = label[p];
        p = below;
        below = next;
    }
    return label[v];
}

/* Step 2. */
static hs_status semi_dominators(dom_run *r) {
    for (uint32_t w = r->count - 1; w > 0; w--) {
        uint32_t s = r->semi[w];
        for (uint32_t e = r->label[w]; e != NIL; e = r->late[e].next) {
            uint32_t u = eval(r, r->late[e].from, w);
            if (u < s)
                s = u;
        }
        uint32_t v = r->vertex[w];
        if (r->n_hubs && v >= r->g->hubs_from) {
            hub *hb = &r->hubs[v - r->g->hubs_from];
            uint32_t from = 0;
            for (size_t i = 0; i < hb->len && s > 0;) {
                uint32_t d = 0;
                for (unsigned shift = 0; shift < 35; shift += 7) {
                    uint8_t b = hb->bytes[i++];
                    d |= (uint32_t)(b & 0x7f) << shift;
                    if (!(b & 0x80))
                        break;
                }
                from += d;
                uint32_t u = eval(r, from, w);
                if (u < s)
                    s = u;
            }
            give(r, hb->bytes, hb->cap, 1);
            *hb = (hub){0};
        }
        r->semi[w] = r->label[w] = s;
        if (w % PROGRESS_EVERY == 0) {
            hs_status st = progress(r, r->count - 1);
            if (st != HS_OK)
                return st;
        }
    }
    return HS_OK;
}

/* Step 3: idoms by number, into the ancestor array. */
static void immediate_dominators(dom_run *r) {
    uint32_t *idom = r->ancestor;
    idom[0] = 0;
    for (uint32_t w = 1; w < r->count; w++) {
        uint32_t x = r->parent[w];
        while (x > r->semi[w])
            x = idom[x];
        idom[w] = x;
    }
}

/* Step 4 and the result by node. */
static hs_status retained_sizes(dom_run *r, dom_result *out) {
    size_t n1 = (size_t)r->g->n + 1;
    out->retained = take(r, n1, sizeof *out->retained);
    out->idom = out->retained ? take(r, n1, sizeof *out->idom) : NULL;
    if (!out->idom)
        return nomem(r);
    memset(out->retained, 0, n1 * sizeof *out->retained);
    for (size_t v = 0; v < n1; v++)
        out->idom[v] = DOM_NONE;
    const uint32_t *idom = r->ancestor, *vertex = r->vertex;
    for (uint32_t w = 1; w < r->count; w++)
        out->idom[vertex[w]] = vertex[idom[w]];
    for (uint32_t v = 1; v < n1; v++) /* in node order: a heap walks its bitmaps once */
        if (out->idom[v] != DOM_NONE)
            out->retained[v] = r->g->size(r->g->ctx, v);
    for (uint32_t w = r->count - 1; w > 0; w--)
        out->retained[vertex[idom[w]]] += out->retained[vertex[w]];
    out->reached = r->count - 1;
    return HS_OK;
}

hs_status dom_compute(const dom_graph *g, dom_result *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    if (g->n >= UINT32_MAX - 1)
        return hs_fail(err, HS_ERR_TOO_LARGE, "too many closures for the dominator tree");
    size_t n1 = (size_t)g->n + 1;
    dom_run r = {.g = g, .err = err, .bytes = g->base_bytes, .peak = g->base_bytes};
    hs_status st = HS_OK;
    r.pre = take(&r, n1, sizeof *r.pre);
    r.vertex = take(&r, n1, sizeof *r.vertex);
    r.parent = take(&r, n1, sizeof *r.parent);
    r.semi = take(&r, n1, sizeof *r.semi);
    r.label = take(&r, n1, sizeof *r.label);
    if (g->hubs_from > 0 && g->hubs_from <= g->n) {
        r.n_hubs = g->n - g->hubs_from + 1;
        r.hubs = take(&r, r.n_hubs, sizeof *r.hubs);
        if (r.hubs)
            memset(r.hubs, 0, r.n_hubs * sizeof *r.hubs);
    }
    if (!r.pre || !r.vertex || !r.parent || !r.semi || !r.label || (r.n_hubs && !r.hubs))
        st = nomem(&r);
    if (st == HS_OK) {
        memset(r.pre, 0, n1 * sizeof *r.pre);
        st = search(&r);
    }
    give(&r, r.stack, r.stack_cap, sizeof *r.stack);
    r.stack = NULL;
    free(r.succ.items);
    free(r.succ.keys);
    give(&r, r.pre, n1, sizeof *r.pre);
    if (st == HS_OK) {
        /* step 2 needs the forest: the tree's parents, compressed as it goes */
        r.ancestor = take(&r, n1, sizeof *r.ancestor);
        if (!r.ancestor)
            st = nomem(&r);
        else
            memcpy(r.ancestor, r.parent, r.count * sizeof *r.ancestor);
    }
    if (st == HS_OK)
        st = semi_dominators(&r);
    give(&r, r.late, r.late_cap, sizeof *r.late);
    for (size_t i = 0; r.hubs && i < r.n_hubs; i++) /* left when a failure cut step 2 short */
        give(&r, r.hubs[i].bytes, r.hubs[i].cap, 1);
    give(&r, r.hubs, r.n_hubs, sizeof *r.hubs);
    give(&r, r.label, n1, sizeof *r.label);
    if (st == HS_OK)
        immediate_dominators(&r);
    give(&r, r.parent, n1, sizeof *r.parent);
    give(&r, r.semi, n1, sizeof *r.semi);
    if (st == HS_OK)
        st = retained_sizes(&r, out);
    give(&r, r.ancestor, n1, sizeof *r.ancestor);
    give(&r, r.vertex, n1, sizeof *r.vertex);
    if (st != HS_OK) {
        dom_result_free(out);
        return st;
    }
    out->peak_bytes = r.peak;
    return HS_OK;
}

void dom_result_free(dom_result *r) {
    free(r->idom);
    free(r->retained);
    r->idom = NULL;
    r->retained = NULL;
}
