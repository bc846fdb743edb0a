/* Read-only export of what the heap read from its source (heap_export.h):
 * walks the heap's own caches, so it asks the source nothing. */
#include "heap_internal.h"
#include "heapscope/closure_type.h"
#include "heapscope/heap_export.h"

/* Moves *i to the next used slot of m (from *i on) and reads it; false at
 * the end. */
static bool next_entry(const u64map *m, size_t *i, uint64_t *key, const void **value) {
    for (; *i < m->cap; ++*i) {
        if (m->keys[*i]) {
            *key = m->keys[*i];
            *value = (const void *)(uintptr_t)m->values[*i];
            return true;
        }
    }
    return false;
}

#define EACH(m, key, value) \
    for (size_t i_ = 0; next_entry((m), &i_, &(key), &(value)); i_++)

hs_status heap_foreach_block(const heap *h, heap_block_fn fn, void *ctx, hs_error *err) {
    hs_status st = HS_OK;
    for (size_t i = 0; st == HS_OK && i < h->blocks.count; i++)
        if (!heap_group_dropped(h, i))
            st = fn(ctx, &h->blocks.items[i], err);
    return st;
}

hs_status heap_foreach_info(const heap *h, heap_info_fn fn, void *ctx, hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->infos, key, v) {
        const info_entry *e = v;
        heap_export_info x = {&e->pub, e->raw, e->raw_len};
        if (!e->failed && (st = fn(ctx, &x, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_con_desc(const heap *h, heap_con_desc_fn fn, void *ctx, hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->infos, key, v) {
        const info_entry *e = v;
        if (!e->failed && hs_closure_type_is_constructor(e->pub.type) &&
            (st = fn(ctx, key, e->desc.raw, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_source_info(const heap *h, heap_source_info_fn fn, void *ctx,
                                   hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->infos, key, v) {
        const info_entry *e = v;
        if (!e->failed && e->pub.ipe_fetched && (st = fn(ctx, key, e->pub.ipe, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_srt(const heap *h, heap_srt_fn fn, void *ctx, hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->infos, key, v) {
        const info_entry *e = v;
        if (!e->failed && e->srt_asked && (st = fn(ctx, key, e->pub.srt, err)) != HS_OK)
            break;
    }
    return st;
}

static hs_status frame_maps(const u64map *m, bool per_frame, heap_frame_bitmap_fn fn, void *ctx,
                            hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(m, key, v) {
        const heap_cached_bitmap *cb = v;
        heap_export_frame_bitmap x = {per_frame ? 0 : key, per_frame ? key : 0, cb->bits,
                                      cb->count};
        if (per_frame)
            x.frame_info = cb->owner;
        if ((st = fn(ctx, &x, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_frame_bitmap(const heap *h, heap_frame_bitmap_fn fn, void *ctx,
                                    hs_error *err) {
    hs_status st = frame_maps(&h->frame_bitmaps, false, fn, ctx, err);
    return st == HS_OK ? frame_maps(&h->ret_fun_bitmaps, true, fn, ctx, err) : st;
}

hs_status heap_foreach_fun_bitmap(const heap *h, heap_fun_bitmap_fn fn, void *ctx,
                                  hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->fun_bitmaps, key, v) {
        const heap_cached_bitmap *cb = v;
        heap_export_fun_bitmap x = {key & ((UINT64_C(1) << 48) - 1), (uint16_t)(key >> 48),
                                    cb->bits};
        if ((st = fn(ctx, &x, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_static(const heap *h, heap_static_fn fn, void *ctx, hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->statics, key, v) {
        const heap_static_image *img = v;
        if (!img->refused && (st = fn(ctx, key, img->bytes, img->len, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_ccs(const heap *h, heap_ccs_fn fn, void *ctx, hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->ccs, key, v) {
        if ((st = fn(ctx, key, v, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_cc(const heap *h, heap_cc_fn fn, void *ctx, hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->cc, key, v) {
        if ((st = fn(ctx, key, v, err)) != HS_OK)
            break;
    }
    return st;
}

hs_status heap_foreach_index_entry(const heap *h, heap_index_entry_fn fn, void *ctx,
                                   hs_error *err) {
    uint64_t key;
    const void *v;
    hs_status st = HS_OK;
    EACH(&h->index, key, v) {
        if ((st = fn(ctx, key, v, err)) != HS_OK)
            break;
    }
    return st;
}

bool heap_export_ccs_main(const heap *h, uint64_t *ccs_main) {
    if (h->ccs_main_known)
        *ccs_main = h->ccs_main;
    return h->ccs_main_known;
}
