/* Closure decoding (heap-layout.md §4-§6, §11.2, §13): dispatch by closure
 * type, the standard layouts (constructors, functions, thunks, PRIM), the
 * fixed-layout RTS objects, PAP and AP, and opaque leaves. Stacks are in
 * decode_stack.c, the remaining RTS objects in decode_misc.c.
 *
 * The common path (constructors, thunks, functions, indirections) costs one
 * memory lookup, one info lookup and a few stores into storage the caller
 * reuses across decodes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_internal.h"
#include "heapscope/grow.h"

#define NO_FRAME HEAP_EDGE_NO_FRAME

/* ---- errors and storage --------------------------------------------- */

hs_status heap_dec_short(const decode_ctx *d, uint64_t need) {
    return hs_fail(d->err, HS_ERR_PROTOCOL,
                   "closure 0x%llx (%s) needs %llu bytes but only %zu are available",
                   (unsigned long long)d->c->addr, hs_closure_type_name(d->c->type),
                   (unsigned long long)need, d->len);
}

hs_status heap_dec_bad(const decode_ctx *d, const char *fmt, ...) {
    if (!d->err)
        return HS_ERR_PROTOCOL;
    char msg[HS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return hs_fail(d->err, HS_ERR_PROTOCOL, "closure 0x%llx (%s): %s",
                   (unsigned long long)d->c->addr, hs_closure_type_name(d->c->type), msg);
}

hs_status heap_dec_nomem(const decode_ctx *d) {
    return hs_fail(d->err, HS_ERR_NOMEM, "out of memory decoding closure 0x%llx",
                   (unsigned long long)d->c->addr);
}

/* Room for `extra` more entries after `used` (hs_grow doubles). */
static bool grow(void **items, size_t *cap, size_t used, size_t extra, size_t elem) {
    return extra <= SIZE_MAX - used && hs_grow(items, cap, used + extra, elem);
}

bool heap_dec_grow_edges(heap_closure *c, size_t extra) {
    void *p = c->edges;
    bool ok = grow(&p, &c->edges_cap, c->n_edges, extra, sizeof *c->edges);
    c->edges = p;
    return ok;
}

bool heap_dec_grow_words(heap_closure *c, size_t extra) {
    void *p = c->words;
    bool ok = grow(&p, &c->words_cap, c->n_words, extra, sizeof *c->words);
    c->words = p;
    return ok;
}

bool heap_dec_grow_frames(heap_closure *c, size_t extra) {
    void *p = c->frames;
    bool ok = grow(&p, &c->frames_cap, c->n_frames, extra, sizeof *c->frames);
    c->frames = p;
    return ok;
}

void heap_closure_free(heap_closure *c) {
    if (!c)
        return;
    free(c->edges);
    free(c->words);
    free(c->frames);
    *c = (heap_closure){0};
}

/* ---- standard and fixed layouts -------------------------------------- */

/* The SRT edge (when the info table has one), then `ptrs` pointer fields
 * at off, each of `kind` with its field number, then n_words plain words.
 * The closure ends after them (§6.1, §6.2, §11.2). */
static hs_status std_fields(decode_ctx *d, size_t off, uint32_t ptrs, uint32_t n_words,
                            uint16_t kind, bool with_srt) {
    uint64_t need = off + 8 * ((uint64_t)ptrs + n_words);
    if (need > d->len)
        return heap_dec_short(d, need);
    heap_closure *c = d->c;
    hs_status st = dec_reserve(d, (size_t)ptrs + 1, n_words);
    if (st != HS_OK)
        return st;
    if (with_srt)
        dec_edge(c, c->info->srt, HEAP_EDGE_SRT, NO_FRAME, 0);
    const uint8_t *q = d->p + off;
    for (uint32_t i = 0; i < ptrs; i++, q += 8)
        dec_edge(c, hs_load_le64(q), kind, NO_FRAME, i);
    uint64_t *w = c->words;
    for (uint32_t i = 0; i < n_words; i++, q += 8)
        w[i] = hs_load_le64(q);
    c->n_words = n_words;
    c->size = (uint32_t)need;
    return HS_OK;
}

/* Pointer fields of the given kinds at off (index 0 each), then n_words
 * plain words: the RTS objects whose layout never varies. */
static hs_status fixed_fields(decode_ctx *d, size_t off, const uint16_t *kinds, unsigned n,
                              unsigned n_words) {
    size_t need = off + 8 * ((size_t)n + n_words);
    if (need > d->len)
        return heap_dec_short(d, need);
    hs_status st = dec_reserve(d, n, n_words);
    if (st != HS_OK)
        return st;
    heap_closure *c = d->c;
    for (unsigned i = 0; i < n; i++)
        dec_edge(c, dec_word(d, off + 8 * i), kinds[i], NO_FRAME, 0);
    for (unsigned i = 0; i < n_words; i++)
        c->words[c->n_words++] = dec_word(d, off + 8 * (n + i));
    c->size = (uint32_t)need;
    return HS_OK;
}

static const uint16_t k_selectee[] = {HEAP_EDGE_SELECTEE};
static const uint16_t k_indirectee[] = {HEAP_EDGE_INDIRECTEE};
static const uint16_t k_mut_var[] = {HEAP_EDGE_VALUE};
static const uint16_t k_mvar[] = {HEAP_EDGE_QUEUE_HEAD, HEAP_EDGE_QUEUE_TAIL, HEAP_EDGE_VALUE};
static const uint16_t k_tvar[] = {HEAP_EDGE_TVAR_VALUE, HEAP_EDGE_WATCH_QUEUE};
static const uint16_t k_weak[] = {HEAP_EDGE_C_FINALIZERS, HEAP_EDGE_KEY, HEAP_EDGE_VALUE,
                                  HEAP_EDGE_FINALIZER, HEAP_EDGE_LINK};
static const uint16_t k_bq[] = {HEAP_EDGE_LINK, HEAP_EDGE_BLACKHOLE, HEAP_EDGE_OWNER,
                                HEAP_EDGE_QUEUE};

/* ---- PAP and AP ------------------------------------------------------ */

/* GHC takes a BCO's argument map from the BCO itself (its bitmap at H+32:
 * u64 bit count, then words, bit 0 = pointer), so it cannot be cached by
 * info pointer: every BCO shares one info table. */
static hs_status bco_arg_bitmap(decode_ctx *d, uint64_t fun, const uint8_t *fp, size_t flen,
                                uint32_t n, heap_bitmap *tmp) {
    size_t at = d->hdr + 32;
    if (flen < at + 8)
        return heap_dec_bad(d, "its function, BCO 0x%llx, is truncated", (unsigned long long)fun);
    uint64_t count = hs_load_le64(fp + at);
    size_t words = ((size_t)n + 63) / 64;
    if (count < n || words > (flen - at - 8) / 8)
        return heap_dec_bad(d, "its function, BCO 0x%llx, has no bitmap for %u arguments",
                            (unsigned long long)fun, n);
    if (!(tmp->bits = malloc(n)))
        return heap_dec_nomem(d);
    tmp->count = n;
    for (uint32_t i = 0; i < n; i++)
        tmp->bits[i] = !(hs_load_le64(fp + at + 8 + 8 * (i / 64)) >> (i % 64) & 1);
    return HS_OK;
}

/* FUN_BITMAP answers depend only on the function's info table (heap-layout
 * §9), so they are cached by (info pointer, n). The key packs both: user
 * space info pointers are below 2^48 and n fits 16 bits. */
hs_status heap_dec_fun_bitmap(decode_ctx *d, uint64_t fun, uint32_t n, const uint8_t **bits,
                              heap_bitmap *tmp) {
    *bits = NULL;
    if (n == 0)
        return HS_OK;
    if (fun == 0)
        return heap_dec_bad(d, "%u argument words applied to a null function", n);
    if (n > UINT16_MAX)
        return heap_dec_bad(d, "%u argument words, more than FUN_BITMAP can describe", n);
    heap *h = d->h;
    const uint8_t *fp;
    size_t flen;
    hs_status st = heap_memory(h, fun, &fp, &flen, d->err);
    if (st != HS_OK)
        return d->err ? hs_fail_context(d->err, "function of closure 0x%llx",
                                         (unsigned long long)d->c->addr)
                      : st;
    if (flen < 8)
        return heap_dec_bad(d, "its function 0x%llx is truncated", (unsigned long long)fun);
    uint64_t finfo = hs_load_le64(fp);
    uint64_t key = heap_fun_bitmap_key(finfo, n);
    uint64_t *hit = key ? u64map_find(&h->fun_bitmaps, key) : NULL;
    if (hit) {
        *bits = ((const heap_cached_bitmap *)(uintptr_t)*hit)->bits;
        return HS_OK;
    }
    const heap_info *fi;
    st = heap_info_get(h, finfo, &fi, d->err);
    if (st != HS_OK)
        return d->err ? hs_fail_context(d->err, "function of closure 0x%llx",
                                         (unsigned long long)d->c->addr)
                      : st;
    if (fi->type == HS_BCO) {
        st = bco_arg_bitmap(d, fun, fp, flen, n, tmp);
        *bits = tmp->bits;
        return st;
    }
    /* The stub would read a function info table that is not there. */
    if (fi->type < HS_FUN || fi->type > HS_FUN_STATIC)
        return heap_dec_bad(d, "its function 0x%llx is a %s", (unsigned long long)fun,
                            hs_closure_type_name(fi->type));
    st = h->src.ops->fun_bitmap(h->src.self, fun, fi, (uint16_t)n, tmp, d->err);
    if (st != HS_OK)
        return d->err ? hs_fail_context(d->err, "FUN_BITMAP of 0x%llx for closure 0x%llx",
                                         (unsigned long long)fun,
                                         (unsigned long long)d->c->addr)
                      : st;
    if (tmp->count != n)
        return heap_dec_bad(d, "FUN_BITMAP of 0x%llx has %zu entries, asked for %u",
                            (unsigned long long)fun, tmp->count, n);
    *bits = tmp->bits;
    if (!key)
        return HS_OK;
    heap_cached_bitmap *cb = heap_cache_bitmap(tmp->bits, n);
    if (!cb)
        return heap_dec_nomem(d);
    if (!u64map_put(&h->fun_bitmaps, key, (uintptr_t)cb)) {
        free(cb);
        return heap_dec_nomem(d);
    }
    return HS_OK;
}

/* PAP (§6.4): arity, n_args, fun at H. AP (§6.5): the same after the
 * thunk padding word. Edges: the function, then the payload words the
 * function's argument bitmap marks as pointers. */
static hs_status decode_pap(decode_ctx *d, bool ap) {
    heap_closure *c = d->c;
    size_t base = d->hdr + (ap ? 8 : 0), pay = base + 16;
    if (pay > d->len)
        return heap_dec_short(d, pay);
    uint32_t n = dec_u32(d, base + 4);
    if (n > (d->len - pay) / 8)
        return heap_dec_short(d, pay + 8 * (uint64_t)n);
    uint64_t fun = wire_untag(dec_word(d, base + 8));
    c->arity = dec_u32(d, base);
    c->count = n;
    c->size = (uint32_t)(pay + 8 * (size_t)n);
    const uint8_t *bits = NULL;
    heap_bitmap tmp = {0};
    hs_status st = heap_dec_fun_bitmap(d, fun, n, &bits, &tmp);
    if (st == HS_OK)
        st = dec_reserve(d, (size_t)n + 1, n);
    if (st == HS_OK) {
        dec_edge(c, fun, HEAP_EDGE_FUNCTION, NO_FRAME, 0);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t w = dec_word(d, pay + 8 * (size_t)i);
            if (bits && bits[i])
                dec_edge(c, w, HEAP_EDGE_PAYLOAD, NO_FRAME, i);
            else
                c->words[c->n_words++] = w;
        }
    }
    free(tmp.bits);
    return st;
}

/* ---- dispatch -------------------------------------------------------- */

/* Types the reference rejects: a leaf with its info table's size. */
static hs_status decode_opaque(decode_ctx *d) {
    heap_closure *c = d->c;
    uint64_t size = d->hdr + 8 * ((uint64_t)c->info->ptrs + c->info->nptrs);
    c->opaque = true;
    c->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    return HS_OK;
}

static hs_status decode_body(decode_ctx *d) {
    const heap_info *info = d->c->info;
    unsigned hdr = d->hdr;
    switch (info->type) {
    case HS_CONSTR: case HS_CONSTR_1_0: case HS_CONSTR_0_1: case HS_CONSTR_2_0:
    case HS_CONSTR_1_1: case HS_CONSTR_0_2: case HS_CONSTR_NOCAF:
        return std_fields(d, hdr, info->ptrs, info->nptrs, HEAP_EDGE_FIELD, false);
    case HS_FUN: case HS_FUN_1_0: case HS_FUN_0_1: case HS_FUN_2_0: case HS_FUN_1_1:
    case HS_FUN_0_2: case HS_FUN_STATIC: case HS_THUNK_STATIC:
        return std_fields(d, hdr, info->ptrs, info->nptrs, HEAP_EDGE_ARG, true);
    case HS_THUNK: case HS_THUNK_1_0: case HS_THUNK_0_1: case HS_THUNK_2_0:
    case HS_THUNK_1_1: case HS_THUNK_0_2:
        return std_fields(d, hdr + 8, info->ptrs, info->nptrs, HEAP_EDGE_ARG, true);
    case HS_PRIM: case HS_MUT_PRIM:
        return std_fields(d, hdr, info->ptrs, info->nptrs, HEAP_EDGE_ARG, false);
    case HS_THUNK_SELECTOR:
        return fixed_fields(d, hdr + 8, k_selectee, 1, 0);
    case HS_IND: case HS_IND_STATIC: case HS_BLACKHOLE:
        return fixed_fields(d, hdr, k_indirectee, 1, 0);
    case HS_MUT_VAR_CLEAN: case HS_MUT_VAR_DIRTY:
        return fixed_fields(d, hdr, k_mut_var, 1, 0);
    case HS_MVAR_CLEAN: case HS_MVAR_DIRTY:
        return fixed_fields(d, hdr, k_mvar, 3, 0);
    case HS_TVAR:
        return fixed_fields(d, hdr, k_tvar, 2, 1);
    case HS_WEAK:
        return fixed_fields(d, hdr, k_weak, 5, 0);
    case HS_BLOCKING_QUEUE:
        return fixed_fields(d, hdr, k_bq, 4, 0);
    case HS_PAP:
        return decode_pap(d, false);
    case HS_AP:
        return decode_pap(d, true);
    case HS_AP_STACK:
        return heap_dec_ap_stack(d);
    case HS_STACK:
        return heap_dec_stack(d);
    case HS_TSO:
        return heap_dec_tso(d);
    case HS_BCO:
        return heap_dec_bco(d);
    case HS_ARR_WORDS:
        return heap_dec_arr_words(d);
    case HS_MUT_ARR_PTRS_CLEAN: case HS_MUT_ARR_PTRS_DIRTY:
    case HS_MUT_ARR_PTRS_FROZEN_DIRTY: case HS_MUT_ARR_PTRS_FROZEN_CLEAN:
        return heap_dec_mut_arr(d, false);
    case HS_SMALL_MUT_ARR_PTRS_CLEAN: case HS_SMALL_MUT_ARR_PTRS_DIRTY:
    case HS_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY: case HS_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
        return heap_dec_mut_arr(d, true);
    case HS_TREC_CHUNK:
        return heap_dec_trec_chunk(d);
    default: /* INVALID_OBJECT, frames, WHITEHOLE, COMPACT_NFDATA, CONTINUATION, and
              * numbers the debuggee's GHC has no type for (HS_CLOSURE_TYPE_UNKNOWN) */
        return decode_opaque(d);
    }
}

hs_status heap_decode_known(heap *h, uint64_t addr, const uint8_t *p, size_t len,
                            const heap_info *info, heap_closure *out, hs_error *err) {
    out->addr = addr;
    out->info_ptr = info->ptr;
    out->info = info;
    out->type = info->type;
    out->size = 0;
    out->opaque = false;
    out->prof = (heap_prof_header){0};
    out->n_edges = out->n_words = out->n_frames = 0;
    out->count = 0;
    out->arity = 0;
    out->sp = 0;
    out->bytes = NULL;
    out->what_next = 0;
    out->why_blocked = 0;
    out->flags = 0;
    out->thread_id = 0;
    decode_ctx d = {h, out, p, len, h->header_bytes, err};
    if (d.hdr > 8 && len >= d.hdr) { /* the CCS is data, not an edge */
        out->prof.present = true;
        out->prof.ccs = dec_word(&d, 8);
        out->prof.word = dec_word(&d, 16);
    }
    hs_status st = decode_body(&d);
    if (st != HS_OK) /* no half-decoded children: addr, info and type remain */
        out->n_edges = out->n_words = out->n_frames = 0;
    else
        st = heap_reached_mark(h, addr, err);
    return st;
}

hs_status heap_decode(heap *h, uint64_t addr, heap_closure *out, hs_error *err) {
    addr = wire_untag(addr);
    out->addr = addr;
    out->info_ptr = 0;
    out->info = NULL;
    out->type = 0;
    out->n_edges = out->n_words = out->n_frames = 0;
    const uint8_t *p;
    size_t len;
    hs_status st = heap_memory(h, addr, &p, &len, err);
    if (st != HS_OK)
        return st;
    if (len < 8)
        return hs_fail(err, HS_ERR_PROTOCOL, "closure 0x%llx: only %zu bytes, no info pointer",
                       (unsigned long long)addr, len);
    const heap_info *info;
    out->info_ptr = hs_load_le64(p);
    st = heap_info_get(h, out->info_ptr, &info, err);
    if (st != HS_OK)
        return err ? hs_fail_context(err, "closure 0x%llx", (unsigned long long)addr) : st;
    return heap_decode_known(h, addr, p, len, info, out, err);
}
