/* The footer's line editor. */
#include <criterion/criterion.h>
#include <locale.h>
#include <string.h>

#include "../../src/tui/input.h"
#include "../../src/tui/keys.h"
#include "../../src/tui/tui_curses.h"

static void type(tui_input *in, const char *s) {
    for (; *s; s++)
        tui_input_key(in, (unsigned char)*s);
}

Test(tui_input, typing_and_cursor) {
    tui_input in;
    tui_input_clear(&in);
    type(&in, "Lek");
    cr_assert(tui_input_key(&in, KEY_LEFT));
    type(&in, "a");
    cr_assert_str_eq(in.text, "Leak");
    cr_assert_eq(in.cursor, 3);
    tui_input_key(&in, KEY_END);
    cr_assert_eq(in.cursor, 4);
    tui_input_key(&in, KEY_HOME);
    tui_input_key(&in, KEY_DC);
    cr_assert_str_eq(in.text, "eak");
}

Test(tui_input, backspace_and_kill) {
    tui_input in;
    tui_input_clear(&in);
    type(&in, "Leak");
    tui_input_key(&in, KEY_BACKSPACE);
    cr_assert_str_eq(in.text, "Lea");
    tui_input_key(&in, 127);
    cr_assert_str_eq(in.text, "Le");
    tui_input_key(&in, KEY_LEFT);
    tui_input_key(&in, TUI_CTRL('u'));
    cr_assert_str_eq(in.text, "e", "Ctrl-U kills back to the start");
    cr_assert_eq(in.cursor, 0);
    tui_input_key(&in, KEY_BACKSPACE);
    cr_assert_str_eq(in.text, "e", "nothing before the cursor");
}

Test(tui_input, a_default_is_replaced_by_the_first_key) {
    tui_input in;
    tui_input_clear(&in);
    tui_input_set_default(&in, "100");
    cr_assert(in.selected);
    type(&in, "5");
    cr_assert_str_eq(in.text, "5", "typing replaces the default, not appends to it");
    type(&in, "0");
    cr_assert_str_eq(in.text, "50", "then typing appends");

    tui_input_set_default(&in, "100");
    tui_input_key(&in, KEY_BACKSPACE);
    cr_assert_str_eq(in.text, "", "Backspace clears the default");
    tui_input_set_default(&in, "100");
    tui_input_key(&in, KEY_DC);
    cr_assert_str_eq(in.text, "", "Del clears the default");

    tui_input_set_default(&in, "100");
    tui_input_key(&in, KEY_LEFT);
    cr_assert_not(in.selected, "a cursor key keeps the default for editing");
    type(&in, "5");
    cr_assert_str_eq(in.text, "1050");

    tui_input_set(&in, "100");
    cr_assert_not(in.selected, "tui_input_set is no default");
    type(&in, "5");
    cr_assert_str_eq(in.text, "1005");
}

Test(tui_input, multibyte_characters_move_whole) {
    setlocale(LC_ALL, "C.UTF-8");
    tui_input in;
    tui_input_clear(&in);
    tui_input_key(&in, 'a');
    tui_input_key(&in, TUI_KEY_UNICODE | 0x221e); /* ∞ */
    tui_input_key(&in, 'b');
    cr_assert_str_eq(in.text, "a\xe2\x88\x9e" "b");
    tui_input_key(&in, KEY_LEFT);
    tui_input_key(&in, KEY_LEFT);
    cr_assert_eq(in.cursor, 1);
    tui_input_key(&in, KEY_RIGHT);
    cr_assert_eq(in.cursor, 4);
    tui_input_key(&in, KEY_BACKSPACE);
    cr_assert_str_eq(in.text, "ab");
    cr_assert_eq(tui_text_cols("a\xe2\x88\x9e" "b", 5), 3);
}

Test(tui_input, not_editing_keys_are_left_alone) {
    tui_input in;
    tui_input_clear(&in);
    cr_assert_not(tui_input_key(&in, '\n'));
    cr_assert_not(tui_input_key(&in, TUI_KEY_ESC));
    cr_assert_not(tui_input_key(&in, TUI_CTRL('g')));
}

Test(tui_input, full_buffer_stays_valid) {
    tui_input in;
    tui_input_clear(&in);
    for (int i = 0; i < 2 * TUI_INPUT_MAX; i++)
        tui_input_key(&in, 'x');
    cr_assert_eq(in.len, TUI_INPUT_MAX - 1);
    cr_assert_eq(strlen(in.text), in.len);
    tui_input_set(&in, "abc");
    cr_assert_str_eq(in.text, "abc");
    cr_assert_eq(in.cursor, 3);
}

Test(tui_input, text_fit_counts_columns) {
    setlocale(LC_ALL, "C.UTF-8");
    cr_assert_eq(tui_text_fit("abcdef", 4), 4);
    cr_assert_eq(tui_text_fit("abc", 10), 3);
    cr_assert_eq(tui_text_fit("\xe2\x88\x9e\xe2\x88\x9e", 1), 3, "whole characters");
    cr_assert_eq(tui_text_fit("abc", 0), 0);
}

Test(tui_input, word_wrap_cuts_at_the_last_space_that_fits) {
    cr_expect_eq(tui_text_wrap("abc defgh", 6), 3, "before the word that does not fit");
    cr_expect_eq(tui_text_wrap("ab cd efgh", 5), 5, "a word that ends at the edge");
    cr_expect_eq(tui_text_wrap("abc", 10), 3, "all of a short text");
    cr_expect_eq(tui_text_wrap("abcdefgh ij", 4), 4, "a word longer than the line is cut");
    cr_expect_eq(tui_text_wrap(" abcdefgh", 4), 4, "no empty line for a leading space");
    cr_expect_eq(tui_text_wrap("abc def", 0), 0);
}
