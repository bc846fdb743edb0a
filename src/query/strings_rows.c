/* From what the strings traversal collected to rows: each copy's value
 * and bytes (query.h says what a copy counts), grouped by value in a hash
 * table, then sorted by wasted bytes.
 *
 * Strings: a (:) cell with a C# head starts a String only when no other
 * such cell has it as its tail, so "abc" is one String, not also "bc" and
 * "c" (the tails a list is made of are not copies of their own, and a
 * tail shared by two Strings is part of both values). Whether a cell's
 * list ends in [] through C# heads only, and its length, is worked out once
 * per cell (memoised along each walk), so shared tails and cycles cost
 * linear time. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "strings_collect.h"

enum { CELL_UNKNOWN, CELL_ON_PATH, CELL_STRING, CELL_NOT_STRING };

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

typedef struct grouping {
    g_row *rows;
    size_t n_rows, cap_rows;
    uint32_t *slots; /* row index + 1; 0 = empty */
    size_t n_slots;  /* power of two, at most half full */
    arena_chunk *arena;
    size_t *stack;   /* the String walk */
    size_t stack_cap;
} grouping;

#define ARENA_CHUNK (1u << 20)

static uint8_t *arena_take(grouping *g, size_t n) {
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

/* Counts one copy of value v. */
static bool add_copy(grouping *g, const uint8_t *v, uint64_t len, uint64_t bytes, uint64_t addr,
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

#define INDEX(list)                                                        \
    do {                                                                   \
        for (size_t i_ = 0; i_ < (list).count; i_++)                       \
            if (!u64map_put(&(list).index, (list).items[i_].addr, i_ + 1)) \
                return false;                                              \
    } while (0)

static bool index_all(strings_collect *s) {
    INDEX(s->arrays);
    INDEX(s->contents);
    INDEX(s->chars);
    return true;
}

/* The element of a collected list at address a, or NULL. */
static void *find_in(const u64map *index, void *items, size_t elem, uint64_t a) {
    const uint64_t *pos = index->count ? u64map_find(index, a) : NULL;
    return pos ? (char *)items + (*pos - 1) * elem : NULL;
}
#define FIND(list, a) find_in(&(list).index, (list).items, sizeof *(list).items, (a))

/* Text and ByteString copies; they claim their arrays and contents. */
static bool add_holders(heap *h, strings_collect *s, grouping *g, query_strings *out) {
    for (size_t i = 0; i < s->holders.count; i++) {
        const s_holder *o = &s->holders.items[i];
        bool text = o->role == ROLE_TEXT8 || o->role == ROLE_TEXT16;
        s_contents *ct = text ? NULL : FIND(s->contents, o->target);
        if (!text && !ct) { /* PlainForeignPtr, FinalPtr: memory outside the heap */
            out->external++;
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
            uint8_t *u = arena_take(g, (size_t)(len / 2 * 3 + 1));
            if (!u)
                return false;
            len = strings_utf16_to_utf8(v, (size_t)(len / 2), u);
            v = u;
        }
        if (!add_copy(g, v, len, bytes, o->addr, a->addr,
                      text ? QUERY_STRING_TEXT : QUERY_STRING_BYTESTRING))
            return false;
    }
    for (size_t i = 0; i < s->arrays.count; i++) {
        const s_array *a = &s->arrays.items[i];
        if (!a->claimed && a->matched &&
            !add_copy(g, a->bytes, a->len, a->size, a->addr, a->addr, QUERY_STRING_BYTES))
            return false;
    }
    return true;
}

/* Works out whether the list at cell i is a String and its length, for
 * every cell on the way that was not known yet. */
static bool resolve(strings_collect *s, grouping *g, size_t i) {
    size_t depth = 0, j = i;
    uint8_t result = CELL_NOT_STRING;
    uint64_t chars = 0;
    for (;;) {
        s_cell *c = &s->cells.items[j];
        if (c->state == CELL_STRING || c->state == CELL_NOT_STRING) {
            result = c->state;
            chars = c->chars;
            break;
        }
        if (c->state == CELL_ON_PATH || !c->ch)
            break; /* a cycle, or not a character */
        if (!hs_grow((void **)&g->stack, &g->stack_cap, depth + 1, sizeof *g->stack))
            return false;
        g->stack[depth++] = j;
        c->state = CELL_ON_PATH;
        if (u64map_find(&s->nils, c->tail)) {
            result = CELL_STRING;
            break;
        }
        s_cell *next = FIND(s->cells, c->tail);
        if (!next)
            break; /* an unevaluated or odd tail */
        j = (size_t)(next - s->cells.items);
    }
    while (depth > 0) {
        s_cell *c = &s->cells.items[g->stack[--depth]];
        chars++;
        if (chars > QUERY_STRINGS_MAX_LIST)
            result = CELL_NOT_STRING;
        c->state = result;
        c->chars = result == CELL_STRING ? (uint32_t)chars : 0;
    }
    return true;
}

static bool add_string(strings_collect *s, grouping *g, s_cell *first) {
    uint8_t *v = arena_take(g, (size_t)first->chars * 4 + 1);
    if (!v)
        return false;
    uint64_t len = 0, bytes = 0;
    s_cell *c = first;
    for (uint32_t k = 0; k < first->chars && c; k++) {
        s_char *ch = &s->chars.items[c->ch - 1]; /* resolve() saw it is a C# */
        size_t n = strings_utf8(ch->cp, v + len);
        len += n ? n : strings_utf8(0xFFFD, v + len);
        if (!c->claimed) {
            c->claimed = true;
            bytes += c->size;
        }
        if (ch->in_heap && !ch->claimed) {
            ch->claimed = true;
            bytes += ch->size;
        }
        c = FIND(s->cells, c->tail);
    }
    return !first->matched || add_copy(g, v, len, bytes, first->addr, 0, QUERY_STRING_LIST);
}

/* Most (:) cells of a heap hold no character: only those that do are
 * indexed and walked. */
static bool add_strings(strings_collect *s, grouping *g, query_strings *out) {
    for (size_t i = 0; i < s->cells.count; i++) {
        s_cell *c = &s->cells.items[i];
        const uint64_t *pos = s->chars.index.count ? u64map_find(&s->chars.index, c->head) : NULL;
        c->ch = pos ? (uint32_t)*pos : 0;
        if (c->ch && !u64map_put(&s->cells.index, c->addr, i + 1))
            return false;
    }
    for (size_t i = 0; i < s->cells.count; i++) {
        const s_cell *c = &s->cells.items[i];
        s_cell *tail = c->ch ? FIND(s->cells, c->tail) : NULL;
        if (tail)
            tail->is_tail = true;
    }
    for (size_t i = 0; i < s->cells.count; i++) {
        s_cell *c = &s->cells.items[i];
        if (c->is_tail || !c->ch)
            continue;
        if (!resolve(s, g, i))
            return false;
        if (c->state != CELL_STRING)
            out->skipped++;
        else if (!add_string(s, g, c))
            return false;
    }
    return true;
}

static int cmp_rows(const void *a, const void *b) {
    const query_strings_row *x = a, *y = b;
    if (x->wasted != y->wasted)
        return x->wasted < y->wasted ? 1 : -1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    uint64_t n = x->value_len < y->value_len ? x->value_len : y->value_len;
    int c = n ? memcmp(x->value, y->value, (size_t)n) : 0;
    if (c)
        return c;
    return x->value_len < y->value_len ? -1 : x->value_len > y->value_len;
}

static bool emit(const grouping *g, query_strings *out) {
    out->rows = calloc(g->n_rows ? g->n_rows : 1, sizeof *out->rows);
    if (!out->rows)
        return false;
    for (size_t i = 0; i < g->n_rows; i++) {
        const g_row *r = &g->rows[i];
        query_strings_row *o = &out->rows[out->n_rows];
        if (!(o->value = malloc(r->len ? (size_t)r->len : 1)))
            return false;
        out->n_rows++;
        if (r->len)
            memcpy(o->value, r->value, (size_t)r->len);
        o->value_len = r->len;
        o->kinds = r->kinds;
        o->count = r->count;
        o->bytes = r->bytes;
        o->wasted = r->bytes - r->min;
        o->first = r->first;
        o->first_array = r->first_array;
        out->total_count += o->count;
        out->total_bytes += o->bytes;
        out->total_wasted += o->wasted;
    }
    qsort(out->rows, out->n_rows, sizeof *out->rows, cmp_rows);
    return true;
}

hs_status strings_rows_make(heap *h, strings_collect *s, query_strings *out, hs_error *err) {
    grouping g = {0};
    bool ok = index_all(s) && add_holders(h, s, &g, out) && add_strings(s, &g, out) &&
              emit(&g, out);
    while (g.arena) {
        arena_chunk *next = g.arena->next;
        free(g.arena);
        g.arena = next;
    }
    free(g.rows);
    free(g.slots);
    free(g.stack);
    return ok ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory grouping strings");
}
