/* --grow-per-pause N: the fake program keeps allocating while it runs, so
 * two pauses differ. After its r-th resume (grow_rounds = r) it has built r
 * batches of N `main:Main.Span` closures (CONSTR_0_2: round and index), the
 * batch of round k in era eras + k, each closure consed onto one list; an
 * IORef of era 1 holds the list and a stable pointer to the IORef is the
 * last GC root. Everything is built after the rest of the heap, from no
 * random draws, so each resume adds exactly N Span closures and N (:)
 * cells in a new era and moves nothing else. */
#include "synth_gen_internal.h"

void sg_grow_build(sg_ctx *c) {
    const synth_options *o = c->opt;
    uint64_t list = sg_static_tagged(c, SG_S_NIL);
    for (uint64_t r = 1; r <= o->grow_rounds; r++) {
        c->cur_era = o->eras + (unsigned)r;
        for (uint64_t i = 0; i < o->grow_per_pause; i++) {
            uint64_t w[2] = {r, i};
            list = sg_cons(c, sg_con(c, SG_T_SPAN, NULL, w), list);
        }
    }
    c->cur_era = 1;
    uint64_t ref = sg_mut_var(c, list, true);
    c->roots = sg_realloc_mem(c, c->roots, (c->n_roots + 1) * sizeof *c->roots);
    c->roots[c->n_roots++] = ref;
}
