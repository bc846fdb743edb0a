/* What census and thunks share (private to src/cli): running a census
 * with the filter options and printing it as text or JSON. */
#ifndef HEAPSCOPE_CLI_CENSUS_H
#define HEAPSCOPE_CLI_CENSUS_H

#include "heapscope/cli.h"
#include "heapscope/query.h"

typedef struct cli_census_view {
    const char *title;       /* "census by constructor,era", "thunks" */
    const char *key_heading; /* the key column's heading */
    bool hint_bucket;        /* text: end with the --bucket that finds a row's retainers */
    const char *one, *many;  /* what is counted: "thunk", "thunks"; NULL: closures */
} cli_census_view;

/* Builds the filters (exit 2 on a bad one), opens the session, takes the
 * census of spec (its filters are set here), sorts it by column, prints
 * it and closes the session. Returns the exit status. */
int cli_run_census(const char *target, const cli_common *common, query_census_spec *spec,
                   query_census_column column, const cli_census_view *v);

/* --by's "A" or "A,B" into spec (levels and kinds); 0, or 2 after a
 * usage message. */
int cli_census_parse_by(const char *text, query_census_spec *spec);

/* Text output: the line "counting closures with F1 AND F2" (nothing
 * without filters). */
void cli_census_print_filters(const query_filters *f);

/* The --sort column (default bytes); 0, or 2 after a usage message. */
int cli_census_column(const cli_common *common, query_census_column *out);

#endif
