/* Whether an address a person gave is a closure of this pause (issue 19):
 * the rule behind `show`, `dump` and the explorer's address prompt.
 *
 * The official stub crashes the program it serves when asked about an
 * address that is no closure, so a person's address is never sent. It is a
 * closure of this pause when the debuggee named it (a GC root or saved
 * object) or a traversal from those reached it: the closures decoded so
 * far (heap_reached, filled by every census, search or show of the pause)
 * answer at once; otherwise a traversal from the roots, then the saved
 * objects, runs until it meets the address (or to the end: then the heap
 * knows every closure of the pause and the next miss costs nothing). The
 * traversal asks only what any census asks. A closure a field points to
 * that cannot be read is one of the pause too: its message says why. */
#include "heapscope/query.h"

typedef struct seek {
    uint64_t addr;
    bool found;
    bool pointed_at; /* a field of a reached closure points to it (it may not decode) */
    uint64_t inside; /* a closure the address lies inside, 0 = none met */
    uint32_t inside_type;
} seek;

static query_action visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)depth;
    seek *s = ctx;
    if (c->addr == s->addr) {
        s->found = true;
        return QUERY_STOP;
    }
    if (c->addr < s->addr && s->addr - c->addr < c->size) {
        s->inside = c->addr;
        s->inside_type = c->type;
    }
    for (size_t e = 0; e < c->n_edges; e++) {
        if (c->edges[e].addr == s->addr) {
            s->pointed_at = true;
            return QUERY_STOP;
        }
    }
    return QUERY_CONTINUE;
}

hs_status query_closure_of_pause(heap *h, uint64_t addr, query_progress_fn progress,
                                 void *progress_ctx, hs_error *err) {
    addr = wire_untag(addr);
    if (addr == 0)
        return heap_no_closure(h, addr, 0, 0, err);
    if (heap_reached(h, addr))
        return HS_OK;
    if (heap_reached_complete(h))
        return heap_no_closure(h, addr, 0, 0, err);
    seek s = {.addr = addr};
    query_traversal t = {.visit = visit, .ctx = &s, .progress = progress,
                         .progress_ctx = progress_ctx};
    const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
    query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
    hs_status st = query_traverse_phases(h, phases, 2, &t, NULL, err);
    if (st != HS_OK)
        return st;
    if (s.found)
        return HS_OK;
    if (s.pointed_at) { /* reached, but maybe unreadable: heap_decode says why */
        heap_closure c = {0};
        hs_error why = {0};
        st = heap_decode(h, addr, &c, &why);
        heap_closure_free(&c);
        if (st == HS_OK || !query_unreadable_status(st)) {
            if (st != HS_OK && err)
                *err = why;
            return st;
        }
        return hs_fail(err, HS_ERR_NOT_FOUND, "no readable closure at 0x%llx in this pause: %s",
                       (unsigned long long)addr, why.message);
    }
    heap_reached_set_complete(h); /* the traversal ran to its end */
    return heap_no_closure(h, addr, s.inside, s.inside_type, err);
}
