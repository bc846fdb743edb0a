/* Key codes beyond curses' own and the escape sequences that carry them
 * (pure: no terminal needed, so unit tests cover every encoding). */
#ifndef HEAPSCOPE_TUI_KEYS_H
#define HEAPSCOPE_TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "heapscope/tui.h"

#define TUI_KEY_ESC 27
#define TUI_KEY_TAB 9
#define TUI_CTRL(c) ((c) & 0x1f)
/* Characters beyond ASCII arrive as TUI_KEY_UNICODE | code point, so they
 * can never be mistaken for a curses KEY_* code. */
#define TUI_KEY_UNICODE 0x40000000

/* True once the codes read after an ESC form a whole sequence (or can
 * never become one), so the reader stops waiting for more. */
bool tui_keys_escape_complete(const int *seq, size_t n);
/* The key meant by ESC followed by seq[0..n): Esc itself (n = 0),
 * Alt-←/→ as ESC-prefixed arrows or xterm modifier sequences (ESC [1;3D),
 * Shift-← (ESC [1;2D, rxvt ESC [d), and plain keys of terminals curses did
 * not know. *used says how many codes belong to it; the rest are keys of
 * their own. TUI_KEY_NONE for a sequence that means nothing to us. */
int tui_keys_decode_escape(const int *seq, size_t n, size_t *used);

/* Enter in any of its forms. */
bool tui_key_is_enter(int key);
bool tui_key_is_backspace(int key);
/* The code point of a printable character key, else -1. */
long tui_key_char(int key);

/* A key for people: "↑" or "Up", "^E" or "Ctrl-E", "Alt-←", "PgDn",
 * "Enter", "q". ascii picks the plain forms (man page, ASCII terminals). */
const char *tui_key_name(int key, bool ascii, char *buf, size_t cap);

#endif
