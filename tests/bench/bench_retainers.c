/* Benchmark (not a test): retainer search over a synthetic heap.
 *
 *   bench_retainers [--closures N] [--profiled] [--regex RE] [--repeat K]
 *
 * Starts the synthetic debuggee with N closures (default 10 million) and
 * its planted leak, fetches the heap, then times, after the fetch:
 * a plain breadth-first traversal (for reference), the retainer search by
 * constructor regex with no limit (every closure visited, every path
 * built), and the same search with the default limit of 100. Target
 * (issue 5): the unlimited search in 0.5 s or less on 10 million closures
 * (20 million closures/s or more), with a visited set of at most one bit
 * per heap word. Each timing is the best of K runs (default 3). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "heapscope/cli.h"
#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "bench_util.h"

typedef struct tally {
    uint64_t matches, steps, flagged;
    uint32_t max_depth;
} tally;

static bool on_match(void *ctx, heap *h, const query_match *m) {
    (void)h;
    tally *t = ctx;
    t->matches++;
    t->steps += m->n_steps;
    t->flagged += m->n_newer_retains_older;
    if (m->depth > t->max_depth)
        t->max_depth = m->depth;
    return true;
}

static query_action on_trail(void *ctx, heap *h, const heap_closure *c, const query_trail *t) {
    (void)ctx, (void)h, (void)c, (void)t;
    return QUERY_CONTINUE;
}

/* Best of `repeat` plain (or parent-recording) traversals. */
static hs_status time_walk(heap *h, bool trails, int repeat, double *best,
                           query_traversal_stats *ts, hs_error *err) {
    query_traversal walk = {0};
    if (trails)
        walk.visit_trail = on_trail;
    *best = 1e9;
    for (int i = 0; i < repeat; i++) {
        double t0 = bench_now();
        hs_status st = query_traverse(h, heap_roots(h)->items, heap_roots(h)->count, &walk, ts,
                                      err);
        double dt = bench_now() - t0;
        if (st != HS_OK)
            return st;
        if (dt < *best)
            *best = dt;
    }
    return HS_OK;
}

/* Best of `repeat` searches; fills stats and the tally of the last one. */
static hs_status time_search(heap *h, query_filters *f, uint64_t limit, bool paths, int repeat,
                             double *best, query_search_stats *stats, tally *t, hs_error *err) {
    *best = 1e9;
    for (int i = 0; i < repeat; i++) {
        *t = (tally){0};
        query_search s = {.filters = f, .limit = limit, .paths = paths, .on_match = on_match,
                          .ctx = t};
        double t0 = bench_now();
        hs_status st = query_search_run(h, &s, stats, err);
        double dt = bench_now() - t0;
        if (st != HS_OK)
            return st;
        if (dt < *best)
            *best = dt;
    }
    return HS_OK;
}

int main(int argc, char **argv) {
    const char *closures = "10000000", *regex = "^Leak$";
    bool profiled = false;
    int repeat = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--closures") && i + 1 < argc)
            closures = argv[++i];
        else if (!strcmp(argv[i], "--regex") && i + 1 < argc)
            regex = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--profiled"))
            profiled = true;
        else {
            fprintf(stderr, "usage: bench_retainers [--closures N] [--profiled] [--regex RE] "
                            "[--repeat K]\n");
            return 2;
        }
    }
    hs_error err = {0};
    query_filters *f = NULL;
    if (query_filters_new(&f, &err) != HS_OK ||
        query_filters_add(f, QUERY_FILTER_CONSTRUCTOR, regex, false, &err) != HS_OK)
        return bench_fail("bench_retainers", &err);
    bench_session bs;
    int rc = 1;
    if (bench_open(closures, profiled, &bs, &err) != HS_OK) {
        rc = bench_fail("bench_retainers", &err);
        goto out;
    }
    heap *h = bs.heap;
    double t_fetch = bs.fetch_seconds;
    uint64_t span_words = heap_block_words(h);

    query_traversal_stats ts, tts;
    query_search_stats all, first, found;
    tally t_all, t_first, t_found;
    double t_walk, t_trails, t_search, t_limited, t_find;
    if (time_walk(h, false, repeat, &t_walk, &ts, &err) != HS_OK ||
        time_walk(h, true, repeat, &t_trails, &tts, &err) != HS_OK ||
        time_search(h, f, 0, true, repeat, &t_search, &all, &t_all, &err) != HS_OK ||
        time_search(h, f, 100, true, repeat, &t_limited, &first, &t_first, &err) != HS_OK ||
        time_search(h, f, 0, false, repeat, &t_find, &found, &t_found, &err) != HS_OK) {
        rc = bench_fail("bench_retainers", &err);
        goto out;
    }
    double rss = bench_peak_rss_mb();
    uint64_t visited = all.traversal.visited;

    printf("heap served:          %.1f MB in %zu block groups, fetched in %.3f s\n",
           (double)heap_block_bytes(h) / 1e6, heap_block_count(h), t_fetch);
    printf("plain traversal:      %" PRIu64 " closures, %.3f s, %.1f M closures/s\n", ts.visited,
           t_walk, (double)ts.visited / 1e6 / t_walk);
    printf("with parent links:    %" PRIu64 " closures, %.3f s, %.1f M closures/s\n", tts.visited,
           t_trails, (double)tts.visited / 1e6 / t_trails);
    printf("find /%s/ (no paths): %" PRIu64 " matches, %.3f s, %.1f M closures/s\n", regex,
           t_found.matches, t_find, (double)found.traversal.visited / 1e6 / t_find);
    printf("retainers /%s/, no limit: %" PRIu64 " matches (max depth %" PRIu32
           ", %" PRIu64 " newer-retains-older edges), %" PRIu64 " closures, %.3f s, "
           "%.1f M closures/s\n",
           regex, t_all.matches, t_all.max_depth, t_all.flagged, visited, t_search,
           (double)visited / 1e6 / t_search);
    printf("retainers /%s/, limit 100: %" PRIu64 " matches after %" PRIu64 " closures, %.3f s\n",
           regex, t_first.matches, first.traversal.visited, t_limited);
    printf("visited set:          %.1f MB = 1 bit per heap word (%" PRIu64
           " words in block ranges)\n",
           (double)((span_words + 63) / 64 * 8) / 1e6, span_words);
    printf("trail (paths):        %.1f MB (8 bytes per visited closure: 32-bit code + parent id)\n",
           8.0 * (double)visited / 1e6);
    printf("peak RSS:             %.1f MB\n", rss);
    printf("target: <= 0.5 s and >= 20 M closures/s: %s\n",
           t_search <= 0.5 && (double)visited / t_search >= 20e6 ? "met" : "NOT met");
    rc = 0;
out:
    bench_close(&bs);
    query_filters_free(f);
    return rc;
}
