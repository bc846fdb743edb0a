/* Questions asked of a computed dominator tree: one closure, the closures
 * retaining most, what a closure immediately dominates. The tree is kept
 * as one parent number per closure, so children are found by one scan. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/wire.h"
#include "dominators_map.h"

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

void query_dominators_stats(const query_dominators *d, query_dominators_info *out) {
    memset(out, 0, sizeof *out);
    out->closures = d->res.reached;
    out->bytes = d->res.retained[DOM_ROOT];
    out->peak_bytes = d->res.peak_bytes;
    size_t n1 = (size_t)dom_map_count(&d->map) + 1;
    out->kept_bytes = dom_map_bytes(&d->map) + n1 * (sizeof *d->res.idom + sizeof *d->res.retained);
    out->unreadable = d->unreadable;
}

static query_dominated describe(const query_dominators *d, uint32_t v) {
    query_dominated q = {0};
    if (v == DOM_ROOT) {
        q.retained = d->res.retained[DOM_ROOT];
        return q;
    }
    q.addr = dom_map_addr(&d->map, v);
    q.size = dom_map_closure_size(&d->map, v);
    q.retained = d->res.retained[v];
    uint32_t up = d->res.idom[v];
    q.idom = up == DOM_ROOT || up == DOM_NONE ? 0 : dom_map_addr(&d->map, up);
    return q;
}

bool query_dominators_get(const query_dominators *d, uint64_t addr, query_dominated *out) {
    uint32_t v = dom_map_id(&d->map, addr);
    if (!v || d->res.idom[v] == DOM_NONE)
        return false;
    *out = describe(d, v);
    return true;
}

/* The k largest retained sizes seen, largest first (ties: smaller number,
 * i.e. address order within the blocks, first). */
typedef struct best {
    uint32_t *ids;
    size_t count, k;
    uint64_t seen;
} best;

static bool before(const query_dominators *d, uint32_t a, uint32_t b) {
    uint64_t ra = d->res.retained[a], rb = d->res.retained[b];
    return ra != rb ? ra > rb : a < b;
}

static void best_offer(const query_dominators *d, best *b, uint32_t v) {
    b->seen++;
    if (b->k == 0 || (b->count == b->k && !before(d, v, b->ids[b->count - 1])))
        return;
    size_t i = b->count < b->k ? b->count++ : b->count - 1;
    for (; i > 0 && before(d, v, b->ids[i - 1]); i--)
        b->ids[i] = b->ids[i - 1];
    b->ids[i] = v;
}

static hs_status fill_children(const query_dominators *d, query_dominator_row *row, best *b,
                               hs_error *err) {
    row->children = calloc(b->count ? b->count : 1, sizeof *row->children);
    if (!row->children)
        return nomem(err);
    for (size_t i = 0; i < b->count; i++)
        row->children[i] = describe(d, b->ids[i]);
    row->n_children = b->count;
    row->more_children = b->seen - b->count;
    return HS_OK;
}

void query_dominator_rows_free(query_dominator_row *rows, size_t n_rows) {
    for (size_t i = 0; rows && i < n_rows; i++)
        free(rows[i].children);
    free(rows);
}

/* For each row's closure (tops[i]) its largest dominated children. */
static hs_status children_of(const query_dominators *d, const uint32_t *tops, size_t n,
                             size_t max_children, query_dominator_row *rows, hs_error *err) {
    u64map index = {0}; /* closure number + 1 -> row + 1 */
    best *bests = calloc(n ? n : 1, sizeof *bests);
    hs_status st = bests ? HS_OK : nomem(err);
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        bests[i].k = max_children;
        bests[i].ids = malloc((max_children ? max_children : 1) * sizeof *bests[i].ids);
        if (!bests[i].ids || !u64map_put(&index, (uint64_t)tops[i] + 1, i + 1))
            st = nomem(err);
    }
    uint32_t count = dom_map_count(&d->map);
    for (uint32_t v = 1; st == HS_OK && v <= count; v++) {
        uint32_t up = d->res.idom[v];
        const uint64_t *row = up == DOM_NONE ? NULL : u64map_find(&index, (uint64_t)up + 1);
        if (row)
            best_offer(d, &bests[*row - 1], v);
    }
    for (size_t i = 0; st == HS_OK && i < n; i++)
        st = fill_children(d, &rows[i], &bests[i], err);
    for (size_t i = 0; bests && i < n; i++)
        free(bests[i].ids);
    free(bests);
    u64map_free(&index);
    return st;
}

hs_status query_dominators_top(const query_dominators *d, size_t top, size_t max_children,
                               query_dominator_row **rows, size_t *n_rows, hs_error *err) {
    *rows = NULL;
    *n_rows = 0;
    uint32_t count = dom_map_count(&d->map);
    if (top > count)
        top = count;
    best b = {.k = top, .ids = malloc((top ? top : 1) * sizeof(uint32_t))};
    if (!b.ids)
        return nomem(err);
    for (uint32_t v = 1; v <= count; v++)
        if (d->res.idom[v] != DOM_NONE)
            best_offer(d, &b, v);
    query_dominator_row *out = calloc(b.count ? b.count : 1, sizeof *out);
    hs_status st = out ? HS_OK : nomem(err);
    for (size_t i = 0; st == HS_OK && i < b.count; i++)
        out[i].closure = describe(d, b.ids[i]);
    if (st == HS_OK)
        st = children_of(d, b.ids, b.count, max_children, out, err);
    free(b.ids);
    if (st != HS_OK) {
        query_dominator_rows_free(out, b.count);
        return st;
    }
    *rows = out;
    *n_rows = b.count;
    return HS_OK;
}

hs_status query_dominators_children(const query_dominators *d, uint64_t addr, size_t max,
                                    query_dominator_row *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t v = DOM_ROOT;
    if (addr) {
        v = dom_map_id(&d->map, addr);
        if (!v || d->res.idom[v] == DOM_NONE)
            return hs_fail(err, HS_ERR_NOT_FOUND, "0x%llx is not a reachable closure",
                           (unsigned long long)wire_untag(addr));
    }
    out->closure = describe(d, v);
    return children_of(d, &v, 1, max, out, err);
}
