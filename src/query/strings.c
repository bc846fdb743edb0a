/* The strings analysis: one breadth-first traversal from the GC roots
 * collects every byte array, Text, ByteString, ForeignPtr contents, (:)
 * cell, C# box and indirection (an evaluated thunk's BLACKHOLE or IND,
 * through which values are read) it meets (strings_collect.h); strings_rows.c and
 * strings_lists.c then put values together and group them. Only closures
 * of those info tables are shown to the visitor (query_traversal.wants). */
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/grow.h"
#include "strings_collect.h"

typedef struct strings_ctx {
    strings_collect col;
    query_filters *filters; /* NULL when there are none */
    strings_roles roles;
    hs_status st;
    hs_error err;
} strings_ctx;

/* Whether the (:) cell whose head is at addr may be part of a String: its
 * head is a C#, or an evaluated thunk's indirection to one (looked through
 * in the bytes already here), or not read yet (a static closure, an info
 * table not fetched: the grouping decides). Most lists hold no
 * characters, and keeping only these cells keeps the grouping small. */
static bool may_be_string(strings_ctx *x, heap *h, uint64_t head) {
    for (int hop = 0; hop <= STRINGS_MAX_HOPS; hop++) {
        size_t len;
        const uint8_t *b = heap_memory_cached(h, head, &len);
        if (!b)
            return true;
        uint64_t ptr = hs_load_le64(b);
        strings_role role;
        if (!strings_roles_peek(&x->roles, ptr, &role)) {
            const heap_info *info = heap_info_lookup(h, ptr);
            if (!info)
                return true;
            role = strings_roles_get(&x->roles, info);
        }
        size_t at = heap_header_bytes(h); /* an indirection's indirectee */
        if (role != ROLE_IND || len < at + 8)
            return role == ROLE_CHAR || role == ROLE_IND;
        head = wire_untag(hs_load_le64(b + at));
    }
    return true;
}

static bool wants(void *ctx, heap *h, const heap_info *info) {
    (void)h;
    return strings_roles_get(&((strings_ctx *)ctx)->roles, info) != ROLE_NONE;
}

/* Appends one zeroed element to a list; NULL when out of memory. */
#define S_PUSH(list) \
    (hs_grow((void **)&(list).items, &(list).cap, (list).count + 1, sizeof *(list).items) \
         ? memset(&(list).items[(list).count++], 0, sizeof *(list).items) \
         : NULL)

static query_action fail(strings_ctx *x, hs_status st) {
    if (st == HS_ERR_NOMEM)
        hs_fail(&x->err, st, "out of memory collecting strings");
    x->st = st;
    return QUERY_STOP;
}

static query_action visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    strings_ctx *x = ctx;
    if (!c->info)
        return QUERY_CONTINUE;
    strings_role role = strings_roles_get(&x->roles, c->info);
    bool matched = true;
    if (x->filters && role != ROLE_CONTENTS && role != ROLE_CHAR && role != ROLE_NIL &&
        role != ROLE_IND && role != ROLE_FOREIGN) {
        hs_status st = query_filters_match(x->filters, h, c, &matched, &x->err);
        if (st != HS_OK)
            return fail(x, st);
    }
    strings_collect *s = &x->col;
    switch (role) {
    case ROLE_BYTES: {
        s_array *a = S_PUSH(s->arrays);
        if (!a)
            return fail(x, HS_ERR_NOMEM);
        *a = (s_array){c->addr, c->bytes, c->count, c->size, matched, false};
        break;
    }
    case ROLE_TEXT8:
    case ROLE_TEXT16:
    case ROLE_BS:
    case ROLE_PS: {
        if (c->n_edges < 1)
            break;
        s_holder *o = S_PUSH(s->holders);
        if (!o)
            return fail(x, HS_ERR_NOMEM);
        *o = (s_holder){.addr = c->addr, .target = c->edges[0].addr, .size = c->size,
                        .role = (uint8_t)role, .matched = matched};
        for (size_t i = 0; i < c->n_words && i < 3; i++)
            o->words[i] = c->words[i];
        break;
    }
    case ROLE_CONTENTS: {
        if (c->n_edges < 1)
            break;
        s_contents *o = S_PUSH(s->contents);
        if (!o)
            return fail(x, HS_ERR_NOMEM);
        *o = (s_contents){c->addr, c->edges[0].addr, c->size, false};
        break;
    }
    case ROLE_CONS: {
        if (c->n_edges < 2 || !may_be_string(x, h, c->edges[0].addr))
            break;
        s_cell *o = S_PUSH(s->cells);
        if (!o)
            return fail(x, HS_ERR_NOMEM);
        *o = (s_cell){.addr = c->addr, .head = c->edges[0].addr, .tail = c->edges[1].addr,
                      .size = c->size, .matched = matched};
        break;
    }
    case ROLE_CHAR: {
        if (c->n_words < 1)
            break;
        s_char *o = S_PUSH(s->chars);
        if (!o)
            return fail(x, HS_ERR_NOMEM);
        *o = (s_char){c->addr, (uint32_t)(c->words[0] > 0x10FFFF ? 0xFFFFFFFF : c->words[0]),
                      c->size, heap_in_blocks(h, c->addr), false};
        break;
    }
    case ROLE_NIL:
        if (!u64map_put(&s->nils, c->addr, 1))
            return fail(x, HS_ERR_NOMEM);
        break;
    case ROLE_FOREIGN:
        if (!u64map_put(&s->foreign, c->addr, 1))
            return fail(x, HS_ERR_NOMEM);
        break;
    case ROLE_IND: {
        if (c->n_edges < 1)
            break;
        s_ind *o = S_PUSH(s->inds);
        if (!o)
            return fail(x, HS_ERR_NOMEM);
        *o = (s_ind){c->addr, c->edges[0].addr};
        break;
    }
    default: break;
    }
    return QUERY_CONTINUE;
}

void strings_collect_free(strings_collect *s) {
    free(s->arrays.items);
    free(s->arrays.index.slots);
    free(s->holders.items);
    free(s->holders.index.slots);
    free(s->contents.items);
    free(s->contents.index.slots);
    free(s->cells.items);
    free(s->cells.index.slots);
    free(s->chars.items);
    free(s->chars.index.slots);
    free(s->inds.items);
    free(s->inds.index.slots);
    u64map_free(&s->nils);
    u64map_free(&s->foreign);
}

hs_status query_strings_run(heap *h, const query_strings_spec *spec, query_strings *out,
                            hs_error *err) {
    memset(out, 0, sizeof *out);
    query_strings_spec none = {0};
    if (!spec)
        spec = &none;
    hs_status st = HS_OK;
    if (spec->filters && !spec->prepared)
        st = query_filters_prepare(spec->filters, h, err);
    if (st != HS_OK)
        return st;
    strings_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    x->filters = query_filters_count(spec->filters) ? spec->filters : NULL;
    query_traversal t = {.visit = visit, .ctx = x, .wants = wants, .progress = spec->progress,
                         .progress_ctx = spec->progress_ctx};
    const wire_ptr_list *roots = heap_roots(h);
    query_traversal_stats stats;
    st = query_traverse(h, roots->items, roots->count, &t, &stats, err);
    if (st == HS_OK && x->st != HS_OK) {
        st = x->st;
        if (err)
            *err = x->err;
    }
    if (st == HS_OK)
        st = strings_rows_make(h, &x->col, out, spec->progress, spec->progress_ctx, err);
    if (st == HS_OK)
        out->unreadable = stats.unreadable;
    else
        query_strings_free(out);
    strings_collect_free(&x->col);
    free(x);
    return st;
}

void query_strings_free(query_strings *s) {
    free(s->storage);
    free(s->rows);
    memset(s, 0, sizeof *s);
}
