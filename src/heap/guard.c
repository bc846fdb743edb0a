/* Which addresses the heap may ask the source about (issue 19).
 *
 * The official ghc-debug stub dereferences whatever address a request
 * names: a CLOSURES, INFO_TABLES, SRT, CON_DESC, CCS, CC or INDEX_TABLE
 * request for an address that is not what it claims to be crashes the
 * program being debugged. So the heap asks only about
 *   - closures of this pause: the GC roots and saved objects the debuggee
 *     named, and pointers read from the fields of closures it decoded (a
 *     person's address goes through heap_decode_named, which asks nothing
 *     until a traversal from the roots has reached it: reached.c and
 *     query_closure_of_pause);
 *   - info pointers and cost-centre pointers read from such closures.
 * Closures inside the fetched blocks cost no request at all. A pointer out
 * of the blocks read from a decoded closure is a static closure in a real
 * GHC heap (the binary's data) and is asked for with CLOSURES; a corrupt
 * or hostile heap can hold a wild one there, and so can a word the decoder
 * took for a pointer. The risk is bounded by checks that need no request:
 *   - it lies in the user half of a 64-bit address space, above the
 *     first page (Linux maps nothing there: vm.mmap_min_addr is 4 KiB or
 *     more), 8-aligned;
 *   - it is not in the heap's address range (HEAP_RANGE_LO..HI) outside
 *     the fetched blocks: megablocks hold no static closures, and such an
 *     address is a stale pointer or a block descriptor;
 *   - it is not an info table or the code it heads (an info pointer already
 *     known, or within the table bytes before one);
 *   - it lies within STATIC_WINDOW of the span of known info pointers:
 *     static closures sit in the data of the same binary or library as
 *     their code (tens of MB apart, not terabytes). Before the first
 *     static closure is asked for, the info tables of the roots in the
 *     blocks are fetched (heap_guard_learn_code), so the span is known.
 * What passes is a pointer the program's own garbage collector follows as
 * well: were it wild, the program's next GC would read it too. A root the
 * debuggee named outside the blocks gets the same checks. Info pointers get
 * them all but the third (and may not lie in the heap's range at all);
 * cost-centre structures the first, and the last unless they lie in the
 * heap's address range (the RTS's profiling arena). Nothing here is sent;
 * a refusal makes the closure (or info table, cost centre) unreadable with
 * the reason, as a refusal of the debuggee would. */
#include "heap_internal.h"
#include "heapscope/bytes.h"

#define MIN_USER_ADDRESS UINT64_C(0x1000)      /* the zero page: no program maps it */
#define MAX_USER_ADDRESS (UINT64_C(1) << 47)   /* x86_64 / AArch64 user space */
#define STATIC_WINDOW (UINT64_C(1) << 30)      /* 1 GiB either side of known code */

static bool in_heap_range(uint64_t a) { return a >= HEAP_RANGE_LO && a <= HEAP_RANGE_HI; }

/* Common to every kind: a user-space address, 8-aligned when it must be
 * (closures and info tables are; cost-centre structures are not checked). */
static bool user_address(uint64_t a, bool aligned, const char *what, hs_error *why) {
    if (a < MIN_USER_ADDRESS || a >= MAX_USER_ADDRESS || (aligned && (a & 7) != 0)) {
        hs_fail(why, HEAP_UNAVAILABLE, "0x%llx cannot be %s (%s), so it was not asked for",
                (unsigned long long)a, what,
                a < MIN_USER_ADDRESS || a >= MAX_USER_ADDRESS ? "no program maps it"
                                                              : "it is not 8-aligned");
        return false;
    }
    return true;
}

static bool near_known_code(const heap *h, uint64_t a, const char *what, hs_error *why) {
    if (h->info_hi == 0) /* nothing known yet: nothing to measure against */
        return true;
    uint64_t lo = h->info_lo > STATIC_WINDOW ? h->info_lo - STATIC_WINDOW : 0;
    uint64_t hi = h->info_hi + STATIC_WINDOW;
    if (a >= lo && a <= hi)
        return true;
    hs_fail(why, HEAP_UNAVAILABLE,
            "0x%llx is too far from the program's code (0x%llx to 0x%llx) to be %s, so it "
            "was not asked for",
            (unsigned long long)a, (unsigned long long)h->info_lo,
            (unsigned long long)h->info_hi, what);
    return false;
}

void heap_guard_note_info(heap *h, uint64_t info) {
    if (h->info_hi == 0 || info < h->info_lo)
        h->info_lo = info;
    if (info > h->info_hi)
        h->info_hi = info;
}

hs_status heap_guard_learn_code(heap *h, hs_error *err) {
    if (h->info_hi != 0)
        return HS_OK;
    enum { MAX_INFOS = 64 };
    uint64_t infos[MAX_INFOS];
    size_t n = 0;
    const wire_ptr_list *lists[2] = {&h->roots, &h->saved};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->count && n < MAX_INFOS; i++) {
            size_t len;
            const uint8_t *b = heap_memory_cached(h, wire_untag(lists[l]->items[i]), &len);
            if (b && heap_find_group(h, wire_untag(lists[l]->items[i])) >= 0)
                infos[n++] = hs_load_le64(b);
        }
    return n ? heap_info_prefetch(h, infos, n, err) : HS_OK;
}

bool heap_guard_named(const heap *h, uint64_t addr) {
    return u64map_find(&h->named, addr) != NULL;
}

bool heap_guard_closure(const heap *h, uint64_t addr, hs_error *why) {
    /* a root the debuggee named gets the same checks: a corrupt root table
     * is no better than a corrupt field */
    if (!user_address(addr, true, "a closure", why))
        return false;
    if (in_heap_range(addr)) {
        hs_fail(why, HEAP_UNAVAILABLE,
                "0x%llx lies in the heap's address range but in no block of this pause (a stale "
                "pointer), so it was not asked for",
                (unsigned long long)addr);
        return false;
    }
    /* an info table (and the entry code it heads), not a closure: the
     * bytes from P - S - 32 (constructor description offset, function
     * extras, the standard table) to P */
    for (uint64_t k = 0; k <= h->info_bytes + 32; k += 8) {
        if (addr + k >= addr && u64map_find(&h->infos, addr + k)) {
            hs_fail(why, HEAP_UNAVAILABLE,
                    "0x%llx is an info table or code, not a closure, so it was not asked for",
                    (unsigned long long)addr);
            return false;
        }
    }
    return near_known_code(h, addr, "a static closure", why);
}

bool heap_guard_info(const heap *h, uint64_t info, hs_error *why) {
    if (!user_address(info, true, "an info pointer", why))
        return false;
    if (in_heap_range(info) || heap_find_group(h, info) >= 0) {
        hs_fail(why, HEAP_UNAVAILABLE,
                "0x%llx lies in the heap, where no info table lives: the word is no info pointer, "
                "so it was not asked for",
                (unsigned long long)info);
        return false;
    }
    return near_known_code(h, info, "an info pointer", why);
}

bool heap_guard_cost(const heap *h, uint64_t addr, const char *what, hs_error *why) {
    if (!user_address(addr, false, what, why))
        return false;
    if (heap_find_group(h, addr) >= 0) {
        hs_fail(why, HEAP_UNAVAILABLE,
                "0x%llx lies in a block of the heap, so it cannot be %s; it was not asked for",
                (unsigned long long)addr, what);
        return false;
    }
    /* the RTS allocates the stacks and index tables of cost centres in its
     * own blocks (the profiling arena), in the heap's address range but in
     * no block of ALL_BLOCKS; static ones (CCS_MAIN, CAFs) sit by the code */
    return in_heap_range(addr) || near_known_code(h, addr, what, why);
}
