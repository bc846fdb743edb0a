/* Breadth-first traversal of everything reachable from a start set.
 *
 * Level by level: first the level's unknown static closures and info
 * tables are fetched in batched requests, then each closure is decoded,
 * shown to the visitor, and its unvisited children queued for the next
 * level. Visited heap closures cost one bit per heap word; closures
 * outside the blocks go into a hash set. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/query.h"
#include "heapscope/u64map.h"

typedef struct visited_set {
    uint64_t lo, hi; /* block span covered by bits */
    uint64_t *bits;  /* one bit per 8-byte word of the span */
    u64map others;
} visited_set;

static hs_status visited_init(visited_set *v, const heap *h, hs_error *err) {
    memset(v, 0, sizeof *v);
    heap_block_span(h, &v->lo, &v->hi);
    uint64_t words = (v->hi - v->lo) / 8;
    if (words == 0)
        return HS_OK;
    v->bits = calloc((words + 63) / 64, sizeof *v->bits);
    if (!v->bits)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the visited set (%llu words)",
                       (unsigned long long)words);
    return HS_OK;
}

static void visited_free(visited_set *v) {
    free(v->bits);
    u64map_free(&v->others);
}

/* Marks addr; returns 1 when it was new, 0 when seen, -1 when out of memory. */
static int visited_add(visited_set *v, uint64_t addr) {
    if (addr >= v->lo && addr < v->hi) {
        uint64_t w = (addr - v->lo) >> 3;
        uint64_t mask = UINT64_C(1) << (w & 63);
        if (v->bits[w >> 6] & mask)
            return 0;
        v->bits[w >> 6] |= mask;
        return 1;
    }
    if (u64map_find(&v->others, addr))
        return 0;
    return u64map_put(&v->others, addr, 1) ? 1 : -1;
}

typedef struct addr_list {
    uint64_t *items;
    size_t count, cap;
} addr_list;

static bool addr_push(addr_list *l, uint64_t a) {
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        uint64_t *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = a;
    return true;
}

typedef struct walk {
    heap *h;
    const query_traversal *t;
    query_traversal_stats *stats;
    visited_set visited;
    addr_list next;      /* the next level */
    addr_list deferred;  /* closures whose bytes or info table are not here yet */
    addr_list infos;     /* info pointers to fetch in one batch */
    heap_closure c;
    bool stop;
} walk;

/* Decodes one closure, shows it to the visitor and queues its new children.
 * A closure that makes no sense is counted and skipped. */
static hs_status visit_one(walk *w, uint64_t addr, const uint8_t *bytes, size_t len,
                           const heap_info *info, uint32_t depth, hs_error *err) {
    hs_error problem; /* written only on failure: zeroing 516 bytes per closure costs */
    hs_status st = info ? heap_decode_known(w->h, addr, bytes, len, info, &w->c, &problem)
                        : heap_decode(w->h, addr, &w->c, &problem);
    if (st == HS_ERR_PROTOCOL) {
        if (w->stats->undecodable++ == 0)
            memcpy(w->stats->first_problem, problem.message, sizeof problem.message);
        return HS_OK;
    }
    if (st != HS_OK) {
        if (err)
            *err = problem;
        return st;
    }
    w->stats->visited++;
    w->stats->bytes += w->c.size;
    query_action act = w->t->visit ? w->t->visit(w->t->ctx, w->h, &w->c, depth) : QUERY_CONTINUE;
    if (act == QUERY_STOP)
        w->stop = true;
    if (act != QUERY_CONTINUE)
        return HS_OK;
    for (size_t e = 0; e < w->c.n_edges; e++) {
        int fresh = visited_add(&w->visited, w->c.edges[e].addr);
        if (fresh < 0 || (fresh > 0 && !addr_push(&w->next, w->c.edges[e].addr)))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

/* How far ahead in the level closure bytes are prefetched: the frontier is
 * in no useful address order, so every closure is a cache miss otherwise. */
#define PREFETCH_DISTANCE 16
/* Closures visited between two progress reports. */
#define PROGRESS_EVERY (UINT64_C(1) << 18)

/* The closures of a level that needed requests: their static images in
 * batched CLOSURES requests, then their new info tables in batched
 * INFO_TABLES requests, then each is visited. */
static hs_status visit_deferred(walk *w, uint32_t depth, hs_error *err) {
    hs_status st = heap_prefetch_statics(w->h, w->deferred.items, w->deferred.count, err);
    for (size_t i = 0; st == HS_OK && i < w->deferred.count; i++) {
        size_t len;
        const uint8_t *bytes = heap_memory_cached(w->h, w->deferred.items[i], &len);
        uint64_t info_ptr = bytes ? hs_load_le64(bytes) : 0;
        if (info_ptr && !heap_info_cached(w->h, info_ptr) && !addr_push(&w->infos, info_ptr))
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    if (st == HS_OK && w->infos.count > 0)
        st = heap_info_prefetch(w->h, w->infos.items, w->infos.count, err);
    for (size_t i = 0; st == HS_OK && i < w->deferred.count && !w->stop; i++)
        st = visit_one(w, w->deferred.items[i], NULL, 0, NULL, depth, err);
    return st;
}

typedef struct ahead {
    const uint8_t *bytes;
    size_t len;
} ahead;

static hs_status visit_level(walk *w, const addr_list *level, uint32_t depth, hs_error *err) {
    w->deferred.count = w->infos.count = 0;
    hs_status st = HS_OK;
    ahead ring[PREFETCH_DISTANCE]; /* bytes of the closures prefetched ahead */
    for (size_t i = 0; i < PREFETCH_DISTANCE && i < level->count; i++) {
        ring[i].bytes = heap_memory_cached(w->h, level->items[i], &ring[i].len);
        if (ring[i].bytes)
            __builtin_prefetch(ring[i].bytes);
    }
    for (size_t i = 0; st == HS_OK && i < level->count && !w->stop; i++) {
        ahead cur = ring[i % PREFETCH_DISTANCE];
        size_t k = i + PREFETCH_DISTANCE;
        if (k < level->count) {
            ahead *next = &ring[k % PREFETCH_DISTANCE];
            next->bytes = heap_memory_cached(w->h, level->items[k], &next->len);
            if (next->bytes)
                __builtin_prefetch(next->bytes);
        }
        const heap_info *info = cur.bytes ? heap_info_lookup(w->h, hs_load_le64(cur.bytes)) : NULL;
        if (!info) { /* a static closure or an info table not here yet */
            if (!addr_push(&w->deferred, level->items[i]))
                st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
            continue;
        }
        st = visit_one(w, level->items[i], cur.bytes, cur.len, info, depth, err);
    }
    if (st == HS_OK && w->deferred.count > 0)
        st = visit_deferred(w, depth, err);
    return st;
}

hs_status query_traverse(heap *h, const uint64_t *starts, size_t n_starts,
                         const query_traversal *t, query_traversal_stats *stats,
                         hs_error *err) {
    query_traversal_stats local = {0};
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    walk w = {.h = h, .t = t, .stats = stats};
    addr_list level = {0};
    hs_status st = visited_init(&w.visited, h, err);

    for (size_t i = 0; st == HS_OK && i < n_starts; i++) {
        uint64_t a = wire_untag(starts[i]);
        int fresh = a ? visited_add(&w.visited, a) : 0;
        if (fresh < 0 || (fresh > 0 && !addr_push(&level, a)))
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    uint64_t next_progress = 0; /* long chains make many tiny levels: report sparingly */
    for (uint32_t depth = 0; st == HS_OK && level.count > 0 && !w.stop; depth++) {
        if (t->progress && stats->visited >= next_progress) {
            next_progress = stats->visited + PROGRESS_EVERY;
            if (!t->progress(t->progress_ctx, stats->visited)) {
                st = hs_fail(err, HS_ERR_USAGE, "cancelled");
                break;
            }
        }
        w.next.count = 0;
        st = visit_level(&w, &level, depth, err);
        stats->depth = depth + 1;
        addr_list tmp = level;
        level = w.next;
        w.next = tmp;
    }
    heap_closure_free(&w.c);
    free(level.items);
    free(w.next.items);
    free(w.deferred.items);
    free(w.infos.items);
    visited_free(&w.visited);
    return st;
}
