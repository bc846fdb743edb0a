/* Building the steps of a match (private to src/query). */
#ifndef HEAPSCOPE_QUERY_RETAINERS_INTERNAL_H
#define HEAPSCOPE_QUERY_RETAINERS_INTERNAL_H

#include "heapscope/query.h"

/* Scratch storage reused from match to match. */
typedef struct query_path_builder {
    heap *h;
    uint64_t *addrs;
    size_t addrs_cap;
    query_step *steps;
    size_t steps_cap;
    size_t *edge_at, *label_at; /* offsets into text while a path is built */
    char *text;
    size_t text_len, text_cap;
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
