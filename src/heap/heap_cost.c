/* Cost centres, their stacks and index-table entries (wire-protocol.md
 * §7.15-7.18): asked once per pause and kept until the next, since their
 * counters move while the program runs. */
#include <stdlib.h>
#include <string.h>

#include "heap_internal.h"

/* The kept answer for key in m, or NULL. */
static const void *kept(const u64map *m, uint64_t key) {
    uint64_t *hit = u64map_find(m, key);
    return hit ? (const void *)(uintptr_t)*hit : NULL;
}

static hs_status keep(u64map *m, uint64_t key, void *value, hs_error *err) {
    if (u64map_put(m, key, (uintptr_t)value))
        return HS_OK;
    return hs_fail(err, HS_ERR_NOMEM, "out of memory keeping cost centres");
}

/* An address the source said it has no answer for: the same answer again,
 * without asking. */
static bool refused_before(const heap *h, uint64_t addr, hs_error *err) {
    const char *why = kept(&h->cost_refused, addr);
    if (why)
        hs_fail(err, HEAP_UNAVAILABLE, "%s", why);
    return why != NULL;
}

static void remember_refusal(heap *h, uint64_t addr, hs_status st, const hs_error *err) {
    if (st != HEAP_UNAVAILABLE)
        return; /* a failing source is not an answer */
    char *why = strdup(err->message);
    if (why && !u64map_put(&h->cost_refused, addr, (uintptr_t)why))
        free(why); /* unremembered: asked again next time */
}

hs_status heap_ccs(heap *h, uint64_t ccs, const wire_ccs **out, hs_error *err) {
    if ((*out = kept(&h->ccs, ccs)))
        return HS_OK;
    if (refused_before(h, ccs, err))
        return HEAP_UNAVAILABLE;
    if (ccs == 0)
        return hs_fail(err, HEAP_UNAVAILABLE, "null cost-centre stack pointer");
    if (!heap_guard_cost(h, ccs, "a cost-centre stack", err))
        return HEAP_UNAVAILABLE;
    wire_ccs *v = calloc(1, sizeof *v);
    if (!v)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    hs_status st = h->src.ops->ccs(h->src.self, ccs, v, err);
    remember_refusal(h, ccs, st, err);
    if (st == HS_OK)
        st = keep(&h->ccs, ccs, v, err);
    if (st != HS_OK) {
        free(v);
        return st;
    }
    *out = v;
    return HS_OK;
}

hs_status heap_cc(heap *h, uint64_t cc, const wire_cc **out, hs_error *err) {
    if ((*out = kept(&h->cc, cc)))
        return HS_OK;
    if (refused_before(h, cc, err))
        return HEAP_UNAVAILABLE;
    if (cc == 0)
        return hs_fail(err, HEAP_UNAVAILABLE, "null cost centre pointer");
    if (!heap_guard_cost(h, cc, "a cost centre", err))
        return HEAP_UNAVAILABLE;
    wire_cc *v = calloc(1, sizeof *v);
    if (!v)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    hs_status st = h->src.ops->cc(h->src.self, cc, v, err);
    remember_refusal(h, cc, st, err);
    if (st == HS_OK)
        st = keep(&h->cc, cc, v, err);
    if (st != HS_OK) {
        wire_cc_free(v);
        free(v);
        return st;
    }
    *out = v;
    return HS_OK;
}

hs_status heap_index_entry(heap *h, uint64_t entry, const wire_index_entry **out,
                           hs_error *err) {
    if ((*out = kept(&h->index, entry)))
        return HS_OK;
    if (entry == 0)
        return hs_fail(err, HEAP_UNAVAILABLE, "null index-table entry pointer");
    if (!heap_guard_cost(h, entry, "an index-table entry", err))
        return HEAP_UNAVAILABLE;
    wire_index_entry *v = calloc(1, sizeof *v);
    if (!v)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    hs_status st = h->src.ops->index_entry(h->src.self, entry, v, err);
    if (st == HS_OK)
        st = keep(&h->index, entry, v, err);
    if (st != HS_OK) {
        free(v);
        return st;
    }
    *out = v;
    return HS_OK;
}

hs_status heap_index_walk_step(heap *h, heap_index_walk *w, const wire_index_entry **out,
                               hs_error *err) {
    *out = NULL;
    if (w->next == 0 || (w->steps > 0 && w->next == w->slow))
        return HS_OK; /* the end, or the cursors met: a loop, read round once */
    if (w->steps == 0)
        w->slow = w->next;
    w->at = w->next;
    hs_status st = heap_index_entry(h, w->at, out, err);
    if (st != HS_OK)
        return st;
    w->next = (*out)->next;
    if (++w->steps % 2 == 0) { /* the slow cursor's entry was read before: kept */
        const wire_index_entry *s;
        st = heap_index_entry(h, w->slow, &s, err);
        if (st != HS_OK)
            return st;
        w->slow = s->next;
    }
    return HS_OK;
}

hs_status heap_ccs_main(heap *h, uint64_t *out, hs_error *err) {
    if (!h->ccs_main_known) {
        hs_status st = h->src.ops->ccs_main(h->src.self, &h->ccs_main, err);
        if (st != HS_OK)
            return st;
        h->ccs_main_known = true;
    }
    *out = h->ccs_main;
    return HS_OK;
}

void heap_cost_drop(heap *h) {
    for (size_t i = 0; i < h->cc.cap; i++)
        if (h->cc.keys[i])
            wire_cc_free((wire_cc *)(uintptr_t)h->cc.values[i]);
    heap_free_map_values(&h->cc);
    heap_free_map_values(&h->ccs);
    heap_free_map_values(&h->index);
    heap_free_map_values(&h->cost_refused);
    h->ccs_main = 0;
    h->ccs_main_known = false;
}

bool heap_closure_era(const heap *h, const heap_closure *c, uint64_t *era) {
    if (!c->prof.present || h->version.prof_mode != WIRE_PROF_ERA)
        return false;
    *era = c->prof.word;
    return true;
}
