/* From what the strings traversal collected to rows: each copy's value
 * and bytes (query.h says what a copy counts), grouped by value in a hash
 * table, then sorted by wasted bytes. Byte arrays, Text and ByteString
 * here; Strings in strings_lists.c. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "strings_collect.h"

typedef struct g_row {
    const uint8_t *value;
    uint64_t len, hash, count, bytes, min, first, first_array;
    unsigned kinds;
} g_row;

/* Values made here (UTF-8 of text 1.x and of Strings): chunks that never
 * move, so rows can point into them. */
typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, cap;
    uint8_t data[];
} arena_chunk;

struct grouping {
    g_row *rows;
    size_t n_rows, cap_rows;
    uint32_t *slots; /* row index + 1; 0 = empty */
    size_t n_slots;  /* power of two, at most half full */
    arena_chunk *arena;
};

#define ARENA_CHUNK (1u << 20)

uint8_t *strings_arena_take(grouping *g, size_t n) {
    arena_chunk *c = g->arena;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        if (!(c = malloc(sizeof *c + cap)))
            return NULL;
        *c = (arena_chunk){.next = g->arena, .cap = cap};
        g->arena = c;
    }
    uint8_t *p = c->data + c->used;
    c->used += n;
    return p;
}

static uint64_t hash_bytes(const uint8_t *p, uint64_t n) {
    uint64_t h = UINT64_C(0x9E3779B97F4A7C15) ^ n;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)n);
    h = (h ^ w) * UINT64_C(0xc4ceb9fe1a85ec53);
    return h ^ h >> 29;
}

static bool rehash(grouping *g) {
    size_t n = g->n_slots ? g->n_slots * 2 : 1024;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t r = 0; r < g->n_rows; r++) {
        size_t i = (size_t)g->rows[r].hash & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = (uint32_t)(r + 1);
    }
    free(g->slots);
    g->slots = s;
    g->n_slots = n;
    return true;
}

bool strings_add_copy(grouping *g, const uint8_t *v, uint64_t len, uint64_t bytes, uint64_t addr,
                     uint64_t array, unsigned kind) {
    if ((g->n_rows + 1) * 2 > g->n_slots && (g->n_rows >= UINT32_MAX - 1 || !rehash(g)))
        return false;
    uint64_t hash = hash_bytes(v, len);
    size_t i = (size_t)hash & (g->n_slots - 1);
    for (; g->slots[i]; i = (i + 1) & (g->n_slots - 1)) {
        g_row *r = &g->rows[g->slots[i] - 1];
        if (r->hash == hash && r->len == len && memcmp(r->value, v, (size_t)len) == 0) {
            r->count++;
            r->bytes += bytes;
            if (bytes < r->min)
                r->min = bytes;
            r->kinds |= kind;
            return true;
        }
    }
    if (!hs_grow((void **)&g->rows, &g->cap_rows, g->n_rows + 1, sizeof *g->rows))
        return false;
    g->rows[g->n_rows] = (g_row){v, len, hash, 1, bytes, bytes, addr, array, kind};
    g->slots[i] = (uint32_t)++g->n_rows;
    return true;
}

bool strings_index_init(addr_index *ix, size_t n) {
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    ix->mask = cap - 1;
    return (ix->slots = calloc(cap, sizeof *ix->slots)) != NULL;
}

/* Addresses are unique: the traversal visits each closure once. */
void strings_index_put(addr_index *ix, uint64_t addr, uint64_t pos) {
    size_t i = (size_t)u64map_hash(addr) & ix->mask;
    while (ix->slots[i].addr)
        i = (i + 1) & ix->mask;
    ix->slots[i] = (addr_slot){addr, pos};
}

/* Position + 1 of addr, 0 when it is not there. */
uint64_t strings_index_get(const addr_index *ix, uint64_t addr) {
    if (!ix->slots || !addr)
        return 0;
    for (size_t i = (size_t)u64map_hash(addr) & ix->mask; ix->slots[i].addr;
         i = (i + 1) & ix->mask)
        if (ix->slots[i].addr == addr)
            return ix->slots[i].pos;
    return 0;
}

#define INDEX(list)                                                          \
    do {                                                                     \
        if (!strings_index_init(&(list).index, (list).count))                \
            return false;                                                    \
        for (size_t i_ = 0; i_ < (list).count; i_++)                         \
            strings_index_put(&(list).index, (list).items[i_].addr, i_ + 1); \
    } while (0)

static bool index_all(strings_collect *s) {
    INDEX(s->arrays);
    INDEX(s->contents);
    INDEX(s->chars);
    INDEX(s->inds);
    return true;
}

/* The element of a collected list at address a, or NULL. */
static void *find_in(const addr_index *index, void *items, size_t elem, uint64_t a) {
    uint64_t pos = strings_index_get(index, a);
    return pos ? (char *)items + (pos - 1) * elem : NULL;
}
#define FIND(list, a) find_in(&(list).index, (list).items, sizeof *(list).items, (a))

uint64_t strings_follow(const strings_collect *s, uint64_t addr) {
    for (int hop = 0; hop < STRINGS_MAX_HOPS; hop++) {
        uint64_t pos = strings_index_get(&s->inds.index, addr);
        if (!pos)
            break;
        addr = s->inds.items[pos - 1].target;
    }
    return addr; /* after too many hops: an indirection, which is no value */
}

/* Text and ByteString copies; they claim their arrays and contents. A
 * ByteString's contents field is lazy: it may be an evaluated thunk's
 * indirection to them. */
static bool add_holders(heap *h, strings_collect *s, grouping *g, query_strings *out) {
    for (size_t i = 0; i < s->holders.count; i++) {
        const s_holder *o = &s->holders.items[i];
        bool text = o->role == ROLE_TEXT8 || o->role == ROLE_TEXT16;
        uint64_t contents = text ? 0 : strings_follow(s, o->target);
        s_contents *ct = text ? NULL : FIND(s->contents, contents);
        if (!text && !ct) {
            if (u64map_find(&s->foreign, contents)) /* malloc'd or static memory */
                out->external++;
            else /* not evaluated yet, or unreadable */
                out->skipped++;
            continue;
        }
        s_array *a = FIND(s->arrays, text ? o->target : ct->array);
        heap_closure arr = {.type = HS_ARR_WORDS, .addr = a ? a->addr : 0,
                            .count = a ? a->len : 0};
        uint64_t off, len;
        if (!a || !strings_slice(h, (strings_role)o->role, o->words, 3, &arr, &off, &len)) {
            out->skipped++;
            continue;
        }
        uint64_t bytes = o->size;
        if (ct && !ct->claimed) {
            ct->claimed = true;
            bytes += ct->size;
        }
        if (!a->claimed) {
            a->claimed = true;
            bytes += a->size;
        }
        if (!o->matched)
            continue;
        const uint8_t *v = a->bytes + off;
        if (o->role == ROLE_TEXT16) {
            uint8_t *u = strings_arena_take(g, (size_t)(len / 2 * 3 + 1));
            if (!u)
                return false;
            len = strings_utf16_to_utf8(v, (size_t)(len / 2), u);
            v = u;
        }
        if (!strings_add_copy(g, v, len, bytes, o->addr, a->addr,
                              text ? QUERY_STRING_TEXT : QUERY_STRING_BYTESTRING))
            return false;
    }
    for (size_t i = 0; i < s->arrays.count; i++) {
        const s_array *a = &s->arrays.items[i];
        if (!a->claimed && a->matched &&
            !strings_add_copy(g, a->bytes, a->len, a->size, a->addr, a->addr, QUERY_STRING_BYTES))
            return false;
    }
    return true;
}

/* The order of the rows, sorted on a small key (the first 8 bytes of the
 * value, big-endian) so that few comparisons read the values. */
typedef struct sort_key {
    uint64_t wasted, bytes, prefix;
    const g_row *row;
} sort_key;

static int cmp_keys(const void *a, const void *b) {
    const sort_key *x = a, *y = b;
    if (x->wasted != y->wasted)
        return x->wasted < y->wasted ? 1 : -1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->prefix != y->prefix)
        return x->prefix < y->prefix ? -1 : 1;
    const g_row *r = x->row, *q = y->row;
    uint64_t n = r->len < q->len ? r->len : q->len;
    int c = n ? memcmp(r->value, q->value, (size_t)n) : 0;
    if (c)
        return c;
    return r->len < q->len ? -1 : r->len > q->len;
}

/* The rows, sorted, their values in one allocation. */
static bool emit(const grouping *g, query_strings *out) {
    size_t n = g->n_rows, total = 1;
    sort_key *keys = malloc((n ? n : 1) * sizeof *keys);
    out->rows = calloc(n ? n : 1, sizeof *out->rows);
    for (size_t i = 0; i < n; i++)
        total += (size_t)g->rows[i].len;
    uint8_t *values = keys && out->rows ? malloc(total) : NULL;
    if (!values) {
        free(keys);
        return false;
    }
    out->storage = values;
    for (size_t i = 0; i < n; i++) {
        const g_row *r = &g->rows[i];
        uint64_t prefix = 0;
        for (size_t k = 0; k < 8; k++)
            prefix = prefix << 8 | (k < r->len ? r->value[k] : 0);
        keys[i] = (sort_key){r->bytes - r->min, r->bytes, prefix, r};
    }
    qsort(keys, n, sizeof *keys, cmp_keys);
    for (size_t i = 0; i < n; i++) {
        const g_row *r = keys[i].row;
        query_strings_row *o = &out->rows[i];
        o->value = values;
        if (r->len)
            memcpy(values, r->value, (size_t)r->len);
        values += r->len;
        o->value_len = r->len;
        o->kinds = r->kinds;
        o->count = r->count;
        o->bytes = r->bytes;
        o->wasted = keys[i].wasted;
        o->first = r->first;
        o->first_array = r->first_array;
        out->total_count += o->count;
        out->total_bytes += o->bytes;
        out->total_wasted += o->wasted;
    }
    out->n_rows = n;
    free(keys);
    return true;
}

/* Between two phases of grouping: the caller may stop it (a quit). */
static bool going_on(query_progress_fn progress, void *ctx, bool *cancelled) {
    if (progress && !progress(ctx, 0))
        *cancelled = true;
    return !*cancelled;
}

hs_status strings_rows_make(heap *h, strings_collect *s, query_strings *out,
                            query_progress_fn progress, void *progress_ctx, hs_error *err) {
    if (s->cells.count >= UINT32_MAX || s->chars.count >= UINT32_MAX)
        return hs_fail(err, HS_ERR_TOO_LARGE, "more than 4 Gi (:) cells or C# boxes");
    if (heap_block_words(h) >= UINT32_MAX)
        return hs_fail(err, HS_ERR_TOO_LARGE, "a heap of more than 32 GiB");
    grouping g = {0};
    bool cancelled = false;
    bool ok = index_all(s) && going_on(progress, progress_ctx, &cancelled) &&
              add_holders(h, s, &g, out) && going_on(progress, progress_ctx, &cancelled) &&
              strings_add_lists(h, s, &g, out) && going_on(progress, progress_ctx, &cancelled) &&
              emit(&g, out);
    while (g.arena) {
        arena_chunk *next = g.arena->next;
        free(g.arena);
        g.arena = next;
    }
    free(g.rows);
    free(g.slots);
    if (cancelled)
        return hs_fail(err, HS_ERR_CANCELLED, "cancelled");
    return ok ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory grouping strings");
}
