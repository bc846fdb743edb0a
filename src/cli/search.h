/* What retainers and find share (private to src/cli): running a search
 * with the filter options and printing its matches as they are found. */
#ifndef HEAPSCOPE_CLI_SEARCH_H
#define HEAPSCOPE_CLI_SEARCH_H

#include <stdio.h>

#include "heapscope/cli.h"
#include "heapscope/query.h"

typedef struct cli_search_view {
    bool paths;                                        /* record and show paths */
    const char *title;                                 /* text header, or NULL for none */
    /* one match as text, as a JSON object; dom: the dominator tree with
     * --retained, else NULL */
    void (*text)(FILE *out, heap *h, const query_match *m, const query_dominators *dom);
    void (*json)(FILE *out, heap *h, const query_match *m, const query_dominators *dom);
} cli_search_view;

/* Builds the filters (exit 2 on a bad one), opens the session, computes
 * the dominator tree with --retained, runs the search printing each match, prints the totals, closes the session.
 * Returns the exit status. */
int cli_run_search(const char *target, const cli_common *common, const cli_search_view *v);

/* "0x4200105a38  CONSTR_2_0  24 B  era 2  cc Main:leaky (app/Main.hs:30:1-40)
 *  Leak 0x4200105a50 42  app/Main.hs:12:5-20"; the profiling items (h's
 * heap_prof_describe, its cost centres asked once per pause) only when
 * profiled. */
void cli_print_step_text(FILE *out, heap *h, const query_step *s);
/* {"address": ..., "info": ..., "type": ..., "size": ..., "label": ..., "constructor": ...,
 *  "era": ..., "profiling": ..., "location": ...}, a TSO's "thread_id" and
 *  "thread_label", on a path also "edge", "frame" and "newer_retains_older",
 *  and with the decoded closure c (NULL: not at hand) a stack's "frames". */
void cli_print_step_json(FILE *out, heap *h, const query_step *s, const heap_closure *c,
                         bool on_path);
/* One stack frame: {"number": ..., "kind": ..., "type": ..., "info": ...,
 * "location": ...} (the location as a closure's, null without IPE). */
void cli_print_frame_json(FILE *out, heap *h, uint32_t number, const heap_info *info);

#endif
