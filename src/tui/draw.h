/* draw.c: text, lines and boxes on the screen (over curses). */
#ifndef HEAPSCOPE_TUI_DRAW_H
#define HEAPSCOPE_TUI_DRAW_H



/* Writes UTF-8 text at (y, x) in at most `cols` columns with attr;
 * returns the columns used. Control bytes and invalid UTF-8 show as '?'. */
int tui_put(int y, int x, const char *text, int cols, int attr);
/* Fills cols cells with spaces in attr. */
void tui_fill(int y, int x, int cols, int attr);
/* Lines of n cells: Unicode in UTF-8, '-' and '|' otherwise. */
void tui_hline(int y, int x, int n, int attr);
void tui_vline(int y, int x, int n, int attr);
/* A box with a title, its inside cleared. */
void tui_box(int y, int x, int h, int w, const char *title, int attr);

#endif
