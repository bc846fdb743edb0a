/* The dominator tree for the batch commands (private to src/cli). */
#ifndef HEAPSCOPE_CLI_DOMINATORS_H
#define HEAPSCOPE_CLI_DOMINATORS_H

#include <stdio.h>

#include "heapscope/cli.h"
#include "heapscope/query.h"

/* Progress of work over the closures, on stderr when it is a terminal:
 * "heapscope: WHAT: N closures"; a quit signal stops the work.
 * cli_progress_show is a query_progress_fn over a cli_progress. */
typedef struct cli_progress {
    const char *what;
    bool tty;
} cli_progress;

cli_progress cli_progress_start(const char *what);
bool cli_progress_show(void *ctx, uint64_t done);
/* Clears the progress line. */
void cli_progress_end(const cli_progress *p);

/* query_dominators_run with progress on a terminal; a quit signal cancels. */
hs_status cli_dominators_compute(heap *h, query_dominators **out, hs_error *err);

/* A batch command reporting on the pause's dominator tree (dominators,
 * leaks): cli_dominators_run opens the session, lets `usable` refuse the
 * heap before the tree is computed (NULL: any heap), computes the tree,
 * has `report` print (top: --top, else default_top; common: the other
 * options), notes unreadable closures after text output, and closes the
 * session (exit status). */
typedef struct cli_dominators_command {
    size_t default_top;
    hs_status (*usable)(heap *h, hs_error *err);
    hs_status (*report)(const char *target, heap *h, const query_dominators *d,
                        const query_dominators_info *info, size_t top,
                        const cli_common *common, hs_error *err);
} cli_dominators_command;

int cli_dominators_run(const char *target, const cli_common *common,
                       const cli_dominators_command *cmd);

/* --retained on a match: "  [retains N B]" (or "  [not reachable]" when
 * no GC root reaches it); in JSON ", \"retained\": N" (or null). Nothing
 * when d is NULL. */
void cli_print_retained_text(FILE *out, const query_dominators *d, uint64_t addr);
void cli_print_retained_json(FILE *out, const query_dominators *d, uint64_t addr);

#endif
