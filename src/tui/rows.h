/* rows.c: what a tree view's node shows (decoded on first use and kept)
 * and contains (its children, read when it opens). */
#ifndef HEAPSCOPE_TUI_ROWS_H
#define HEAPSCOPE_TUI_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/status.h"
#include "tree_view.h"

typedef struct tui_app tui_app;

typedef struct tui_row {
    uint32_t type, size;
    uint8_t bar;      /* TUI_BAR_* */
    bool error;
    uint64_t era;
    char text[];      /* closure text, or why it could not be read */
} tui_row;
enum { TUI_BAR_NONE, TUI_BAR_ERA, TUI_BAR_LDV_USED, TUI_BAR_PLAIN };

/* What the tree callbacks below get as ctx. */
typedef struct tui_rows_ctx {
    tui_app *app;
    tui_tree_view *view;
} tui_rows_ctx;

const tui_row *tui_row_get(tui_app *app, tui_tree *t, tui_node_id id);
/* Decodes the rows [first, first + n) with batched requests. */
void tui_rows_prefetch(tui_app *app, tui_tree *t, size_t first, size_t n);
/* The children of a node (tui_tree_load_fn; ctx is a tui_rows_ctx). */
hs_status tui_rows_load(void *ctx, tui_tree *t, tui_node_id id, hs_error *err);
/* "label   module   srcloc" of a cost-centre stack (its own cost centre)
 * or of a cost centre; NULL with err set on failure. */
const char *tui_cc_text(tui_app *app, uint64_t addr, bool is_ccs, hs_error *err);
/* Whole text of a row for find-in-tree (ctx is a tui_rows_ctx). */
const char *tui_row_find_text(void *ctx, tui_tree *t, tui_node_id id);

#endif
