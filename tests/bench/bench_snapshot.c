/* Benchmark (not a test): a snapshot of a synthetic heap, written and read.
 *
 *   bench_snapshot [--closures N] [--profiled] [--keep FILE]
 *
 * Starts the synthetic debuggee with N closures (default 10 million),
 * fetches its heap, then measures: writing the snapshot (closures table
 * included; MB/s of heap and closures/s), the file's size against the
 * heap bytes served, opening the file up to printing the roots (what
 * `heapscope roots FILE` does), and a census by constructor from the file
 * against the same census live (fetch included on both sides). Targets
 * (issue 10): write <= 8 s, file <= 1.6 x heap, open-to-roots <= 100 ms,
 * census from file <= 1.3 x live. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "heapscope/store.h"
#include "bench_util.h"

/* CPU seconds of this process: on a shared machine, closer than the wall
 * clock to what the same work takes on an idle one. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What `heapscope roots FILE` does before printing: open, read the roots,
 * decode and label each. */
static hs_status open_to_roots(const char *path, hs_error *err) {
    store_snapshot *snap;
    hs_status st = store_snapshot_open(path, &snap, err);
    heap *h = NULL;
    if (st == HS_OK)
        st = heap_open(store_snapshot_source(snap), &h, err);
    heap_closure c = {0};
    const wire_ptr_list *roots = h ? heap_roots(h) : NULL;
    for (size_t i = 0; st == HS_OK && i < roots->count; i++) {
        char label[256];
        st = heap_decode(h, wire_untag(roots->items[i]), &c, err);
        if (st == HS_OK)
            heap_closure_label(h, &c, label, sizeof label);
    }
    heap_closure_free(&c);
    heap_free(h);
    store_snapshot_close(snap);
    return st;
}

static hs_status census_of_file(const char *path, query_census *out, hs_error *err) {
    store_snapshot *snap;
    hs_status st = store_snapshot_open(path, &snap, err);
    heap *h = NULL;
    if (st == HS_OK)
        st = heap_open(store_snapshot_source(snap), &h, err);
    if (st == HS_OK)
        st = query_census_run(h, QUERY_CENSUS_BY_CONSTRUCTOR, NULL, out, err);
    heap_free(h);
    store_snapshot_close(snap);
    return st;
}

int main(int argc, char **argv) {
    const char *closures = "10000000", *keep = NULL;
    bool profiled = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--closures") && i + 1 < argc)
            closures = argv[++i];
        else if (!strcmp(argv[i], "--keep") && i + 1 < argc)
            keep = argv[++i];
        else if (!strcmp(argv[i], "--profiled"))
            profiled = true;
        else {
            fprintf(stderr, "usage: bench_snapshot [--closures N] [--profiled] [--keep FILE]\n");
            return 2;
        }
    }
    char path[256];
    snprintf(path, sizeof path, "%s", keep ? keep : "");
    if (!keep)
        snprintf(path, sizeof path, "%s/bench-snapshot-%ld.heapscope",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    hs_error err = {0};
    bench_session bs;
    int rc = 1;
    if (bench_open(closures, profiled, &bs, &err) != HS_OK) {
        rc = bench_fail("bench_snapshot", &err);
        goto out;
    }
    heap *h = bs.heap;
    uint64_t served = heap_block_bytes(h);

    double t0 = bench_now(), c0 = cpu_now();
    query_census live;
    if (query_census_run(h, QUERY_CENSUS_BY_CONSTRUCTOR, NULL, &live, &err) != HS_OK) {
        rc = bench_fail("bench_snapshot", &err);
        goto out;
    }
    double t_live = bs.fetch_seconds + (bench_now() - t0), c_live = cpu_now() - c0;

    store_write_options wo = {.replace = true};
    c0 = cpu_now();
    t0 = bench_now();
    if (store_snapshot_write(h, path, NULL, &wo, &err) != HS_OK) {
        rc = bench_fail("bench_snapshot", &err);
        goto out;
    }
    double t_write = bench_now() - t0, c_write = cpu_now() - c0;
    struct stat sb;
    stat(path, &sb);

    double t_roots = 1e9;
    for (int k = 0; k < 3; k++) { /* warm: the file was just written */
        t0 = bench_now();
        if (open_to_roots(path, &err) != HS_OK) {
            rc = bench_fail("bench_snapshot", &err);
            goto out;
        }
        double t = bench_now() - t0;
        t_roots = t < t_roots ? t : t_roots;
    }
    query_census from_file;
    c0 = cpu_now();
    t0 = bench_now();
    if (census_of_file(path, &from_file, &err) != HS_OK) {
        rc = bench_fail("bench_snapshot", &err);
        goto out;
    }
    double t_file = bench_now() - t0, c_file = cpu_now() - c0;

    printf("heap served:        %.1f MB in %zu block groups, %" PRIu64 " closures reachable\n",
           (double)served / 1e6, heap_block_count(h), live.total_count);
    printf("snapshot write:     %.2f s, %.1f MB/s of heap, %.2f M closures/s (target <= 8 s); "
           "CPU %.2f s\n",
           t_write, (double)served / 1e6 / t_write, (double)live.total_count / 1e6 / t_write,
           c_write);
    printf("file size:          %.1f MB = %.2f x the heap served (target <= 1.6)\n",
           (double)sb.st_size / 1e6, (double)sb.st_size / (double)served);
    printf("open to roots:      %.1f ms (target <= 100)\n", t_roots * 1e3);
    printf("census live:        %.3f s (fetch %.3f s + census; census CPU %.3f s)\n", t_live,
           bs.fetch_seconds, c_live);
    printf("census from file:   %.3f s = %.2f x live (target <= 1.3); CPU %.3f s (open, load,"
           " check, count)\n",
           t_file, t_file / t_live, c_file);
    printf("same census:        %s\n", from_file.total_count == live.total_count &&
                                               from_file.total_bytes == live.total_bytes &&
                                               from_file.n_rows == live.n_rows
                                           ? "yes"
                                           : "NO");
    printf("peak RSS:           %.1f MB\n", bench_peak_rss_mb());
    query_census_free(&live);
    query_census_free(&from_file);
    rc = 0;
out:
    if (!keep)
        unlink(path);
    bench_close(&bs);
    return rc;
}
