/* Private helpers of the label files (label*.c). */
#ifndef HEAPSCOPE_LABEL_INTERNAL_H
#define HEAPSCOPE_LABEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"

/* A bounded output buffer: s[0..len) plus a NUL, len < cap (cap 0 = discard). */
typedef struct heap_lbuf {
    char *s;
    size_t cap;
    size_t len;
} heap_lbuf;

void heap_lbuf_put(heap_lbuf *b, const char *s, size_t n);
void heap_lbuf_puts(heap_lbuf *b, const char *s);
void heap_lbuf_printf(heap_lbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A code point as Haskell's `show` prints a Char: 'a', '\n', '\233'. */
void heap_lbuf_char_literal(heap_lbuf *b, uint64_t code_point);
/* Bytes (each one Char) as Haskell's `show` prints a String. */
void heap_lbuf_string_literal(heap_lbuf *b, const uint8_t *bytes, size_t n);
/* UTF-8 bytes (each character one Char, a byte of no valid sequence
 * U+FFFD) as Haskell's `show` prints the String: "caf\233". */
void heap_lbuf_utf8_literal(heap_lbuf *b, const uint8_t *bytes, size_t n);
/* A TSO's text: `TSO 7 "tier-worker-2": BlockedOnMVar` (h NULL: no label). */
void heap_lbuf_tso(heap_lbuf *b, heap *h, const heap_closure *c);
/* The name of a TSO why_blocked value (heap-layout.md §7). */
void heap_lbuf_why_blocked(heap_lbuf *b, uint32_t why);

#endif
