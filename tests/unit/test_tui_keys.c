/* Escape sequences curses leaves undecoded, and key names. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../src/tui/keys.h"
#include "../../src/tui/tui_curses.h"

static int decode(const char *s, size_t *used) {
    int seq[16];
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        seq[i] = (unsigned char)s[i];
    return tui_keys_decode_escape(seq, n, used);
}

Test(tui_keys, plain_escape) {
    size_t used;
    cr_assert_eq(tui_keys_decode_escape(NULL, 0, &used), TUI_KEY_ESC);
    cr_assert_eq(used, 0);
}

Test(tui_keys, xterm_modifiers) {
    size_t used;
    cr_assert_eq(decode("[1;3D", &used), TUI_KEY_ALT_LEFT);
    cr_assert_eq(used, 5);
    cr_assert_eq(decode("[1;3C", &used), TUI_KEY_ALT_RIGHT);
    cr_assert_eq(decode("[1;9D", &used), TUI_KEY_ALT_LEFT, "meta counts as alt");
    cr_assert_eq(decode("[1;2D", &used), TUI_KEY_SHIFT_LEFT);
    cr_assert_eq(decode("[1;5D", &used), KEY_LEFT, "ctrl-left is just left here");
    cr_assert_eq(decode("O3D", &used), TUI_KEY_ALT_LEFT);
}

Test(tui_keys, esc_prefixed_arrows) {
    size_t used;
    cr_assert_eq(decode("\033[D", &used), TUI_KEY_ALT_LEFT);
    cr_assert_eq(used, 3);
    cr_assert_eq(decode("\033[C", &used), TUI_KEY_ALT_RIGHT);
    int seq[] = {KEY_LEFT};
    cr_assert_eq(tui_keys_decode_escape(seq, 1, &used), TUI_KEY_ALT_LEFT);
    cr_assert_eq(used, 1);
    seq[0] = KEY_RIGHT;
    cr_assert_eq(tui_keys_decode_escape(seq, 1, &used), TUI_KEY_ALT_RIGHT);
    cr_assert_eq(decode("b", &used), TUI_KEY_ALT_LEFT, "Option-Left on macOS terminals");
    cr_assert_eq(decode("[d", &used), TUI_KEY_SHIFT_LEFT, "rxvt");
}

Test(tui_keys, undecoded_plain_keys) {
    size_t used;
    cr_assert_eq(decode("[D", &used), KEY_LEFT);
    cr_assert_eq(decode("[5~", &used), KEY_PPAGE);
    cr_assert_eq(decode("[6~", &used), KEY_NPAGE);
    cr_assert_eq(decode("OH", &used), KEY_HOME);
    cr_assert_eq(decode("[F", &used), KEY_END);
}

Test(tui_keys, escape_then_a_key_keeps_the_key) {
    size_t used;
    cr_assert_eq(decode("q", &used), TUI_KEY_ESC);
    cr_assert_eq(used, 0, "q is a key of its own");
    cr_assert_eq(decode("\033", &used), TUI_KEY_ESC);
    cr_assert_eq(used, 0, "Esc Esc: two Escs");
}

Test(tui_keys, unknown_sequences_are_swallowed) {
    size_t used;
    cr_assert_eq(decode("[200~", &used), TUI_KEY_NONE);
    cr_assert_eq(used, 5, "never typed as text");
    cr_assert_eq(decode("[1;3", &used), TUI_KEY_NONE, "cut short");
    cr_assert_eq(used, 4);
    cr_assert_eq(decode("[1;3A", &used), TUI_KEY_NONE, "alt-up means nothing to us");
}

Test(tui_keys, completeness) {
    int seq[8] = {'[', '1', ';', '3'};
    cr_assert_not(tui_keys_escape_complete(seq, 0));
    cr_assert_not(tui_keys_escape_complete(seq, 1));
    cr_assert_not(tui_keys_escape_complete(seq, 4));
    seq[4] = 'D';
    cr_assert(tui_keys_escape_complete(seq, 5));
    int q[] = {'q'};
    cr_assert(tui_keys_escape_complete(q, 1));
    int esc[] = {27, '[', 'D'};
    cr_assert_not(tui_keys_escape_complete(esc, 1));
    cr_assert_not(tui_keys_escape_complete(esc, 2));
    cr_assert(tui_keys_escape_complete(esc, 3));
}

Test(tui_keys, names) {
    char buf[32];
    cr_assert_str_eq(tui_key_name(TUI_CTRL('e'), true, buf, sizeof buf), "Ctrl-E");
    cr_assert_str_eq(tui_key_name(TUI_CTRL('e'), false, buf, sizeof buf), "^E");
    cr_assert_str_eq(tui_key_name(TUI_KEY_ALT_LEFT, true, buf, sizeof buf), "Alt-Left");
    cr_assert_str_eq(tui_key_name(TUI_KEY_ALT_LEFT, false, buf, sizeof buf), "Alt-←");
    cr_assert_str_eq(tui_key_name(KEY_UP, true, buf, sizeof buf), "Up");
    cr_assert_str_eq(tui_key_name('\n', true, buf, sizeof buf), "Enter");
    cr_assert_str_eq(tui_key_name('G', true, buf, sizeof buf), "G");
    cr_assert_str_eq(tui_key_name('?', true, buf, sizeof buf), "?");
}

Test(tui_keys, classes) {
    cr_assert(tui_key_is_enter('\r'));
    cr_assert(tui_key_is_enter(KEY_ENTER));
    cr_assert(tui_key_is_backspace(127));
    cr_assert_eq(tui_key_char('a'), 'a');
    cr_assert_eq(tui_key_char(TUI_KEY_UNICODE | 0xe9), 0xe9);
    cr_assert_eq(tui_key_char(KEY_LEFT), -1);
    cr_assert_eq(tui_key_char(TUI_CTRL('a')), -1);
}
