/* Putting text on the screen: UTF-8 cut to a number of columns (never in
 * the middle of a character, never past the edge), filled runs and boxes. */
#include <string.h>
#include <wchar.h>

#include "draw.h"
#include "heapscope/tui.h"
#include "term.h"
#include "tui_curses.h"

#define PUT_MAX 1024

int tui_put(int y, int x, const char *text, int cols, int attr) {
    if (!text || y < 0 || y >= LINES || x < 0 || x >= COLS)
        return 0;
    if (cols > COLS - x)
        cols = COLS - x;
    wchar_t w[PUT_MAX];
    int n = 0, used = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t len = strlen(text), i = 0;
    while (i < len && n < PUT_MAX - 1) {
        wchar_t wc;
        size_t r = mbrtowc(&wc, text + i, len - i, &st);
        if (r == (size_t)-1 || r == (size_t)-2) {
            memset(&st, 0, sizeof st);
            wc = L'?';
            r = 1;
        }
        int cw = wcwidth(wc);
        if (cw < 0 || wc < 32) {
            wc = L'?';
            cw = 1;
        }
        if (used + cw > cols)
            break;
        w[n++] = wc;
        used += cw;
        i += r;
    }
    w[n] = 0;
    if (n == 0)
        return 0;
    attrset(attr);
    mvaddnwstr(y, x, w, n);
    attrset(A_NORMAL);
    return used;
}

void tui_fill(int y, int x, int cols, int attr) {
    if (y < 0 || y >= LINES || x < 0 || x >= COLS || cols <= 0)
        return;
    if (cols > COLS - x)
        cols = COLS - x;
    attrset(attr);
    mvhline(y, x, ' ', cols);
    attrset(A_NORMAL);
}

/* Line drawing: curses' own in UTF-8 (drawn as Unicode), plain ASCII
 * otherwise, so that no terminal shows the alternate charset's letters. */
static chtype line_char(chtype acs, char ascii) {
    return tui_term_caps_get()->utf8 ? acs : (chtype)ascii;
}

void tui_hline(int y, int x, int n, int attr) {
    if (n <= 0)
        return;
    attrset(attr);
    mvhline(y, x, line_char(ACS_HLINE, '-'), n);
    attrset(A_NORMAL);
}

void tui_vline(int y, int x, int n, int attr) {
    if (n <= 0)
        return;
    attrset(attr);
    mvvline(y, x, line_char(ACS_VLINE, '|'), n);
    attrset(A_NORMAL);
}

void tui_box(int y, int x, int h, int w, const char *title, int attr) {
    if (h < 2 || w < 2)
        return;
    for (int r = 0; r < h; r++)
        tui_fill(y + r, x, w, attr);
    tui_hline(y, x + 1, w - 2, attr);
    tui_hline(y + h - 1, x + 1, w - 2, attr);
    tui_vline(y + 1, x, h - 2, attr);
    tui_vline(y + 1, x + w - 1, h - 2, attr);
    attrset(attr);
    mvaddch(y, x, line_char(ACS_ULCORNER, '+'));
    mvaddch(y, x + w - 1, line_char(ACS_URCORNER, '+'));
    mvaddch(y + h - 1, x, line_char(ACS_LLCORNER, '+'));
    mvaddch(y + h - 1, x + w - 1, line_char(ACS_LRCORNER, '+'));
    attrset(A_NORMAL);
    if (title && *title) {
        tui_put(y, x + 2, " ", 1, attr);
        int n = tui_put(y, x + 3, title, w - 6, attr | A_BOLD);
        tui_put(y, x + 3 + n, " ", 1, attr);
    }
}
