/* Writers of single heap closures (heap-layout.md §4-§6). Every word of a
 * closure is written, except deliberate slop after an overwritten thunk.
 * Host pointers from sg_at are used only until the next allocation. */
#include <string.h>

#include "synth_gen_internal.h"

/* Closures of the newest era live in the nursery generation. */
enum sg_space sg_space_for_era(sg_ctx *c) {
    return c->cur_era >= c->opt->eras ? SG_SP_GEN0 : SG_SP_GEN1;
}

void sg_header(sg_ctx *c, uint64_t addr, int tab) {
    uint8_t *p = sg_at(c, addr);
    sg_wset(p, 0, c->tabs[tab].p);
    if (c->prof) {
        sg_wset(p, 1, c->cur_ccs);
        sg_wset(p, 2, sg_prof_word(c->prof_mode, c->cur_era, addr));
    }
}

uint64_t sg_new_in(sg_ctx *c, int tab, size_t payload_words, enum sg_space sp) {
    uint64_t addr = sg_alloc_words(c, sp, c->Hw + payload_words);
    sg_header(c, addr, tab);
    sg_mark_start(c, addr);
    return addr;
}

uint64_t sg_new(sg_ctx *c, int tab, size_t payload_words) {
    return sg_new_in(c, tab, payload_words, sg_space_for_era(c));
}

static uint8_t *payload(sg_ctx *c, uint64_t addr) {
    return sg_at(c, addr) + c->H;
}

uint64_t sg_tagged(sg_ctx *c, uint64_t addr, int tab) {
    const sg_itab *t = &c->tabs[tab];
    if (t->type >= SG_CONSTR && t->type <= SG_CONSTR_NOCAF)
        return addr | (uint64_t)(t->tag + 1 <= 7 ? t->tag + 1 : 7);
    if (t->type >= SG_FUN && t->type <= SG_FUN_STATIC && t->arity <= 7)
        return addr | t->arity;
    return addr;
}

/* standard layout: pointers, then non-pointers, after `skip` leading words */
static uint64_t standard(sg_ctx *c, int tab, unsigned skip, const uint64_t *ptrs,
                         const uint64_t *words) {
    const sg_itab *t = &c->tabs[tab];
    uint64_t addr = sg_new(c, tab, skip + t->ptrs + t->nptrs);
    uint8_t *p = payload(c, addr);
    for (unsigned i = 0; i < skip; i++)
        sg_wset(p, i, 0);
    for (unsigned i = 0; i < t->ptrs; i++)
        sg_wset(p, skip + i, ptrs[i]);
    for (unsigned i = 0; i < t->nptrs; i++)
        sg_wset(p, skip + t->ptrs + i, words[i]);
    return addr;
}

uint64_t sg_con(sg_ctx *c, int tab, const uint64_t *ptrs, const uint64_t *words) {
    return sg_tagged(c, standard(c, tab, 0, ptrs, words), tab);
}

uint64_t sg_fun(sg_ctx *c, int tab, const uint64_t *ptrs, const uint64_t *words) {
    return sg_tagged(c, standard(c, tab, 0, ptrs, words), tab);
}

/* thunks: one padding word (the update slot) before the free variables */
uint64_t sg_thunk(sg_ctx *c, int tab, const uint64_t *ptrs, const uint64_t *words) {
    return standard(c, tab, 1, ptrs, words);
}

uint64_t sg_int(sg_ctx *c, int64_t v) {
    if (v >= SG_INTLIKE_MIN && v <= SG_INTLIKE_MAX)
        return sg_intlike(c, v);
    uint64_t w = (uint64_t)v;
    return sg_con(c, SG_T_IHASH, NULL, &w);
}

uint64_t sg_char(sg_ctx *c, unsigned ch) {
    if (ch <= SG_CHARLIKE_MAX)
        return sg_charlike(c, ch);
    uint64_t w = ch;
    return sg_con(c, SG_T_CHASH, NULL, &w);
}

uint64_t sg_cons(sg_ctx *c, uint64_t head, uint64_t tail) {
    uint64_t p[2] = {head, tail};
    return sg_con(c, SG_T_CONS, p, NULL);
}

uint64_t sg_word_arg(sg_ctx *c) {
    uint64_t r = sg_below(c, 10);
    if (r < 7)
        return sg_below(c, 1000);
    if (r < 9)
        return sg_rand(c) & 0xffffffffu;
    return UINT64_C(0x400921fb54442d18); /* a Double# */
}

/* PAP (arity left, n_args, fun, args) or AP (pad, 0, n_args, fun, args);
 * argument i is a pointer unless the function's map says 'N'. */
uint64_t sg_pap(sg_ctx *c, uint64_t fun, int fun_tab, unsigned n_args, bool ap) {
    const sg_itab *f = &c->tabs[fun_tab];
    uint64_t args[SG_MAX_BM];
    if (n_args > SG_MAX_BM)
        sg_fail(c, "internal: PAP of %u arguments", n_args);
    size_t maplen = strlen(f->bm);
    for (unsigned i = 0; i < n_args; i++)
        args[i] = i < maplen && f->bm[i] == 'N' ? sg_word_arg(c) : sg_value(c);
    unsigned head = ap ? 3 : 2;
    uint64_t addr = sg_new(c, ap ? SG_T_AP : SG_T_PAP, head + n_args);
    uint8_t *p = payload(c, addr);
    if (ap) {
        sg_wset(p, 0, 0);
        sg_wset(p, 1, (uint64_t)n_args << 32); /* arity 0 */
    } else {
        sg_wset(p, 0, (uint64_t)(f->arity - n_args) | (uint64_t)n_args << 32);
    }
    sg_wset(p, head - 1, fun);
    for (unsigned i = 0; i < n_args; i++)
        sg_wset(p, head + i, args[i]);
    return addr;
}

uint64_t sg_arr_words(sg_ctx *c, const void *bytes, size_t n, enum sg_space sp) {
    size_t words = (n + 7) / 8;
    uint64_t addr = sg_new_in(c, SG_T_ARR_WORDS, 1 + words, sp);
    uint8_t *p = payload(c, addr);
    sg_wset(p, 0, n);
    if (words)
        sg_wset(p, words, 0); /* zero the tail of the last word */
    memcpy(p + 8, bytes, n);
    return addr;
}

/* MUT_ARR_PTRS: ptrs, size (= ptrs + card words), elements, card table
 * (one byte per 128 elements, padded to words). */
uint64_t sg_mut_arr(sg_ctx *c, int tab, const uint64_t *elems, size_t n) {
    size_t cards = (n + 127) / 128, card_words = (cards + 7) / 8;
    uint64_t addr = sg_new(c, tab, 2 + n + card_words);
    uint8_t *p = payload(c, addr);
    sg_wset(p, 0, n);
    sg_wset(p, 1, n + card_words);
    for (size_t i = 0; i < n; i++)
        sg_wset(p, 2 + i, elems[i]);
    uint8_t *card = p + 8 * (2 + n);
    memset(card, 0, card_words * 8);
    bool dirty = c->tabs[tab].type == SG_MUT_ARR_PTRS_DIRTY ||
                 c->tabs[tab].type == SG_MUT_ARR_PTRS_FROZEN_DIRTY;
    for (size_t i = 0; dirty && i < cards; i += 2)
        card[i] = 1;
    return addr;
}

uint64_t sg_small_arr(sg_ctx *c, int tab, const uint64_t *elems, size_t n) {
    uint64_t addr = sg_new(c, tab, 1 + n);
    uint8_t *p = payload(c, addr);
    sg_wset(p, 0, n);
    for (size_t i = 0; i < n; i++)
        sg_wset(p, 1 + i, elems[i]);
    return addr;
}

uint64_t sg_mut_var(sg_ctx *c, uint64_t value, bool dirty) {
    uint64_t addr = sg_new(c, dirty ? SG_T_MUT_VAR_DIRTY : SG_T_MUT_VAR_CLEAN, 1);
    sg_wset(payload(c, addr), 0, value);
    return addr;
}

/* IND / BLACKHOLE over a former thunk: the indirectee takes the update
 * slot; the thunk's old free variables stay behind as slop. */
uint64_t sg_ind(sg_ctx *c, int tab, uint64_t indirectee, size_t slop_words) {
    uint64_t addr = sg_new(c, tab, 1 + slop_words);
    sg_wset(payload(c, addr), 0, indirectee);
    return addr;
}

uint64_t sg_selector(sg_ctx *c, int tab, uint64_t selectee) {
    uint64_t addr = sg_new(c, tab, 2);
    uint8_t *p = payload(c, addr);
    sg_wset(p, 0, 0);
    sg_wset(p, 1, selectee);
    return addr;
}
