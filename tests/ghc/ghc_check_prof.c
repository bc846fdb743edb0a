/* A profiled build (-prof): closures carry the two-word profiling header,
 * info tables are 32 bytes, and the whole heap still decodes: the census
 * finds the 1000 Leak values at their profiled size, every heap closure
 * has a cost-centre stack and lies in a block, and the cost-centre
 * commands answer. */
#include <stdlib.h>
#include <string.h>

#include "ghc_checks.h"
#include "heapscope/closure_type.h"
#include "heapscope/query.h"

typedef struct prof_walk {
    uint64_t leaks, leak_bytes, in_heap, no_ccs, misses, no_header;
} prof_walk;

static query_action visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    prof_walk *w = ctx;
    if (strcmp(ghc_con_name(c), "Leak") == 0 && strcmp(c->info->con_module, "Main") == 0) {
        w->leaks++;
        w->leak_bytes += c->size;
    }
    w->no_header += !c->prof.present;
    if (c->addr >= HEAP_RANGE_LO && c->addr <= HEAP_RANGE_HI) {
        w->in_heap++;
        w->no_ccs += c->prof.ccs == 0;
        w->misses += !heap_in_blocks(h, c->addr);
    }
    return QUERY_CONTINUE;
}

static void check_cost_centres(ghc_ctx *x) {
    hs_error err = {0};
    uint64_t main_ccs = 0;
    wire_ccs ccs;
    wire_cc cc = {0};
    if (!ghc_ok(x, wire_ccs_main(x->conn, &main_ccs, &err), &err, "CCS_MAIN") ||
        !ghc_ok(x, wire_get_ccs(x->conn, main_ccs, &ccs, &err), &err, "CCS") ||
        !ghc_ok(x, wire_get_cc(x->conn, ccs.cc, &cc, &err), &err, "CC"))
        return;
    ghc_note("CCS_MAIN 0x%llx: cost centre %s in %s, depth %llu", (unsigned long long)main_ccs,
             cc.label, cc.module, (unsigned long long)ccs.depth);
    CHECK(x, strcmp(cc.label, "MAIN") == 0 && strcmp(cc.module, "MAIN") == 0,
          "CCS_MAIN's cost centre is %s.%s, want MAIN.MAIN", cc.module, cc.label);
    wire_cc_free(&cc);
}

void check_profiled(ghc_ctx *x) {
    heap *h = ghc_pause_and_open(x);
    if (!h)
        return;
    /* 1: profiled, no heap profile; 5 with +RTS -hT (GHC_CHECK_PROF_MODE) */
    const char *want_text = getenv("GHC_CHECK_PROF_MODE");
    unsigned want = want_text ? (unsigned)atoi(want_text) : WIRE_PROF_PLAIN;
    const wire_version *v = heap_version(h);
    CHECK(x, v->prof_mode == want, "profiling mode %u, want %u", v->prof_mode, want);
    CHECK(x, heap_header_bytes(h) == 24, "header of %u bytes", heap_header_bytes(h));
    /* the saved objects are held by stable pointers, so the roots reach them */
    const wire_ptr_list *roots = heap_roots(h);
    prof_walk w = {0};
    query_traversal t = {.visit = visit, .ctx = &w};
    query_traversal_stats stats;
    hs_error err = {0};
    hs_status st = query_traverse(h, roots->items, roots->count, &t, &stats, &err);
    if (ghc_ok(x, st, &err, "traversal")) {
        ghc_note("profiled heap: %llu closures in the heap, %llu Leak (%llu bytes)",
                 (unsigned long long)w.in_heap, (unsigned long long)w.leaks,
                 (unsigned long long)w.leak_bytes);
        CHECK(x, w.leaks == LEAK_COUNT, "%llu Leak, want %d", (unsigned long long)w.leaks,
              LEAK_COUNT);
        /* header (3 words) + an Int# + a pointer */
        CHECK(x, w.leak_bytes == LEAK_COUNT * 40, "Leak bytes %llu, want %d",
              (unsigned long long)w.leak_bytes, LEAK_COUNT * 40);
        CHECK(x, w.in_heap > 2 * BIG_LIST_CELLS, "only %llu heap closures",
              (unsigned long long)w.in_heap);
        CHECK(x, w.no_header == 0, "%llu closures without a profiling header",
              (unsigned long long)w.no_header);
        CHECK(x, w.no_ccs == 0, "%llu heap closures without a cost-centre stack",
              (unsigned long long)w.no_ccs);
        CHECK(x, w.misses == 0, "%llu heap closures in no block", (unsigned long long)w.misses);
        CHECK(x, stats.unreadable.count == 0, "unreadable: %s", stats.unreadable.problem);
    }
    query_census census;
    if (ghc_ok(x, query_census_run(h, QUERY_CENSUS_BY_CONSTRUCTOR, NULL, &census, &err), &err,
               "census")) {
        const query_census_row *leak = NULL;
        for (size_t i = 0; i < census.n_rows; i++)
            if (strcmp(census.rows[i].key, "main:Main:Leak") == 0)
                leak = &census.rows[i];
        CHECK(x, leak && leak->count == LEAK_COUNT && leak->bytes == LEAK_COUNT * 40,
              "census: main:Main:Leak %llu closures, %llu bytes", leak ? (unsigned long long)leak->count : 0,
              leak ? (unsigned long long)leak->bytes : 0);
        CHECK(x, census.total_bytes >= census.total_count * 32,
              "census: %llu bytes for %llu closures", (unsigned long long)census.total_bytes,
              (unsigned long long)census.total_count);
        query_census_free(&census);
    }
    check_cost_centres(x);
    ghc_close_and_resume(x, h);
}
