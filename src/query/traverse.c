/* Breadth-first traversal of everything reachable from a start set.
 *
 * Level by level: first the level's unknown static closures and info
 * tables are fetched in batched requests, then each closure is decoded,
 * shown to the visitor, and its unvisited children queued for the next
 * level. Visited heap closures cost one bit per heap word (numbered
 * densely, so a far block costs its own words, not the gap before it);
 * closures outside the blocks go into a hash set.
 *
 * With trails (query_traversal.visit_trail) the queue is never reset:
 * a closure's position in it is its id, and parents[id] is the id of the
 * closure it was first reached from, so a path back to the start set is
 * a walk up the parents; the level being visited is a range of the queue.
 *
 * Start sets can come in phases (query_traverse_phases): a phase begins
 * once the previous one has run dry, from its starts that are still
 * unvisited, over what is still unvisited: the same visited set and
 * queue, so a second phase costs no memory of its own. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "heapscope/bytes.h"
#include "heapscope/grow.h"
#include "heapscope/query.h"
#include "heapscope/u64map.h"

/* Asks for huge pages on a large buffer: a trail traversal fills about
 * 80 MB per 10 million closures, and faulting that in 4 KiB pages costs
 * about as much as the bookkeeping itself; the visited set is read at
 * random. */
static void huge_pages(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = UINT64_C(2) << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice only */
#else
    (void)p, (void)bytes;
#endif
}

/* Heap words by their dense number (heap_block_ranges). The largest range
 * is numbered from 0 and checked inline: nearly every closure lives there,
 * and it maps as cheaply as one contiguous span would. */
typedef struct dense_map {
    const heap *h;
    uint64_t lo, bytes, words; /* the largest range */
    bool single;               /* it is the only one */
} dense_map;

static void dense_init(dense_map *m, const heap *h) {
    size_t n;
    const heap_block_range *r = heap_block_ranges(h, &n);
    *m = (dense_map){.h = h, .single = n <= 1};
    for (size_t i = 0; i < n; i++) {
        if (r[i].first_word == 0) {
            m->lo = r[i].lo;
            m->bytes = r[i].hi - r[i].lo;
            m->words = m->bytes >> 3;
        }
    }
}

/* The dense number of the word at addr; false outside the blocks. */
static inline bool dense_word(const dense_map *m, uint64_t addr, uint64_t *word) {
    uint64_t off = addr - m->lo;
    if (off < m->bytes) {
        *word = off >> 3;
        return true;
    }
    return !m->single && heap_dense_word(m->h, addr, word);
}

static inline uint64_t dense_addr(const dense_map *m, uint64_t word) {
    return word < m->words ? m->lo + (word << 3) : heap_dense_addr(m->h, word);
}

/* One bit per dense heap word; closures outside the blocks in a hash set. */
typedef struct visited_set {
    const dense_map *map;
    uint64_t *bits;
    u64map others;
} visited_set;

static hs_status visited_init(visited_set *v, const dense_map *map, hs_error *err) {
    memset(v, 0, sizeof *v);
    v->map = map;
    uint64_t words = heap_block_words(map->h);
    if (words == 0)
        return HS_OK;
    v->bits = calloc((words + 63) / 64, sizeof *v->bits);
    if (!v->bits)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the visited set (%llu words)",
                       (unsigned long long)words);
    huge_pages(v->bits, (words + 63) / 64 * sizeof *v->bits); /* random access: spare the TLB */
    return HS_OK;
}

static void visited_free(visited_set *v) {
    free(v->bits);
    u64map_free(&v->others);
}

/* Marks addr; returns 1 when it was new, 0 when seen, -1 when out of memory. */
static int visited_add(visited_set *v, uint64_t addr) {
    uint64_t w;
    if (dense_word(v->map, addr, &w)) {
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

static inline bool addr_push(addr_list *l, uint64_t a) {
    if (l->count == l->cap && !hs_grow((void **)&l->items, &l->cap, l->count + 1, sizeof a))
        return false;
    l->items[l->count++] = a;
    return true;
}

/* Queued closures are 32-bit codes: the dense number of a closure's word
 * (heap_block_ranges), or OTHER | its index in walk.others (static
 * closures, and heap words beyond the first 16 GiB of blocks).
 * Half the bytes of addresses: half the queue's memory traffic, and with
 * trails 8 bytes per closure in all (code and parent). */
#define OTHER UINT32_C(0x80000000)

typedef struct code_list {
    uint32_t *items;
    size_t count, cap;
} code_list;

static bool code_reserve(code_list *l, size_t cap) {
    uint32_t *items = realloc(l->items, cap * sizeof *items);
    if (!items)
        return false;
    l->items = items;
    l->cap = cap;
    if (cap >= (UINT64_C(1) << 20))
        huge_pages(items, cap * sizeof *items);
    return true;
}

static inline bool code_push(code_list *l, uint32_t v) {
    if (l->count == l->cap && !code_reserve(l, l->cap ? l->cap * 2 : 1024))
        return false;
    l->items[l->count++] = v;
    return true;
}

/* Ids of a trail traversal are queue positions, below NO_PARENT. */
#define NO_PARENT UINT32_MAX
/* Info tables recently looked up: a direct-mapped cache in front of the
 * heap's hash map, which costs a hash per closure otherwise. */
#define INFO_SLOTS 512

typedef struct walk {
    heap *h;
    const query_traversal *t;
    query_traversal_stats *stats;
    dense_map map;
    visited_set visited;
    uint64_t span_codes; /* dense words below this code directly */
    addr_list others;    /* addresses of the OTHER codes */
    code_list queue;     /* this level; with trails, every closure queued so far */
    code_list next;      /* the next level (without trails) */
    uint32_t *parents;   /* with trails: parents[id], NO_PARENT for a start; queue.cap long */
    addr_list deferred;  /* queue positions of closures whose bytes or info table are not here yet */
    addr_list infos;     /* addresses, then info pointers, to fetch in one batch */
    heap_closure c;
    bool stop;
    uint64_t info_keys[INFO_SLOTS];
    const heap_info *info_vals[INFO_SLOTS];
    bool info_wanted[INFO_SLOTS]; /* query_traversal.wants of the slot's info table */
} walk;

static inline uint64_t decode_code(const walk *w, uint32_t code) {
    return code & OTHER ? w->others.items[code & ~OTHER] : dense_addr(&w->map, code);
}

/* The code of a newly queued closure; false when out of memory or codes. */
static inline bool encode_code(walk *w, uint64_t addr, uint32_t *code) {
    uint64_t word;
    if (dense_word(&w->map, addr, &word) && word < w->span_codes) {
        *code = (uint32_t)word;
        return true;
    }
    if (w->others.count >= OTHER - 1 || !addr_push(&w->others, addr))
        return false;
    *code = OTHER | (uint32_t)(w->others.count - 1);
    return true;
}

static bool wanted(walk *w, const heap_info *info) {
    return !w->t->wants || !info || w->t->wants(w->t->ctx, w->h, info);
}

/* The info table of ptr if it is here, and whether the visitor wants its
 * closures. */
static inline const heap_info *info_of(walk *w, uint64_t ptr, bool *want) {
    size_t slot = (size_t)(ptr >> 3 ^ ptr >> 12) & (INFO_SLOTS - 1);
    if (w->info_keys[slot] == ptr && ptr) {
        *want = w->info_wanted[slot];
        return w->info_vals[slot];
    }
    const heap_info *info = heap_info_lookup(w->h, ptr);
    if (info) { /* info tables are never freed while the heap lives */
        w->info_keys[slot] = ptr;
        w->info_vals[slot] = info;
        w->info_wanted[slot] = wanted(w, info);
        *want = w->info_wanted[slot];
    }
    return info;
}

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
        out[i] = decode_code(t->w, t->w->queue.items[id]);
    return n;
}

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

static hs_status too_many(hs_error *err, uint32_t limit) {
    return hs_fail(err, HS_ERR_TOO_LARGE, "more than %lu closures: too many to queue",
                   (unsigned long)limit);
}

/* With trails the queue and the parents are sized up front for every
 * closure the blocks can hold (two words at least each) plus room for
 * static ones, up to 64 Mi closures; pages never written cost nothing,
 * and a heap that fits is never copied. */
#define TRAIL_RESERVE_MAX (UINT64_C(1) << 26)

static hs_status trail_init(walk *w, hs_error *err) {
    uint64_t want = w->span_codes / 2 + 65536;
    if (want > TRAIL_RESERVE_MAX)
        want = TRAIL_RESERVE_MAX;
    if (!code_reserve(&w->queue, (size_t)want) ||
        !(w->parents = malloc((size_t)want * sizeof *w->parents)))
        return nomem(err);
    huge_pages(w->parents, (size_t)want * sizeof *w->parents);
    return HS_OK;
}

/* Queues a newly seen closure with its parent (trails) or for the next level. */
static inline hs_status queue_child(walk *w, uint64_t addr, uint32_t parent, hs_error *err) {
    uint32_t code;
    if (!encode_code(w, addr, &code))
        return w->others.count >= OTHER - 1 ? too_many(err, OTHER - 1) : nomem(err);
    if (!w->parents)
        return code_push(&w->next, code) ? HS_OK : nomem(err);
    if (w->queue.count == w->queue.cap) {
        size_t cap = w->queue.cap * 2;
        if (w->queue.cap >= NO_PARENT - 1)
            return too_many(err, NO_PARENT - 1);
        if (cap > NO_PARENT - 1)
            cap = NO_PARENT - 1;
        uint32_t *p = realloc(w->parents, cap * sizeof *p);
        if (!p)
            return nomem(err);
        w->parents = p;
        if (!code_reserve(&w->queue, cap))
            return nomem(err);
    }
    w->parents[w->queue.count] = parent;
    w->queue.items[w->queue.count++] = code;
    return HS_OK;
}

/* Queues a closure of the start set. */
static hs_status queue_start(walk *w, uint64_t addr, hs_error *err) {
    if (w->parents)
        return queue_child(w, addr, NO_PARENT, err);
    uint32_t code;
    if (!encode_code(w, addr, &code))
        return w->others.count >= OTHER - 1 ? too_many(err, OTHER - 1) : nomem(err);
    return code_push(&w->queue, code) ? HS_OK : nomem(err);
}

/* Decodes the closure at queue position id (address addr), shows it to
 * the visitor and queues its new children. A closure that cannot be read
 * is counted and skipped. */
static hs_status visit_one(walk *w, uint32_t id, uint64_t addr, const uint8_t *bytes, size_t len,
                           const heap_info *info, bool want, uint32_t depth, hs_error *err) {
    hs_error problem; /* written only on failure: zeroing 516 bytes per closure costs */
    hs_status st = info ? heap_decode_known(w->h, addr, bytes, len, info, &w->c, &problem)
                        : heap_decode(w->h, addr, &w->c, &problem);
    if (query_unreadable_status(st)) {
        query_unreadable_add(&w->stats->unreadable, addr, problem.message);
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
    if (!info) /* decoded here: a static closure or a new info table */
        want = wanted(w, w->c.info);
    if (want && w->t->visit_trail) {
        query_trail trail = {w, id, depth};
        act = w->t->visit_trail(w->t->ctx, w->h, &w->c, &trail);
    } else if (want && w->t->visit) {
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
#define PROGRESS_EVERY (UINT64_C(1) << 16)

/* Inside a level too, every PROGRESS_EVERY closures: a wide level must not
 * keep a quit waiting. */
static hs_status level_progress(walk *w, size_t done_in_level, hs_error *err) {
    if ((done_in_level & (PROGRESS_EVERY - 1)) != PROGRESS_EVERY - 1 || !w->t->progress)
        return HS_OK;
    if (w->t->progress(w->t->progress_ctx, w->stats->visited))
        return HS_OK;
    return hs_fail(err, HS_ERR_CANCELLED, "cancelled");
}

typedef struct ahead {
    uint64_t addr;
    const uint8_t *bytes;
    size_t len;
} ahead;

static inline void look_ahead(walk *w, size_t i, ahead *a) {
    a->addr = decode_code(w, w->queue.items[i]);
    a->bytes = heap_memory_cached(w->h, a->addr, &a->len);
    if (a->bytes)
        __builtin_prefetch(a->bytes);
}

/* A deferred closure that needed no request: it waits only for its turn
 * (a flag in the deferred list's queue positions). */
#define READY (UINT64_C(1) << 63)

/* The closures of a level from the first that needed requests on: the
 * static images of those that need them in batched CLOSURES requests,
 * then their new info tables in batched INFO_TABLES requests, then each is
 * visited, in queue order. */
static hs_status visit_deferred(walk *w, uint32_t depth, hs_error *err) {
    hs_status st;
    w->infos.count = 0; /* first holds the needy addresses, then the info pointers */
    for (size_t i = 0; i < w->deferred.count; i++)
        if (!(w->deferred.items[i] & READY) &&
            !addr_push(&w->infos, decode_code(w, w->queue.items[w->deferred.items[i]])))
            return nomem(err);
    st = heap_prefetch_statics(w->h, w->infos.items, w->infos.count, err);
    w->infos.count = 0;
    for (size_t i = 0; st == HS_OK && i < w->deferred.count; i++) {
        if (w->deferred.items[i] & READY)
            continue;
        size_t len;
        uint64_t addr = decode_code(w, w->queue.items[w->deferred.items[i]]);
        const uint8_t *bytes = heap_memory_cached(w->h, addr, &len);
        uint64_t info_ptr = bytes ? hs_load_le64(bytes) : 0;
        if (info_ptr && !heap_info_cached(w->h, info_ptr) && !addr_push(&w->infos, info_ptr))
            st = nomem(err);
    }
    if (st == HS_OK && w->infos.count > 0)
        st = heap_info_prefetch(w->h, w->infos.items, w->infos.count, err);
    size_t n = w->deferred.count;
    ahead ring[PREFETCH_DISTANCE];
    for (size_t i = 0; i < PREFETCH_DISTANCE && i < n; i++)
        look_ahead(w, w->deferred.items[i] & ~READY, &ring[i]);
    for (size_t i = 0; st == HS_OK && i < n && !w->stop; i++) {
        ahead cur = ring[i % PREFETCH_DISTANCE];
        if (i + PREFETCH_DISTANCE < n)
            look_ahead(w, w->deferred.items[i + PREFETCH_DISTANCE] & ~READY,
                       &ring[i % PREFETCH_DISTANCE]);
        if ((st = level_progress(w, i, err)) != HS_OK)
            break;
        bool want = true;
        const heap_info *info = cur.bytes ? info_of(w, hs_load_le64(cur.bytes), &want) : NULL;
        st = visit_one(w, (uint32_t)(w->deferred.items[i] & ~READY), cur.addr, cur.bytes,
                       cur.len, info, want, depth, err);
    }
    return st;
}

/* Visits queue positions [lo, hi): one level. With trails, children are
 * appended to the same queue, so its items are re-read, never cached. */
static hs_status visit_level(walk *w, size_t lo, size_t hi, uint32_t depth, hs_error *err) {
    w->deferred.count = w->infos.count = 0;
    hs_status st = HS_OK;
    ahead ring[PREFETCH_DISTANCE]; /* the closures prefetched ahead */
    for (size_t i = lo; i < lo + PREFETCH_DISTANCE && i < hi; i++)
        look_ahead(w, i, &ring[(i - lo) % PREFETCH_DISTANCE]);
    for (size_t i = lo; st == HS_OK && i < hi && !w->stop; i++) {
        ahead cur = ring[(i - lo) % PREFETCH_DISTANCE];
        if (!w->deferred.count && (st = level_progress(w, i - lo, err)) != HS_OK)
            break;
        size_t k = i + PREFETCH_DISTANCE;
        if (k < hi)
            look_ahead(w, k, &ring[(k - lo) % PREFETCH_DISTANCE]);
        bool want = true;
        const heap_info *info = cur.bytes ? info_of(w, hs_load_le64(cur.bytes), &want) : NULL;
        if (!info || w->deferred.count) { /* a static closure or an info table not here
                        yet, and every closure after it in the level: the order of visits is
                        the queue's whatever the heap has fetched already (a completed
                        pause, a snapshot) */
            if (!addr_push(&w->deferred, info ? i | READY : i))
                st = nomem(err);
            continue;
        }
        st = visit_one(w, (uint32_t)i, cur.addr, cur.bytes, cur.len, info, want, depth, err);
    }
    if (st == HS_OK && w->deferred.count > 0)
        st = visit_deferred(w, depth, err);
    return st;
}

/* Queues the closures of a start set that are not visited yet. */
static hs_status queue_starts(walk *w, const query_starts *set, hs_error *err) {
    hs_status st = HS_OK;
    for (size_t i = 0; st == HS_OK && i < set->count; i++) {
        uint64_t a = wire_untag(set->items[i]);
        int fresh = a ? visited_add(&w->visited, a) : 0;
        if (fresh < 0)
            st = nomem(err);
        else if (fresh > 0)
            st = queue_start(w, a, err);
    }
    return st;
}

/* Visits level after level until the queue runs dry: one phase. With
 * trails, *lo is where the phase's first level begins in the queue. */
static hs_status run_phase(walk *w, size_t *lo, uint64_t *next_progress, hs_error *err) {
    hs_status st = HS_OK;
    query_traversal_stats *stats = w->stats;
    const query_traversal *t = w->t;
    for (uint32_t depth = 0; st == HS_OK && w->queue.count > *lo && !w->stop; depth++) {
        if (t->progress && stats->visited >= *next_progress) {
            *next_progress = stats->visited + PROGRESS_EVERY;
            if (!t->progress(t->progress_ctx, stats->visited))
                return hs_fail(err, HS_ERR_CANCELLED, "cancelled");
        }
        size_t hi = w->queue.count;
        w->next.count = 0;
        st = visit_level(w, *lo, hi, depth, err);
        if (stats->depth < depth + 1)
            stats->depth = depth + 1;
        if (t->visit_trail) {
            *lo = hi; /* the next level was appended to the queue */
        } else {
            code_list tmp = w->queue;
            w->queue = w->next;
            w->next = tmp;
        }
    }
    return st;
}

hs_status query_traverse_phases(heap *h, const query_starts *phases, size_t n_phases,
                                const query_traversal *t, query_traversal_stats *stats,
                                hs_error *err) {
    query_traversal_stats local = {0};
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    walk w = {.h = h, .t = t, .stats = stats};
    dense_init(&w.map, h);
    hs_status st = visited_init(&w.visited, &w.map, err);
    w.span_codes = heap_block_words(h);
    if (w.span_codes > OTHER) /* a heap over 16 GiB: the rest codes as OTHER */
        w.span_codes = OTHER;
    if (st == HS_OK && t->visit_trail)
        st = trail_init(&w, err);
    uint64_t next_progress = 0; /* long chains make many tiny levels: report sparingly */
    size_t lo = 0;              /* with trails, the level is queue positions [lo, queue.count) */
    for (size_t p = 0; st == HS_OK && p < n_phases && !w.stop; p++) {
        st = queue_starts(&w, &phases[p], err);
        if (st == HS_OK)
            st = run_phase(&w, &lo, &next_progress, err);
    }
    heap_closure_free(&w.c);
    free(w.queue.items);
    free(w.next.items);
    free(w.parents);
    free(w.others.items);
    free(w.deferred.items);
    free(w.infos.items);
    visited_free(&w.visited);
    return st;
}

hs_status query_traverse(heap *h, const uint64_t *starts, size_t n_starts,
                         const query_traversal *t, query_traversal_stats *stats,
                         hs_error *err) {
    query_starts one = {starts, n_starts};
    return query_traverse_phases(h, &one, 1, t, stats, err);
}
