/* ncursesw with its wide-character API (get_wch, cchar_t). */
#ifndef HEAPSCOPE_TUI_CURSES_H
#define HEAPSCOPE_TUI_CURSES_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>

#endif
