/* The era-boundary report (query_leaks_run) on a small era-profiled heap
 * built by hand, where every group's edges, older closures and bytes are
 * known: boundary edges only from newer to older eras (not to or from era
 * 0, not through a WEAK), grouped by source location across info tables,
 * a closure without IPE named by its type and info table, bytes only for
 * older closures the edge's retainer dominates; a group's edges (all, or
 * those retaining most up to a limit) adding up to its counts; the ranking
 * (groups that free something first, holds before contents, then bytes) and
 * the retainer kinds; and the refusal on a heap without era profiling. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "query_heap.h"

#define H 24 /* profiled header bytes */

typedef struct world {
    qh *q;
    heap *h;
    uint64_t holder, t, t2, t3, shared, c1, c2, l1, l2;
    uint64_t bare_info; /* T2's info table: no IPE */
} world;

/* A THUNK_1_0: the padding word, then its pointer. */
static uint64_t thunk(qh *q, uint64_t info, uint64_t target) {
    uint64_t words[2] = {0, target};
    return qh_with_info(q, info, 2, words, 0);
}

/* holder (era 3) -> t, t2, shared, t3; t (era 3, Main.hs:41) -> c1;
 * t3 (era 4, another info table at Main.hs:41) -> c2; t2 (era 2, no IPE)
 * -> shared; c1 -> l1, c2; c2 -> l2, [] (static, era 0); list and Leaks
 * of era 1; a WEAK of era 5 holds l1 and shared (it retains nothing). */
static void world_make(world *w) {
    memset(w, 0, sizeof *w);
    w->q = qh_new(WIRE_PROF_ERA);
    uint64_t nil = qh_static_con(w->q, "ghc-prim:GHC.Types.[]");
    w->l1 = qh_con(w->q, "main:Main.Leak", 0, NULL, 1);
    w->l2 = qh_con(w->q, "main:Main.Leak", 0, NULL, 1);
    uint64_t p2[2] = {w->l2, nil};
    w->c2 = qh_con(w->q, "ghc-prim:GHC.Types.:", 2, p2, 0);
    uint64_t p1[2] = {w->l1, w->c2};
    w->c1 = qh_con(w->q, "ghc-prim:GHC.Types.:", 2, p1, 0);
    w->shared = qh_con(w->q, "main:Main.Shared", 0, NULL, 1);
    uint64_t a = qh_new_info(w->q, HS_THUNK_1_0, 1, 0);
    uint64_t a2 = qh_new_info(w->q, HS_THUNK_1_0, 1, 0);
    w->bare_info = qh_new_info(w->q, HS_THUNK_1_0, 1, 0);
    qh_ipe(w->q, a, "sat_a_info", "app/Main.hs:41:9-30");
    qh_ipe(w->q, a2, "sat_b_info", "app/Main.hs:41:9-30");
    w->t = thunk(w->q, a, w->c1);
    w->t3 = thunk(w->q, a2, w->c2);
    w->t2 = thunk(w->q, w->bare_info, w->shared);
    uint64_t ph[4] = {w->t, w->t2, w->shared, w->t3};
    w->holder = qh_con(w->q, "main:Main.Holder", 4, ph, 0);
    uint64_t weak = qh_weak(w->q, w->l1, w->shared);
    uint64_t eras[][2] = {{w->l1, 1}, {w->l2, 1}, {w->c1, 1}, {w->c2, 1}, {w->shared, 1},
                          {w->t, 3},  {w->t3, 4}, {w->t2, 2}, {w->holder, 3}, {weak, 5}};
    for (size_t i = 0; i < sizeof eras / sizeof eras[0]; i++)
        qh_set_era(w->q, eras[i][0], eras[i][1]);
    qh_root(w->q, w->holder);
    qh_root(w->q, weak);
    w->h = qh_open(w->q);
}

static void world_free(world *w) {
    qh_free(w->q);
}

static const query_leak_group *group(const query_leaks *l, const char *retainer,
                                     const char *retained) {
    for (size_t i = 0; i < l->n_groups; i++)
        if (!strcmp(l->groups[i].retainer, retainer) && !strcmp(l->groups[i].retained, retained))
            return &l->groups[i];
    cr_assert_fail("no group %s -> %s", retainer, retained);
    return NULL;
}

static uint64_t retained_of(const query_dominators *d, uint64_t addr) {
    query_dominated q;
    cr_assert(query_dominators_get(d, addr, &q));
    return q.retained;
}

/* The report over h; d is kept for retained sizes. */
static void report_on(heap *h, query_dominators **d, query_leaks *l) {
    hs_error err = {0};
    *d = NULL;
    cr_assert_eq(query_dominators_run(h, NULL, NULL, d, &err), HS_OK, "%s", err.message);
    cr_assert_eq(query_leaks_run(h, *d, NULL, NULL, l, &err), HS_OK, "%s", err.message);
}

/* The report over q's heap, opened here. */
static void report_of(qh *q, query_dominators **d, query_leaks *l) {
    report_on(qh_open(q), d, l);
}

Test(leaks, groups_edges_and_bytes) {
    world w;
    world_make(&w);
    query_dominators *d;
    query_leaks l;
    report_on(w.h, &d, &l);

    /* t -> c1, t3 -> c2, t2 -> shared, holder -> shared, holder -> t2 */
    cr_expect_eq(l.edges, 5);
    cr_assert_eq(l.n_groups, 4);

    /* two info tables at one location are one group; t dominates c1 (and
     * l1), but c2 is also held through c1, so only the holder dominates it */
    const query_leak_group *g = &l.groups[0];
    cr_expect_str_eq(g->retainer, "app/Main.hs:41:9-30");
    cr_expect_str_eq(g->retained, "ghc-prim:GHC.Types::");
    cr_expect(g->named_by_ipe);
    cr_expect_eq(g->edges, 2);
    cr_expect_eq(g->older, 1);
    cr_expect_eq(g->bytes, (uint64_t)(H + 16) + (H + 8), "%lu", (unsigned long)g->bytes);
    cr_expect(g->from == w.t || g->from == w.t3);
    cr_expect_eq(g->to, g->from == w.t ? w.c1 : w.c2);

    char bare[64];
    snprintf(bare, sizeof bare, "THUNK_1_0 <info 0x%lx>", (unsigned long)w.bare_info);
    g = group(&l, bare, "main:Main:Shared"); /* shared is held by the holder too */
    cr_expect(!g->named_by_ipe);
    cr_expect_eq(g->edges, 1);
    cr_expect_eq(g->older, 0);
    cr_expect_eq(g->bytes, 0);
    cr_expect_eq(g->from_era, 2);
    cr_expect_eq(g->to_era, 1);

    const query_leak_group *to_shared = NULL, *to_thunk = NULL;
    for (size_t i = 0; i < l.n_groups; i++) {
        if (!strcmp(l.groups[i].retained, bare)) /* the thunk without IPE, by its type */
            to_thunk = &l.groups[i];
        else if (l.groups[i].from == w.holder)
            to_shared = &l.groups[i];
    }
    cr_assert(to_thunk && to_shared);
    cr_expect_eq(to_thunk->from, w.holder);
    cr_expect_eq(to_thunk->bytes, retained_of(d, w.t2));
    cr_expect_eq(to_thunk->bytes, (uint64_t)H + 16); /* the thunk alone: shared is shared */
    cr_expect_eq(to_shared->bytes, (uint64_t)H + 8);
    cr_expect_eq(to_shared->older, 1);

    /* most bytes first; the total is their sum */
    uint64_t sum = 0;
    for (size_t i = 0; i < l.n_groups; i++) {
        sum += l.groups[i].bytes;
        if (i)
            cr_expect_geq(l.groups[i - 1].bytes, l.groups[i].bytes);
    }
    cr_expect_eq(l.bytes, sum);
    query_leaks_free(&l);
    query_dominators_free(d);
    world_free(&w);
}

/* The location's group (t -> c1, t3 -> c2): its edges are exactly those two,
 * the one whose retainer dominates the older closure first with that
 * closure's retained size, the other with none; a limit keeps the first. */
Test(leaks, group_edges) {
    world w;
    world_make(&w);
    hs_error err = {0};
    query_dominators *d;
    query_leaks l;
    report_on(w.h, &d, &l);
    cr_assert_str_eq(l.groups[0].retainer, "app/Main.hs:41:9-30");
    query_leak_edges e;
    cr_assert_eq(query_leaks_group_edges(w.h, d, &l, 0, 0, NULL, NULL, &e, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(e.count, 2);
    cr_expect_eq(e.total, l.groups[0].edges);
    cr_expect_eq(e.items[0].from, w.t);
    cr_expect_eq(e.items[0].to, w.c1);
    cr_expect_eq(e.items[0].from_era, 3);
    cr_expect_eq(e.items[0].to_era, 1);
    cr_expect_eq(e.items[0].bytes, retained_of(d, w.c1));
    cr_expect_eq(e.items[0].bytes, l.groups[0].bytes);
    cr_expect_eq(e.items[1].from, w.t3);
    cr_expect_eq(e.items[1].to, w.c2);
    cr_expect_eq(e.items[1].from_era, 4);
    cr_expect_eq(e.items[1].bytes, 0); /* c2 is held through c1 too */
    char field[64];
    query_leak_edge_label(w.h, &e.items[1], field, sizeof field);
    cr_expect_str_eq(field, "Argument 0"); /* a thunk's free variable */
    query_leak_edges_free(&e);

    cr_assert_eq(query_leaks_group_edges(w.h, d, &l, 0, 1, NULL, NULL, &e, &err), HS_OK, "%s",
                 err.message);
    cr_expect_eq(e.count, 1);
    cr_expect_eq(e.total, 2);
    cr_expect_eq(e.items[0].to, w.c1);
    query_leak_edges_free(&e);

    /* every group's edges add up to the report's */
    uint64_t all = 0;
    for (size_t i = 0; i < l.n_groups; i++) {
        cr_assert_eq(query_leaks_group_edges(w.h, d, &l, i, 0, NULL, NULL, &e, &err), HS_OK);
        cr_expect_eq(e.total, l.groups[i].edges, "group %zu", i);
        cr_expect_eq(e.count, e.total);
        all += e.total;
        query_leak_edges_free(&e);
    }
    cr_expect_eq(all, l.edges);
    cr_expect_eq(query_leaks_group_edges(w.h, d, &l, l.n_groups, 0, NULL, NULL, &e, &err),
                 HS_ERR_USAGE);
    query_leaks_free(&l);
    query_dominators_free(d);
    world_free(&w);
}

Test(leaks, refused_without_era_profiling) {
    qh *q = qh_new(WIRE_PROF_NONE);
    qh_root(q, qh_con(q, "main:Main.Leak", 0, NULL, 1));
    heap *h = qh_open(q);
    hs_error err = {0};
    cr_assert_eq(query_leaks_usable(h, &err), HS_ERR_USAGE);
    cr_expect(strstr(err.message, "needs a debuggee with era profiling; this one has profiling "
                                  "mode 'none' (build the program with -prof and run it with "
                                  "+RTS -he)"),
              "%s", err.message);
    cr_expect(strstr(err.message, "profiling mode 'none'"), "%s", err.message);
    cr_expect(!strstr(err.message, "GHC"), "%s", err.message); /* 9.10 has -he */
    query_leaks l;
    cr_expect_eq(query_leaks_run(h, NULL, NULL, NULL, &l, &err), HS_ERR_USAGE);
    cr_expect_eq(l.n_groups, 0);
    qh_free(q);
}

Test(leaks, refusal_says_ghc_9_0_has_no_eras) {
    qh *q = qh_new(WIRE_PROF_LDV);
    qh_ghc(q, 900);
    qh_root(q, qh_con(q, "main:Main.Leak", 0, NULL, 1));
    heap *h = qh_open(q);
    hs_error err = {0};
    cr_assert_eq(query_leaks_usable(h, &err), HS_ERR_USAGE);
    cr_expect(strstr(err.message, "profiling mode 'not era' (GHC 9.0 has none: it came with GHC "
                                  "9.10)"),
              "%s", err.message);
    qh_free(q);
}

/* new (era 3) -> old (era 1) -> new -> old: the second old closure is in
 * the first one's retained size; the group's bytes count it once (they
 * were the sum of both retained sizes, more than the heap holds). */
Test(leaks, nested_closures_of_a_group_count_once) {
    qh *q = qh_new(WIRE_PROF_ERA);
    qh_ipe(q, qh_con_info(q, "main:Main.New", 1, 0), "New_con_info", "app/New.hs:1:1-9");
    uint64_t end = qh_static_con(q, "main:Main.End");
    uint64_t o2 = qh_con(q, "main:Main.Old", 1, &end, 0);
    uint64_t n2 = qh_con(q, "main:Main.New", 1, &o2, 0);
    uint64_t o1 = qh_con(q, "main:Main.Old", 1, &n2, 0);
    uint64_t n1 = qh_con(q, "main:Main.New", 1, &o1, 0);
    qh_set_era(q, n1, 3);
    qh_set_era(q, n2, 3);
    qh_set_era(q, o1, 1);
    qh_set_era(q, o2, 1);
    qh_root(q, n1);
    query_dominators *d;
    query_leaks l;
    report_of(q, &d, &l);
    cr_assert_eq(l.n_groups, 1);
    const query_leak_group *g = &l.groups[0];
    cr_expect_str_eq(g->retainer, "main:Main:New"); /* a constructor by its description */
    cr_expect_str_eq(g->retained, "main:Main:Old");
    cr_expect_eq(g->edges, 2);
    cr_expect_eq(g->older, 2);
    uint64_t whole = retained_of(d, o1);
    cr_expect_gt(whole, retained_of(d, n2)); /* o1 holds n2, which holds o2 */
    cr_expect_gt(retained_of(d, n2), retained_of(d, o2));
    cr_expect_eq(g->bytes, whole, "%lu != %lu", (unsigned long)g->bytes, (unsigned long)whole);
    cr_expect_eq(l.bytes, whole);
    query_leaks_free(&l);
    query_dominators_free(d);
    qh_free(q);
}

/* An era-1 chain of n `Old` cells ending in a static End. */
static uint64_t old_chain(qh *q, uint64_t end, int n) {
    uint64_t next = end;
    for (int i = 0; i < n; i++) {
        next = qh_con(q, "main:Main.Old", 1, &next, 0);
        qh_set_era(q, next, 1);
    }
    return next;
}

/* A root of no era holds: a constructor New (era 3) over three old cells,
 * a function F (era 3) over two, a thunk T (era 2) over one, and a thunk T2
 * (era 3) over an old closure the root holds too. New and T share a source
 * location, but New is named by its constructor. Bytes alone would put New first;
 * holds come first, and T2, which frees nothing, last. */
Test(leaks, holds_rank_before_contents) {
    qh *q = qh_new(WIRE_PROF_ERA);
    uint64_t end = qh_static_con(q, "main:Main.End");
    uint64_t new_info = qh_con_info(q, "main:Main.New", 1, 0);
    uint64_t t_info = qh_new_info(q, HS_THUNK_1_0, 1, 0);
    uint64_t t2_info = qh_new_info(q, HS_THUNK_1_0, 1, 0);
    uint64_t f_info = qh_new_info(q, HS_FUN_1_0, 1, 0);
    qh_ipe(q, new_info, "New_con_info", "app/Main.hs:7:1-5");
    qh_ipe(q, t_info, "sat_t_info", "app/Main.hs:7:1-5");
    qh_ipe(q, t2_info, "sat_t2_info", "app/Main.hs:8:1-5");
    qh_ipe(q, f_info, "f_info", "app/Main.hs:9:1-9");
    uint64_t o3 = old_chain(q, end, 3), o2 = old_chain(q, end, 2), o1 = old_chain(q, end, 1);
    uint64_t shared = qh_con(q, "main:Main.Shared", 0, NULL, 1);
    uint64_t n = qh_con(q, "main:Main.New", 1, &o3, 0);
    uint64_t f = qh_with_info(q, f_info, 1, &o2, 0);
    uint64_t t = thunk(q, t_info, o1), t2 = thunk(q, t2_info, shared);
    uint64_t kids[5] = {n, f, t, t2, shared};
    uint64_t root = qh_con(q, "main:Main.Root", 5, kids, 0);
    qh_set_era(q, shared, 1);
    qh_set_era(q, n, 3);
    qh_set_era(q, f, 3);
    qh_set_era(q, t, 2);
    qh_set_era(q, t2, 3);
    qh_root(q, root);
    query_dominators *d;
    query_leaks l;
    report_of(q, &d, &l);
    cr_assert_eq(l.n_groups, 4);
    struct {
        const char *retainer, *retained;
        query_leak_kind kind;
        uint64_t bytes, from;
    } want[4] = {{"app/Main.hs:9:1-9", "main:Main:Old", QUERY_LEAK_FUNCTION, 2 * (H + 8), f},
                 {"app/Main.hs:7:1-5", "main:Main:Old", QUERY_LEAK_THUNK, H + 8, t},
                 {"main:Main:New", "main:Main:Old", QUERY_LEAK_CONSTRUCTOR, 3 * (H + 8), n},
                 {"app/Main.hs:8:1-5", "main:Main:Shared", QUERY_LEAK_THUNK, 0, t2}};
    for (size_t i = 0; i < 4; i++) {
        const query_leak_group *g = &l.groups[i];
        cr_expect_str_eq(g->retainer, want[i].retainer, "row %zu", i);
        cr_expect_str_eq(g->retained, want[i].retained, "row %zu", i);
        cr_expect_eq(g->kind, want[i].kind, "row %zu: %s", i, query_leak_kind_name(g->kind));
        cr_expect_eq(g->bytes, want[i].bytes, "row %zu: %lu", i, (unsigned long)g->bytes);
        cr_expect_eq(g->from, want[i].from, "row %zu", i);
        cr_expect_eq(g->edges, 1, "row %zu", i);
    }
    cr_expect_eq(l.bytes, 6 * (H + 8));
    query_leaks_free(&l);
    query_dominators_free(d);
    qh_free(q);
}

Test(leaks, retainer_kinds) {
    struct {
        uint32_t type;
        query_leak_kind kind;
        const char *name;
        bool holds;
    } cases[] = {
        {HS_THUNK, QUERY_LEAK_THUNK, "thunk", true},
        {HS_THUNK_SELECTOR, QUERY_LEAK_THUNK, "thunk", true},
        {HS_AP, QUERY_LEAK_THUNK, "thunk", true},
        {HS_AP_STACK, QUERY_LEAK_THUNK, "thunk", true},
        {HS_FUN_2_0, QUERY_LEAK_FUNCTION, "function", true},
        {HS_PAP, QUERY_LEAK_FUNCTION, "function", true},
        {HS_CONTINUATION, QUERY_LEAK_FUNCTION, "function", true},
        {HS_STACK, QUERY_LEAK_STACK, "stack", true},
        {HS_TSO, QUERY_LEAK_STACK, "stack", true},
        {HS_CONSTR_1_1, QUERY_LEAK_CONSTRUCTOR, "constructor", false},
        {HS_CONSTR_NOCAF, QUERY_LEAK_CONSTRUCTOR, "constructor", false},
        {HS_MUT_ARR_PTRS_FROZEN_CLEAN, QUERY_LEAK_ARRAY, "array", false},
        {HS_SMALL_MUT_ARR_PTRS_DIRTY, QUERY_LEAK_ARRAY, "array", false},
        {HS_MUT_VAR_DIRTY, QUERY_LEAK_MUTABLE, "mutable", false},
        {HS_MVAR_CLEAN, QUERY_LEAK_MUTABLE, "mutable", false},
        {HS_TVAR, QUERY_LEAK_MUTABLE, "mutable", false},
        {HS_BLACKHOLE, QUERY_LEAK_OTHER, "other", false},
        {HS_IND, QUERY_LEAK_OTHER, "other", false},
        {999, QUERY_LEAK_OTHER, "other", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        query_leak_kind k = query_leak_kind_of(cases[i].type);
        cr_expect_eq(k, cases[i].kind, "type %u", cases[i].type);
        cr_expect_str_eq(query_leak_kind_name(k), cases[i].name, "type %u", cases[i].type);
        cr_expect_eq(query_leak_kind_holds(k), cases[i].holds, "type %u", cases[i].type);
    }
}
