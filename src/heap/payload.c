/* The payload of a byte array (ARR_WORDS, heap-layout.md §6.13) at any
 * size: a large array has a block group of its own, which the heap holds
 * whole, so the bytes are one contiguous run; callers read them a page at
 * a time. Layout knowledge (where the payload starts) stays here. */
#include <string.h>

#include "heap_internal.h"
#include "heapscope/closure_type.h"

hs_status heap_payload_read(heap *h, uint64_t addr, uint64_t offset, uint8_t *buf, size_t cap,
                            size_t *got, uint64_t *total, hs_error *err) {
    *got = 0;
    heap_closure c = {0};
    hs_status st = heap_decode_named(h, addr, &c, err);
    if (st == HS_OK && c.type != HS_ARR_WORDS)
        st = hs_fail(err, HS_ERR_USAGE, "0x%llx is a %s, not a byte array (ARR_WORDS)",
                     (unsigned long long)wire_untag(addr), hs_closure_type_name(c.type));
    if (st == HS_OK) {
        *total = c.count;
        if (offset < c.count) {
            uint64_t left = c.count - offset;
            *got = left < cap ? (size_t)left : cap;
            memcpy(buf, c.bytes + offset, *got);
        }
    }
    heap_closure_free(&c);
    return st;
}

bool heap_payload_index(const heap *h, const heap_closure *arr, uint64_t ptr, uint64_t *off) {
    if (arr->type != HS_ARR_WORDS)
        return false;
    uint64_t start = arr->addr + heap_header_bytes(h) + 8; /* after the byte count */
    if (ptr < start || ptr - start > arr->count)
        return false;
    *off = ptr - start;
    return true;
}
