/* The closure at an address a person typed (show TARGET ADDR, dump, the
 * TUI's address prompt): the address may be stale (the heap moved since it
 * was copied) or made up. The official stub dereferences any address it is
 * asked about and crashes the program on a wild one, so nothing is asked
 * about an address unless it is known to be a closure of this pause
 * (heap_reached; query_closure_of_pause runs the traversal that decides),
 * and every way it can fail to be one says so in those words. */
#include "heap_internal.h"
#include "heapscope/closure_type.h"

hs_status heap_no_closure(const heap *h, uint64_t addr, uint64_t inside, uint32_t inside_type,
                          hs_error *err) {
    unsigned long long a = (unsigned long long)addr;
    if (inside)
        return hs_fail(err, HS_ERR_NOT_FOUND,
                       "no closure at 0x%llx in this pause: it lies inside the %s at 0x%llx",
                       a, hs_closure_type_name(inside_type), (unsigned long long)inside);
    if ((addr >= HEAP_RANGE_LO && addr <= HEAP_RANGE_HI) || heap_in_blocks(h, addr))
        return hs_fail(err, HS_ERR_NOT_FOUND,
                       "no closure at 0x%llx in this pause: the address is in the heap, whose "
                       "closures move whenever the program runs; take it from this pause",
                       a);
    return hs_fail(err, HS_ERR_NOT_FOUND, "no closure at 0x%llx in this pause", a);
}

/* A refusal or "unknown" from the source means no readable closure; anything
 * else (the connection, memory) is a real failure. */
static bool refused(hs_status st) {
    return st == HS_ERR_BAD_COMMAND || st == HS_ERR_NOT_FOUND || st == HS_ERR_PROTOCOL;
}

hs_status heap_decode_named(heap *h, uint64_t addr, heap_closure *out, hs_error *err) {
    addr = wire_untag(addr);
    if (addr == 0 || !heap_reached(h, addr)) /* nothing is asked about it */
        return heap_no_closure(h, addr, 0, 0, err);
    hs_error local = {0};
    hs_status st = heap_decode(h, addr, out, &local);
    if (st == HS_OK)
        return HS_OK;
    if (!refused(st)) {
        if (err)
            *err = local;
        return st;
    }
    /* a root the debuggee named, which cannot be read: why is what the
     * tree shows for it too */
    return hs_fail(err, HS_ERR_NOT_FOUND, "no readable closure at 0x%llx in this pause: %s",
                   (unsigned long long)addr, local.message);
}
