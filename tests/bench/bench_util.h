/* Clock and memory readings shared by the benchmarks. */
#ifndef HEAPSCOPE_BENCH_UTIL_H
#define HEAPSCOPE_BENCH_UTIL_H

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "heapscope/cli.h"
#include "heapscope/heap.h"
#include "heapscope/status.h"

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double bench_peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}

static inline int bench_fail(const char *bench, const hs_error *err) {
    fprintf(stderr, "%s: %s\n", bench, err->message);
    return 1;
}

/* [--closures N] [--profiled]: the options of the benchmarks that only
 * size the synthetic heap; false after a usage message. */
static inline bool bench_args(int argc, char **argv, const char *bench, const char **closures,
                              bool *profiled) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--closures") && i + 1 < argc) {
            *closures = argv[++i];
        } else if (!strcmp(argv[i], "--profiled")) {
            *profiled = true;
        } else {
            fprintf(stderr, "usage: %s [--closures N] [--profiled]\n", bench);
            return false;
        }
    }
    return true;
}

/* A synthetic debuggee, paused, with its heap fetched and indexed. */
typedef struct bench_session {
    cli_debuggee debuggee;
    wire_conn *conn;
    heap *heap;
    double fetch_seconds; /* connect, pause, ALL_BLOCKS and indexing the blocks */
} bench_session;

/* Generates a heap of `closures` closures (seed 11) and opens it. */
static inline hs_status bench_open(const char *closures, bool profiled, bench_session *s,
                                   hs_error *err) {
    *s = (bench_session){0};
    const char *args[] = {"--closures", closures, "--seed", "11",
                          profiled ? "--profiled" : NULL, NULL};
    printf("generating a synthetic heap of %s closures%s...\n", closures,
           profiled ? " (profiled, eras)" : "");
    fflush(stdout);
    hs_status st = cli_debuggee_start(args, &s->debuggee, err);
    if (st != HS_OK)
        return st;
    double t0 = bench_now();
    st = wire_connect(s->debuggee.socket, NULL, &s->conn, err);
    if (st == HS_OK)
        st = wire_pause(s->conn, NULL, err);
    if (st == HS_OK)
        st = heap_open(heap_source_live(s->conn), &s->heap, err);
    s->fetch_seconds = bench_now() - t0;
    return st;
}

static inline void bench_close(bench_session *s) {
    heap_free(s->heap);
    hs_error ignored;
    if (s->conn)
        wire_resume(s->conn, &ignored);
    wire_close(s->conn);
    cli_debuggee_stop(&s->debuggee);
}

#endif
