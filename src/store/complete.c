/* Completing a pause: asking the source, while the debuggee is still
 * paused, every answer the reachable heap can need later, so that the
 * heap answers every command offline once the program runs again. The set
 * is the snapshot writer's (write_closures.c, write_cost.c), taken from
 * both start sets the commands traverse (GC roots, then saved objects):
 * every reachable closure's info table, SRT, constructor description and
 * bitmaps (the traversal decodes each closure), every static closure it
 * reaches, the source location of every info table fetched (closures' and
 * stack frames'), and a profiled heap's cost centres. A command that reads
 * only a few closures (roots, show) reads them itself first and completes
 * only what it fetched (the source location of each info table). */
#include "heapscope/grow.h"
#include "heapscope/heap_export.h"
#include "heapscope/u64map.h"
#include "store_internal.h"

typedef struct completing {
    heap *h;
    u64map ccs; /* header cost-centre stacks seen (profiled heaps) */
    bool nomem;
    store_progress_fn progress;
    void *progress_ctx;
    uint64_t n_infos, done_infos;
} completing;

static query_action note_ccs(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h, (void)depth;
    completing *x = ctx;
    if (!store_note_header_ccs(&x->ccs, c)) {
        x->nomem = true;
        return QUERY_STOP;
    }
    return QUERY_CONTINUE;
}

static bool traverse_progress(void *ctx, uint64_t visited) {
    completing *x = ctx;
    return !x->progress || x->progress(x->progress_ctx, "reading closures", visited, 0);
}

static hs_status count_info(void *ctx, const heap_export_info *i, hs_error *err) {
    (void)i, (void)err;
    ((completing *)ctx)->n_infos++;
    return HS_OK;
}

/* Source locations are asked one info table at a time (there is no batch
 * request for them): the progress function may stop it between two. */
static hs_status ask_location(void *ctx, const heap_export_info *i, hs_error *err) {
    completing *x = ctx;
    if (x->progress && (x->done_infos & 255) == 0 &&
        !x->progress(x->progress_ctx, "reading source locations", x->done_infos, x->n_infos))
        return hs_fail(err, HS_ERR_CANCELLED, "cancelled");
    x->done_infos++;
    const wire_source_info *ipe;
    return heap_info_source(x->h, i->info, &ipe, err);
}

hs_status store_complete_pause(heap *h, bool whole, store_progress_fn progress,
                               void *progress_ctx, hs_error *err) {
    completing x = {.h = h, .progress = progress, .progress_ctx = progress_ctx};
    const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
    query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
    query_traversal t = {.visit = note_ccs, .ctx = &x, .progress = traverse_progress,
                         .progress_ctx = &x};
    query_traversal_stats stats = {0};
    hs_status st = whole ? heap_load_all_blocks(h, err) : HS_OK;
    if (st == HS_OK && whole)
        st = query_traverse_phases(h, phases, 2, &t, &stats, err);
    if (st == HS_OK && x.nomem)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory listing cost-centre stacks");
    if (st == HS_OK)
        st = heap_foreach_info(h, count_info, &x, err);
    if (st == HS_OK)
        st = heap_foreach_info(h, ask_location, &x, err);
    if (st == HS_OK && whole)
        st = store_fetch_cost_centres(h, &x.ccs, err);
    u64map_free(&x.ccs);
    return st;
}
