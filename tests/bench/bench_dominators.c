/* Benchmark (not a test): the dominator tree and retained sizes of a
 * synthetic heap.
 *
 *   bench_dominators [--closures N] [--profiled]
 *
 * With --profiled (eras) it then times the era-boundary report
 * (query_leaks_run, heapscope leaks) over the same tree.
 * Starts the synthetic debuggee with N closures (default 10 million),
 * fetches its heap, then measures query_dominators_run: wall time, and
 * extra memory per closure twice: as the computation counts what it holds
 * (peak), and as the kernel saw it (the resident-set high-water mark,
 * reset just before, minus the resident set before). Targets (issue 12):
 * at most 2 s and 24 bytes per closure at 10 million closures. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "heapscope/query.h"
#include "bench_util.h"

/* CPU seconds this process has used (user and system). */
static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* A field of /proc/self/status in kB ("VmRSS:", "VmHWM:"); -1 if absent. */
static long status_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n))
            kb = strtol(line + n, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

/* Resets the high-water mark of the resident set (Linux 4.0 and later). */
static bool reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    bool ok = f && fputs("5", f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    return ok;
}

int main(int argc, char **argv) {
    const char *closures = "10000000";
    bool profiled = false;
    if (!bench_args(argc, argv, "bench_dominators", &closures, &profiled))
        return 2;
    hs_error err = {0};
    bench_session bs;
    query_dominators *d = NULL;
    int rc = 1;
    if (bench_open(closures, profiled, &bs, &err) != HS_OK) {
        rc = bench_fail("bench_dominators", &err);
        goto out;
    }
    /* a census first: static closures and info tables in the cache, as
     * they are when a user asks for dominators after looking around */
    query_census census;
    if (query_census_run(bs.heap, QUERY_CENSUS_BY_TYPE, NULL, &census, &err) != HS_OK) {
        rc = bench_fail("bench_dominators", &err);
        goto out;
    }
    bool peak_reset = reset_peak();
    long rss_before = status_kb("VmRSS:");
    double t0 = bench_now(), c0 = cpu_seconds();
    if (query_dominators_run(bs.heap, NULL, NULL, &d, &err) != HS_OK) {
        query_census_free(&census);
        rc = bench_fail("bench_dominators", &err);
        goto out;
    }
    double secs = bench_now() - t0, cpu = cpu_seconds() - c0;
    long hwm = status_kb("VmHWM:");
    query_dominators_info info;
    query_dominators_stats(d, &info);
    double n = (double)info.closures;
    printf("closures reached:   %" PRIu64 " (%.1f MB); the census counted %" PRIu64 " (%.1f MB)\n",
           info.closures, (double)info.bytes / 1e6, census.total_count,
           (double)census.total_bytes / 1e6);
    printf("dominator tree and retained sizes: %.3f s wall, %.3f s CPU (target 2 s at 10 M "
           "closures; on a busy machine the CPU time is the fairer figure)\n",
           secs, cpu);
    printf("extra memory, counted: peak %.1f MB = %.1f bytes/closure; kept %.1f MB = %.1f "
           "bytes/closure (target 24)\n",
           (double)info.peak_bytes / 1e6, (double)info.peak_bytes / n,
           (double)info.kept_bytes / 1e6, (double)info.kept_bytes / n);
    if (peak_reset && rss_before > 0 && hwm > 0)
        printf("extra memory, resident: peak %.1f MB = %.1f bytes/closure\n",
               (double)(hwm - rss_before) / 1e3, (double)(hwm - rss_before) * 1024 / n);
    query_dominator_row *rows;
    size_t n_rows;
    if (query_dominators_top(d, 3, 3, &rows, &n_rows, &err) == HS_OK) {
        for (size_t i = 0; i < n_rows; i++)
            printf("  retains %" PRIu64 " bytes: 0x%" PRIx64 " (%zu children shown, %" PRIu64
                   " more)\n",
                   rows[i].closure.retained, rows[i].closure.addr, rows[i].n_children,
                   rows[i].more_children);
        query_dominator_rows_free(rows, n_rows);
    }
    /* the era-boundary report over that tree (eras: --profiled only) */
    if (profiled) {
        query_leaks l;
        reset_peak();
        rss_before = status_kb("VmRSS:");
        t0 = bench_now(), c0 = cpu_seconds();
        if (query_leaks_run(bs.heap, d, NULL, NULL, &l, &err) != HS_OK) {
            query_census_free(&census);
            rc = bench_fail("bench_dominators", &err);
            goto out;
        }
        secs = bench_now() - t0, cpu = cpu_seconds() - c0;
        hwm = status_kb("VmHWM:");
        printf("era-boundary report (leaks): %.3f s wall, %.3f s CPU; %" PRIu64
               " edges in %zu groups, %" PRIu64 " bytes retained only through them, "
               "the first group %" PRIu64,
               secs, cpu, l.edges, l.n_groups, l.bytes, l.n_groups ? l.groups[0].bytes : 0);
        if (rss_before > 0 && hwm > 0)
            printf("; extra resident peak %.1f bytes/closure",
                   (double)(hwm - rss_before) * 1024 / n);
        putchar('\n');
        query_leaks_free(&l);
    }
    query_census_free(&census);
    rc = 0;
out:
    query_dominators_free(d);
    bench_close(&bs);
    return rc;
}
