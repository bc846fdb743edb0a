/* details.c: the details pane of a tree view's selected node. */
#ifndef HEAPSCOPE_TUI_DETAILS_H
#define HEAPSCOPE_TUI_DETAILS_H

#include "tree_view.h"

typedef struct tui_app tui_app;

/* The details of node id of view v in the box at (y, x), h rows by w columns. */
void tui_details_draw(tui_app *app, tui_tree_view *v, tui_node_id id, int y, int x, int h, int w);
/* Rows the details pane wants at width w (for the layout). */
int tui_details_height(tui_app *app, tui_tree_view *v, tui_node_id id, int w);
/* Drops what the pane remembers of a node whose reading was cut short. */
void tui_details_forget(void);

#endif
