/* Benchmark (not a test): census analyses of a synthetic heap, timed from
 * the moment the heap is read (issue 11 §5: a two-level census ready in
 * 1 s at most, the thunk analysis in 1.5 s, on 10 million closures).
 *
 *   bench_census [--closures N] [--repeat K]
 *
 * Starts the profiled synthetic debuggee (eras, so a census by era works),
 * reads its heap, then runs, first right after the read (cold: info
 * tables and IPE are asked then) and K-1 more times: a census by
 * constructor then era, by type then source, by constructor with an era
 * filter, and the thunks (by thunk). Prints each first time and the
 * median of the runs, wall clock and this process's CPU time (the machine
 * may be shared: CPU time is what the analysis costs). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "heapscope/query.h"

typedef struct bench_case {
    const char *name;
    query_census_by by[2];
    size_t levels;
    const char *era_filter; /* NULL: none */
} bench_case;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static hs_status run_case(heap *h, const bench_case *bc, double *seconds, double *cpu,
                          query_census *out, hs_error *err) {
    query_filters *f = NULL;
    hs_status st = HS_OK;
    if (bc->era_filter) {
        st = query_filters_new(&f, err);
        if (st == HS_OK)
            st = query_filters_add(f, QUERY_FILTER_ERA, bc->era_filter, false, err);
    }
    query_census_spec spec = {.by = {bc->by[0], bc->by[1]}, .levels = bc->levels, .filters = f};
    double t0 = bench_now(), c0 = cpu_now();
    if (st == HS_OK)
        st = query_census_compute(h, &spec, out, err);
    *seconds = bench_now() - t0;
    *cpu = cpu_now() - c0;
    query_filters_free(f);
    return st;
}

int main(int argc, char **argv) {
    const char *closures = "10000000";
    int repeat = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--closures") && i + 1 < argc) {
            closures = argv[++i];
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
            if (repeat < 1 || repeat > 50)
                repeat = 3;
        } else {
            fprintf(stderr, "usage: bench_census [--closures N] [--repeat K]\n");
            return 2;
        }
    }
    static const bench_case cases[] = {
        {"census by constructor,era", {QUERY_CENSUS_BY_CONSTRUCTOR, QUERY_CENSUS_BY_ERA}, 2, NULL},
        {"census by type,source", {QUERY_CENSUS_BY_TYPE, QUERY_CENSUS_BY_SOURCE}, 2, NULL},
        {"census by constructor --era 2-", {QUERY_CENSUS_BY_CONSTRUCTOR}, 1, "2-"},
        {"thunks (by thunk)", {QUERY_CENSUS_BY_THUNK}, 1, NULL},
    };
    hs_error err = {0};
    bench_session bs;
    int rc = 1;
    if (bench_open(closures, true, &bs, &err) != HS_OK) {
        rc = bench_fail("bench_census", &err);
        goto out;
    }
    printf("heap read: %.1f MB in %.3f s\n", (double)heap_block_bytes(bs.heap) / 1e6,
           bs.fetch_seconds);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double times[50], cpu[50];
        query_census c = {0};
        for (int r = 0; r < repeat; r++) {
            query_census_free(&c);
            if (run_case(bs.heap, &cases[k], &times[r], &cpu[r], &c, &err) != HS_OK) {
                rc = bench_fail("bench_census", &err);
                goto out;
            }
        }
        double first = times[0], first_cpu = cpu[0];
        qsort(times, (size_t)repeat, sizeof times[0], cmp_double);
        qsort(cpu, (size_t)repeat, sizeof cpu[0], cmp_double);
        size_t children = 0;
        for (size_t i = 0; i < c.n_rows; i++)
            children += c.rows[i].n_children;
        printf("%-31s first %.3f s (cpu %.3f), median %.3f s (cpu %.3f); %" PRIu64 " of %" PRIu64
               " counted, %zu rows, %zu second-level\n",
               cases[k].name, first, first_cpu, times[repeat / 2], cpu[repeat / 2], c.total_count,
               c.visited, c.n_rows, children);
        query_census_free(&c);
    }
    printf("peak RSS: %.1f MB\n", bench_peak_rss_mb());
    rc = 0;
out:
    bench_close(&bs);
    return rc;
}
