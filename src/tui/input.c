/* Line editing on UTF-8 text: the cursor only ever stops on the first
 * byte of a character, so a multi-byte character is inserted, skipped and
 * deleted whole. */
#include "input.h"

#include <string.h>
#include <wchar.h>

#include "keys.h"
#include "tui_curses.h"

void tui_input_clear(tui_input *in) {
    in->text[0] = 0;
    in->len = in->cursor = 0;
    in->selected = false;
}

void tui_input_set(tui_input *in, const char *text) {
    size_t n = strlen(text);
    if (n >= TUI_INPUT_MAX)
        n = TUI_INPUT_MAX - 1;
    while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80) /* don't cut a character */
        n--;
    memcpy(in->text, text, n);
    in->text[n] = 0;
    in->len = in->cursor = n;
    in->selected = false;
}

void tui_input_set_default(tui_input *in, const char *text) {
    tui_input_set(in, text);
    in->selected = in->len > 0;
}

static bool continuation(unsigned char c) { return (c & 0xc0) == 0x80; }

static size_t prev_char(const tui_input *in, size_t at) {
    if (at == 0)
        return 0;
    at--;
    while (at > 0 && continuation((unsigned char)in->text[at]))
        at--;
    return at;
}

static size_t next_char(const tui_input *in, size_t at) {
    if (at >= in->len)
        return in->len;
    at++;
    while (at < in->len && continuation((unsigned char)in->text[at]))
        at++;
    return at;
}

static void cut(tui_input *in, size_t from, size_t to) {
    memmove(in->text + from, in->text + to, in->len - to + 1);
    in->len -= to - from;
    if (in->cursor > to)
        in->cursor -= to - from;
    else if (in->cursor > from)
        in->cursor = from;
}

static size_t utf8_encode(long cp, char *out) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static void insert(tui_input *in, long cp) {
    char enc[4];
    size_t n = utf8_encode(cp, enc);
    if (in->len + n >= TUI_INPUT_MAX)
        return; /* full: the key is swallowed, nothing breaks */
    memmove(in->text + in->cursor + n, in->text + in->cursor, in->len - in->cursor + 1);
    memcpy(in->text + in->cursor, enc, n);
    in->len += n;
    in->cursor += n;
}

bool tui_input_key(tui_input *in, int key) {
    long cp = tui_key_char(key);
    bool was_selected = in->selected;
    in->selected = false; /* any key ends the selection; these replace it */
    if (was_selected && ((cp >= 0 && cp <= 0x10ffff) || tui_key_is_backspace(key) ||
                         key == KEY_DC || key == TUI_CTRL('d')))
        tui_input_clear(in);
    if (was_selected && (tui_key_is_backspace(key) || key == KEY_DC || key == TUI_CTRL('d')))
        return true;
    if (cp >= 0 && cp <= 0x10ffff) {
        insert(in, cp);
        return true;
    }
    if (tui_key_is_backspace(key)) {
        cut(in, prev_char(in, in->cursor), in->cursor);
        return true;
    }
    switch (key) {
    case KEY_LEFT: in->cursor = prev_char(in, in->cursor); return true;
    case KEY_RIGHT: in->cursor = next_char(in, in->cursor); return true;
    case KEY_HOME: case TUI_CTRL('a'): in->cursor = 0; return true;
    case KEY_END: case TUI_CTRL('e'): in->cursor = in->len; return true;
    case KEY_DC: case TUI_CTRL('d'): cut(in, in->cursor, next_char(in, in->cursor)); return true;
    case TUI_CTRL('u'): cut(in, 0, in->cursor); return true;
    case TUI_CTRL('k'): cut(in, in->cursor, in->len); return true;
    default: return false;
    }
}

int tui_text_cols(const char *s, size_t len) {
    mbstate_t st;
    memset(&st, 0, sizeof st);
    int cols = 0;
    size_t i = 0;
    while (i < len) {
        wchar_t wc;
        size_t r = mbrtowc(&wc, s + i, len - i, &st);
        if (r == 0)
            break;
        if (r == (size_t)-1 || r == (size_t)-2) {
            memset(&st, 0, sizeof st);
            cols++;
            i++;
            continue;
        }
        int w = wcwidth(wc);
        cols += w > 0 ? w : 0;
        i += r;
    }
    return cols;
}

size_t tui_text_wrap(const char *s, int cols) {
    size_t n = tui_text_fit(s, cols);
    if (s[n] == '\0' || s[n] == ' ')
        return n;
    for (size_t k = n - (n > 0); k > 0; k--) /* the last space that fits, not a leading one */
        if (s[k] == ' ')
            return k;
    return n; /* one word longer than the line: cut it */
}

size_t tui_text_fit(const char *s, int cols) {
    if (cols <= 0)
        return 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t len = strlen(s), i = 0;
    int used = 0;
    while (i < len) {
        wchar_t wc;
        size_t r = mbrtowc(&wc, s + i, len - i, &st);
        int w = 1;
        if (r == (size_t)-1 || r == (size_t)-2) {
            memset(&st, 0, sizeof st);
            r = 1;
        } else {
            w = wcwidth(wc) > 0 ? wcwidth(wc) : 0;
        }
        if (used + w > cols && i > 0)
            break;
        used += w;
        i += r;
        if (used >= cols)
            break;
    }
    return i;
}

int tui_input_cursor_cols(const tui_input *in) { return tui_text_cols(in->text, in->cursor); }
