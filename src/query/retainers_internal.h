/* Building the steps of a match (private to src/query). */
#ifndef HEAPSCOPE_QUERY_RETAINERS_INTERNAL_H
#define HEAPSCOPE_QUERY_RETAINERS_INTERNAL_H

#include "heapscope/query.h"
#include "heapscope/u64map.h"

/* Strings that never move once written, freed all at once. */
typedef struct text_chunk text_chunk;
typedef struct text_arena {
    text_chunk *head;
} text_arena;

/* Steps already built, by address. In the breadth-first tree every
 * closure has one parent, so its step (edge label and era flag included)
 * is the same in every path through it, and matches held by one retainer
 * chain share most of their steps. Whole paths are added and the cache is
 * only ever emptied at once, so a cached closure's ancestors are cached. */
typedef struct step_cache {
    u64map index; /* address -> position in steps + 1 */
    query_step *steps;
    size_t count, cap;
    text_arena text;
} step_cache;

/* Scratch storage reused from match to match. */
typedef struct query_path_builder {
    heap *h;
    uint64_t *addrs;
    size_t addrs_cap;
    query_step *steps; /* the match's path, handed to the caller */
    size_t steps_cap;
    text_arena scratch; /* strings of steps that are not cached */
    step_cache cache;
    heap_closure c;
} query_path_builder;

void query_path_init(query_path_builder *b, heap *h);
void query_path_free(query_path_builder *b);
/* The match as its only step (no path). */
hs_status query_path_single(query_path_builder *b, const heap_closure *c, query_match *m,
                            hs_error *err);
/* The whole path of the closure being visited, with edge labels, eras and
 * the newer-retains-older flags. Valid until the next call. */
hs_status query_path_build(query_path_builder *b, const query_trail *trail, query_match *m,
                           hs_error *err);

#endif
