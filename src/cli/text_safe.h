/* Text from outside (a debuggee, a snapshot, the cache, a socket's or a
 * file's name) made safe to reach a terminal (private to src/cli). Batch
 * output goes through it as a whole (output.c filters stdout and stderr),
 * so no printer can forget it: control characters (C0, DEL, C1) and bytes
 * that are not UTF-8 are shown as visible escapes; printable UTF-8, tab and
 * newline pass unchanged. */
#ifndef HEAPSCOPE_CLI_TEXT_SAFE_H
#define HEAPSCOPE_CLI_TEXT_SAFE_H

#include <stddef.h>
#include <stdint.h>

/* The length of the UTF-8 sequence at p (of n bytes) with its code point
 * in *cp; 0 when p starts no valid sequence (overlong, surrogate, past
 * U+10FFFF, a stray byte); -1 when the n bytes are a valid start of one
 * that is cut. */
int cli_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* A stream of text cut into pieces anywhere: a UTF-8 sequence cut between
 * two pieces is held back until the next. */
typedef struct cli_safe_stream {
    unsigned char held[4];
    size_t n_held;
} cli_safe_stream;

/* The most a piece of n bytes can become. */
#define CLI_SAFE_OUT_MAX(n) (6 * ((n) + 4))

/* Appends the safe form of in[0..n) to out (CLI_SAFE_OUT_MAX(n) bytes);
 * returns how many bytes it wrote. */
size_t cli_safe_piece(cli_safe_stream *s, const void *in, size_t n, char *out);

/* The bytes still held back (a cut sequence at the very end), escaped. */
size_t cli_safe_end(cli_safe_stream *s, char *out);

#endif
