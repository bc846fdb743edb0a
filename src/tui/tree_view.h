/* The tree view of a paused heap: the roots, or a search's matches each
 * opening into its path. Its nodes are closures, cost-centre stacks and
 * cost centres (rows.c says what they show and contain). */
#ifndef HEAPSCOPE_TUI_TREE_VIEW_H
#define HEAPSCOPE_TUI_TREE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tree.h"
#include "view.h"

/* One closure on a search result's path (root first). */
typedef struct tui_step {
    uint64_t addr;
    uint32_t edge;  /* string in the view's tree pool: "Field 0", or the start's name */
    bool newer;     /* a newer era retains this older one here */
} tui_step;

typedef struct tui_match {
    size_t first_step;
    uint32_t n_steps;
    uint32_t n_newer;
    bool from_saved; /* the path starts at a saved object, not a GC root */
} tui_match;

/* A search's merged paths, shared by its list and merged views (view_merged.c). */
typedef struct tui_merged_ref tui_merged_ref;

typedef struct tui_tree_view {
    tui_view base;
    tui_tree tree;
    size_t sel, top;    /* selected row, first row on screen */
    int height;         /* rows of the tree area at the last draw (for paging) */
    const char *empty;  /* what the view says when it has no rows */
    const char *match_what; /* what a match is, for the details pane (static); NULL: a
                               search's, steps from a GC root or saved object */
    tui_step *steps;
    size_t n_steps, steps_cap;
    tui_match *matches;
    size_t n_matches, matches_cap;
    tui_merged_ref *merged; /* a search's paths merged (NULL for the roots) */
} tui_tree_view;

/* Node kinds and flags of the explorer's trees. */
enum { TUI_NODE_CLOSURE, TUI_NODE_CCS, TUI_NODE_CC, TUI_NODE_TEXT };
enum {
    TUI_NODE_MATCH = 1, /* a search match: expands into its path */
    TUI_NODE_LEAK = 2   /* a newer era retains this older closure */
};

/* A new empty tree view that says `empty` (a static string) when it has no rows. */
tui_tree_view *tui_tree_view_new(const char *empty);
/* v as a tree view, or NULL when it is another kind. */
tui_tree_view *tui_tree_view_of(tui_view *v);
/* The node under the selection, or TUI_NODE_NONE. */
tui_node_id tui_tree_view_selected(tui_tree_view *v);
void tui_tree_view_select(tui_tree_view *v, tui_node_id id);

typedef struct query_match query_match;
/* Adds a row for the path m (n_steps > 0; start first, the row's closure
 * last) that opens into it: the first step labelled `start`, the others by
 * their edges; the row labelled row_label. false when out of memory (the
 * steps of a row not added may stay, unused). */
bool tui_tree_view_add_path(tui_tree_view *v, const query_match *m, const char *start,
                            const char *row_label);

/* tree_draw.c: draws the view in the rows [top, bottom). */
void tui_tree_view_draw(tui_app *app, tui_tree_view *v, int top, int bottom);

/* tree_draw.c: the bar of active filters on row y (a heap's views show it). */
void tui_filters_draw(tui_app *app, int y);
#endif
