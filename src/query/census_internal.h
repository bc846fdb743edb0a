/* Pieces of the census shared by its files and the bucket filter (private
 * to src/query). A census level reads one number of each closure, its
 * "raw" value: the info pointer, the era or the CCS pointer; the key text
 * is made from that number alone, once per distinct number. */
#ifndef HEAPSCOPE_QUERY_CENSUS_INTERNAL_H
#define HEAPSCOPE_QUERY_CENSUS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/query.h"

typedef enum census_source {
    CENSUS_SRC_INFO, /* the info pointer */
    CENSUS_SRC_ERA,  /* the profiling header's era word (0 without a header) */
    CENSUS_SRC_CCS   /* the profiling header's CCS pointer (0 without a header) */
} census_source;

static inline census_source census_by_source(query_census_by by) {
    return by == QUERY_CENSUS_BY_ERA ? CENSUS_SRC_ERA
           : by == QUERY_CENSUS_BY_COST_CENTRE ? CENSUS_SRC_CCS
                                               : CENSUS_SRC_INFO;
}

static inline uint64_t census_raw(census_source src, const heap_closure *c) {
    switch (src) {
    case CENSUS_SRC_ERA: return c->prof.present ? c->prof.word : 0;
    case CENSUS_SRC_CCS: return c->prof.present ? c->prof.ccs : 0;
    default: return c->info_ptr;
    }
}

/* Whether a census by `by` counts closures of this info table. */
static inline bool census_counts(query_census_by by, const heap_info *info) {
    return by != QUERY_CENSUS_BY_THUNK || (info && query_census_is_thunk(info->type));
}

/* The key text of raw value `raw` under by (census_by_source(by) says what
 * raw is). */
hs_status census_key_of_raw(heap *h, query_census_by by, uint64_t raw, char *buf, size_t cap,
                            hs_error *err);

/* Closures that share the raw values of every level (census.c). */
typedef struct census_group {
    uint64_t raw[QUERY_CENSUS_MAX_LEVELS];
    uint64_t count, bytes, max;
} census_group;

/* Names the groups and makes the rows of out: groups whose keys are the
 * same text are merged, level by level; sorted by bytes (census_rows.c). */
hs_status census_rows_build(heap *h, const query_census_spec *spec, const census_group *groups,
                            size_t n_groups, query_census *out, hs_error *err);

#endif
