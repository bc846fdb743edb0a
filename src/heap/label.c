/* The texts ghc-debug-brick shows (retainers-and-eras.md §6.2, §6.3) and
 * census keys (heap-layout.md §11.3), except that threads and stacks say
 * more: a TSO its id and label (label_thread.c), a STACK its words in
 * use. Pointers print as 0x + lowercase hex or `null`; non-pointer words
 * in unsigned decimal, except a constructor's word that is an address of
 * this heap (known_address), in hex. Output is always NUL-terminated and
 * silently cut at the buffer's capacity. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "heap_internal.h"
#include "heapscope/closure_type.h"
#include "label_internal.h"

#define MAX_ARRAY_SHOWN 20   /* elements, then "(and more)" */
#define MAX_BYTES_SHOWN 64   /* ARR_WORDS payload bytes, then "..." */

/* ---- output buffer --------------------------------------------------- */

void heap_lbuf_put(heap_lbuf *b, const char *s, size_t n) {
    if (b->cap == 0)
        return;
    size_t room = b->cap - 1 - b->len;
    if (n > room)
        n = room;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void heap_lbuf_puts(heap_lbuf *b, const char *s) { heap_lbuf_put(b, s, strlen(s)); }

void heap_lbuf_printf(heap_lbuf *b, const char *fmt, ...) {
    if (b->cap == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - 1 - b->len;
}

static void put_addr(heap_lbuf *b, uint64_t a) {
    if (a)
        heap_lbuf_printf(b, "0x%" PRIx64, a);
    else
        heap_lbuf_puts(b, "null");
}

static void put_u64(heap_lbuf *b, uint64_t v) { heap_lbuf_printf(b, "%" PRIu64, v); }

/* ---- fields ---------------------------------------------------------- */

/* Walks a closure's non-frame edges of one kind in index order; a field
 * that has no edge was a null pointer. */
typedef struct field_cursor {
    const heap_closure *c;
    size_t next;
} field_cursor;

static uint64_t field_at(field_cursor *fc, uint16_t kind, uint32_t index) {
    const heap_closure *c = fc->c;
    while (fc->next < c->n_edges) {
        const heap_edge *e = &c->edges[fc->next];
        if (e->kind == kind && e->frame == HEAP_EDGE_NO_FRAME && e->index >= index) {
            if (e->index > index)
                return 0;
            fc->next++;
            return e->addr;
        }
        fc->next++;
    }
    return 0;
}

/* The first non-frame edge of a kind, 0 when absent (null). */
static uint64_t edge_of(const heap_closure *c, uint16_t kind) {
    for (size_t i = 0; i < c->n_edges; i++)
        if (c->edges[i].kind == kind && c->edges[i].frame == HEAP_EDGE_NO_FRAME)
            return c->edges[i].addr;
    return 0;
}

/* The reference's `app`: items joined by spaces; a lone item gets "()". */
typedef struct app {
    heap_lbuf *b;
    unsigned n;
} app;

static heap_lbuf *app_item(app *a) {
    if (a->n++ > 0)
        heap_lbuf_put(a->b, " ", 1);
    return a->b;
}

static void app_end(app *a) {
    if (a->n == 1)
        heap_lbuf_puts(a->b, "()");
}

/* Pointer fields (edges of `kind`, `ptrs` of them) then data words, each
 * as one app item. */
static void app_fields(app *a, const heap_closure *c, uint16_t kind, uint32_t ptrs) {
    field_cursor fc = {c, 0};
    for (uint32_t i = 0; i < ptrs; i++)
        put_addr(app_item(a), field_at(&fc, kind, i));
    for (size_t i = 0; i < c->n_words; i++)
        put_u64(app_item(a), c->words[i]);
}

/* ---- per family ------------------------------------------------------ */

static bool is_tuple_name(const char *s) {
    size_t n = strlen(s);
    if (n < 3 || s[0] != '(' || s[n - 1] != ')')
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (s[i] != ',')
            return false;
    return true;
}

/* Whether a constructor's non-pointer word is an address this heap knows
 * (an Addr# into a pinned array, an RTS pointer kept as a word): in a
 * fetched block, in GHC's heap address range, a static closure read in
 * this pause, or within the span of the program's info pointers (its
 * code). Such a word is shown in hex, any other in decimal. */
static bool known_address(const heap *h, uint64_t w) {
    if (w >= HEAP_RANGE_LO && w <= HEAP_RANGE_HI)
        return true;
    if (!h || w == 0)
        return false;
    size_t len;
    return heap_in_blocks(h, w) || (h->info_hi != 0 && w >= h->info_lo && w <= h->info_hi) ||
           ((w & 7) == 0 && heap_memory_cached(h, w, &len) != NULL);
}

static void label_constructor(heap_lbuf *b, const heap *h, const heap_closure *c) {
    const heap_info *i = c->info;
    const char *name = i->con_name ? i->con_name : "?";
    bool types = i->con_package && i->con_module && strcmp(i->con_package, "ghc-prim") == 0 &&
                 strcmp(i->con_module, "GHC.Types") == 0;
    field_cursor fc = {c, 0};
    if (types && strcmp(name, "C#") == 0 && i->ptrs == 0 && c->n_words == 1) {
        heap_lbuf_puts(b, "C# ");
        heap_lbuf_char_literal(b, c->words[0]);
    } else if (types && strcmp(name, ":") == 0 && i->ptrs == 2 && c->n_words == 0) {
        put_addr(b, field_at(&fc, HEAP_EDGE_FIELD, 0));
        heap_lbuf_puts(b, " : ");
        put_addr(b, field_at(&fc, HEAP_EDGE_FIELD, 1));
    } else if (is_tuple_name(name) && c->n_words == 0) {
        heap_lbuf_puts(b, "(");
        for (uint32_t k = 0; k < i->ptrs; k++) {
            if (k > 0)
                heap_lbuf_puts(b, ",");
            put_addr(b, field_at(&fc, HEAP_EDGE_FIELD, k));
        }
        heap_lbuf_puts(b, ")");
    } else {
        app a = {b, 0};
        heap_lbuf_puts(app_item(&a), name);
        for (uint32_t k = 0; k < i->ptrs; k++)
            put_addr(app_item(&a), field_at(&fc, HEAP_EDGE_FIELD, k));
        for (size_t k = 0; k < c->n_words; k++) {
            if (known_address(h, c->words[k]))
                put_addr(app_item(&a), c->words[k]);
            else
                put_u64(app_item(&a), c->words[k]);
        }
        app_end(&a);
    }
}

/* The RTS's static reference tables are constructors SRT_<n> of no module:
 * named as what they are, with their closures. */
static void label_srt(heap_lbuf *b, const heap_closure *c) {
    app a = {b, 0};
    heap_lbuf_printf(app_item(&a), "%s (static reference table)", c->info->con_name);
    app_fields(&a, c, HEAP_EDGE_FIELD, c->info->ptrs);
}

/* "{ <srt> }" when the info table has an SRT. */
static void put_srt(heap_lbuf *b, const heap_closure *c) {
    if (c->info->srt) {
        heap_lbuf_puts(b, "{ ");
        put_addr(b, c->info->srt);
        heap_lbuf_puts(b, " }");
    }
}

/* The IPE name of a closure's info table without "_info" ("sat_s36E"),
 * asking SOURCE_INFO once per table when the heap is given; "" without
 * one (or when the source fails: the label is still a label). */
static void ipe_name(heap *h, const heap_closure *c, char *buf, size_t cap) {
    if (h) {
        const wire_source_info *ipe;
        hs_error ignored = {0};
        (void)heap_info_source(h, c->info, &ipe, &ignored);
    }
    heap_ipe_short_name(c->info, buf, cap);
}

/* A thunk or function: its IPE name where its info table has one, else
 * the reference's "_thunk" / "_fun". */
static void put_code_name(heap_lbuf *b, heap *h, const heap_closure *c, const char *plain) {
    char name[256];
    ipe_name(h, c, name, sizeof name);
    heap_lbuf_puts(b, name[0] ? name : plain);
}

static void label_thunk(heap_lbuf *b, heap *h, const heap_closure *c) {
    app a = {b, 0};
    put_code_name(app_item(&a), h, c, "_thunk");
    put_srt(b, c);
    app_fields(&a, c, HEAP_EDGE_ARG, c->info->ptrs);
    app_end(&a);
}

static void label_function(heap_lbuf *b, heap *h, const heap_closure *c) {
    put_code_name(b, h, c, "_fun");
    put_srt(b, c);
    uint32_t ptrs = c->info->ptrs;
    if (ptrs == 0 && c->n_words == 0)
        return;
    field_cursor fc = {c, 0};
    heap_lbuf_puts(b, "{");
    for (uint32_t i = 0; i < ptrs; i++) {
        if (i > 0)
            heap_lbuf_puts(b, ",");
        put_addr(b, field_at(&fc, HEAP_EDGE_ARG, i));
    }
    for (size_t i = 0; i < c->n_words; i++) {
        if (i > 0 || ptrs > 0)
            heap_lbuf_puts(b, ",");
        put_u64(b, c->words[i]);
    }
    heap_lbuf_puts(b, "}");
}

static void label_array(heap_lbuf *b, const heap_closure *c) {
    field_cursor fc = {c, 0};
    uint64_t shown = c->count < MAX_ARRAY_SHOWN ? c->count : MAX_ARRAY_SHOWN;
    heap_lbuf_puts(b, "[ ");
    for (uint32_t i = 0; i < shown; i++) {
        if (i > 0)
            heap_lbuf_puts(b, ", ");
        put_addr(b, field_at(&fc, HEAP_EDGE_ELEMENT, i));
    }
    if (c->count > shown)
        heap_lbuf_puts(b, ", (and more)");
    heap_lbuf_puts(b, " ]");
}

static void label_arr_words(heap_lbuf *b, const heap_closure *c) {
    heap_lbuf_printf(b, "ARR_WORDS (%" PRIu64 " bytes) ", c->count);
    size_t n = c->count < MAX_BYTES_SHOWN ? (size_t)c->count : MAX_BYTES_SHOWN;
    heap_lbuf_string_literal(b, c->bytes, n);
    if (c->count > n)
        heap_lbuf_puts(b, "...");
}

/* "<prefix> <pointer>" for the one-pointer closures. */
static void label_one(heap_lbuf *b, const char *prefix, uint64_t p) {
    heap_lbuf_puts(b, prefix);
    heap_lbuf_puts(b, " ");
    put_addr(b, p);
}

/* "Stack (4093 words, 60 used)": the stack area and its live part [sp, end). */
static void label_stack(heap_lbuf *b, const heap_closure *c) {
    uint64_t end = c->addr + c->size, used = c->sp && c->sp <= end ? (end - c->sp) / 8 : 0;
    heap_lbuf_printf(b, "Stack (%" PRIu64 " words, %" PRIu64 " used)", c->count, used);
}

void heap_closure_label(heap *h, const heap_closure *c, char *buf, size_t cap) {
    heap_lbuf lb = {buf, cap, 0}, *b = &lb;
    if (cap > 0)
        buf[0] = '\0';
    if (!c->info) {
        heap_lbuf_puts(b, "<not decoded>");
        return;
    }
    if (c->opaque) { /* "UNKNOWN_TYPE_70" for a type the debuggee's GHC has not */
        heap_lbuf_puts(b, hs_closure_type_name(c->type));
        return;
    }
    switch (c->type) {
    case HS_CONSTR: case HS_CONSTR_1_0: case HS_CONSTR_0_1: case HS_CONSTR_2_0:
    case HS_CONSTR_1_1: case HS_CONSTR_0_2: case HS_CONSTR_NOCAF:
        if (heap_info_is_srt(c->info))
            label_srt(b, c);
        else
            label_constructor(b, h, c);
        return;
    case HS_THUNK: case HS_THUNK_1_0: case HS_THUNK_0_1: case HS_THUNK_2_0:
    case HS_THUNK_1_1: case HS_THUNK_0_2: case HS_THUNK_STATIC:
        label_thunk(b, h, c);
        return;
    case HS_FUN: case HS_FUN_1_0: case HS_FUN_0_1: case HS_FUN_2_0: case HS_FUN_1_1:
    case HS_FUN_0_2: case HS_FUN_STATIC:
        label_function(b, h, c);
        return;
    case HS_THUNK_SELECTOR: label_one(b, "_sel", edge_of(c, HEAP_EDGE_SELECTEE)); return;
    case HS_IND: case HS_IND_STATIC:
        label_one(b, "_ind", edge_of(c, HEAP_EDGE_INDIRECTEE));
        return;
    case HS_BLACKHOLE: label_one(b, "_bh", edge_of(c, HEAP_EDGE_INDIRECTEE)); return;
    case HS_AP: case HS_PAP: case HS_AP_STACK:
        put_addr(b, edge_of(c, HEAP_EDGE_FUNCTION));
        heap_lbuf_puts(b, "()");
        return;
    case HS_BCO: label_one(b, "_bco", edge_of(c, HEAP_EDGE_BCO_PTRS)); return;
    case HS_ARR_WORDS: label_arr_words(b, c); return;
    case HS_MUT_ARR_PTRS_CLEAN: case HS_MUT_ARR_PTRS_DIRTY:
    case HS_MUT_ARR_PTRS_FROZEN_DIRTY: case HS_MUT_ARR_PTRS_FROZEN_CLEAN:
    case HS_SMALL_MUT_ARR_PTRS_CLEAN: case HS_SMALL_MUT_ARR_PTRS_DIRTY:
    case HS_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY: case HS_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
        label_array(b, c);
        return;
    case HS_MUT_VAR_CLEAN: case HS_MUT_VAR_DIRTY:
        label_one(b, "_mutVar", edge_of(c, HEAP_EDGE_VALUE));
        return;
    case HS_MVAR_CLEAN: case HS_MVAR_DIRTY:
        label_one(b, "MVar", edge_of(c, HEAP_EDGE_VALUE));
        return;
    case HS_TSO: heap_lbuf_tso(b, h, c); return;
    case HS_STACK: label_stack(b, c); return;
    case HS_BLOCKING_QUEUE: heap_lbuf_puts(b, "_blockingQueue"); return;
    case HS_TREC_CHUNK: heap_lbuf_puts(b, "_trecChunk"); return;
    case HS_WEAK: heap_lbuf_puts(b, "_wk"); return;
    case HS_TVAR: heap_lbuf_puts(b, "_tvar"); return;
    case HS_MUT_PRIM: heap_lbuf_puts(b, "_mutPrim"); return;
    case HS_PRIM: heap_lbuf_puts(b, "_prim"); return;
    default: heap_lbuf_puts(b, hs_closure_type_name(c->type)); return;
    }
}

void heap_census_key(const heap_closure *c, char *buf, size_t cap) {
    heap_lbuf b = {buf, cap, 0};
    if (cap > 0)
        buf[0] = '\0';
    const heap_info *i = c->info;
    if (i && heap_info_is_srt(i))
        heap_lbuf_printf(&b, "%s (static reference table)", i->con_name);
    else if (i && hs_closure_type_is_constructor(c->type) && i->con_name)
        heap_lbuf_printf(&b, "%s:%s:%s", i->con_package ? i->con_package : "",
                         i->con_module ? i->con_module : "", i->con_name);
    else
        heap_lbuf_puts(&b, hs_closure_type_name(c->type));
}
