/* Questions asked of a paused heap: traversal, census (and, later,
 * retainer search and filters). Spec: retainers-and-eras.md. */
#ifndef HEAPSCOPE_QUERY_H
#define HEAPSCOPE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"
#include "heapscope/status.h"

/* ---- traversal ------------------------------------------------------- */

typedef enum query_action {
    QUERY_CONTINUE,       /* visit this closure's children */
    QUERY_SKIP_CHILDREN,  /* do not visit them (through this closure) */
    QUERY_STOP            /* end the traversal now (not an error) */
} query_action;

/* Called once per closure, in breadth-first order from the start set.
 * c is valid only during the call. */
typedef query_action (*query_visit_fn)(void *ctx, heap *h, const heap_closure *c,
                                       uint32_t depth);

/* Called between levels with the number of closures visited so far;
 * return false to cancel (the traversal then fails with "cancelled"). */
typedef bool (*query_progress_fn)(void *ctx, uint64_t visited);

typedef struct query_traversal {
    query_visit_fn visit;
    void *ctx;
    query_progress_fn progress; /* optional */
    void *progress_ctx;
} query_traversal;

typedef struct query_traversal_stats {
    uint64_t visited;     /* closures visited */
    uint64_t bytes;       /* their sizes */
    uint32_t depth;       /* levels */
    uint64_t undecodable; /* closures skipped because their bytes made no sense */
    char first_problem[HS_ERROR_MESSAGE_MAX]; /* why the first one was skipped */
} query_traversal_stats;

/* Visits every closure reachable from starts (tagged or not) once,
 * breadth first, with a visited set of one bit per heap word (plus a
 * hash set for closures outside the blocks). No recursion. Each level's
 * unknown static closures and info tables are fetched in batches before
 * the level is decoded. A closure whose bytes make no sense (a protocol
 * error of its own) is counted in stats->undecodable and skipped; any
 * other failure (the connection, memory) ends the traversal. */
hs_status query_traverse(heap *h, const uint64_t *starts, size_t n_starts,
                         const query_traversal *t, query_traversal_stats *stats,
                         hs_error *err);

/* ---- census ---------------------------------------------------------- */

typedef enum query_census_by {
    QUERY_CENSUS_BY_TYPE,        /* closure type name */
    QUERY_CENSUS_BY_CONSTRUCTOR, /* package:module:name, or type name (ghc-debug's census) */
    QUERY_CENSUS_BY_ERA,         /* era of the profiling header (era profiling only) */
    QUERY_CENSUS_BY_SOURCE       /* source location of the info table, or "<no location>" */
} query_census_by;

typedef struct query_census_row {
    char *key;
    uint64_t count;
    uint64_t bytes;
    uint64_t max; /* largest single closure */
} query_census_row;

typedef struct query_census {
    query_census_row *rows; /* sorted by bytes, descending; ties by key */
    size_t n_rows;
    uint64_t total_count;
    uint64_t total_bytes;
} query_census;

/* Census of everything reachable from the GC roots. */
hs_status query_census_run(heap *h, query_census_by by, const query_traversal *progress_only,
                           query_census *out, hs_error *err);
void query_census_free(query_census *c);
/* "type", "constructor", "era", "source" -> value; false when unknown. */
bool query_census_by_from_name(const char *name, query_census_by *out);

#endif
