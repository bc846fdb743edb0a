/* The closures of this pause (heap.h, "closures of this pause"): every
 * closure decoded since the pause began, which is a root, a saved object,
 * or was reached from one (heap_decode's contract). One bit per dense heap
 * word, allocated at the first mark (1/64 of the blocks' bytes), and a hash
 * set for closures outside the blocks. Dropped with the pause. */
#include <stdlib.h>

#include "heap_internal.h"

hs_status heap_reached_mark(heap *h, uint64_t addr, hs_error *err) {
    uint64_t w;
    if (heap_dense_word(h, addr, &w)) {
        if (!h->reached_bits) {
            h->reached_bits = calloc((h->words + 63) / 64, sizeof *h->reached_bits);
            if (!h->reached_bits)
                return hs_fail(err, HS_ERR_NOMEM, "out of memory for the closures of this pause");
        }
        h->reached_bits[w >> 6] |= UINT64_C(1) << (w & 63);
        return HS_OK;
    }
    if (addr == 0 || u64map_find(&h->reached_other, addr))
        return HS_OK;
    return u64map_put(&h->reached_other, addr, 1)
               ? HS_OK
               : hs_fail(err, HS_ERR_NOMEM, "out of memory for the closures of this pause");
}

bool heap_reached(const heap *h, uint64_t addr) {
    addr = wire_untag(addr);
    if (addr && heap_guard_named(h, addr))
        return true;
    uint64_t w;
    if (heap_dense_word(h, addr, &w))
        return h->reached_bits && (h->reached_bits[w >> 6] >> (w & 63) & 1);
    return addr && u64map_find(&h->reached_other, addr) != NULL;
}

void heap_reached_set_complete(heap *h) { h->reached_complete = true; }
bool heap_reached_complete(const heap *h) { return h->reached_complete; }

void heap_reached_drop(heap *h) {
    free(h->reached_bits);
    h->reached_bits = NULL;
    u64map_free(&h->reached_other);
    u64map_free(&h->named);
    h->reached_complete = false;
}

hs_status heap_reached_name_roots(heap *h, hs_error *err) {
    const wire_ptr_list *lists[2] = {&h->roots, &h->saved};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->count; i++) {
            uint64_t a = wire_untag(lists[l]->items[i]);
            if (a && !u64map_put(&h->named, a, 1))
                return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        }
    return HS_OK;
}
