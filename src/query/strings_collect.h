/* What the strings traversal collects (strings.c) and the grouping reads
 * (strings_rows.c): every closure the analysis may need, in breadth-first
 * order, with whether it matched the filters. */
#ifndef HEAPSCOPE_QUERY_STRINGS_COLLECT_H
#define HEAPSCOPE_QUERY_STRINGS_COLLECT_H

#include "heapscope/u64map.h"
#include "strings_internal.h"

typedef struct s_array {
    uint64_t addr;
    const uint8_t *bytes; /* the payload, valid while the heap is unchanged */
    uint64_t len;
    uint32_t size;
    bool matched, claimed;
} s_array;

typedef struct s_holder { /* Text, BS, PS */
    uint64_t addr, target; /* target: the array (Text) or the contents (BS/PS) */
    uint64_t words[3];
    uint32_t size;
    uint8_t role;
    bool matched;
} s_holder;

typedef struct s_contents { /* PlainPtr, MallocPtr */
    uint64_t addr, array;
    uint32_t size;
    bool claimed;
} s_contents;

typedef struct s_cell { /* (:) */
    uint64_t addr, head, tail;
    uint32_t size;
    uint32_t chars; /* String length from here (saturating), once known */
    uint32_t ch;    /* its head's position in chars + 1; 0: the head is no C# */
    uint8_t state;  /* strings_rows.c */
    bool matched, is_tail, claimed;
} s_cell;

typedef struct s_char { /* C# */
    uint64_t addr;
    uint32_t cp, size;
    bool in_heap, claimed;
} s_char;

#define S_LIST(T) \
    struct {      \
        T *items; \
        size_t count, cap; \
        u64map index; /* addr -> position + 1 (built after the traversal) */ \
    }

typedef struct strings_collect {
    S_LIST(s_array) arrays;
    S_LIST(s_holder) holders;
    S_LIST(s_contents) contents;
    S_LIST(s_cell) cells;
    S_LIST(s_char) chars;
    u64map nils;
} strings_collect;

void strings_collect_free(strings_collect *s);
/* Indexes the lists by address and turns them into rows (out is zeroed). */
hs_status strings_rows_make(heap *h, strings_collect *s, query_strings *out, hs_error *err);

#endif
