/* The footer's input line: UTF-8 text with a cursor, edited by keys
 * (←→, Home/End, Backspace, Del, Ctrl-U). Pure, for unit tests. */
#ifndef HEAPSCOPE_TUI_INPUT_H
#define HEAPSCOPE_TUI_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#define TUI_INPUT_MAX 512

typedef struct tui_input {
    char text[TUI_INPUT_MAX]; /* always NUL-terminated, valid UTF-8 */
    size_t len;               /* bytes */
    size_t cursor;            /* byte offset, on a character boundary */
    bool selected;            /* the text is a pre-filled default: the first
                                 character typed replaces it, Backspace or
                                 Del clears it, a cursor key keeps it */
} tui_input;

void tui_input_clear(tui_input *in);
void tui_input_set(tui_input *in, const char *text);
/* Pre-fills a default, selected (see tui_input.selected). */
void tui_input_set_default(tui_input *in, const char *text);
/* Applies an editing key; false when the key is not an editing key (the
 * caller handles Enter, Esc, Ctrl-G...). */
bool tui_input_key(tui_input *in, int key);
/* Columns the text before the cursor takes (for placing the cursor). */
int tui_input_cursor_cols(const tui_input *in);

/* Display columns of UTF-8 text (invalid bytes count one each). */
int tui_text_cols(const char *s, size_t len);
/* How many bytes of s fit in cols columns, whole characters only (at
 * least one character when cols > 0, so that wrapping always advances). */
size_t tui_text_fit(const char *s, int cols);
/* The same, but a line of text ends at the last space that fits when the
 * next word would not (word wrap); the caller skips the spaces after it. */
size_t tui_text_wrap(const char *s, int cols);

#endif
