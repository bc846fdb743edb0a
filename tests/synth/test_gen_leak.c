/* The planted leak: the plan's path is the unique shortest path from a GC
 * root to the first Leak closure (checked by an independent breadth-first
 * search that counts shortest paths), every Leak closure hangs below the
 * planted thunk, and no other word of the heap uses the Leak info table. */
#include <stdint.h>

#include "test_gen_walk.h"

/* address -> (distance, number of shortest paths), open addressing */
typedef struct dist_map {
    uint64_t *key;
    uint32_t *dist;
    uint32_t *paths;
    size_t cap;
} dist_map;

static size_t dm_slot(const dist_map *m, uint64_t a) {
    size_t h = tw_hash(a) & (m->cap - 1);
    while (m->key[h] && m->key[h] != a)
        h = (h + 1) & (m->cap - 1);
    return h;
}

typedef struct bfs {
    const tw *t;
    dist_map m;
    tw_vec queue;
    uint32_t cur_dist, cur_paths;
} bfs;

static void bfs_edge(void *ud, uint64_t from, uint64_t v, int kind) {
    (void)from;
    (void)kind;
    bfs *b = ud;
    uint64_t a = v & ~(uint64_t)7;
    size_t h = dm_slot(&b->m, a);
    if (!b->m.key[h]) {
        b->m.key[h] = a;
        b->m.dist[h] = b->cur_dist + 1;
        b->m.paths[h] = b->cur_paths;
        tw_push(&b->queue, a);
    } else if (b->m.dist[h] == b->cur_dist + 1) {
        uint64_t s = (uint64_t)b->m.paths[h] + b->cur_paths;
        b->m.paths[h] = s > 1000000 ? 1000000 : (uint32_t)s;
    }
}

static void run_bfs(const tw *t, bfs *b, size_t cap) {
    b->t = t;
    b->m.cap = cap;
    b->m.key = calloc(cap, 8);
    b->m.dist = calloc(cap, 4);
    b->m.paths = calloc(cap, 4);
    cr_assert(b->m.key && b->m.dist && b->m.paths);
    for (size_t r = 0; r < t->p->n_roots; r++) {
        uint64_t a = t->p->roots[r] & ~(uint64_t)7;
        size_t h = dm_slot(&b->m, a);
        if (!b->m.key[h]) {
            b->m.key[h] = a;
            b->m.paths[h] = 1;
            tw_push(&b->queue, a);
        }
    }
    for (size_t q = 0; q < b->queue.n; q++) { /* FIFO: the vector only grows */
        uint64_t a = b->queue.v[q];
        size_t h = dm_slot(&b->m, a);
        b->cur_dist = b->m.dist[h];
        b->cur_paths = b->m.paths[h];
        tw_children(t, a, bfs_edge, b);
    }
}

static void bfs_free(bfs *b) {
    free(b->m.key);
    free(b->m.dist);
    free(b->m.paths);
    free(b->queue.v);
}

typedef struct find_child {
    uint64_t want;
    bool found;
} find_child;

static void find_edge(void *ud, uint64_t from, uint64_t v, int kind) {
    (void)from;
    find_child *f = ud;
    (void)kind;
    if ((v & ~(uint64_t)7) == f->want)
        f->found = true;
}

/* The retainer search's depth-first order (retainers-and-eras.md §2-§3):
 * roots in order, children fully before the next sibling, WEAK children
 * never entered. Returns the path (root first) to the first closure with
 * info pointer `want`. */
typedef struct dfs_item {
    uint64_t addr;
    size_t parent; /* index into order, SIZE_MAX for a root */
} dfs_item;

typedef struct dfs {
    dfs_item *stack, *order;
    size_t n_stack, cap_stack, n_order, cap_order;
    tw_vec kids;
} dfs;

static void dfs_kid(void *ud, uint64_t from, uint64_t v, int kind) {
    (void)from;
    (void)kind;
    tw_push(&((dfs *)ud)->kids, v & ~(uint64_t)7);
}

static void dfs_push(dfs *d, uint64_t a, size_t parent) {
    if (d->n_stack == d->cap_stack) {
        d->cap_stack = d->cap_stack ? 2 * d->cap_stack : 1024;
        d->stack = realloc(d->stack, d->cap_stack * sizeof *d->stack);
        cr_assert_not_null(d->stack);
    }
    d->stack[d->n_stack++] = (dfs_item){a, parent};
}

static size_t dfs_path_to(const tw *t, uint64_t want, uint64_t *path, size_t max) {
    dfs d = {0};
    tw_set seen = {0};
    for (size_t r = t->p->n_roots; r-- > 0;)
        dfs_push(&d, t->p->roots[r] & ~(uint64_t)7, SIZE_MAX);
    size_t n = 0;
    while (d.n_stack) {
        dfs_item it = d.stack[--d.n_stack];
        if (!tw_set_add(&seen, it.addr))
            continue;
        if (d.n_order == d.cap_order) {
            d.cap_order = d.cap_order ? 2 * d.cap_order : 1024;
            d.order = realloc(d.order, d.cap_order * sizeof *d.order);
            cr_assert_not_null(d.order);
        }
        size_t me = d.n_order++;
        d.order[me] = it;
        if (tw_u64(t, it.addr) == want) {
            size_t rev[64], k = 0;
            for (size_t i = me; i != SIZE_MAX && k < 64; i = d.order[i].parent)
                rev[k++] = i;
            for (; n < k && n < max; n++)
                path[n] = d.order[rev[k - 1 - n]].addr;
            break;
        }
        if (tw_closure_info(t, it.addr).type == 49)
            continue;
        d.kids.n = 0;
        tw_children(t, it.addr, dfs_kid, &d);
        for (size_t i = d.kids.n; i-- > 0;)
            dfs_push(&d, d.kids.v[i], me);
    }
    free(d.stack);
    free(d.order);
    free(d.kids.v);
    free(seen.slot);
    return n;
}

static size_t parse_path(const char *json, uint64_t *path, size_t max) {
    const char *s = strstr(json, "\"path\": [");
    cr_assert_not_null(s);
    size_t n = 0;
    for (const char *q = strstr(s, "\"address\": \""); q && n < max;
         q = strstr(q + 1, "\"address\": \""))
        path[n++] = strtoull(q + strlen("\"address\": \""), NULL, 16);
    return n;
}

static void check_leak(synth_options *o) {
    synth_process p;
    tw_generate(o, &p);
    tw t = tw_of(&p);
    uint64_t path[16];
    size_t len = parse_path(p.plan_json, path, 16);
    cr_assert_eq(len, 6, "TSO, STACK, MUT_VAR, THUNK, (:), Leak");
    static const uint32_t types[6] = {52, 53, 48, 16, 4, 5};
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(tw_closure_info(&t, path[i]).type, types[i], "path[%zu] type", i);
    const char *fm = strstr(p.plan_json, "\"first_match\": \"");
    cr_assert_not_null(fm);
    cr_assert_eq(strtoull(fm + 16, NULL, 16), path[len - 1]);

    /* each step is an edge the tracer follows */
    bool is_root = false;
    for (size_t r = 0; r < p.n_roots; r++)
        is_root |= (p.roots[r] & ~(uint64_t)7) == path[0];
    cr_assert(is_root, "path does not start at a root");
    for (size_t i = 0; i + 1 < len; i++) {
        find_child f = {path[i + 1], false};
        tw_children(&t, path[i], find_edge, &f);
        cr_assert(f.found, "path[%zu] -> path[%zu] is not an edge", i, i + 1);
    }

    /* unique shortest path; no other Leak closure as close */
    uint64_t leak_info = tw_u64(&t, path[len - 1]);
    bfs b = {0};
    run_bfs(&t, &b, 1u << 20);
    for (size_t i = 0; i < len; i++) {
        size_t h = dm_slot(&b.m, path[i]);
        cr_assert_eq(b.m.key[h], path[i]);
        cr_assert_eq(b.m.dist[h], i, "path[%zu] at distance %u", i, b.m.dist[h]);
        cr_assert_eq(b.m.paths[h], 1, "%u shortest paths to path[%zu]", b.m.paths[h], i);
    }
    size_t leaks = 0;
    for (size_t q = 0; q < b.queue.n; q++) {
        uint64_t a = b.queue.v[q];
        if (tw_u64(&t, a) != leak_info)
            continue;
        leaks++;
        if (a != path[len - 1])
            cr_assert_gt(b.m.dist[dm_slot(&b.m, a)], len - 1, "another Leak as close");
    }
    cr_assert_eq(leaks, o->leak_count);
    bfs_free(&b);

    /* the client's depth-first retainer search meets the same path first */
    uint64_t dpath[16];
    size_t dlen = dfs_path_to(&t, leak_info, dpath, 16);
    cr_assert_eq(dlen, len, "depth-first path of length %zu", dlen);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(dpath[i], path[i], "depth-first path differs at %zu", i);

    /* every Leak closure lies below the thunk */
    tw_vec without = tw_reach(&t, path[3], NULL);
    for (size_t i = 0; i < without.n; i++)
        cr_assert_neq(tw_u64(&t, without.v[i]), leak_info, "Leak reachable around the thunk");
    free(without.v);

    /* no other closure of the heap, live or dead, uses the Leak table */
    tw_set seen;
    tw_vec all = tw_reach(&t, 0, &seen);
    size_t words = 0;
    for (size_t r = 2; r < p.n_regions; r++) {
        const uint8_t *m = p.regions[r].bytes;
        for (uint64_t off = 0; off + 8 <= p.regions[r].size; off += 8) {
            uint64_t w;
            memcpy(&w, m + off, 8);
            if (w != leak_info)
                continue;
            words++;
            uint64_t a = p.regions[r].base + off;
            cr_assert(tw_set_has(&seen, a), "unreachable word 0x%llx holds the Leak info",
                      (unsigned long long)a);
            cr_assert_eq(tw_closure_info(&t, a).type, 5);
        }
    }
    cr_assert_eq(words, o->leak_count);
    free(all.v);
    free(seen.slot);

    /* the retaining thunk: younger, with a source location */
    const synth_ipe *ipe = synth_find_ipe(&p, tw_u64(&t, path[3]));
    cr_assert_not_null(ipe, "leak thunk without IPE");
    cr_assert_str_eq(ipe->strings[5], "app/Main.hs:41:9-30");
    cr_assert_str_eq(ipe->strings[1], "16");
    cr_assert_eq(tw_u64(&t, path[0] + t.H + 16), path[1], "root TSO's stack");
    if (o->profiled) {
        uint64_t thunk_era = tw_u64(&t, path[3] + 16);
        cr_assert_gt(thunk_era, o->leak_era);
        cr_assert_leq(thunk_era, o->eras);
        cr_assert_eq(tw_u64(&t, path[4] + 16), o->leak_era, "list cell era");
        cr_assert_eq(tw_u64(&t, path[5] + 16), o->leak_era, "Leak era");
    }
    char want[200];
    snprintf(want, sizeof want, "\"type\": \"THUNK_1_0\", \"name\": \"%s\"", ipe->strings[0]);
    cr_assert_not_null(strstr(p.plan_json, want));
    snprintf(want, sizeof want, "\"type\": \"CONSTR_1_1\", \"name\": \"%s\"", o->leak_constructor);
    cr_assert_not_null(strstr(p.plan_json, want));
    cr_assert_not_null(strstr(p.plan_json, "\"type\": \"CONSTR_2_0\", \"name\": \":\""));
    synth_process_free(&p);
}

Test(gen_leak, plain) {
    synth_options o;
    synth_options_default(&o);
    check_leak(&o);
}

Test(gen_leak, profiled) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = true;
    check_leak(&o);
}

Test(gen_leak, other_constructor_and_era) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = true;
    o.leak_constructor = "Cache'Entry";
    o.leak_count = 3;
    o.leak_era = 3;
    o.eras = 4;
    o.seed = 5;
    check_leak(&o);
}

Test(gen_leak, big_leak_in_small_heap) {
    synth_options o;
    synth_options_default(&o);
    o.leak_count = 20000;
    o.closures = 5000;
    check_leak(&o);
}
