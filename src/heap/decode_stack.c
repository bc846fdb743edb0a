/* Stack frames (heap-layout.md §8) inside STACK closures and AP_STACK
 * payloads (§6.6), decoded as GHC lays them out: the last frame (STOP or
 * UNDERFLOW) is kept, so an underflow frame's older chunk is an edge;
 * RET_FUN's function and every frame's SRT are edges too, since GHC's GC
 * follows them. */
#include <stdlib.h>
#include <string.h>

#include "decode_internal.h"

/* Frame types whose pointer map is the info table's layout word (§8.3):
 * n = layout & 0x3F, then one bit per entry, 0 = pointer. Deriving it here
 * saves a STACK_BITMAP round trip per frame. */
static bool small_bitmap_frame(uint32_t type) {
    switch (type) {
    case HS_RET_SMALL: case HS_UPDATE_FRAME: case HS_CATCH_FRAME: case HS_UNDERFLOW_FRAME:
    case HS_STOP_FRAME: case HS_ATOMICALLY_FRAME: case HS_CATCH_RETRY_FRAME:
    case HS_CATCH_STM_FRAME: case HS_ANN_FRAME: /* ANN_FRAME: GHC >= 9.14 (header, ann) */
        return true;
    default:
        return false;
    }
}

/* A frame's pointer map: either a small bitmap word or n wire entries. */
typedef struct frame_map {
    size_t n;
    uint64_t small;      /* used when bits is NULL: bit i set = non-pointer */
    const uint8_t *bits; /* 1 = pointer */
    unsigned hdr_words;  /* 3 for RET_FUN, else 1 */
} frame_map;

static hs_status bitmap_failed(decode_ctx *d, uint64_t frame) {
    return d->err ? hs_fail_context(d->err, "STACK_BITMAP of the frame at 0x%llx in closure 0x%llx",
                                    (unsigned long long)frame, (unsigned long long)d->c->addr)
                  : HS_ERR_PROTOCOL;
}

/* The pointer map of a RET_BIG or RET_FUN frame, asked once: a RET_BIG
 * map belongs to the info table, so one answer serves every frame using
 * it; a RET_FUN map (from the frame's function and size) to the frame,
 * kept for this pause. */
static hs_status asked_map(decode_ctx *d, uint64_t sp, uint32_t off, const heap_info *fi,
                           frame_map *m) {
    heap *h = d->h;
    bool per_frame = fi->type == HS_RET_FUN;
    u64map *cache = per_frame ? &h->ret_fun_bitmaps : &h->frame_bitmaps;
    uint64_t key = per_frame ? sp + off : fi->ptr;
    uint64_t *hit = u64map_find(cache, key);
    if (!hit) {
        heap_bitmap bm = {0};
        hs_status st = h->src.ops->frame_bitmap(h->src.self, sp, off, fi, &bm, d->err);
        heap_cached_bitmap *cb = st == HS_OK ? heap_cache_bitmap(bm.bits, bm.count) : NULL;
        free(bm.bits);
        if (st != HS_OK)
            return bitmap_failed(d, sp + off);
        if (cb && per_frame)
            cb->owner = fi->ptr;
        if (!cb || !u64map_put(cache, key, (uintptr_t)cb)) {
            free(cb);
            return heap_dec_nomem(d);
        }
        hit = u64map_find(cache, key);
    }
    const heap_cached_bitmap *cb = (const heap_cached_bitmap *)(uintptr_t)*hit;
    m->n = cb->count;
    m->bits = cb->bits;
    return HS_OK;
}

/* Appends one frame of m->n payload words at q (the frame's first byte,
 * `off` bytes from sp) with its SRT and, for RET_FUN, function edges. */
static hs_status emit_frame(decode_ctx *d, const uint8_t *q, uint32_t off, uint64_t ip,
                            const heap_info *fi, const frame_map *m) {
    heap_closure *c = d->c;
    if (c->frames_cap == c->n_frames && !heap_dec_grow_frames(c, 1))
        return heap_dec_nomem(d);
    hs_status st = dec_reserve(d, m->n + 2, m->n);
    if (st != HS_OK)
        return st;
    uint16_t fno = c->n_frames < HEAP_EDGE_NO_FRAME ? (uint16_t)c->n_frames
                                                    : HEAP_EDGE_NO_FRAME - 1;
    heap_frame *f = &c->frames[c->n_frames++];
    f->info_ptr = ip;
    f->info = fi;
    f->offset = off;
    f->size = (uint32_t)(8 * (m->hdr_words + m->n));
    f->first_word = (uint32_t)c->n_words;
    f->first_edge = (uint32_t)c->n_edges;
    dec_edge(c, fi->srt, HEAP_EDGE_SRT, fno, 0);
    if (m->hdr_words == 3)
        dec_edge(c, hs_load_le64(q + 16), HEAP_EDGE_FUNCTION, fno, 0);
    const uint8_t *w = q + 8 * m->hdr_words;
    for (size_t i = 0; i < m->n; i++, w += 8) {
        bool ptr = m->bits ? m->bits[i] != 0 : i >= 64 || !(m->small >> i & 1);
        if (ptr)
            dec_edge(c, hs_load_le64(w), HEAP_EDGE_FRAME_FIELD, fno, (uint32_t)i);
        else
            c->words[c->n_words++] = hs_load_le64(w);
    }
    f->n_words = (uint32_t)(c->n_words - f->first_word);
    f->n_edges = (uint32_t)(c->n_edges - f->first_edge);
    return HS_OK;
}

/* Walks the frames in [sp, sp + len), whose bytes are at q, top first. A
 * frame type without a pointer map (RET_BCO and anything else) ends the
 * walk; the frames before it stay decoded. A frame whose info table or map
 * the source does not have (a ghc-debug snapshot records none below an
 * underflow frame) fails the closure with the source's reason: ending the
 * walk there would hide what the rest of the stack holds. */
static hs_status walk_frames(decode_ctx *d, uint64_t sp, const uint8_t *q, size_t len) {
    size_t off = 0;
    while (len - off >= 8) {
        uint64_t ip = hs_load_le64(q + off);
        if (off > UINT32_MAX)
            return heap_dec_bad(d, "frame at offset %zu is beyond STACK_BITMAP's reach", off);
        if (ip == 0)
            return heap_dec_bad(d, "frame %zu at 0x%llx has a null info pointer", d->c->n_frames,
                                (unsigned long long)(sp + off));
        const heap_info *fi;
        hs_status st = heap_info_get(d->h, ip, &fi, d->err);
        if (st != HS_OK)
            return d->err ? hs_fail_context(d->err, "frame at 0x%llx in closure 0x%llx",
                                            (unsigned long long)(sp + off),
                                            (unsigned long long)d->c->addr)
                          : st;
        frame_map m = {0, 0, NULL, 1};
        if (small_bitmap_frame(fi->type)) {
            m.n = fi->layout & 0x3F;
            m.small = fi->layout >> 6;
        } else if (fi->type == HS_RET_BIG) {
            st = asked_map(d, sp, (uint32_t)off, fi, &m);
        } else if (fi->type == HS_RET_FUN) {
            /* n comes from the frame's size word and the function's bitmap;
             * the source knows both, and the answer is per frame. */
            m.hdr_words = 3;
            if (len - off < 24)
                return heap_dec_bad(d, "RET_FUN frame at 0x%llx is cut off",
                                    (unsigned long long)(sp + off));
            st = asked_map(d, sp, (uint32_t)off, fi, &m);
        } else {
            break;
        }
        if (st == HS_OK && m.n > (len - off) / 8 - m.hdr_words)
            st = heap_dec_bad(d, "%s frame at 0x%llx has %zu words, only %zu left in the stack",
                              hs_closure_type_name(fi->type), (unsigned long long)(sp + off),
                              m.hdr_words + m.n, (len - off) / 8);
        if (st == HS_OK)
            st = emit_frame(d, q + off, (uint32_t)off, ip, fi, &m);
        if (st != HS_OK)
            return st;
        off += 8 * (m.hdr_words + m.n);
    }
    return HS_OK;
}

/* STACK (§8.1): stack_size (words) at H, sp at H+8, the stack area from
 * H+16. count = stack_size, sp = the top frame's address. */
hs_status heap_dec_stack(decode_ctx *d) {
    heap_closure *c = d->c;
    size_t area = d->hdr + 16;
    if (area > d->len)
        return heap_dec_short(d, area);
    uint32_t words = dec_u32(d, d->hdr);
    uint64_t end = area + 8 * (uint64_t)words;
    if (end > d->len)
        return heap_dec_short(d, end);
    uint64_t sp = dec_word(d, d->hdr + 8); /* an address inside this closure, never tagged */
    uint64_t lo = c->addr + area, hi = c->addr + end;
    if (sp < lo || sp > hi || (sp - lo) % 8 != 0)
        return heap_dec_bad(d, "sp 0x%llx lies outside its stack area [0x%llx, 0x%llx]",
                            (unsigned long long)sp, (unsigned long long)lo,
                            (unsigned long long)hi);
    c->count = words;
    c->sp = sp;
    c->size = (uint32_t)end;
    return walk_frames(d, sp, d->p + (sp - c->addr), (size_t)(hi - sp));
}

/* AP_STACK (§6.6): size (words, GHC's meaning) at H+8, fun at H+16, then
 * `size` words of copied frames. Edges: the function, then the frames'. */
hs_status heap_dec_ap_stack(decode_ctx *d) {
    heap_closure *c = d->c;
    size_t pay = d->hdr + 24;
    if (pay > d->len)
        return heap_dec_short(d, pay);
    uint64_t n = dec_word(d, d->hdr + 8);
    if (n > (d->len - pay) / 8)
        return heap_dec_short(d, n > (UINT64_MAX - pay) / 8 ? UINT64_MAX : pay + 8 * n);
    hs_status st = dec_reserve(d, 1, 0);
    if (st != HS_OK)
        return st;
    dec_edge(c, dec_word(d, d->hdr + 16), HEAP_EDGE_FUNCTION, HEAP_EDGE_NO_FRAME, 0);
    c->count = n;
    c->size = (uint32_t)(pay + 8 * n);
    return walk_frames(d, c->addr + pay, d->p + pay, (size_t)(8 * n));
}
