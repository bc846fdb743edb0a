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

typedef struct s_ind { /* IND, IND_STATIC, BLACKHOLE */
    uint64_t addr, target;
} s_ind;

typedef struct s_cell { /* (:) */
    uint64_t addr, head, tail;
    uint32_t size;
    bool matched;
} s_cell;

typedef struct s_char { /* C# */
    uint64_t addr;
    uint32_t cp, size;
    bool in_heap, claimed;
} s_char;

/* Address -> position + 1 in a list, sized once for the whole list (at
 * most half full), key and value side by side: one cache miss a probe. */
typedef struct addr_slot {
    uint64_t addr, pos;
} addr_slot;
typedef struct addr_index {
    addr_slot *slots; /* NULL until built */
    size_t mask;
} addr_index;

#define S_LIST(T) \
    struct {      \
        T *items; \
        size_t count, cap; \
        addr_index index; /* built after the traversal */ \
    }

typedef struct strings_collect {
    S_LIST(s_array) arrays;
    S_LIST(s_holder) holders;
    S_LIST(s_contents) contents;
    S_LIST(s_cell) cells;
    S_LIST(s_char) chars;
    S_LIST(s_ind) inds;
    u64map nils;
    u64map foreign; /* PlainForeignPtr, FinalPtr */
} strings_collect;

void strings_collect_free(strings_collect *s);
/* Where addr leads through the collected indirections (at most
 * STRINGS_MAX_HOPS; inds must be indexed): addr itself when it is none. */
uint64_t strings_follow(const strings_collect *s, uint64_t addr);

/* ---- grouping copies by value (strings_rows.c) ---- */
typedef struct grouping grouping;
/* Room for n bytes of a value made here; it never moves. NULL: no memory. */
uint8_t *strings_arena_take(grouping *g, size_t n);
/* Counts one copy of value v (kind: a QUERY_STRING_* bit); false: no memory. */
bool strings_add_copy(grouping *g, const uint8_t *v, uint64_t len, uint64_t bytes, uint64_t addr,
                      uint64_t array, unsigned kind);
bool strings_index_init(addr_index *ix, size_t n);
void strings_index_put(addr_index *ix, uint64_t addr, uint64_t pos);
uint64_t strings_index_get(const addr_index *ix, uint64_t addr);

/* ---- Strings from the (:) cells and C# boxes (strings_lists.c) ---- */
/* Counts every String (chars must be indexed); false: no memory. */
bool strings_add_lists(heap *h, strings_collect *s, grouping *g, query_strings *out);
/* Indexes the lists by address and turns them into rows (out is zeroed);
 * progress (optional) is asked between the phases, with 0, and may cancel. */
hs_status strings_rows_make(heap *h, strings_collect *s, query_strings *out,
                            query_progress_fn progress, void *progress_ctx, hs_error *err);

#endif
