/* The planted leak: leak_count closures `main:Main.<Leak> (I# n) w`
 * (CONSTR_1_1) of era leak_era, in a list (cells of era leak_era) that
 * only an unevaluated THUNK_1_0 of a newer era holds; the thunk sits in an
 * IORef (MUT_VAR_DIRTY) that only one frame of the main thread's stack
 * holds (wired in synth_gen_threads.c). So the unique path from a root is
 *   TSO -> STACK -> MUT_VAR_DIRTY -> THUNK_1_0 -> (:) -> Leak
 * and every Leak closure lies below the thunk. Nothing else in the heap is
 * built from the leak constructor's info table. */
#include "synth_gen_internal.h"

/* --saved-shortcut: the list's first cell becomes a saved object too, one
 * step above the first Leak (five below a GC root), and a one-cell list
 * that only a saved object holds carries one more Leak. A retainer search
 * must still show the GC-root path to the first, and the saved object's
 * path to the other. */
static void saved_shortcut(sg_ctx *c) {
    if (c->opt->leak_count > 0)
        c->saved[c->n_saved++] = c->leak_first_cell;
    unsigned era = c->cur_era;
    c->cur_era = c->opt->leak_era;
    uint64_t box = sg_int(c, 0), w = 7;
    uint64_t leak = sg_con(c, SG_T_LEAK, &box, &w);
    uint64_t cell = sg_cons(c, leak, sg_static_tagged(c, SG_S_NIL));
    c->orphan = leak & ~(uint64_t)7;
    c->orphan_cell = cell & ~(uint64_t)7;
    c->saved[c->n_saved++] = c->orphan_cell;
    c->cur_era = era;
}

void sg_leak_build(sg_ctx *c) {
    const synth_options *o = c->opt;
    c->cur_era = o->leak_era;
    c->cur_ccs = c->ccs[SG_CC_LEAKY];
    uint64_t list = sg_static_tagged(c, SG_S_NIL);
    for (uint64_t i = o->leak_count; i >= 1; i--) {
        uint64_t box = sg_int(c, (int64_t)i);
        uint64_t w = i * 31 + 7;
        uint64_t leak = sg_con(c, SG_T_LEAK, &box, &w);
        list = sg_cons(c, leak, list);
        c->leak_first = leak & ~(uint64_t)7;
        c->leak_first_cell = list & ~(uint64_t)7;
    }
    /* the retaining thunk is younger than what it retains */
    c->cur_era = o->leak_era + 1 + (unsigned)sg_below(c, o->eras - o->leak_era);
    c->leak_thunk = sg_thunk(c, SG_T_LEAK_THUNK, &list, NULL);
    c->leak_mutvar = sg_mut_var(c, c->leak_thunk, true);
    if (o->saved_shortcut)
        saved_shortcut(c);
}
