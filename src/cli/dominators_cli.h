/* The dominator tree for the batch commands (private to src/cli). */
#ifndef HEAPSCOPE_CLI_DOMINATORS_H
#define HEAPSCOPE_CLI_DOMINATORS_H

#include "heapscope/query.h"

/* query_dominators_run with progress on a terminal; a quit signal cancels. */
hs_status cli_dominators_compute(heap *h, query_dominators **out, hs_error *err);

#endif
