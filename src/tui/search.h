/* search.c: the filter list, the search limit, and retainer searches
 * run into new tree views. */
#ifndef HEAPSCOPE_TUI_SEARCH_H
#define HEAPSCOPE_TUI_SEARCH_H

#include <stddef.h>

#include "explorer.h"
#include "heapscope/query.h"
#include "heapscope/status.h"

typedef struct tui_app tui_app;

/* Runs a retainer search with the active filters, then the n_extra specs
 * of extra (a census bucket's; they do not join the active list), as a new
 * view titled title + the filters ("Retainers of " when title is NULL). */
void tui_search_run(tui_app *app, const tui_filter_spec *extra, size_t n_extra,
                    const char *title);
/* The active filters and then the extra specs, compiled and prepared for
 * the paused heap into a new list (*out, freed by the caller). */
hs_status tui_filters_ready(tui_app *app, const tui_filter_spec *extra, size_t n_extra,
                            query_filters **out, hs_error *err);
/* The specs alone (filters a view kept), compiled and prepared likewise. */
hs_status tui_filters_of(tui_app *app, const tui_filter_spec *specs, size_t n,
                         query_filters **out, hs_error *err);
/* "Exact constructor name Leak AND ...", or "every closure" for none. */
void tui_filters_text(const query_filters *f, char *buf, size_t cap);

/* An analysis of the paused heap (a census, the strings) over the closures
 * that pass filters; progress(progress_ctx, visited) reports and cancels. */
typedef hs_status (*tui_analysis_fn)(void *ctx, heap *h, query_filters *filters,
                                     query_progress_fn progress, void *progress_ctx,
                                     hs_error *err);
/* Runs fn with the active filters as long work shown as `doing` (Esc
 * cancels); filters_text gets what the filters say. On failure the footer
 * says "<name>: why" ("cancelled" after Esc) and the result is not HS_OK. */
hs_status tui_analysis_run(tui_app *app, const char *name, const char *doing,
                           tui_analysis_fn fn, void *ctx, char *filters_text, size_t cap);
/* Applies a submitted filter prompt. */
void tui_search_submit_filter(tui_app *app);
void tui_search_submit_limit(tui_app *app);
void tui_search_submit_remove(tui_app *app);
void tui_search_submit_large(tui_app *app);
/* "Exact constructor name Leak", as the filter bar shows filter i. */
void tui_filter_describe(const tui_app *app, size_t i, char *buf, size_t cap);

void tui_cmd_find_by(tui_app *app, int kind); /* filters := [kind]; search */
void tui_cmd_add_filter(tui_app *app, int kind);
void tui_cmd_add_exclusion(tui_app *app, int kind);
void tui_cmd_find_large(tui_app *app, int arg);
void tui_cmd_search(tui_app *app, int arg);
void tui_cmd_limit(tui_app *app, int arg);
void tui_cmd_clear_filters(tui_app *app, int arg);
void tui_cmd_remove_filter(tui_app *app, int arg);

#endif
