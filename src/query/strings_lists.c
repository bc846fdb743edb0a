/* Strings among the collected (:) cells: a cell whose head is a C# starts
 * a String only when no other such cell has it as its tail, so "abc" is
 * one String, not also "bc" and "c" (the tails a list is made of are not
 * copies of their own, and a tail shared by two Strings is part of both
 * values). Whether a cell's list ends in [] through C# heads only, and its
 * length, is worked out once per cell (memoised along each walk), so
 * shared tails and cycles cost linear time. A head or tail that is an
 * evaluated thunk's indirection stands for what it leads to
 * (strings_follow), so a String built lazily is one String, once.
 *
 * A heap holds millions of such cells, and following tails through a hash
 * table from the traversal's (breadth-first) order misses the cache at
 * every step. So the cells are sorted by address (a radix sort on their
 * dense heap word): a list's cells are mostly allocated one after the
 * other, so a tail is usually the next or previous cell, found without a
 * search, and the walks read memory in order. Cells outside the blocks
 * (static ones) come after the sorted ones, found through a hash index. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"
#include "strings_collect.h"

enum { CELL_UNKNOWN, CELL_ON_PATH, CELL_STRING, CELL_NOT_STRING };

#define STRINGS_SPELL_SLACK (UINT64_C(1) << 16)

typedef struct lcell {
    uint64_t tail;
    uint32_t word;  /* dense heap word of the cell: the sort key */
    uint32_t idx;   /* its position in s->cells (breadth-first order) */
    uint32_t ch;    /* its head's position in s->chars + 1 */
    uint32_t size;
    uint32_t next;  /* its tail's position here + 1; 0: the tail is no such cell */
    uint32_t chars; /* String length from here, once known */
    uint8_t state;
    bool is_tail, claimed, matched;
} lcell;

typedef struct lists {
    lcell *c;          /* cells in the blocks by address, then the others */
    size_t n, n_blocks;
    addr_index others; /* address -> position + 1, for the cells outside the blocks */
    uint32_t *pos;     /* s->cells index -> position + 1 here; 0: not a String cell */
    size_t *stack;     /* the walk of resolve() */
    size_t stack_cap;
} lists;

/* Sorts keys (dense word << 32 | cell index) by their word: a stable LSD
 * radix sort, 11 bits a pass (few enough buckets to stay in the cache). */
static void sort_by_word(uint64_t *keys, uint64_t *tmp, size_t n) {
    enum { BITS = 11, BUCKETS = 1 << BITS };
    static size_t count[BUCKETS];
    for (unsigned shift = 32; shift < 64; shift += BITS) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[keys[i] >> shift & (BUCKETS - 1)]++;
        size_t sum = 0;
        for (size_t d = 0; d < BUCKETS; d++) {
            size_t k = count[d];
            count[d] = sum;
            sum += k;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[keys[i] >> shift & (BUCKETS - 1)]++] = keys[i];
        memcpy(keys, tmp, n * sizeof *keys);
    }
}

static lcell make_cell(const strings_collect *s, const uint32_t *ch, uint32_t idx, uint32_t word) {
    const s_cell *sc = &s->cells.items[idx];
    return (lcell){.tail = sc->tail, .word = word, .idx = idx, .ch = ch[idx], .size = sc->size,
                   .matched = sc->matched};
}

/* The String cells, sorted, with pos and others filled. */
static bool build(heap *h, const strings_collect *s, lists *L) {
    size_t n = s->cells.count;
    uint32_t *ch = malloc((n ? n : 1) * sizeof *ch);
    if (!ch)
        return false;
    size_t n_strings = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t head = s->cells.items[i].head;
        ch[i] = (uint32_t)strings_index_get(&s->chars.index, head);
        if (!ch[i]) /* an evaluated thunk: its value */
            ch[i] = (uint32_t)strings_index_get(&s->chars.index, strings_follow(s, head));
        n_strings += ch[i] != 0;
    }
    size_t cap = n_strings ? n_strings : 1;
    uint64_t *keys = malloc(cap * sizeof *keys), *tmp = malloc(cap * sizeof *tmp);
    uint32_t *others = malloc(cap * sizeof *others);
    L->c = malloc(cap * sizeof *L->c);
    L->pos = calloc(n ? n : 1, sizeof *L->pos);
    bool ok = keys && tmp && others && L->c && L->pos;
    size_t n_blocks = 0, n_others = 0;
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t w;
        if (!ch[i])
            continue;
        if (heap_dense_word(h, s->cells.items[i].addr, &w))
            keys[n_blocks++] = w << 32 | i;
        else
            others[n_others++] = (uint32_t)i; /* outside the blocks: after them */
    }
    if (ok) {
        sort_by_word(keys, tmp, n_blocks);
        for (size_t p = 0; p < n_blocks; p++)
            L->c[p] = make_cell(s, ch, (uint32_t)keys[p], (uint32_t)(keys[p] >> 32));
        for (size_t k = 0; k < n_others; k++) { /* static: no heap bytes */
            L->c[n_blocks + k] = make_cell(s, ch, others[k], 0);
            L->c[n_blocks + k].size = 0;
        }
        L->n = n_strings;
        L->n_blocks = n_blocks;
        ok = strings_index_init(&L->others, n_others);
    }
    for (size_t p = 0; ok && p < L->n; p++) {
        L->pos[L->c[p].idx] = (uint32_t)p + 1;
        if (p >= n_blocks)
            strings_index_put(&L->others, s->cells.items[L->c[p].idx].addr, p + 1);
    }
    free(ch);
    free(keys);
    free(tmp);
    free(others);
    return ok;
}

/* Position + 1 of the String cell at addr, 0 when there is none; near:
 * the position of a cell next to which it most likely lies. */
static uint32_t find(heap *h, const lists *L, uint64_t addr, size_t near) {
    uint64_t w;
    if (!heap_dense_word(h, addr, &w))
        return (uint32_t)strings_index_get(&L->others, addr);
    if (near < L->n_blocks) {
        for (size_t d = 1; d <= 2; d++) {
            if (near + d < L->n_blocks && L->c[near + d].word == w)
                return (uint32_t)(near + d + 1);
            if (near >= d && L->c[near - d].word == w)
                return (uint32_t)(near - d + 1);
        }
    }
    size_t lo = 0, hi = L->n_blocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->c[mid].word < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < L->n_blocks && L->c[lo].word == w ? (uint32_t)(lo + 1) : 0;
}

/* Works out whether the list at position i is a String and its length,
 * for every cell on the way that was not known yet. */
static bool resolve(const strings_collect *s, lists *L, size_t i) {
    size_t depth = 0, j = i;
    uint8_t result = CELL_NOT_STRING;
    uint64_t chars = 0;
    for (;;) {
        lcell *c = &L->c[j];
        if (c->state == CELL_STRING || c->state == CELL_NOT_STRING) {
            result = c->state;
            chars = c->chars;
            break;
        }
        if (c->state == CELL_ON_PATH)
            break; /* a cycle */
        if (!hs_grow((void **)&L->stack, &L->stack_cap, depth + 1, sizeof *L->stack))
            return false;
        L->stack[depth++] = j;
        c->state = CELL_ON_PATH;
        if (c->next) {
            j = c->next - 1;
            continue;
        }
        if (u64map_find(&s->nils, c->tail) || u64map_find(&s->nils, strings_follow(s, c->tail)))
            result = CELL_STRING;
        break; /* [], or an unevaluated or odd tail */
    }
    while (depth > 0) {
        lcell *c = &L->c[L->stack[--depth]];
        chars++;
        if (chars > QUERY_STRINGS_MAX_LIST)
            result = CELL_NOT_STRING;
        c->state = result;
        c->chars = result == CELL_STRING ? (uint32_t)chars : 0;
    }
    return true;
}

/* The String starting at position p: its value (UTF-8) and the bytes of
 * the heap cells and C# boxes no earlier String counted (static closures
 * are no heap memory). */
static bool add_string(strings_collect *s, grouping *g, lists *L, size_t p) {
    const lcell *first = &L->c[p];
    uint8_t *v = strings_arena_take(g, (size_t)first->chars * 4 + 1);
    if (!v)
        return false;
    uint64_t len = 0, bytes = 0;
    lcell *c = &L->c[p];
    for (uint32_t k = 0; k < first->chars && c; k++) {
        s_char *ch = &s->chars.items[c->ch - 1];
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
        c = c->next ? &L->c[c->next - 1] : NULL;
    }
    return !first->matched || strings_add_copy(g, v, len, bytes, s->cells.items[first->idx].addr,
                                                0, QUERY_STRING_LIST);
}

static bool add_all(heap *h, strings_collect *s, grouping *g, lists *L, query_strings *out) {
    for (size_t p = 0; p < L->n; p++) {
        uint32_t t = find(h, L, L->c[p].tail, p);
        if (!t) { /* an evaluated thunk's indirection to the next cell */
            uint64_t next = strings_follow(s, L->c[p].tail);
            t = next != L->c[p].tail ? find(h, L, next, p) : 0;
        }
        if (t) {
            L->c[p].next = t;
            L->c[t - 1].is_tail = true;
        }
    }
    /* the first cells of lists, by breadth-first index (a bitmap small
     * enough for the cache, where the cells are not) */
    uint64_t *first = calloc(s->cells.count / 64 + 1, sizeof *first);
    if (!first)
        return false;
    for (size_t p = 0; p < L->n; p++)
        if (!L->c[p].is_tail)
            first[L->c[p].idx / 64] |= UINT64_C(1) << (L->c[p].idx % 64);
    /* Strings sharing a tail each spell it out: a peer could make that
     * quadratic, so the characters spelt out are bounded by twice the
     * cells (plus room for one long String); beyond, Strings are skipped */
    uint64_t budget = 2 * (uint64_t)L->n + STRINGS_SPELL_SLACK;
    bool ok = true;
    for (size_t i = 0; ok && i < s->cells.count; i++) { /* breadth first: who claims what */
        if (!(first[i / 64] >> (i % 64) & 1))
            continue;
        size_t p = L->pos[i];
        if (!(ok = resolve(s, L, p - 1)))
            break;
        if (L->c[p - 1].state != CELL_STRING || L->c[p - 1].chars > budget) {
            out->skipped++;
        } else {
            budget -= L->c[p - 1].chars;
            ok = add_string(s, g, L, p - 1);
        }
    }
    free(first);
    return ok;
}

bool strings_add_lists(heap *h, strings_collect *s, grouping *g, query_strings *out) {
    lists L = {0};
    bool ok = build(h, s, &L) && add_all(h, s, g, &L, out);
    free(L.c);
    free(L.pos);
    free(L.others.slots);
    free(L.stack);
    return ok;
}
