/* Escape sequences curses may leave undecoded (the terminfo entry does not
 * list them: tmux under TERM=screen sends xterm's ESC [1;3D for Alt-←),
 * and key names for the help overlay, the palette and the man page. */
#include "keys.h"

#include <stdio.h>
#include <string.h>

#include "tui_curses.h"

/* A CSI or SS3 sequence ends with a byte in 0x40..0x7e. */
static bool final_byte(int c) { return c >= 0x40 && c <= 0x7e; }

bool tui_keys_escape_complete(const int *seq, size_t n) {
    if (n == 0)
        return false;
    if (n >= 16)
        return true;
    int intro = seq[0];
    if (intro == TUI_KEY_ESC) /* ESC ESC [ D: an Alt-prefixed sequence */
        return n > 1 && tui_keys_escape_complete(seq + 1, n - 1);
    if (intro != '[' && intro != 'O')
        return true;
    return n > 1 && final_byte(seq[n - 1]);
}

/* Arrow and editing keys by their CSI/SS3 final byte. */
static int base_key(int final, int first_param) {
    switch (final) {
    case 'A': return KEY_UP;
    case 'B': return KEY_DOWN;
    case 'C': return KEY_RIGHT;
    case 'D': return KEY_LEFT;
    case 'H': return KEY_HOME;
    case 'F': return KEY_END;
    case 'd': return TUI_KEY_SHIFT_LEFT; /* rxvt */
    case '~':
        switch (first_param) {
        case 1: case 7: return KEY_HOME;
        case 3: return KEY_DC;
        case 4: case 8: return KEY_END;
        case 5: return KEY_PPAGE;
        case 6: return KEY_NPAGE;
        default: return TUI_KEY_NONE;
        }
    default: return TUI_KEY_NONE;
    }
}

/* ESC [ p1 ; p2 X (or ESC O p2 X): the key with xterm's modifier
 * parameter p2 = 1 + (shift 1 | alt 2 | ctrl 4 | meta 8). */
static int decode_csi(const int *seq, size_t n, bool alt) {
    int params[4] = {0, 0, 0, 0};
    size_t np = 0;
    bool digits = false;
    for (size_t i = 1; i + 1 < n; i++) {
        int c = seq[i];
        if (c >= '0' && c <= '9') {
            if (np < 4 && params[np] < 10000)
                params[np] = params[np] * 10 + (c - '0');
            digits = true;
        } else if (c == ';') {
            np++;
            digits = false;
        } else {
            return TUI_KEY_NONE; /* private or intermediate bytes: not ours */
        }
    }
    if (digits || np > 0)
        np++;
    int mods = np >= 2 && params[1] > 0 ? params[1] - 1 : 0;
    if (seq[0] == 'O' && np == 1) /* ESC O 3 D: some terminals' SS3 form */
        mods = params[0] > 0 ? params[0] - 1 : 0;
    int key = base_key(seq[n - 1], np >= 1 ? params[0] : 0);
    if (mods & (2 | 8))
        alt = true;
    if (key == KEY_LEFT && alt)
        return TUI_KEY_ALT_LEFT;
    if (key == KEY_RIGHT && alt)
        return TUI_KEY_ALT_RIGHT;
    if (key == KEY_LEFT && (mods & 1))
        return TUI_KEY_SHIFT_LEFT;
    return alt ? TUI_KEY_NONE : key;
}

int tui_keys_decode_escape(const int *seq, size_t n, size_t *used) {
    *used = 0;
    if (n == 0)
        return TUI_KEY_ESC;
    bool alt = false;
    const int *s = seq;
    size_t m = n;
    if (s[0] == TUI_KEY_ESC && m > 1) { /* ESC ESC ...: Alt plus a sequence */
        alt = true;
        s++;
        m--;
    }
    if (s[0] == KEY_LEFT || s[0] == KEY_RIGHT) { /* curses decoded the arrow after ESC */
        *used = (size_t)(s - seq) + 1;
        return s[0] == KEY_LEFT ? TUI_KEY_ALT_LEFT : TUI_KEY_ALT_RIGHT;
    }
    if (s[0] == '[' || s[0] == 'O') {
        size_t end = 1;
        while (end < m && !final_byte(s[end]))
            end++;
        if (end >= m) { /* cut short: drop it rather than type its bytes */
            *used = n;
            return TUI_KEY_NONE;
        }
        *used = (size_t)(s - seq) + end + 1;
        return decode_csi(s, end + 1, alt);
    }
    if (alt) { /* ESC ESC x: Esc, then the rest as keys */
        return TUI_KEY_ESC;
    }
    if (s[0] == 'b' || s[0] == 'f') { /* macOS terminals: Option-← / Option-→ */
        *used = 1;
        return s[0] == 'b' ? TUI_KEY_ALT_LEFT : TUI_KEY_ALT_RIGHT;
    }
    /* Esc typed just before another key: both count */
    return TUI_KEY_ESC;
}

bool tui_key_is_enter(int key) { return key == '\n' || key == '\r' || key == KEY_ENTER; }

bool tui_key_is_backspace(int key) { return key == KEY_BACKSPACE || key == 127 || key == 8; }

long tui_key_char(int key) {
    if (key >= 32 && key < 127)
        return key;
    if ((key & TUI_KEY_UNICODE) && (key & ~TUI_KEY_UNICODE) >= 0xa0)
        return key & ~TUI_KEY_UNICODE;
    return -1;
}

typedef struct named {
    int key;
    const char *utf8, *ascii;
} named;

static const named names[] = {
    {KEY_UP, "↑", "Up"},
    {KEY_DOWN, "↓", "Down"},
    {KEY_LEFT, "←", "Left"},
    {KEY_RIGHT, "→", "Right"},
    {TUI_KEY_ALT_LEFT, "Alt-←", "Alt-Left"},
    {TUI_KEY_ALT_RIGHT, "Alt-→", "Alt-Right"},
    {TUI_KEY_SHIFT_LEFT, "Shift-←", "Shift-Left"},
    {KEY_PPAGE, "PgUp", "PgUp"},
    {KEY_NPAGE, "PgDn", "PgDn"},
    {KEY_HOME, "Home", "Home"},
    {KEY_END, "End", "End"},
    {KEY_DC, "Del", "Del"},
    {KEY_BACKSPACE, "Backspace", "Backspace"},
    {KEY_ENTER, "Enter", "Enter"},
    {'\n', "Enter", "Enter"},
    {'\r', "Enter", "Enter"},
    {TUI_KEY_ESC, "Esc", "Esc"},
    {TUI_KEY_TAB, "Tab", "Tab"},
    {' ', "Space", "Space"},
    {KEY_F(5), "F5", "F5"},
};

const char *tui_key_name(int key, bool ascii, char *buf, size_t cap) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].key == key)
            return ascii ? names[i].ascii : names[i].utf8;
    if (key >= 1 && key <= 26)
        snprintf(buf, cap, ascii ? "Ctrl-%c" : "^%c", 'A' + key - 1);
    else if (key >= 33 && key < 127)
        snprintf(buf, cap, "%c", key);
    else
        snprintf(buf, cap, "key %d", key);
    return buf;
}
