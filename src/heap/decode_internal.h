/* Private helpers shared by the closure decoder (decode*.c): the closure
 * being decoded, bounds-checked reads, and grow-only output storage. */
#ifndef HEAPSCOPE_DECODE_INTERNAL_H
#define HEAPSCOPE_DECODE_INTERNAL_H

#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heap_internal.h"

/* One closure being decoded. Every read is at an offset the caller has
 * checked against len first. */
typedef struct decode_ctx {
    heap *h;
    heap_closure *c;
    const uint8_t *p; /* the closure's bytes */
    size_t len;       /* bytes available at p (block tail or static image) */
    unsigned hdr;     /* H: 8, or 24 on a profiled RTS */
    hs_error *err;
} decode_ctx;

static inline uint64_t dec_word(const decode_ctx *d, size_t off) {
    return hs_load_le64(d->p + off);
}
static inline uint32_t dec_u32(const decode_ctx *d, size_t off) {
    return hs_load_le32(d->p + off);
}

/* HS_ERR_PROTOCOL: the closure needs `need` bytes and fewer are there. */
hs_status heap_dec_short(const decode_ctx *d, uint64_t need);
/* HS_ERR_PROTOCOL with "closure 0x.. (TYPE): " before the message. */
hs_status heap_dec_bad(const decode_ctx *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
hs_status heap_dec_nomem(const decode_ctx *d);

/* Grow-only storage: room for `extra` more entries. */
bool heap_dec_grow_edges(heap_closure *c, size_t extra);
bool heap_dec_grow_words(heap_closure *c, size_t extra);
bool heap_dec_grow_frames(heap_closure *c, size_t extra);

static inline hs_status dec_reserve(const decode_ctx *d, size_t edges, size_t words) {
    heap_closure *c = d->c;
    if ((c->edges_cap - c->n_edges < edges && !heap_dec_grow_edges(c, edges)) ||
        (c->words_cap - c->n_words < words && !heap_dec_grow_words(c, words)))
        return heap_dec_nomem(d);
    return HS_OK;
}

/* Appends an edge to the untagged target of raw; null pointers are not
 * edges. Room must have been reserved. */
static inline void dec_edge(heap_closure *c, uint64_t raw, uint16_t kind, uint16_t frame,
                            uint32_t index) {
    uint64_t a = wire_untag(raw);
    if (a) {
        heap_edge *e = &c->edges[c->n_edges++];
        e->addr = a;
        e->kind = kind;
        e->frame = frame;
        e->index = index;
    }
}

/* Pointer map of n argument words applied to fun (PAP, AP): *bits[i] = 1
 * when word i is a pointer; NULL means no pointers. tmp holds an answer
 * that could not be cached; the caller frees it. */
hs_status heap_dec_fun_bitmap(decode_ctx *d, uint64_t fun, uint32_t n, const uint8_t **bits,
                              heap_bitmap *tmp);

/* Families, each filling d->c (size, edges, words, type-specific fields). */
hs_status heap_dec_stack(decode_ctx *d);    /* STACK */
hs_status heap_dec_ap_stack(decode_ctx *d); /* AP_STACK */
hs_status heap_dec_tso(decode_ctx *d);
hs_status heap_dec_bco(decode_ctx *d);
hs_status heap_dec_arr_words(decode_ctx *d);
hs_status heap_dec_mut_arr(decode_ctx *d, bool small);
hs_status heap_dec_trec_chunk(decode_ctx *d);

#endif
