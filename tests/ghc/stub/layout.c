/* Where gens[] (the per-generation GC workspaces) starts inside the RTS's
 * private gc_thread struct. The struct's head changes between GHC
 * releases and no header publishes it, but every workspace records its
 * generation and its gc_thread, so the array is found by looking for
 * (&generations[0], gct) on 64-byte boundaries (gen_workspace is 64-byte
 * aligned) and confirmed on every generation of every GC thread. */
#include "rts_private.h"
#include "stub.h"

/* gc_thread's fixed part is a few hundred bytes in every 9.x release */
#define MAX_HEAD 4096

static long found = -2; /* -2: not searched yet, -1: not found */

static bool workspace_matches(const char *gct, long off, uint32_t g) {
    const char *ws = gct + off + (size_t)g * WS_SIZE;
    if (!mem_readable((uintptr_t)ws, WS_SIZE))
        return false;
    const void *gen = *(const void *const *)(ws + WS_OFF_GEN);
    const void *owner = *(const void *const *)(ws + WS_OFF_MY_GCT);
    /* 9.0 has the non-moving collector's todo_seg before todo_q (always
     * allocated); the list offsets we use assume that. Without -xn it
     * holds the end-of-list marker, 1 (END_NONMOVING_TODO_LIST). */
    const void *seg = *(const void *const *)(ws + WS_OFF_TODO_SEG);
    const void *todo_q = *(const void *const *)(ws + WS_OFF_TODO_Q);
    return gen == &generations[g] && owner == gct && (uintptr_t)seg <= 1 && todo_q != NULL;
}

static bool offset_fits_all(long off) {
    for (uint32_t i = 0; i < n_capabilities; i++) {
        const char *gct = (const char *)gc_threads[i];
        for (uint32_t g = 0; gct && g < RtsFlags.GcFlags.generations; g++)
            if (!workspace_matches(gct, off, g))
                return false;
    }
    return true;
}

long layout_gc_gens_offset(void) {
    if (found != -2)
        return found;
    found = -1;
    const char *gct0 = gc_threads ? (const char *)gc_threads[0] : NULL;
    for (long off = WS_SIZE / 2; gct0 && off < MAX_HEAD; off += 64) {
        if (mem_readable((uintptr_t)gct0 + (uintptr_t)off, 2 * sizeof(void *)) &&
            workspace_matches(gct0, off, 0) && offset_fits_all(off)) {
            found = off;
            break;
        }
    }
    if (found < 0)
        stub_log("cannot find the GC workspaces inside gc_thread: "
                 "blocks the GC threads hold are left out");
    return found;
}
