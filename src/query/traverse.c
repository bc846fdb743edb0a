/* Breadth-first traversal of everything reachable from a start set.
 *
 * Level by level: first the level's unknown static closures and info
 * tables are fetched in batched requests, then each closure is decoded,
 * shown to the visitor, and its unvisited children queued for the next
 * level. Visited heap closures cost one bit per heap word; closures
 * outside the blocks go into a hash set.
 *
 * With trails (query_traversal.visit_trail) the queue is never reset:
 * a closure's position in it is its id, and parents[id] is the id of the
 * closure it was first reached from, so a path back to the start set is
 * a walk up the parents; the level being visited is a range of the queue. */
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

/* Ids of a trail traversal are 32-bit queue positions. */
#define NO_PARENT UINT32_MAX

typedef struct walk {
    heap *h;
    const query_traversal *t;
    query_traversal_stats *stats;
    visited_set visited;
    addr_list queue;     /* this level; with trails, every closure queued so far */
    addr_list next;      /* the next level (without trails) */
    uint32_t *parents;   /* with trails: parents[id], NO_PARENT for a start */
    size_t parents_cap;
    addr_list deferred;  /* queue positions of closures whose bytes or info table are not here yet */
    addr_list infos;     /* info pointers to fetch in one batch */
    heap_closure c;
    bool stop;
} walk;

struct query_trail {
    const walk *w;
    uint32_t id;
    uint32_t depth;
};

uint32_t query_trail_depth(const query_trail *t) {
    return t->depth;
}

size_t query_trail_path(const query_trail *t, uint64_t *out, size_t cap) {
    size_t n = (size_t)t->depth + 1;
    if (cap < n)
        return n;
    uint32_t id = t->id;
    for (size_t i = n; i-- > 0; id = t->w->parents[id])
        out[i] = t->w->queue.items[id];
    return n;
}

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

/* Queues a newly seen closure with its parent (trails) or for the next level. */
static hs_status queue_child(walk *w, uint64_t addr, uint32_t parent, hs_error *err) {
    if (!w->parents)
        return addr_push(&w->next, addr) ? HS_OK : nomem(err);
    if (w->queue.count >= NO_PARENT)
        return hs_fail(err, HS_ERR_TOO_LARGE, "more than %u closures: too many to record paths",
                       NO_PARENT - 1);
    if (!addr_push(&w->queue, addr))
        return nomem(err);
    if (w->queue.count > w->parents_cap) {
        uint32_t *p = realloc(w->parents, w->queue.cap * sizeof *p);
        if (!p)
            return nomem(err);
        w->parents = p;
        w->parents_cap = w->queue.cap;
    }
    w->parents[w->queue.count - 1] = parent;
    return HS_OK;
}

/* Decodes the closure at queue position id, shows it to the visitor and
 * queues its new children. A closure that makes no sense is counted and
 * skipped. */
static hs_status visit_one(walk *w, uint32_t id, const uint8_t *bytes, size_t len,
                           const heap_info *info, uint32_t depth, hs_error *err) {
    uint64_t addr = w->queue.items[id];
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
    query_action act = QUERY_CONTINUE;
    if (w->t->visit_trail) {
        query_trail trail = {w, id, depth};
        act = w->t->visit_trail(w->t->ctx, w->h, &w->c, &trail);
    } else if (w->t->visit) {
        act = w->t->visit(w->t->ctx, w->h, &w->c, depth);
    }
    if (act == QUERY_STOP)
        w->stop = true;
    if (act != QUERY_CONTINUE)
        return HS_OK;
    for (size_t e = 0; e < w->c.n_edges; e++) {
        int fresh = visited_add(&w->visited, w->c.edges[e].addr);
        if (fresh < 0)
            return nomem(err);
        if (fresh > 0 && (st = queue_child(w, w->c.edges[e].addr, id, err)) != HS_OK)
            return st;
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
    hs_status st;
    w->infos.count = 0; /* first holds the deferred addresses, then the info pointers */
    for (size_t i = 0; i < w->deferred.count; i++)
        if (!addr_push(&w->infos, w->queue.items[w->deferred.items[i]]))
            return nomem(err);
    st = heap_prefetch_statics(w->h, w->infos.items, w->infos.count, err);
    w->infos.count = 0;
    for (size_t i = 0; st == HS_OK && i < w->deferred.count; i++) {
        size_t len;
        const uint8_t *bytes = heap_memory_cached(w->h, w->queue.items[w->deferred.items[i]], &len);
        uint64_t info_ptr = bytes ? hs_load_le64(bytes) : 0;
        if (info_ptr && !heap_info_cached(w->h, info_ptr) && !addr_push(&w->infos, info_ptr))
            st = nomem(err);
    }
    if (st == HS_OK && w->infos.count > 0)
        st = heap_info_prefetch(w->h, w->infos.items, w->infos.count, err);
    for (size_t i = 0; st == HS_OK && i < w->deferred.count && !w->stop; i++)
        st = visit_one(w, (uint32_t)w->deferred.items[i], NULL, 0, NULL, depth, err);
    return st;
}

typedef struct ahead {
    const uint8_t *bytes;
    size_t len;
} ahead;

/* Visits queue positions [lo, hi): one level. With trails, children are
 * appended to the same queue, so its items are re-read, never cached. */
static hs_status visit_level(walk *w, size_t lo, size_t hi, uint32_t depth, hs_error *err) {
    w->deferred.count = w->infos.count = 0;
    hs_status st = HS_OK;
    ahead ring[PREFETCH_DISTANCE]; /* bytes of the closures prefetched ahead */
    for (size_t i = lo; i < lo + PREFETCH_DISTANCE && i < hi; i++) {
        ahead *a = &ring[(i - lo) % PREFETCH_DISTANCE];
        a->bytes = heap_memory_cached(w->h, w->queue.items[i], &a->len);
        if (a->bytes)
            __builtin_prefetch(a->bytes);
    }
    for (size_t i = lo; st == HS_OK && i < hi && !w->stop; i++) {
        ahead cur = ring[(i - lo) % PREFETCH_DISTANCE];
        size_t k = i + PREFETCH_DISTANCE;
        if (k < hi) {
            ahead *next = &ring[(k - lo) % PREFETCH_DISTANCE];
            next->bytes = heap_memory_cached(w->h, w->queue.items[k], &next->len);
            if (next->bytes)
                __builtin_prefetch(next->bytes);
        }
        const heap_info *info = cur.bytes ? heap_info_lookup(w->h, hs_load_le64(cur.bytes)) : NULL;
        if (!info) { /* a static closure or an info table not here yet */
            if (!addr_push(&w->deferred, i))
                st = nomem(err);
            continue;
        }
        st = visit_one(w, (uint32_t)i, cur.bytes, cur.len, info, depth, err);
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
    hs_status st = visited_init(&w.visited, h, err);
    if (st == HS_OK && t->visit_trail) {
        w.parents_cap = 1024;
        w.parents = malloc(w.parents_cap * sizeof *w.parents);
        if (!w.parents)
            st = nomem(err);
    }
    for (size_t i = 0; st == HS_OK && i < n_starts; i++) {
        uint64_t a = wire_untag(starts[i]);
        int fresh = a ? visited_add(&w.visited, a) : 0;
        if (fresh < 0)
            st = nomem(err);
        else if (fresh > 0)
            st = t->visit_trail ? queue_child(&w, a, NO_PARENT, err)
                                : (addr_push(&w.queue, a) ? HS_OK : nomem(err));
    }
    uint64_t next_progress = 0; /* long chains make many tiny levels: report sparingly */
    size_t lo = 0; /* the level is queue positions [lo, queue.count) */
    for (uint32_t depth = 0; st == HS_OK && w.queue.count > lo && !w.stop; depth++) {
        if (t->progress && stats->visited >= next_progress) {
            next_progress = stats->visited + PROGRESS_EVERY;
            if (!t->progress(t->progress_ctx, stats->visited)) {
                st = hs_fail(err, HS_ERR_USAGE, "cancelled");
                break;
            }
        }
        size_t hi = w.queue.count;
        w.next.count = 0;
        st = visit_level(&w, lo, hi, depth, err);
        stats->depth = depth + 1;
        if (t->visit_trail) {
            lo = hi; /* the next level was appended to the queue */
        } else {
            addr_list tmp = w.queue;
            w.queue = w.next;
            w.next = tmp;
        }
    }
    heap_closure_free(&w.c);
    free(w.queue.items);
    free(w.next.items);
    free(w.parents);
    free(w.deferred.items);
    free(w.infos.items);
    visited_free(&w.visited);
    return st;
}
