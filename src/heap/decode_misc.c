/* Decoding of the RTS objects with variable or version-dependent layouts:
 * TSO (heap-layout.md §7), BCO (§6.16), ARR_WORDS (§6.13), the pointer
 * arrays (§6.14, §6.15) and TREC_CHUNK (§6.17). */
#include "decode_internal.h"

#define NO_FRAME HEAP_EDGE_NO_FRAME

/* ---- TSO ------------------------------------------------------------- */

/* Field offsets from H for the three TSO layouts; label 0 = no field. */
typedef struct tso_layout {
    uint8_t why_blocked;
    bool why_wide; /* u32 (>= 9.10) rather than u16 */
    uint8_t thread_id, saved_errno, dirty, trec, label, blocked_exceptions, bq;
    uint8_t alloc_limit, tot_stack_size, end;
} tso_layout;

static const tso_layout tso_layouts[3] = {
    /* A: GHC 9.2, 9.4 */
    {26, false, 40, 48, 52, 72, 0, 80, 88, 96, 104, 108},
    /* B: 9.6, 9.8 (thread label) */
    {26, false, 40, 48, 52, 72, 80, 88, 96, 104, 112, 116},
    /* C: >= 9.10 (32-bit why_blocked; flags stay at 28, see heap-layout §7) */
    {32, true, 48, 56, 60, 80, 88, 96, 104, 112, 120, 124},
};

/* The version tests of heap-layout.md §7. */
static const tso_layout *tso_layout_for(const wire_version *v) {
    bool label = v->major > 905 || (v->major == 905 && v->patch >= 20220925);
    bool wide = v->major > 909 || (v->major == 909 && v->patch >= 20240201);
    return &tso_layouts[wide ? 2 : label ? 1 : 0];
}

/* Edges in traversal order (§13): link, global link, stack, trec, blocked
 * exceptions, bq, label. Words: saved_errno, dirty, alloc_limit,
 * tot_stack_size (the numeric fields without a slot of their own). */
hs_status heap_dec_tso(decode_ctx *d) {
    const tso_layout *l = tso_layout_for(heap_version(d->h));
    size_t h = d->hdr, need = h + l->end;
    if (need > d->len)
        return heap_dec_short(d, need);
    hs_status st = dec_reserve(d, 7, 4);
    if (st != HS_OK)
        return st;
    heap_closure *c = d->c;
    dec_edge(c, dec_word(d, h), HEAP_EDGE_LINK, NO_FRAME, 0);
    dec_edge(c, dec_word(d, h + 8), HEAP_EDGE_GLOBAL_LINK, NO_FRAME, 0);
    dec_edge(c, dec_word(d, h + 16), HEAP_EDGE_STACK, NO_FRAME, 0);
    dec_edge(c, dec_word(d, h + l->trec), HEAP_EDGE_TREC, NO_FRAME, 0);
    dec_edge(c, dec_word(d, h + l->blocked_exceptions), HEAP_EDGE_BLOCKED_EXCEPTIONS, NO_FRAME,
             0);
    dec_edge(c, dec_word(d, h + l->bq), HEAP_EDGE_BLOCKING_QUEUE, NO_FRAME, 0);
    if (l->label)
        dec_edge(c, dec_word(d, h + l->label), HEAP_EDGE_THREAD_LABEL, NO_FRAME, 0);
    c->what_next = hs_load_le16(d->p + h + 24);
    c->why_blocked = l->why_wide ? dec_u32(d, h + l->why_blocked)
                                 : hs_load_le16(d->p + h + l->why_blocked);
    c->flags = dec_u32(d, h + 28);
    c->thread_id = dec_word(d, h + l->thread_id);
    c->words[c->n_words++] = dec_u32(d, h + l->saved_errno);
    c->words[c->n_words++] = dec_u32(d, h + l->dirty);
    c->words[c->n_words++] = dec_word(d, h + l->alloc_limit);
    c->words[c->n_words++] = dec_u32(d, h + l->tot_stack_size);
    c->size = (uint32_t)need;
    return HS_OK;
}

/* ---- BCO ------------------------------------------------------------- */

/* Edges: instructions, literals, pointers. arity = arity, count = bitmap
 * bit count, words = bitmap words. Size = 8 x the size field (GHC's
 * meaning; the reference's over-read is a bug, heap-layout §6.16). */
hs_status heap_dec_bco(decode_ctx *d) {
    size_t h = d->hdr, fixed = h + 40;
    if (fixed > d->len)
        return heap_dec_short(d, fixed);
    heap_closure *c = d->c;
    uint64_t total = 8 * (uint64_t)dec_u32(d, h + 28);
    if (total < fixed)
        return heap_dec_bad(d, "size field says %llu bytes, less than its fixed part",
                            (unsigned long long)total);
    if (total > d->len)
        return heap_dec_short(d, total);
    uint64_t bits = dec_word(d, h + 32), n_words = bits / 64 + (bits % 64 != 0);
    if (n_words > (total - fixed) / 8)
        return heap_dec_bad(d, "a bitmap of %llu bits does not fit its %llu bytes",
                            (unsigned long long)bits, (unsigned long long)total);
    hs_status st = dec_reserve(d, 3, (size_t)n_words);
    if (st != HS_OK)
        return st;
    dec_edge(c, dec_word(d, h), HEAP_EDGE_INSTRUCTIONS, NO_FRAME, 0);
    dec_edge(c, dec_word(d, h + 8), HEAP_EDGE_LITERALS, NO_FRAME, 0);
    dec_edge(c, dec_word(d, h + 16), HEAP_EDGE_BCO_PTRS, NO_FRAME, 0);
    for (size_t i = 0; i < n_words; i++)
        c->words[c->n_words++] = dec_word(d, fixed + 8 * i);
    c->arity = dec_u32(d, h + 24);
    c->count = bits;
    c->size = (uint32_t)total;
    return HS_OK;
}

/* ---- arrays ---------------------------------------------------------- */

hs_status heap_dec_arr_words(decode_ctx *d) {
    size_t off = d->hdr + 8;
    if (off > d->len)
        return heap_dec_short(d, off);
    uint64_t bytes = dec_word(d, d->hdr);
    if (bytes > d->len - off)
        return heap_dec_short(d, bytes > UINT64_MAX - off ? UINT64_MAX : off + bytes);
    uint64_t need = off + (bytes + 7) / 8 * 8;
    if (need > d->len)
        return heap_dec_short(d, need);
    d->c->count = bytes;
    d->c->bytes = d->p + off;
    d->c->size = (uint32_t)need;
    return HS_OK;
}

/* MUT_ARR_PTRS_*: count and size words, elements (the card table after
 * them is neither read nor counted). SMALL_MUT_ARR_PTRS_*: count, elements. */
hs_status heap_dec_mut_arr(decode_ctx *d, bool small) {
    size_t off = d->hdr + (small ? 8 : 16);
    if (off > d->len)
        return heap_dec_short(d, off);
    uint64_t n = dec_word(d, d->hdr);
    if (n > (d->len - off) / 8)
        return heap_dec_short(d, n > (UINT64_MAX - off) / 8 ? UINT64_MAX : off + 8 * n);
    hs_status st = dec_reserve(d, (size_t)n, 0);
    if (st != HS_OK)
        return st;
    heap_closure *c = d->c;
    const uint8_t *q = d->p + off;
    for (uint64_t i = 0; i < n; i++, q += 8)
        dec_edge(c, hs_load_le64(q), HEAP_EDGE_ELEMENT, NO_FRAME, (uint32_t)i);
    c->count = n;
    c->size = (uint32_t)(off + 8 * n);
    return HS_OK;
}

/* ---- TREC_CHUNK ------------------------------------------------------ */

#define TREC_CHUNK_ENTRIES 16

/* Edges: previous chunk, then per used entry its tvar, expected and new
 * value (index = 3 x entry + 0/1/2). Words: each entry's num_updates. */
hs_status heap_dec_trec_chunk(decode_ctx *d) {
    size_t h = d->hdr;
    if (h + 16 > d->len)
        return heap_dec_short(d, h + 16);
    uint64_t n = dec_word(d, h + 8);
    if (n > TREC_CHUNK_ENTRIES)
        return heap_dec_bad(d, "next_entry_idx %llu exceeds the %d entries of a chunk",
                            (unsigned long long)n, TREC_CHUNK_ENTRIES);
    size_t need = h + 16 + 32 * (size_t)n;
    if (need > d->len)
        return heap_dec_short(d, need);
    hs_status st = dec_reserve(d, 1 + 3 * (size_t)n, (size_t)n);
    if (st != HS_OK)
        return st;
    heap_closure *c = d->c;
    dec_edge(c, dec_word(d, h), HEAP_EDGE_PREV_CHUNK, NO_FRAME, 0);
    for (uint32_t i = 0; i < n; i++) {
        size_t e = h + 16 + 32 * (size_t)i;
        for (uint32_t j = 0; j < 3; j++)
            dec_edge(c, dec_word(d, e + 8 * j), HEAP_EDGE_TREC_ENTRY, NO_FRAME, 3 * i + j);
        c->words[c->n_words++] = dec_word(d, e + 24);
    }
    c->count = n;
    c->size = (uint32_t)need;
    return HS_OK;
}
