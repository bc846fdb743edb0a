/* Benchmark (not a test): fetch and index a synthetic heap, then census it.
 *
 *   bench_heap [--closures N] [--profiled]
 *
 * Starts the synthetic debuggee with N closures, then measures, in this
 * process only: ALL_BLOCKS transfer (MB/s), indexing = a full traversal
 * from the GC roots (closures/s), a census by constructor, wall time and
 * peak RSS against the bytes of heap served. Targets (issue 3): indexing at
 * 20 million closures/s or more, peak RSS at most 1.5 x the heap served. */
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

int main(int argc, char **argv) {
    const char *closures = "10000000";
    bool profiled = false;
    if (!bench_args(argc, argv, "bench_heap", &closures, &profiled))
        return 2;
    hs_error err = {0};
    bench_session bs;
    int rc = 1;
    if (bench_open(closures, profiled, &bs, &err) != HS_OK) {
        rc = bench_fail("bench_heap", &err);
        goto out;
    }
    heap *h = bs.heap;
    wire_conn *c = bs.conn;
    double t_fetch = bs.fetch_seconds;
    uint64_t served = heap_block_bytes(h);
    wire_stats ws = wire_conn_stats(c);

    query_traversal walk = {0};
    query_traversal_stats ts;
    double t1 = bench_now();
    if (query_traverse(h, heap_roots(h)->items, heap_roots(h)->count, &walk, &ts, &err) != HS_OK) {
        rc = bench_fail("bench_heap", &err);
        goto out;
    }
    double t_index = bench_now() - t1;

    query_census census;
    double t2 = bench_now();
    if (query_census_run(h, QUERY_CENSUS_BY_CONSTRUCTOR, NULL, &census, &err) != HS_OK) {
        rc = bench_fail("bench_heap", &err);
        goto out;
    }
    double t_census = bench_now() - t2;
    double rss = bench_peak_rss_mb();

    printf("heap served:        %.1f MB in %zu block groups\n", (double)served / 1e6,
           heap_block_count(h));
    printf("fetch (ALL_BLOCKS): %.3f s, %.1f MB/s (%" PRIu64 " bytes received)\n", t_fetch,
           (double)ws.bytes_received / 1e6 / t_fetch, ws.bytes_received);
    printf("index (traverse):   %" PRIu64 " closures, %.1f MB, %.3f s, %.1f M closures/s\n",
           ts.visited, (double)ts.bytes / 1e6, t_index, (double)ts.visited / 1e6 / t_index);
    printf("census by constructor: %zu rows, %.3f s, %.1f M closures/s\n", census.n_rows,
           t_census, (double)census.total_count / 1e6 / t_census);
    printf("wall (fetch+index+census): %.3f s\n", t_fetch + t_index + t_census);
    printf("peak RSS:           %.1f MB = %.2f x the heap served\n", rss,
           rss * 1024 * 1024 / (double)served);
    if (ts.unreadable.count)
        printf("unreadable closures: %" PRIu64 " (first: %s)\n", ts.unreadable.count,
               ts.unreadable.problem);
    query_census_free(&census);
    rc = 0;
out:
    bench_close(&bs);
    return rc;
}
