/* The commands that open a view, each defined in its view's file
 * (view_*.c); commands.c's table binds keys to them. Adding a view adds
 * its command here, not in commands.c (view.h says what else it takes). */
#ifndef HEAPSCOPE_TUI_VIEWS_H
#define HEAPSCOPE_TUI_VIEWS_H

#include "heapscope/query.h"
#include "heapscope/status.h"

typedef struct tui_app tui_app;

void tui_cmd_census(tui_app *app, int arg);
void tui_cmd_thunks(tui_app *app, int arg);
void tui_cmd_strings(tui_app *app, int arg);
void tui_cmd_dump(tui_app *app, int arg);
void tui_cmd_dominators(tui_app *app, int arg);
void tui_cmd_merged(tui_app *app, int arg);
void tui_cmd_leaks(tui_app *app, int arg);
void tui_cmd_retained(tui_app *app, int arg); /* view_dominators.c */
void tui_cmd_diff_mark(tui_app *app, int arg); /* view_diff.c, in the picker */
void tui_cmd_diff_open(tui_app *app, int arg);
void tui_cmd_diff_previous(tui_app *app, int arg);
void tui_cmd_diff_by(tui_app *app, int arg);
/* view_diff.c: after a resume, keeps which recorded pause was the last. */
void tui_diff_note_resumed(tui_app *app);

/* view_merged.c: a search's merged paths, shared (counted) by the views
 * showing them. */
typedef struct tui_merged_ref tui_merged_ref;
tui_merged_ref *tui_merged_ref_new(void); /* NULL: out of memory */
query_merged *tui_merged_ref_tree(tui_merged_ref *r);
void tui_merged_ref_drop(tui_merged_ref *r); /* NULL is fine */

/* view_census.c, shared with the diff view: "A" or "A,B" into census keys
 * (false, and the footer says what is wrong), and the retainer search of
 * exactly one bucket (key under by[0], or under by[1] below parent_key's
 * row). */
bool tui_census_parse_by(tui_app *app, const char *text, query_census_by *by, size_t *levels);
void tui_census_retainers(tui_app *app, const query_census_by *by, const char *key,
                          const char *parent_key);

/* view_dominators.c: the dominator tree of the pause on screen, computed
 * once per pause (Esc cancels) and kept by the explorer until it resumes. */
hs_status tui_dominators_compute(tui_app *app, hs_error *err);

#endif
