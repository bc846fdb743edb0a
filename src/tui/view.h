/* A view: what the screen shows between the title bar and the footer, and
 * how it answers the commands that act on "the selection" (move, open,
 * close, find). Each kind of view is one file that fills a tui_view_ops,
 * as tig's views do; the app draws and dispatches through the current
 * view and never asks which kind it is. The debuggee list and the running
 * debuggee are views; a paused heap's views (the roots tree, searches,
 * a census) live in the explorer's history, which holds any kind.
 *
 * Adding a view: a view_NAME.c that fills a tui_view_ops and defines the
 * command opening it (which pushes the view with tui_explorer_push), the
 * command's prototype in views.h, its row in commands.c's table (the man
 * page's KEYS and README follow from the table: see tests/tui/
 * test_keys_doc.py), the file in meson.build, and a tmux test in
 * tests/tui/. Keys that act on the selection (move, Enter, sort, find)
 * arrive as requests. */
#ifndef HEAPSCOPE_TUI_VIEW_H
#define HEAPSCOPE_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tui_app tui_app;
typedef struct tui_view tui_view;

/* What a command asks of the current view (commands.c binds keys to them). */
typedef enum tui_request {
    TUI_REQ_UP,
    TUI_REQ_DOWN,
    TUI_REQ_PAGE_UP,
    TUI_REQ_PAGE_DOWN,
    TUI_REQ_FIRST,
    TUI_REQ_LAST,
    TUI_REQ_OPEN,      /* Enter / →: open the selection (a node, a bucket's retainers) */
    TUI_REQ_CLOSE,     /* ←: close it, or go to its parent */
    TUI_REQ_CLOSE_ALL, /* Shift-←: close everything */
    TUI_REQ_FIND_NEXT, /* find the explorer's find text from the selection on */
    TUI_REQ_SORT,      /* sort by the next column (tables) */
    TUI_REQ_RETAINED   /* the pause's dominator tree is ready: show retained sizes */
} tui_request;

/* A key hint of the footer: the command (its first key is shown) and a word. */
typedef struct tui_hint {
    const char *command, *text;
} tui_hint;

typedef struct tui_view_ops {
    const char *kind; /* "tree", "census": for messages ("not in a census view") */
    /* Which rows of the command table apply: TUI_SCOPE_PICKER or TUI_SCOPE_EXPLORER. */
    unsigned scope;
    /* The title bar's text (after the leading space). */
    void (*title)(tui_app *app, tui_view *v, char *buf, size_t cap);
    /* Draws the rows [top, bottom) of the screen. */
    void (*draw)(tui_app *app, tui_view *v, int top, int bottom);
    /* Answers a request; false when this view has no such thing. */
    bool (*request)(tui_app *app, tui_view *v, tui_request req);
    /* The closure the selection stands for (what Dump shows), 0 for none;
     * NULL when the view never has one. */
    uint64_t (*selected)(tui_app *app, tui_view *v);
    const tui_hint *hints; /* the footer's keys, ended by {NULL, NULL} */
    void (*free)(tui_view *v); /* NULL for views that live as long as the app */
} tui_view_ops;

/* The part every view starts with (a kind's struct embeds it first). */
struct tui_view {
    const tui_view_ops *ops;
    char title[256];   /* "Retainers of Exact constructor name Leak" */
    char summary[128]; /* "37 items/100 max" */
};

/* The view on screen: the explorer's current one while a heap is paused,
 * else the running debuggee, else the debuggee list. */
tui_view *tui_app_view(tui_app *app);
/* Sends a request to the current view; a view without it says so. */
void tui_view_request(tui_app *app, tui_request req);
void tui_view_free(tui_view *v);
/* The command that sends request `req` (commands.c binds keys to it). */
void tui_cmd_request(tui_app *app, int req);

/* The views that live as long as the app (picker.c, view_running.c). */
extern tui_view tui_picker_view;
extern tui_view tui_running_view;

/* Keeps sel on screen for a list of n rows shown `height` at a time from *top. */
void tui_list_scroll(size_t *sel, size_t *top, size_t n, size_t height);
/* Moves sel in a list of n rows by a request (UP..LAST); page = rows per page. */
bool tui_list_move(size_t *sel, size_t *top, size_t n, size_t page, tui_request req);
/* Whether row i of a list (ctx) shows needle, case-insensitively. */
typedef bool (*tui_list_shows_fn)(const void *ctx, size_t i, const char *needle);
/* Selects the next row after *sel that shows needle, wrapping around to
 * *sel itself; false, *sel unchanged, when no row of the n does. */
bool tui_list_find(size_t *sel, size_t n, const char *needle, tui_list_shows_fn shows,
                   const void *ctx);

#endif
