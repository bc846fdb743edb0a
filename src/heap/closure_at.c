/* The closure at an address a person typed (show TARGET ADDR, the TUI's
 * address prompt): the address may be stale (the heap moved since it was
 * copied) or made up, so it is checked before anything is asked about it,
 * and every way it can fail to be a closure says so in those words
 * instead of naming the request the debuggee refused. */
#include "heap_internal.h"
#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"

static hs_status nothing_there(uint64_t addr, hs_error *err) {
    return hs_fail(err, HS_ERR_NOT_FOUND, "no closure lives at 0x%llx in this pause",
                   (unsigned long long)addr);
}

/* Real info tables are 8-aligned and live in the program's text, never in
 * the heap's blocks: any other first word is no info pointer, and asking
 * the debuggee about it could make it read arbitrary memory. */
static bool plausible_info_pointer(const heap *h, uint64_t w) {
    return w != 0 && (w & 7) == 0 && heap_find_group(h, w) < 0;
}

/* A refusal or "unknown" from the peer means the address held no closure;
 * anything else (the connection, memory) is a real failure. */
static bool refused(hs_status st) {
    return st == HS_ERR_BAD_COMMAND || st == HS_ERR_NOT_FOUND;
}

hs_status heap_decode_named(heap *h, uint64_t addr, heap_closure *out, hs_error *err) {
    addr = wire_untag(addr);
    if (addr == 0)
        return nothing_there(addr, err);
    long g = heap_find_group(h, addr);
    const uint8_t *bytes;
    size_t len;
    hs_error local = {0};
    hs_status st = heap_memory(h, addr, &bytes, &len, &local);
    if (st != HS_OK && !refused(st)) {
        if (err)
            *err = local;
        return st;
    }
    if (st != HS_OK || !plausible_info_pointer(h, hs_load_le64(bytes)))
        return nothing_there(addr, err);
    st = heap_decode(h, addr, out, &local);
    if (st == HS_ERR_PROTOCOL) /* a closure is there, or its bytes say so: why it cannot
                                  be read is what the tree shows for it too */
        return hs_fail(err, HS_ERR_NOT_FOUND, "no readable closure at 0x%llx in this pause: %s",
                       (unsigned long long)addr, local.message);
    if (st != HS_OK) {
        if (!refused(st)) {
            if (err)
                *err = local;
            return st;
        }
        return nothing_there(addr, err);
    }
    bool fits = g < 0 || out->size <= len; /* a heap closure ends inside its block group */
    if (out->type == HS_INVALID_OBJECT || out->type >= HS_N_CLOSURE_TYPES || !fits)
        return nothing_there(addr, err);
    return HS_OK;
}
