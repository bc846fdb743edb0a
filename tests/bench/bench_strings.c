/* Benchmark (not a test): the strings analysis on a synthetic heap.
 *
 *   bench_strings [--closures N] [--profiled]
 *
 * Starts the synthetic debuggee with N closures (default 10 million), reads
 * its heap, then times query_strings_run (one traversal collecting byte
 * arrays, Text, ByteString, (:) and C#, then the grouping). Target
 * (issue 11): at most 1.5 s after the heap is read. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "bench_util.h"

/* CPU time of this process: what the analysis costs even when other
 * programs share the cores (the wall time is printed too). */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *closures = "10000000";
    bool profiled = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--closures") && i + 1 < argc)
            closures = argv[++i];
        else if (!strcmp(argv[i], "--profiled"))
            profiled = true;
        else {
            fprintf(stderr, "usage: bench_strings [--closures N] [--profiled]\n");
            return 2;
        }
    }
    hs_error err = {0};
    bench_session bs;
    int rc = 1;
    if (bench_open(closures, profiled, &bs, &err) != HS_OK) {
        rc = bench_fail("bench_strings", &err);
        goto out;
    }
    /* a first traversal, so the analysis is timed on a heap already read
     * (info tables and static closures fetched), as the TUI's would be */
    query_traversal walk = {0};
    query_traversal_stats ts;
    double tw = bench_now(), cw = cpu_now();
    if (query_traverse(bs.heap, heap_roots(bs.heap)->items, heap_roots(bs.heap)->count, &walk,
                       &ts, &err) != HS_OK) {
        rc = bench_fail("bench_strings", &err);
        goto out;
    }
    tw = bench_now() - tw;
    cw = cpu_now() - cw;
    query_strings s;
    double t0 = bench_now(), c0 = cpu_now();
    if (query_strings_run(bs.heap, NULL, &s, &err) != HS_OK) {
        rc = bench_fail("bench_strings", &err);
        goto out;
    }
    double t = bench_now() - t0, c = cpu_now() - c0;
    printf("heap: %" PRIu64 " closures reachable, %.1f MB\n", ts.visited, (double)ts.bytes / 1e6);
    printf("strings: %" PRIu64 " copies of %zu values, %.1f MB, %.1f MB wasted; "
           "%" PRIu64 " skipped, %" PRIu64 " external\n",
           s.total_count, s.n_rows, (double)s.total_bytes / 1e6, (double)s.total_wasted / 1e6,
           s.skipped, s.external);
    printf("plain traversal (for comparison): %.3f s (CPU %.3f s)\n", tw, cw);
    printf("strings analysis: %.3f s (CPU %.3f s; target <= 1.5 s), %.1f M closures/s\n", t, c,
           (double)ts.visited / 1e6 / t);
    printf("peak RSS: %.1f MB\n", bench_peak_rss_mb());
    query_strings_free(&s);
    rc = 0;
out:
    bench_close(&bs);
    return rc;
}
