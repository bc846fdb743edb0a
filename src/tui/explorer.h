/* explorer.c: a connected debuggee's explorer: pause and resume, the
 * active filters, and the history of a paused heap's views (any kind). */
#ifndef HEAPSCOPE_TUI_EXPLORER_H
#define HEAPSCOPE_TUI_EXPLORER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "heapscope/status.h"
#include "heapscope/u64map.h"
#include "input.h"
#include "tree_view.h"
#include "view.h"

typedef struct tui_filter_spec {
    query_filter_kind kind;
    bool invert;
    char text[TUI_INPUT_MAX];
    const char *long_text; /* instead of text when set: a value of any length, which
                              lives as long as the call it is passed to */
} tui_filter_spec;

#define TUI_MAX_FILTERS 32
#define TUI_HISTORY_MAX 64

typedef struct tui_explorer {
    tui_tree_view *roots;
    tui_view *hist[TUI_HISTORY_MAX]; /* views of any kind, oldest first */
    size_t n_hist, pos;
    tui_filter_spec filters[TUI_MAX_FILTERS]; /* in the order given: [0] evaluated first */
    size_t n_filters;
    query_filters *built;    /* the specs compiled, in the same order */
    uint64_t limit;          /* 0 = unlimited */
    bool era_colors;
    bool details;
    int64_t paused_at;       /* Unix time of the pause shown (a snapshot's own) */
    query_dominators *dominators; /* of the pause shown, once computed (view_dominators.c) */
    char find[256];
    bool find_shown;         /* rows highlight the find text (until Esc) */
    u64map cc_text;          /* CCS / CC address -> index in cc_strings + 1 */
    char **cc_strings;
    size_t n_cc_strings, cc_strings_cap;
} tui_explorer;

void tui_explorer_init(tui_explorer *ex);
/* Drops every view and cache (on resume, disconnect, quit). */
void tui_explorer_reset(tui_explorer *ex);
/* Builds the roots view after a pause. */
hs_status tui_explorer_open(tui_app *app, hs_error *err);
/* Makes v the current view, dropping the forward history. */
void tui_explorer_push(tui_app *app, tui_view *v);
/* "heapscope: TARGET: paused: SUMMARY: TITLE", the title of a heap's views. */
void tui_explorer_title(tui_app *app, tui_view *v, char *buf, size_t cap);

/* Finds text in the current view from the selection on (and keeps it for n). */
void tui_explorer_find(tui_app *app, const char *text);


void tui_cmd_pause(tui_app *app, int arg);
void tui_cmd_resume(tui_app *app, int arg);
void tui_cmd_disconnect(tui_app *app, int arg);
void tui_cmd_find(tui_app *app, int arg);
void tui_cmd_find_next(tui_app *app, int arg);
void tui_cmd_back(tui_app *app, int arg);
void tui_cmd_forward(tui_app *app, int arg);
void tui_cmd_eras(tui_app *app, int arg);
void tui_cmd_details(tui_app *app, int arg);
void tui_cmd_roots(tui_app *app, int arg);

#endif
