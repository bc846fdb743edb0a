/* Pieces of the filters (private to src/query). */
#ifndef HEAPSCOPE_QUERY_FILTER_INTERNAL_H
#define HEAPSCOPE_QUERY_FILTER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/query.h"
#include "heapscope/u64map.h"

/* ---- PCRE2 regex, compiled once (filter_regex.c) ---- */

typedef struct query_regex query_regex;

/* UTF mode (subjects that are not valid UTF-8 simply do not match where
 * they are invalid), JIT when the library has it. A bad pattern is an
 * HS_ERR_USAGE error naming the offset in the pattern. */
hs_status query_regex_compile(const char *pattern, query_regex **out, hs_error *err);
/* 1 on a match, 0 on none, or a negative status with a message in err
 * (e.g. the match limit was hit). */
int query_regex_match(query_regex *re, const char *subject, hs_error *err);
void query_regex_free(query_regex *re);

/* ---- per info table (filter.c) ---- */

/* True when every filter depends on the info table alone (names, info
 * pointer, type), so a closure's result is its info table's. */
bool query_filters_info_only(const query_filters *f);
/* The result for the closures of info (info-only filter lists). */
hs_status query_filters_match_info(query_filters *f, heap *h, const heap_info *info, bool *out,
                                   hs_error *err);

/* ---- the cost-centre stacks under a cost centre (filter_ccs.c) ---- */

/* Adds to set every CCS that §4.6 selects for cost-centre id `wanted`,
 * starting at CCS_MAIN. */
hs_status query_ccs_collect(heap *h, int64_t wanted, u64map *set, hs_error *err);

/* ---- the bucket filter, "BY=KEY" (filter_bucket.c) ---- */

typedef struct query_bucket query_bucket;

/* HS_ERR_USAGE for a text that is not BY=KEY with a known BY (an era's
 * KEY must be a number). */
hs_status query_bucket_parse(const char *text, query_bucket **out, hs_error *err);
void query_bucket_free(query_bucket *b);
/* True when the key depends on the info table alone. */
bool query_bucket_info_only(const query_bucket *b);
/* Before matching on a heap: BY usable there; cached outcomes forgotten. */
hs_status query_bucket_prepare(query_bucket *b, heap *h, hs_error *err);
/* *applies is false when a census by BY does not count c (then it never
 * matches); else *pred says whether c's key is KEY. */
hs_status query_bucket_match(query_bucket *b, heap *h, const heap_closure *c, bool *applies,
                             bool *pred, hs_error *err);

#endif
