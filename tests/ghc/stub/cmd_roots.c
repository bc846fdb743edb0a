/* ROOTS (§7.4) and SAVED_OBJECTS (§7.9), and the C function the program
 * calls to register its saved objects.
 *
 * Roots: every thread of every generation's thread list, then the CAFs
 * the RTS keeps on its CAF lists (markCAFs: with -fkeep-cafs every entered
 * CAF), then every live stable pointer (markStablePtrTable), each as
 * stored: CAF indirectees and stable pointers may carry tag bits. */
#include <pthread.h>
#include <stdlib.h>

#include "rts_private.h"
#include "stub.h"

#define MAX_SAVED 20

static pthread_mutex_t saved_lock = PTHREAD_MUTEX_INITIALIZER;
static HsStablePtr saved[MAX_SAVED];
static size_t n_saved;

/* Replaces the saved set; a call with more than 20 objects is ignored, as
 * in the reference stub. The stable pointers stay owned by the caller. */
void heapscope_stub_save(void **objects, long n) {
    if (n < 0 || n > MAX_SAVED)
        return;
    pthread_mutex_lock(&saved_lock);
    for (long i = 0; i < n; i++)
        saved[i] = objects[i];
    n_saved = (size_t)n;
    pthread_mutex_unlock(&saved_lock);
}

uint16_t cmd_saved_objects(req *r, out *o) {
    (void)r;
    pthread_mutex_lock(&saved_lock);
    for (size_t i = 0; i < n_saved; i++)
        out_ptr(o, (uintptr_t)UNTAG_CLOSURE((StgClosure *)deRefStablePtr(saved[i])));
    pthread_mutex_unlock(&saved_lock);
    return ST_OKAY;
}

typedef struct root_list {
    uintptr_t *items;
    size_t count, cap;
    bool failed;
} root_list;

static void add_root(root_list *l, uintptr_t p) {
    if (l->failed)
        return;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        uintptr_t *items = realloc(l->items, cap * sizeof *items);
        if (!items) {
            l->failed = true;
            return;
        }
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = p;
}

/* An evac_fn that only records: the RTS hands us each root's slot. */
static void collect_root(void *user, StgClosure **root) {
    if (*root)
        add_root(user, (uintptr_t)*root);
}

uint16_t cmd_roots(req *r, out *o) {
    (void)r;
    root_list roots = {0};
    for (uint32_t g = 0; g < RtsFlags.GcFlags.generations; g++)
        for (StgTSO *t = generations[g].threads; t != END_TSO_QUEUE; t = t->global_link)
            add_root(&roots, (uintptr_t)t);
    markCAFs(collect_root, &roots);
    stablePtrLock();
    markStablePtrTable(collect_root, &roots);
    stablePtrUnlock();
    if (roots.failed) {
        free(roots.items);
        stub_log("out of memory listing the roots");
        return ST_BAD_COMMAND;
    }
    for (size_t i = 0; i < roots.count; i++)
        out_ptr(o, roots.items[i]);
    free(roots.items);
    return ST_OKAY;
}
