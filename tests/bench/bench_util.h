/* Clock and memory readings shared by the benchmarks. */
#ifndef HEAPSCOPE_BENCH_UTIL_H
#define HEAPSCOPE_BENCH_UTIL_H

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

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

#endif
