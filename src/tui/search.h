/* search.c: the filter list, the search limit, and retainer searches
 * run into new tree views. */
#ifndef HEAPSCOPE_TUI_SEARCH_H
#define HEAPSCOPE_TUI_SEARCH_H

#include <stddef.h>

typedef struct tui_app tui_app;

/* Runs a retainer search with the current filters as a new view. */
void tui_search_run(tui_app *app, const char *title);
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
