/* The dominator tree for the batch commands (private to src/cli). */
#ifndef HEAPSCOPE_CLI_DOMINATORS_H
#define HEAPSCOPE_CLI_DOMINATORS_H

#include <stdio.h>

#include "heapscope/query.h"

/* query_dominators_run with progress on a terminal; a quit signal cancels. */
hs_status cli_dominators_compute(heap *h, query_dominators **out, hs_error *err);

/* --retained on a match: "  [retains N B]" (or "  [not reachable]" when
 * no GC root reaches it); in JSON ", \"retained\": N" (or null). Nothing
 * when d is NULL. */
void cli_print_retained_text(FILE *out, const query_dominators *d, uint64_t addr);
void cli_print_retained_json(FILE *out, const query_dominators *d, uint64_t addr);

#endif
