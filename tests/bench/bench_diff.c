/* Benchmark (not a test): heapscope diff of two snapshots of N closures
 * (default 10 million), and what it costs beyond the two censuses.
 *
 *   bench_diff [--closures N] [--keep DIR]
 *
 * Writes two snapshots of the profiled synthetic debuggee (seed 11; B with
 * 100 times the leak and two more eras), one debuggee at a time, into DIR
 * (reused when both files are there; default: a temporary directory,
 * removed after). Then, per side: open the file and read its heap, walk
 * it once (loading the blocks from the file), the census by constructor
 * (what any diff needs), and the census `heapscope diff` takes instead
 * (by constructor and era in one walk, split into the two it needs);
 * then the diffs of the censuses, by constructor, by era and by
 * constructor,era (whose census is taken untimed). Wall clock and this
 * process's CPU time. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "heapscope/query.h"
#include "heapscope/store.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts the debuggee with args, writes its pause into path, stops it. */
static hs_status write_snapshot(const char *const *args, const char *path, hs_error *err) {
    cli_debuggee d;
    hs_status st = cli_debuggee_start(args, &d, err);
    if (st != HS_OK)
        return st;
    wire_conn *conn = NULL;
    heap *h = NULL;
    double t0 = bench_now();
    st = wire_connect(d.socket, NULL, &conn, err);
    if (st == HS_OK)
        st = wire_pause(conn, NULL, err);
    if (st == HS_OK)
        st = heap_open(heap_source_live(conn), &h, err);
    store_meta meta = {.target = "bench_diff"};
    store_write_options o = {.replace = true};
    if (st == HS_OK)
        st = store_snapshot_write(h, path, &meta, &o, err);
    if (st == HS_OK)
        printf("wrote %s in %.1f s\n", path, bench_now() - t0);
    heap_free(h);
    hs_error ignored;
    if (conn)
        wire_resume(conn, &ignored);
    wire_close(conn);
    cli_debuggee_stop(&d);
    return st;
}

typedef struct side {
    query_census by_con;     /* the census by constructor alone */
    query_census split_con;  /* by constructor,era, split: what diff takes */
    query_census split_era;
    query_census by_con_era; /* by constructor,era, for the two-level diff */
} side;

static hs_status timed_census(heap *h, query_census_by a, query_census_by b, size_t levels,
                              const char *what, const char *name, query_census *out,
                              double *total, hs_error *err) {
    query_census_spec spec = {.by = {a, b}, .levels = levels};
    double t0 = bench_now(), c0 = cpu_now();
    hs_status st = query_census_compute(h, &spec, out, err);
    double t = bench_now() - t0;
    if (total)
        *total += t;
    if (st == HS_OK)
        printf("  %s: %-34s %.3f s (cpu %.3f), %zu rows\n", name, what, t, cpu_now() - c0,
               out->n_rows);
    return st;
}

/* Opens the file and takes its censuses (after a first walk that loads
 * the blocks): *census_s gets the census by constructor's time, *diff_s
 * the time of diff's census (constructor,era, then split). */
static hs_status count(const char *path, const char *name, side *s, double *census_s,
                       double *diff_s, hs_error *err) {
    store_snapshot *snap = NULL;
    heap *h = NULL;
    query_census warm = {0};
    double t0 = bench_now();
    hs_status st = store_snapshot_open(path, &snap, err);
    if (st == HS_OK)
        st = heap_open(store_snapshot_source(snap), &h, err);
    if (st == HS_OK)
        printf("  %s: open and read the heap  %.3f s\n", name, bench_now() - t0);
    if (st == HS_OK)
        st = timed_census(h, QUERY_CENSUS_BY_TYPE, 0, 1, "first walk, by type (loads blocks)",
                          name, &warm, NULL, err);
    query_census_free(&warm);
    if (st == HS_OK)
        st = timed_census(h, QUERY_CENSUS_BY_CONSTRUCTOR, 0, 1, "census by constructor", name,
                          &s->by_con, census_s, err);
    double t1 = bench_now();
    if (st == HS_OK)
        st = timed_census(h, QUERY_CENSUS_BY_CONSTRUCTOR, QUERY_CENSUS_BY_ERA, 2,
                          "diff's census: constructor,era", name, &s->split_con, NULL, err);
    if (st == HS_OK)
        st = query_census_split(&s->split_con, &s->split_era, err);
    *diff_s += bench_now() - t1;
    if (st == HS_OK)
        printf("  %s: %-34s %.3f s with the split\n", name, "", bench_now() - t1);
    if (st == HS_OK)
        st = timed_census(h, QUERY_CENSUS_BY_CONSTRUCTOR, QUERY_CENSUS_BY_ERA, 2,
                          "census by constructor,era", name, &s->by_con_era, NULL, err);
    heap_free(h);
    store_snapshot_close(snap);
    return st;
}

static hs_status timed_diff(const query_census *a, const query_census *b, const char *what,
                            double *out, hs_error *err) {
    query_census_diff d;
    double t0 = bench_now();
    hs_status st = query_census_diff_compute(a, b, &d, err);
    *out = bench_now() - t0;
    if (st == HS_OK)
        printf("diff %-26s %.6f s: %zu changed, %zu unchanged\n", what, *out, d.n_rows,
               d.unchanged);
    query_census_diff_free(&d);
    return st;
}

static bool exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

int main(int argc, char **argv) {
    const char *closures = "10000000", *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--closures") && i + 1 < argc) {
            closures = argv[++i];
        } else if (!strcmp(argv[i], "--keep") && i + 1 < argc) {
            keep = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_diff [--closures N] [--keep DIR]\n");
            return 2;
        }
    }
    char dir[512], a[600], b[600];
    if (keep) {
        snprintf(dir, sizeof dir, "%s", keep);
        mkdir(dir, 0700);
    } else if (!mkdtemp(strcpy(dir, "/tmp/bench-diff-XXXXXX"))) {
        perror("bench_diff: mkdtemp");
        return 1;
    }
    snprintf(a, sizeof a, "%s/a.heapscope", dir);
    snprintf(b, sizeof b, "%s/b.heapscope", dir);
    const char *args_a[] = {"--closures", closures, "--seed", "11", "--profiled", "--eras", "4",
                            "--leak-count", "1000", NULL};
    const char *args_b[] = {"--closures", closures, "--seed", "11", "--profiled", "--eras", "6",
                            "--leak-count", "100000", NULL};
    hs_error err = {0};
    hs_status st = HS_OK;
    if (!exists(a) || !exists(b)) {
        printf("writing two snapshots of %s closures...\n", closures);
        fflush(stdout);
        st = write_snapshot(args_a, a, &err);
        if (st == HS_OK)
            st = write_snapshot(args_b, b, &err);
    }
    side sa = {0}, sb = {0};
    double census = 0, diffs_census = 0, diff_con = 0, diff_era = 0, diff_two = 0;
    if (st == HS_OK)
        st = count(a, "A", &sa, &census, &diffs_census, &err);
    if (st == HS_OK)
        st = count(b, "B", &sb, &census, &diffs_census, &err);
    if (st == HS_OK)
        st = timed_diff(&sa.split_con, &sb.split_con, "by constructor", &diff_con, &err);
    if (st == HS_OK)
        st = timed_diff(&sa.split_era, &sb.split_era, "by era", &diff_era, &err);
    if (st == HS_OK)
        st = timed_diff(&sa.by_con_era, &sb.by_con_era, "by constructor,era", &diff_two, &err);
    if (st == HS_OK) {
        printf("the two censuses by constructor: %.3f s; heapscope diff's (by constructor,era, "
               "split): %.3f s, so %+.3f s for the eras; the diffs: %.6f s\n",
               census, diffs_census, diffs_census - census, diff_con + diff_era);
        printf("the same with the CLI: time heapscope diff %s %s --no-cache\n", a, b);
        printf("peak RSS: %.1f MB\n", bench_peak_rss_mb());
    }
    side *sides[] = {&sa, &sb};
    for (size_t i = 0; i < 2; i++) {
        query_census_free(&sides[i]->by_con);
        query_census_free(&sides[i]->split_con);
        query_census_free(&sides[i]->split_era);
        query_census_free(&sides[i]->by_con_era);
    }
    if (!keep) {
        unlink(a);
        unlink(b);
        rmdir(dir);
    }
    return st == HS_OK ? 0 : bench_fail("bench_diff", &err);
}
