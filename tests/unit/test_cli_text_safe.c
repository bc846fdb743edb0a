/* The filter every byte of batch output passes (src/cli/text_safe.c):
 * what a terminal would obey becomes a visible escape, whatever the pieces
 * the stream is cut into. */
#include <criterion/criterion.h>
#include <string.h>

#include "../../src/cli/text_safe.h"

/* in made safe, written in pieces of `piece` bytes. */
static void safe(const char *in, size_t piece, char *out) {
    cli_safe_stream s = {0};
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n; i += piece)
        o += cli_safe_piece(&s, in + i, n - i < piece ? n - i : piece, out + o);
    o += cli_safe_end(&s, out + o);
    out[o] = 0;
}

static void expect(const char *in, const char *want) {
    char out[CLI_SAFE_OUT_MAX(256)];
    for (size_t piece = 1; piece <= strlen(in) + 1; piece++) {
        safe(in, piece, out);
        cr_expect_str_eq(out, want, "in pieces of %zu", piece);
    }
}

Test(text_safe, printable_utf8_tab_and_newline_pass) {
    expect("caf\xc3\xa9 \xe2\x94\x80\t\xf0\x9f\x98\x80\n", "caf\xc3\xa9 \xe2\x94\x80\t\xf0\x9f\x98\x80\n");
}

Test(text_safe, escapes_and_c0_become_visible) {
    expect("\x1b]0;pwned\x07\x1b[2J\r\x7f", "\\e]0;pwned\\x07\\e[2J\\r\\x7f");
}

Test(text_safe, c1_code_points_become_visible) {
    expect("a\xc2\x85" "b\xc2\x9b", "a\\u0085b\\u009b");
}

Test(text_safe, bytes_that_are_not_utf8_become_visible) {
    expect("\x9b[2J", "\\x9b[2J");                   /* a raw C1 byte */
    expect("\xc0\xaf", "\\xc0\\xaf");                /* overlong */
    expect("\xed\xa0\x80", "\\xed\\xa0\\x80");       /* a surrogate */
    expect("\xe2\x94" "x", "\\xe2\\x94x");           /* cut by another character */
    expect("end\xe2\x94", "end\\xe2\\x94");          /* cut by the end */
    expect("\xf0\x9f\x1b", "\\xf0\\x9f\\e");
}
