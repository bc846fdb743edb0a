/* Closure bytes by address: the tail of a fetched block group, or the image
 * of a closure outside the blocks (static closures) fetched with CLOSURES
 * in batches and kept for the pause (wire-protocol.md §10.3).
 *
 * Whatever it hands out is at least one word long, so a caller may always
 * read the info pointer: a static image shorter than that (a hostile or
 * broken peer), or one the source refused, is kept only to remember that
 * the closure is unreadable. */
#include <stdlib.h>
#include <string.h>

#include "heap_internal.h"
#include "heapscope/bytes.h"

#define INFO_POINTER_BYTES 8

/* Keeps img as the image of addr (replacing an older one). */
static hs_status keep(heap *h, uint64_t addr, heap_static_image *img, hs_error *err) {
    if (!img)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory keeping static closures");
    uint64_t *old = u64map_find(&h->statics, addr);
    if (old) {
        free((void *)(uintptr_t)*old);
        *old = (uintptr_t)img;
    } else if (!u64map_put(&h->statics, addr, (uintptr_t)img)) {
        free(img);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory keeping static closures");
    }
    return HS_OK;
}

static hs_status fetch_images(heap *h, const uint64_t *addrs, size_t n, hs_error *err) {
    heap_blobs b = {0};
    hs_status st = h->src.ops->closures(h->src.self, addrs, n, &b, err);
    if (st == HS_OK && (b.count != n || (n != 0 && !b.items)))
        st = hs_fail(err, HS_ERR_INTERNAL, "the source answered %zu closures for %zu", b.count, n);
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        heap_static_image *img = malloc(sizeof *img + b.items[i].len);
        if (img) {
            *img = (heap_static_image){.len = b.items[i].len};
            memcpy(img->bytes, b.items[i].data, img->len);
        }
        st = keep(h, addrs[i], img, err);
    }
    heap_blobs_free(&b);
    return st;
}

/* The source has no image of addr: remembered with the reason, so the
 * closure is unreadable (heap_memory says why) and not asked for again. */
static hs_status refuse_image(heap *h, uint64_t addr, const hs_error *why, hs_error *err) {
    size_t n = strlen(why->message) + 1;
    heap_static_image *img = malloc(sizeof *img + n);
    if (img) {
        *img = (heap_static_image){.refused = true};
        memcpy(img->bytes, why->message, n);
    }
    return keep(h, addr, img, err);
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

hs_status heap_prefetch_statics(heap *h, const uint64_t *addrs, size_t n, hs_error *err) {
    /* sized by the call: most ask for one or a few (a batch is 512 KiB) */
    uint64_t *batch = malloc((n < HEAP_MAX_BATCH ? n + 1 : HEAP_MAX_BATCH) * sizeof *batch);
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
            if ((st = heap_guard_learn_code(h, err)) != HS_OK)
                break;
            hs_error why = {0};
            if (!heap_guard_closure(h, a, &why)) { /* never asked: unreadable, with the reason */
                st = refuse_image(h, a, &why, err);
                continue;
            }
            if (!u64map_put(&pending, a, 1)) {
                st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
                break;
            }
            batch[k++] = a;
        }
        if (k == HEAP_MAX_BATCH || (i == n && k > 0)) {
            st = heap_fetch_split(h, batch, k, fetch_images, refuse_image, err);
            k = 0;
        }
    }
    u64map_free(&pending);
    free(batch);
    return st;
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
    if (heap_prefetch_statics(h, &addr, 1, err) != HS_OK)
        return hs_fail_context(err, "closure 0x%llx", (unsigned long long)addr);
    *bytes = heap_memory_cached(h, addr, len);
    if (*bytes)
        return HS_OK;
    uint64_t *found = u64map_find(&h->statics, addr);
    const heap_static_image *img = found ? (const heap_static_image *)(uintptr_t)*found : NULL;
    if (img && img->refused)
        return hs_fail(err, HEAP_UNAVAILABLE, "closure 0x%llx: %s", (unsigned long long)addr,
                       (const char *)img->bytes);
    if (img)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "closure 0x%llx: the debuggee sent %zu bytes for it, fewer than an info "
                       "pointer",
                       (unsigned long long)addr, img->len);
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
