/* Pieces of the strings analysis and the value filter (private to src/query). */
#ifndef HEAPSCOPE_QUERY_STRINGS_INTERNAL_H
#define HEAPSCOPE_QUERY_STRINGS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/query.h"

/* What a closure is to the analysis, from its info table alone. */
typedef enum strings_role {
    ROLE_NONE,
    ROLE_BYTES,    /* ARR_WORDS */
    ROLE_TEXT8,    /* text 2.x Text: array, byte offset, byte length */
    ROLE_TEXT16,   /* text 1.x Text: array, offset and length in UTF-16 units */
    ROLE_BS,       /* bytestring 0.11+ BS: contents; Addr#, length */
    ROLE_PS,       /* bytestring 0.10 PS: contents; Addr#, offset, length */
    ROLE_CONTENTS, /* PlainPtr / MallocPtr: its first pointer is the array */
    ROLE_FOREIGN,  /* PlainForeignPtr / FinalPtr: bytes outside the GHC heap */
    ROLE_CONS,     /* (:) */
    ROLE_CHAR,     /* C# */
    ROLE_NIL,      /* [] */
    ROLE_IND       /* IND, IND_STATIC, BLACKHOLE: an evaluated thunk's value is
                      its indirectee (a BLACKHOLE under evaluation points to a
                      TSO or BLOCKING_QUEUE instead) */
} strings_role;

/* Indirections followed in a row to reach a value: GHC makes chains of
 * one or two; more is a cycle or a hostile heap, and nothing is read. */
#define STRINGS_MAX_HOPS 8

strings_role strings_role_of(const heap_info *info);

/* Roles remembered per info pointer (direct-mapped: a miss recomputes). */
#define STRINGS_ROLE_SLOTS 512
typedef struct strings_roles {
    uint64_t keys[STRINGS_ROLE_SLOTS];
    uint8_t vals[STRINGS_ROLE_SLOTS];
} strings_roles;
strings_role strings_roles_get(strings_roles *r, const heap_info *info);
/* The remembered role of info pointer ptr; false when it is not there. */
bool strings_roles_peek(const strings_roles *r, uint64_t ptr, strings_role *out);

/* The bytes [*off, *off + *len) of arr's payload that the Text or
 * ByteString c (role) designates; for a ByteString, arr is the array under
 * its contents. False when the slice is not inside the array. For
 * ROLE_TEXT16 the bytes are UTF-16LE. */
bool strings_slice(const heap *h, strings_role role, const uint64_t *words, size_t n_words,
                   const heap_closure *arr, uint64_t *off, uint64_t *len);

/* UTF-8 of a code point (surrogates too, so no Char is lost); 0 for a
 * value above U+10FFFF. */
size_t strings_utf8(uint32_t cp, uint8_t out[4]);
/* UTF-16LE -> UTF-8 (an unpaired surrogate becomes U+FFFD); dst holds at
 * least 3 bytes per unit. Returns the bytes written. */
size_t strings_utf16_to_utf8(const uint8_t *src, size_t units, uint8_t *dst);

/* The value filter (filter_value.c). */
typedef struct strings_value_filter strings_value_filter;
hs_status strings_value_filter_new(const char *text, strings_value_filter **out, hs_error *err);
void strings_value_filter_free(strings_value_filter *f);
/* Forgets what it learnt of info tables (before matching on another heap). */
void strings_value_filter_forget(strings_value_filter *f);
/* Whether c is a string or byte array whose value is the filter's. */
hs_status strings_value_filter_match(strings_value_filter *f, heap *h, const heap_closure *c,
                                     bool *out, hs_error *err);

#endif
