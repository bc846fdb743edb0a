/* Benchmark (not a test): what the cache saves a census of a running
 * program.
 *
 *   bench_cache [--closures N] [--profiled]
 *
 * Starts the synthetic debuggee with N closures (default 10 million),
 * counting the requests it serves (--count-requests), and runs four
 * censuses by constructor, each as `heapscope census` does it (a new
 * connection: pause, read the heap, census, resume): without the cache,
 * twice; then with an empty cache, twice. For each: wall and CPU seconds,
 * the requests the debuggee served (all, and those for answers that never
 * change: info tables, SRTs, constructor descriptions, source locations,
 * function bitmaps) and the bytes it sent. The second census with the
 * cache should ask for almost none of those. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/cache.h"
#include "heapscope/query.h"
#include "heapscope/session.h"
#include "bench_util.h"

static const char *const immutable[] = {"INFO_TABLES", "SRT", "CON_DESC", "SOURCE_INFO",
                                        "FUN_BITMAP"};

typedef struct counts {
    uint64_t connections, all, immutable;
} counts;

/* The debuggee's request counts once `connections` connections ended. */
static counts read_counts(const char *path, uint64_t connections) {
    counts c = {0};
    for (int tries = 0; tries < 6000; tries++) { /* a minute */
        c = (counts){0};
        FILE *f = fopen(path, "r");
        char name[64];
        unsigned long long n;
        while (f && fscanf(f, "%63s %llu", name, &n) == 2) {
            if (strcmp(name, "connections") == 0) {
                c.connections = n;
                continue;
            }
            c.all += n;
            for (size_t i = 0; i < sizeof immutable / sizeof *immutable; i++)
                if (strcmp(name, immutable[i]) == 0)
                    c.immutable += n;
        }
        if (f)
            fclose(f);
        if (c.connections >= connections)
            return c;
        usleep(10000);
    }
    fprintf(stderr, "bench_cache: the debuggee did not count connection %" PRIu64 "\n",
            connections);
    return c;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct run {
    double wall, cpu;
    uint64_t closures;
} run;

/* One `heapscope census --by constructor` against socket, through c (NULL:
 * no cache). */
static hs_status census(const char *socket, cache *c, run *out, hs_error *err) {
    double t0 = bench_now(), c0 = cpu_now();
    session_options o = {.cache = c};
    session *s;
    hs_status st = session_open(socket, &o, &s, err);
    if (st != HS_OK)
        return st;
    st = session_pause(s, err);
    if (st == HS_OK)
        st = session_read_heap(s, err);
    query_census q;
    if (st == HS_OK)
        st = query_census_run(session_heap(s), QUERY_CENSUS_BY_CONSTRUCTOR, NULL, &q, err);
    if (st == HS_OK) {
        out->closures = q.total_count;
        query_census_free(&q);
    }
    hs_error ignored;
    session_flush_cache(s, &ignored);
    session_resume(s, &ignored);
    session_close(s);
    out->wall = bench_now() - t0;
    out->cpu = cpu_now() - c0;
    return st;
}

int main(int argc, char **argv) {
    const char *closures = "10000000";
    bool profiled = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--closures") == 0 && i + 1 < argc)
            closures = argv[++i];
        else if (strcmp(argv[i], "--profiled") == 0)
            profiled = true;
        else {
            fprintf(stderr, "usage: bench_cache [--closures N] [--profiled]\n");
            return 2;
        }
    }
    char dir[] = "/tmp/heapscope-bench-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_cache: mkdtemp");
        return 1;
    }
    char count_path[128], cache_dir[128];
    snprintf(count_path, sizeof count_path, "%s/counts", dir);
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", dir);
    const char *args[] = {"--closures", closures, "--seed", "11", "--count-requests", count_path,
                          profiled ? "--profiled" : NULL, NULL};
    printf("generating a synthetic heap of %s closures%s...\n", closures,
           profiled ? " (profiled, eras)" : "");
    fflush(stdout);
    cli_debuggee d;
    hs_error err = {0};
    if (cli_debuggee_start(args, &d, &err) != HS_OK)
        return bench_fail("bench_cache", &err);

    cache_options co = {.dir = cache_dir};
    cache *c = NULL;
    hs_status st = cache_open(&co, &c, &err);
    static const struct {
        const char *what;
        bool cached;
    } plan[] = {{"census, no cache", false},
                {"again, no cache", false},
                {"census, empty cache", true},
                {"again, with the cache", true}};
    printf("%-24s %8s %8s %10s %10s %10s\n", "", "wall s", "cpu s", "requests", "immutable",
           "closures");
    counts before = {0};
    for (size_t i = 0; st == HS_OK && i < sizeof plan / sizeof *plan; i++) {
        run r = {0};
        st = census(d.socket, plan[i].cached ? c : NULL, &r, &err);
        counts now = read_counts(count_path, i + 1);
        if (st == HS_OK)
            printf("%-24s %8.2f %8.2f %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", plan[i].what,
                   r.wall, r.cpu, now.all - before.all, now.immutable - before.immutable,
                   r.closures);
        fflush(stdout);
        before = now;
    }
    cache_usage u;
    if (st == HS_OK && cache_usage_get(c, &u, &err) == HS_OK)
        printf("cache database: %.1f MB\n", (double)u.db_bytes / 1e6);
    cache_close(c);
    cli_debuggee_stop(&d);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_cache: could not remove %s\n", dir);
    printf("peak RSS %.0f MB\n", bench_peak_rss_mb());
    return st == HS_OK ? 0 : bench_fail("bench_cache", &err);
}
