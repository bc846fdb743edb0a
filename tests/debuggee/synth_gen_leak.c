/* The planted leak: leak_count closures `main:Main.<Leak> (I# n) w`
 * (CONSTR_1_1) of era leak_era, in a list (cells of era leak_era) that
 * only an unevaluated THUNK_1_0 of a newer era holds; the thunk sits in an
 * IORef (MUT_VAR_DIRTY) that only one frame of the main thread's stack
 * holds (wired in synth_gen_threads.c). So the unique path from a root is
 *   TSO -> STACK -> MUT_VAR_DIRTY -> THUNK_1_0 -> (:) -> Leak
 * and every Leak closure lies below the thunk. Nothing else in the heap is
 * built from the leak constructor's info table. */
#include "synth_gen_internal.h"

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
}
