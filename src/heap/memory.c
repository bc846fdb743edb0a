/* Closure bytes by address: the tail of a fetched block group, or the image
 * of a closure outside the blocks (static closures) fetched with CLOSURES
 * in batches and kept for the pause (wire-protocol.md §10.3).
 *
 * Whatever it hands out is at least one word long, so a caller may always
 * read the info pointer: a static image shorter than that (a hostile or
 * broken peer) is kept only to remember that the closure is unreadable. */
#include <stdlib.h>
#include <string.h>

#include "heap_internal.h"
#include "heapscope/bytes.h"

#define INFO_POINTER_BYTES 8

static hs_status keep_images(heap *h, const uint64_t *addrs, const heap_blobs *b, hs_error *err) {
    if (b->count != 0 && !b->items)
        return hs_fail(err, HS_ERR_INTERNAL, "the source answered no closure images");
    for (size_t i = 0; i < b->count; i++) {
        heap_static_image *img = malloc(sizeof *img + b->items[i].len);
        if (!img)
            return hs_fail(err, HS_ERR_NOMEM, "out of memory keeping static closures");
        img->len = b->items[i].len;
        memcpy(img->bytes, b->items[i].data, img->len);
        uint64_t *old = u64map_find(&h->statics, addrs[i]);
        if (old) {
            free((void *)(uintptr_t)*old);
            *old = (uintptr_t)img;
        } else if (!u64map_put(&h->statics, addrs[i], (uintptr_t)img)) {
            free(img);
            return hs_fail(err, HS_ERR_NOMEM, "out of memory keeping static closures");
        }
    }
    return HS_OK;
}

/* True when addr needs a CLOSURES request; loads the block group holding
 * it first if a lazy source left it unloaded. */
static hs_status needs_fetch(heap *h, uint64_t addr, bool *out, hs_error *err) {
    *out = false;
    if (addr == 0)
        return HS_OK;
    long g = heap_find_group(h, addr);
    if (g >= 0) {
        const heap_block *b = &h->blocks.items[g];
        if (b->len - (addr - b->start) >= INFO_POINTER_BYTES)
            return heap_load_group(h, (size_t)g, err);
    }
    *out = u64map_find(&h->statics, addr) == NULL;
    return HS_OK;
}

/* One CLOSURES request for k addresses, kept. A source without some of
 * them refuses the batch; then each is asked alone and those it has not
 * stay unknown (the closure fails when read), unless `strict` asks for the
 * refusal. */
static hs_status fetch_images(heap *h, const uint64_t *batch, size_t k, bool strict,
                              hs_error *err) {
    heap_blobs blobs = {0};
    hs_status st = h->src.ops->closures(h->src.self, batch, k, &blobs, err);
    if (st == HS_OK && blobs.count != k)
        st = hs_fail(err, HS_ERR_INTERNAL, "the source answered %zu closures for %zu",
                     blobs.count, k);
    if (st == HS_OK)
        st = keep_images(h, batch, &blobs, err);
    heap_blobs_free(&blobs);
    if (st == HEAP_UNAVAILABLE && k > 1) {
        st = HS_OK;
        for (size_t i = 0; i < k && (st == HS_OK || st == HEAP_UNAVAILABLE); i++)
            st = fetch_images(h, batch + i, 1, false, err);
    }
    return st == HEAP_UNAVAILABLE && !strict ? HS_OK : st;
}

static hs_status prefetch_statics(heap *h, const uint64_t *addrs, size_t n, bool strict,
                                  hs_error *err) {
    uint64_t *batch = malloc(HEAP_MAX_BATCH * sizeof *batch);
    if (!batch)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    u64map pending = {0}; /* dedupe within this call */
    hs_status st = HS_OK;
    size_t k = 0;
    for (size_t i = 0; st == HS_OK && i <= n; i++) {
        if (i < n) {
            uint64_t a = wire_untag(addrs[i]);
            bool fetch;
            if ((st = needs_fetch(h, a, &fetch, err)) != HS_OK)
                break;
            if (!fetch || u64map_find(&pending, a))
                continue;
            if (!u64map_put(&pending, a, 1)) {
                st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
                break;
            }
            batch[k++] = a;
        }
        if (k == HEAP_MAX_BATCH || (i == n && k > 0)) {
            st = fetch_images(h, batch, k, strict, err);
            k = 0;
        }
    }
    u64map_free(&pending);
    free(batch);
    return st;
}

hs_status heap_prefetch_statics(heap *h, const uint64_t *addrs, size_t n, hs_error *err) {
    return prefetch_statics(h, addrs, n, false, err);
}

const uint8_t *heap_memory_cached(const heap *h, uint64_t addr, size_t *len) {
    long g = heap_find_group(h, addr);
    if (g >= 0) {
        const heap_block *b = &h->blocks.items[g];
        size_t off = (size_t)(addr - b->start);
        if (b->len - off >= INFO_POINTER_BYTES) {
            if (!b->data) /* a lazy source's group, not loaded yet */
                return NULL;
            *len = b->len - off;
            return b->data + off;
        }
    }
    uint64_t *img = u64map_find(&h->statics, addr);
    if (!img)
        return NULL;
    const heap_static_image *s = (const heap_static_image *)(uintptr_t)*img;
    if (s->len < INFO_POINTER_BYTES)
        return NULL;
    *len = s->len;
    return s->bytes;
}

hs_status heap_memory(heap *h, uint64_t addr, const uint8_t **bytes, size_t *len,
                      hs_error *err) {
    if (addr == 0)
        return hs_fail(err, HS_ERR_PROTOCOL, "null closure pointer");
    *bytes = heap_memory_cached(h, addr, len);
    if (*bytes)
        return HS_OK;
    if (prefetch_statics(h, &addr, 1, true, err) != HS_OK)
        return hs_fail_context(err, "closure 0x%llx", (unsigned long long)addr);
    *bytes = heap_memory_cached(h, addr, len);
    if (*bytes)
        return HS_OK;
    uint64_t *img = u64map_find(&h->statics, addr);
    if (img)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "closure 0x%llx: the debuggee sent %zu bytes for it, fewer than an info "
                       "pointer",
                       (unsigned long long)addr, ((const heap_static_image *)(uintptr_t)*img)->len);
    return hs_fail(err, HS_ERR_INTERNAL, "closure 0x%llx was fetched but not kept",
                   (unsigned long long)addr);
}

hs_status heap_prefetch(heap *h, const uint64_t *addrs, size_t n, hs_error *err) {
    hs_status st = heap_prefetch_statics(h, addrs, n, err);
    uint64_t *infos = st == HS_OK ? malloc((n ? n : 1) * sizeof *infos) : NULL;
    if (st == HS_OK && !infos)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        size_t len;
        const uint8_t *b = heap_memory_cached(h, wire_untag(addrs[i]), &len);
        if (b && len >= INFO_POINTER_BYTES && !heap_info_cached(h, hs_load_le64(b)))
            infos[m++] = hs_load_le64(b);
    }
    if (st == HS_OK && m)
        st = heap_info_prefetch(h, infos, m, err);
    free(infos);
    return st;
}
