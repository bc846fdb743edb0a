/* The blocks the stub sends are the whole heap: every closure reached from
 * the roots and saved objects that lies in the heap range lies in a block
 * from ALL_BLOCKS, with exactly the bytes a single-closure CLOSURES fetch
 * gives; BLOCK returns the same group bytes, whole groups for addresses
 * in later blocks of large objects, and the pinned/large flags. Three
 * rounds with the program running (and collecting) in between. Plus the
 * million-cell list, traversed on a thread with a small stack. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ghc_checks.h"
#include "heapscope/closure_type.h"
#include "heapscope/query.h"

#define ROUNDS 3
#define BATCH 4096
#define BLOCK_SAMPLES 64
#define SMALL_STACK (256 * 1024)
#define BF_LARGE 0x0002
#define BF_PINNED 0x0004
#define BF_COMPACT 0x0200

typedef struct addr_vec {
    uint64_t *items;
    size_t count, cap;
} addr_vec;

static bool vec_push(addr_vec *v, uint64_t a) {
    if (v->count == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 65536;
        uint64_t *items = realloc(v->items, cap * sizeof *items);
        if (!items)
            return false;
        v->items = items;
        v->cap = cap;
    }
    v->items[v->count++] = a;
    return true;
}

typedef struct census {
    addr_vec in_heap;   /* closures in the heap range and in the blocks */
    uint64_t misses;    /* in the heap range, in no block */
    uint64_t statics;   /* outside the heap range */
    uint64_t static_ints, static_chars; /* the RTS's shared INTLIKE / CHARLIKE boxes */
    uint64_t first_miss;
    uint64_t small_bytes, large_bytes, stack; /* closures to ask BLOCK about */
    bool failed;
} census;

static query_action visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    census *s = ctx;
    if (c->addr < HEAP_RANGE_LO || c->addr > HEAP_RANGE_HI) {
        s->statics++;
        s->static_ints += strcmp(ghc_con_name(c), "I#") == 0;
        s->static_chars += strcmp(ghc_con_name(c), "C#") == 0;
        return QUERY_CONTINUE;
    }
    if (!heap_in_blocks(h, c->addr)) {
        if (s->misses++ == 0)
            s->first_miss = c->addr;
        return QUERY_CONTINUE;
    }
    if (c->type == HS_ARR_WORDS && c->count == 100)
        s->small_bytes = c->addr; /* the small ByteString: pinned */
    if (c->type == HS_ARR_WORDS && c->count == 10000)
        s->large_bytes = c->addr; /* the large ByteString: a large object */
    if (c->type == HS_STACK && c->size > 3 * 4096)
        s->stack = c->addr;
    if (!vec_push(&s->in_heap, c->addr)) {
        s->failed = true;
        return QUERY_STOP;
    }
    return QUERY_CONTINUE;
}

/* Pinned byte arrays may change while the program is paused: threads in
 * safe foreign calls keep running C code, and the IO manager's epoll
 * event buffer is such an array. Only they may differ. */
static bool written_by_foreign_code(ghc_ctx *x, heap *h, uint64_t addr) {
    heap_closure c = {0};
    hs_error err = {0};
    bool bytes = heap_decode(h, addr, &c, &err) == HS_OK && c.type == HS_ARR_WORDS;
    heap_closure_free(&c);
    wire_block_list l = {0};
    bool pinned = bytes && wire_block(x->conn, addr, &l, &err) == HS_OK && l.count == 1 &&
                  (l.items[0].flags & BF_PINNED);
    wire_block_list_free(&l);
    return pinned;
}

/* Each reached heap closure, fetched alone with CLOSURES, equals the
 * bytes at its address in the fetched blocks. */
static void compare_closures(ghc_ctx *x, heap *h, const addr_vec *v) {
    uint64_t mismatches = 0, foreign = 0, first = 0, bytes = 0;
    for (size_t at = 0; at < v->count; at += BATCH) {
        size_t n = v->count - at < BATCH ? v->count - at : BATCH;
        wire_blobs blobs = {0};
        hs_error err = {0};
        if (!ghc_ok(x, wire_closures(x->conn, v->items + at, n, &blobs, &err), &err, "CLOSURES"))
            return;
        for (size_t i = 0; i < n; i++) {
            uint64_t addr = v->items[at + i];
            size_t len = 0;
            const uint8_t *mem = heap_memory_cached(h, addr, &len);
            bytes += blobs.items[i].len;
            if (mem && blobs.items[i].len > 0 && blobs.items[i].len <= len &&
                memcmp(mem, blobs.items[i].data, blobs.items[i].len) == 0)
                continue;
            if (mem && blobs.items[i].len > 0 && blobs.items[i].len <= len &&
                written_by_foreign_code(x, h, addr))
                foreign++;
            else if (mismatches++ == 0)
                first = addr;
        }
        wire_blobs_free(&blobs);
    }
    ghc_note("  %zu closures fetched one by one (%llu bytes): %llu differ from the blocks, "
             "%llu pinned byte arrays written by foreign code while paused",
             v->count, (unsigned long long)bytes, (unsigned long long)mismatches,
             (unsigned long long)foreign);
    CHECK(x, mismatches == 0, "%llu closures differ from their block bytes, first 0x%llx",
          (unsigned long long)mismatches, (unsigned long long)first);
}

/* BLOCK(addr): one group containing addr, with the bytes ALL_BLOCKS gave.
 * Returns its flags (0xffff when the request failed). */
static unsigned check_block_of(ghc_ctx *x, heap *h, uint64_t addr) {
    wire_block_list l = {0};
    hs_error err = {0};
    unsigned flags = 0xffff;
    if (!ghc_ok(x, wire_block(x->conn, addr, &l, &err), &err, "BLOCK"))
        return flags;
    if (l.count != 1) {
        CHECK(x, false, "BLOCK 0x%llx: %zu groups", (unsigned long long)addr, l.count);
    } else {
        const wire_raw_block *b = &l.items[0];
        size_t len = 0;
        const uint8_t *mem = heap_memory_cached(h, b->start, &len);
        CHECK(x, b->start <= addr && addr - b->start < b->len,
              "BLOCK 0x%llx: group 0x%llx+%u does not hold it", (unsigned long long)addr,
              (unsigned long long)b->start, b->len);
        /* pinned blocks: see written_by_foreign_code */
        CHECK(x, mem && len >= b->len &&
                     (memcmp(mem, b->data, b->len) == 0 || (b->flags & BF_PINNED)),
              "BLOCK 0x%llx: bytes differ from ALL_BLOCKS", (unsigned long long)addr);
        flags = b->flags;
    }
    wire_block_list_free(&l);
    return flags;
}

/* Saved object 7 is a Compact: (Compact#, the value, a lock). The value
 * lives in the compact region's blocks. */
static void check_compact(ghc_ctx *x, heap *h) {
    const wire_ptr_list *saved = heap_saved_objects(h);
    heap_closure c = {0};
    hs_error err = {0};
    if (saved->count == SAVED_COUNT &&
        ghc_ok(x, heap_decode(h, saved->items[SAVED_COMPACT], &c, &err), &err, "Compact")) {
        bool ok = strcmp(ghc_con_name(&c), "Compact") == 0 && c.n_edges == 3;
        CHECK(x, ok, "saved object %d is not a Compact", SAVED_COMPACT);
        if (ok)
            CHECK(x, check_block_of(x, h, c.edges[1].addr) & BF_COMPACT,
                  "the compacted Map is not in a compact block");
    }
    heap_closure_free(&c);
}

static void check_block_requests(ghc_ctx *x, heap *h, const census *s) {
    check_compact(x, h);
    size_t step = s->in_heap.count / BLOCK_SAMPLES + 1;
    for (size_t i = 0; i < s->in_heap.count; i += step)
        check_block_of(x, h, s->in_heap.items[i]);
    CHECK(x, s->small_bytes && s->large_bytes && s->stack,
          "the ByteStrings or a large stack were not reached");
    if (s->small_bytes)
        CHECK(x, check_block_of(x, h, s->small_bytes) & BF_PINNED,
              "the small ByteString is not in a pinned block");
    if (s->large_bytes)
        CHECK(x, check_block_of(x, h, s->large_bytes) & BF_LARGE,
              "the large ByteString is not a large object");
    if (s->stack) /* an address in the second block of a large group */
        CHECK(x, check_block_of(x, h, s->stack + 5000) & BF_LARGE,
              "BLOCK inside a large stack object");
}

static void one_round(ghc_ctx *x, heap *h, int round) {
    census s = {0};
    const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
    addr_vec starts = {0};
    for (size_t i = 0; i < roots->count; i++)
        vec_push(&starts, roots->items[i]);
    for (size_t i = 0; i < saved->count; i++)
        vec_push(&starts, saved->items[i]);
    query_traversal t = {.visit = visit, .ctx = &s};
    query_traversal_stats stats;
    hs_error err = {0};
    hs_status st = query_traverse(h, starts.items, starts.count, &t, &stats, &err);
    free(starts.items);
    if (ghc_ok(x, st, &err, "traversal") && !s.failed) {
        ghc_note("round %d: %zu block groups (%llu bytes); %llu closures reached, %zu in the "
                 "blocks, %llu static, %llu in no block",
                 round, heap_block_count(h), (unsigned long long)heap_block_bytes(h),
                 (unsigned long long)stats.visited, s.in_heap.count,
                 (unsigned long long)s.statics, (unsigned long long)s.misses);
        CHECK(x, stats.unreadable.count == 0, "%llu closures unreadable, first: %s",
              (unsigned long long)stats.unreadable.count, stats.unreadable.problem);
        CHECK(x, s.misses == 0, "%llu heap closures lie in no block, first 0x%llx",
              (unsigned long long)s.misses, (unsigned long long)s.first_miss);
        CHECK(x, stats.visited > 2 * BIG_LIST_CELLS, "only %llu closures reached",
              (unsigned long long)stats.visited);
        /* after a GC, small Int and Char boxes are shared static closures */
        CHECK(x, s.static_ints >= 255 && s.static_chars >= 10,
              "%llu static I# and %llu static C# reached", (unsigned long long)s.static_ints,
              (unsigned long long)s.static_chars);
        compare_closures(x, h, &s.in_heap);
        check_block_requests(x, h, &s);
    }
    CHECK(x, !s.failed, "out of memory");
    free(s.in_heap.items);
}

void check_blocks(ghc_ctx *x) {
    for (int round = 1; round <= ROUNDS && x->failures == 0; round++) {
        heap *h = ghc_pause_and_open(x);
        if (!h)
            return;
        one_round(x, h, round);
        ghc_close_and_resume(x, h);
        struct timespec ts = {0, 300 * 1000000L}; /* let it allocate and collect */
        nanosleep(&ts, NULL);
    }
}

/* ---- the million-cell list ------------------------------------------ */

typedef struct list_walk {
    heap *h;
    uint64_t start;
    uint64_t cells, ints, static_ints, others;
    query_traversal_stats stats;
    hs_status st;
    hs_error err;
} list_walk;

static query_action count_cell(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h;
    (void)depth;
    list_walk *w = ctx;
    const char *name = ghc_con_name(c);
    if (strcmp(name, ":") == 0)
        w->cells++;
    else if (strcmp(name, "I#") == 0) {
        w->ints++;
        w->static_ints += c->addr < HEAP_RANGE_LO || c->addr > HEAP_RANGE_HI;
    } else
        w->others++;
    return QUERY_CONTINUE;
}

static void *walk_list(void *arg) {
    list_walk *w = arg;
    query_traversal t = {.visit = count_cell, .ctx = w};
    w->st = query_traverse(w->h, &w->start, 1, &t, &w->stats, &w->err);
    return NULL;
}

void check_list(ghc_ctx *x) {
    heap *h = ghc_pause_and_open(x);
    if (!h)
        return;
    const wire_ptr_list *saved = heap_saved_objects(h);
    list_walk w = {.h = h, .start = saved->count > SAVED_BIG_LIST ? saved->items[SAVED_BIG_LIST] : 0};
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SMALL_STACK); /* a recursive walk would overflow it */
    bool started = w.start && pthread_create(&thread, &attr, walk_list, &w) == 0;
    pthread_attr_destroy(&attr);
    CHECK(x, started, "cannot start the walk");
    if (started && (pthread_join(thread, NULL), ghc_ok(x, w.st, &w.err, "list traversal"))) {
        ghc_note("list: %llu cells, %llu I# (%llu static), %llu others, %u levels",
                 (unsigned long long)w.cells, (unsigned long long)w.ints,
                 (unsigned long long)w.static_ints, (unsigned long long)w.others,
                 w.stats.depth);
        CHECK(x, w.cells == BIG_LIST_CELLS, "%llu cells, want %d", (unsigned long long)w.cells,
              BIG_LIST_CELLS);
        CHECK(x, w.ints == BIG_LIST_CELLS, "%llu I#, want %d", (unsigned long long)w.ints,
              BIG_LIST_CELLS);
        /* after a GC, 1..255 are the RTS's shared static INTLIKE closures */
        CHECK(x, w.static_ints == 255, "%llu static I#, want 255",
              (unsigned long long)w.static_ints);
        CHECK(x, w.others == 1, "%llu other closures, want just []",
              (unsigned long long)w.others);
        CHECK(x, w.stats.depth >= BIG_LIST_CELLS, "only %u levels", w.stats.depth);
        CHECK(x, w.stats.unreadable.count == 0, "unreadable: %s", w.stats.unreadable.problem);
    }
    ghc_close_and_resume(x, h);
}
