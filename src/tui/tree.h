/* The explorer's tree, without curses or heap: a node arena with lazy
 * children, expand and collapse, the list of visible rows and find-next
 * over them. Screens attach meaning through kind, flags, addr and aux. */
#ifndef HEAPSCOPE_TUI_TREE_H
#define HEAPSCOPE_TUI_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/status.h"

typedef uint32_t tui_node_id;
#define TUI_NODE_NONE UINT32_MAX
#define TUI_STR_NONE UINT32_MAX

typedef struct tui_node {
    tui_node_id parent, first_child, last_child, next_sibling;
    uint32_t depth;   /* 0 at the top level */
    uint32_t label;   /* offset in the string pool, or TUI_STR_NONE */
    uint8_t kind;     /* the screen's node kind */
    uint8_t flags;    /* the screen's bits */
    bool expanded;
    bool loaded;      /* children were asked for (they may be none) */
    bool leaf;        /* known to have no children */
    uint64_t addr;    /* the screen's payload: an address */
    uint64_t aux;     /* the screen's payload: an index */
    void *row;        /* the screen's cached row (one malloc block; freed with the tree) */
} tui_node;

typedef struct tui_tree {
    tui_node *nodes;
    size_t count, cap;
    char *strings;
    size_t str_len, str_cap;
    tui_node_id first_top, last_top;
    uint32_t *rows;     /* visible rows: node ids in display order */
    size_t n_rows, rows_cap;
    uint32_t *row_of;   /* node id -> row index, or UINT32_MAX when hidden */
    size_t row_of_cap;
    bool rows_dirty;
} tui_tree;

/* Fills in the children of a node being expanded (with tui_tree_add). */
typedef hs_status (*tui_tree_load_fn)(void *ctx, tui_tree *t, tui_node_id id, hs_error *err);

void tui_tree_init(tui_tree *t);
void tui_tree_free(tui_tree *t);

/* Adds a node as the last child of parent (TUI_NODE_NONE: the top level).
 * label may be NULL. Returns TUI_NODE_NONE when out of memory. */
tui_node_id tui_tree_add(tui_tree *t, tui_node_id parent, const char *label, uint8_t kind,
                         uint64_t addr, uint64_t aux);
/* Interns a string in the pool: its offset, or TUI_STR_NONE. */
uint32_t tui_tree_intern(tui_tree *t, const char *s);
const char *tui_tree_str(const tui_tree *t, uint32_t off);

static inline tui_node *tui_tree_node(const tui_tree *t, tui_node_id id) {
    return &t->nodes[id];
}
static inline const char *tui_tree_label(const tui_tree *t, tui_node_id id) {
    return tui_tree_str(t, t->nodes[id].label);
}

/* Loads the children on first use, then opens the node (a node without
 * children stays closed and becomes a leaf). */
hs_status tui_tree_expand(tui_tree *t, tui_node_id id, tui_tree_load_fn load, void *ctx,
                          hs_error *err);
void tui_tree_collapse(tui_tree *t, tui_node_id id);
/* Closes every node (loaded children are kept for the next expand). */
void tui_tree_collapse_all(tui_tree *t);

/* The visible rows (rebuilt after a change). */
const uint32_t *tui_tree_rows(tui_tree *t, size_t *n);
/* Row index of a visible node, or -1. */
long tui_tree_row_of(tui_tree *t, tui_node_id id);
/* The node ← goes to: itself after collapsing it when open, else its
 * parent (the node itself at the top level). *collapsed says which. */
tui_node_id tui_tree_left(tui_tree *t, tui_node_id id, bool *collapsed);
/* The top-level node above id. */
tui_node_id tui_tree_top_of(const tui_tree *t, tui_node_id id);

/* Text of a visible row for find; NULL when it has none. */
typedef const char *(*tui_tree_text_fn)(void *ctx, tui_tree *t, tui_node_id id);
/* Called every few hundred rows; false cancels. */
typedef bool (*tui_tree_progress_fn)(void *ctx, size_t done, size_t total);

typedef enum tui_find_result { TUI_FIND_FOUND, TUI_FIND_NONE, TUI_FIND_CANCELLED } tui_find_result;

/* Finds the next visible row after `from` (wrapping round, `from` itself
 * last) whose text contains needle, ignoring ASCII case. */
tui_find_result tui_tree_find(tui_tree *t, size_t from, const char *needle, tui_tree_text_fn text,
                              tui_tree_progress_fn progress, void *ctx, size_t *found);

/* Case-insensitive (ASCII) substring search: the offset, or -1. */
long tui_find_ci(const char *hay, const char *needle);

#endif
