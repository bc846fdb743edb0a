/* heapscope diff A B (private to src/cli): each side's census and the
 * printing of their difference (diff_print.c). */
#ifndef HEAPSCOPE_CLI_DIFF_H
#define HEAPSCOPE_CLI_DIFF_H

#include "heapscope/cli.h"
#include "heapscope/query.h"

/* One side of the diff, A or B, once counted. */
typedef struct diff_side {
    const char *label;     /* "A" or "B" */
    const char *given;     /* as on the command line */
    char target[4096];     /* what is opened: a cache:N resolved to its file */
    query_census census;   /* by the spec */
    query_census eras;     /* by era, when eras_ok */
    bool eras_ok;
    char why_no_eras[512]; /* else the reason (one line, as hs_error says it) */
} diff_side;

typedef struct diff_result {
    const query_census_spec *spec;
    diff_side *a, *b;
    query_census_diff rows;  /* the spec's buckets */
    query_census_diff eras;  /* by era, when both sides have eras */
    size_t top;              /* rows shown per level (--top), 0: all */
} diff_result;

void cli_diff_print_text(const diff_result *d);
void cli_diff_print_json(const diff_result *d);

#endif
