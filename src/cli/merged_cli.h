/* retainers --merged (private to src/cli). */
#ifndef HEAPSCOPE_CLI_MERGED_H
#define HEAPSCOPE_CLI_MERGED_H

#include <stdio.h>

#include "search.h"

/* The finished tree depth first: text, one line per node indented by
 * depth ("Field 1: 700 matches, 16800 B  <step>"), or the JSON objects of
 * the "merged" list (id = position, parent's id or null, matches, bytes,
 * match, start on a path's start, closure as on a path). */
hs_status cli_print_merged(FILE *out, heap *h, const query_merged *t, bool json, hs_error *err);

#endif
