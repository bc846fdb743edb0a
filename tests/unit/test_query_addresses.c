/* Addresses a person gives and pointers a corrupt heap holds (issue 19):
 * nothing is asked about an address unless it is a closure of this pause,
 * and a pointer read from a closure is asked about only when it could be
 * one. The fake source counts every request, so each test checks what was
 * NOT sent. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fake_source.h"
#include "heapscope/query.h"
#include "query_heap.h"

#define PAIR "main:Main.Pair"
#define LEAF "main:Main.Leaf"
#define ONE "main:Main.One"
#define QUAD "main:Main.Quad"

static unsigned asked(qh *q) {
    const fake_counts *c = qh_counts(q);
    return c->closures + c->info_tables + c->srts + c->con_desc + c->source_info +
           c->stack_bitmap + c->fun_bitmap + c->ccs + c->cc;
}

/* root -> pair -> (leaf, static leaf) */
typedef struct small {
    qh *q;
    heap *h;
    uint64_t root, pair, leaf, stat;
} small;

static small small_heap(void) {
    small s = {.q = qh_new(WIRE_PROF_NONE)};
    s.leaf = qh_con(s.q, LEAF, 0, NULL, 1);
    s.stat = qh_static_con(s.q, LEAF);
    uint64_t two[2] = {s.leaf, s.stat};
    s.pair = qh_con(s.q, PAIR, 2, two, 0);
    s.root = qh_con(s.q, ONE, 1, &s.pair, 0);
    qh_root(s.q, s.root);
    s.h = qh_open(s.q);
    return s;
}

Test(query_addresses, a_made_up_address_is_answered_locally) {
    small s = small_heap();
    unsigned before = asked(s.q);
    const uint64_t wild[] = {0xdeadbee8, 0x10, QH_BLOCK - 0x100000, UINT64_C(0x7f0000001000),
                             QH_STATIC + 0x800};
    for (size_t i = 0; i < sizeof wild / sizeof *wild; i++) {
        hs_error err = {0};
        heap_closure c = {0};
        /* heap_decode_named alone asks nothing about an unknown address */
        cr_expect_eq(heap_decode_named(s.h, wild[i], &c, &err), HS_ERR_NOT_FOUND);
        cr_expect_eq(asked(s.q), before, "asked about 0x%llx", (unsigned long long)wild[i]);
        heap_closure_free(&c);
    }
    hs_error err = {0};
    cr_expect_eq(query_closure_of_pause(s.h, 0xdeadbeef, NULL, NULL, &err), HS_ERR_NOT_FOUND);
    cr_expect_str_eq(err.message, "no closure at 0xdeadbee8 in this pause");
    unsigned after = asked(s.q); /* the traversal from the roots asked what a census asks */
    for (size_t i = 0; i < sizeof wild / sizeof *wild; i++) {
        cr_expect_eq(query_closure_of_pause(s.h, wild[i], NULL, NULL, &err), HS_ERR_NOT_FOUND);
        cr_expect(strstr(err.message, "no closure at 0x"), "%s", err.message);
    }
    cr_expect_eq(asked(s.q), after, "a second miss costs nothing: the pause is known");
    cr_expect_eq(qh_counts(s.q)->closures, 1, "only the static leaf was fetched");
    qh_free(s.q);
}

Test(query_addresses, heap_addresses_say_closures_move) {
    small s = small_heap();
    hs_error err = {0};
    cr_expect_eq(query_closure_of_pause(s.h, QH_BLOCK + 0x8000, NULL, NULL, &err),
                 HS_ERR_NOT_FOUND);
    cr_expect(strstr(err.message, "the address is in the heap, whose closures move whenever "
                                  "the program runs; take it from this pause"),
              "%s", err.message);
    cr_expect_eq(query_closure_of_pause(s.h, 0x4200000000, NULL, NULL, &err), HS_ERR_NOT_FOUND);
    cr_expect(strstr(err.message, "in the heap"), "%s", err.message);
    qh_free(s.q);
}

Test(query_addresses, an_interior_address_names_its_closure) {
    small s = small_heap();
    hs_error err = {0};
    cr_expect_eq(query_closure_of_pause(s.h, s.pair + 8, NULL, NULL, &err), HS_ERR_NOT_FOUND);
    char want[128];
    snprintf(want, sizeof want, "no closure at 0x%llx in this pause: it lies inside the "
             "CONSTR at 0x%llx", (unsigned long long)(s.pair + 8), (unsigned long long)s.pair);
    cr_expect_str_eq(err.message, want);
    qh_free(s.q);
}

Test(query_addresses, closures_of_the_pause_are_found_and_read) {
    small s = small_heap();
    hs_error err = {0};
    const uint64_t ok[] = {s.root, s.pair | 1, s.leaf, s.stat};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        cr_expect_eq(query_closure_of_pause(s.h, ok[i], NULL, NULL, &err), HS_OK, "%s",
                     err.message);
        heap_closure c = {0};
        cr_expect_eq(heap_decode_named(s.h, ok[i], &c, &err), HS_OK, "%s", err.message);
        cr_expect_eq(c.addr, wire_untag(ok[i]));
        heap_closure_free(&c);
    }
    cr_expect(!heap_reached_complete(s.h), "found before the end: the traversal stopped");
    qh_free(s.q);
}

Test(query_addresses, the_roots_are_closures_without_a_traversal) {
    small s = small_heap();
    unsigned before = asked(s.q);
    hs_error err = {0};
    cr_expect_eq(query_closure_of_pause(s.h, s.root, NULL, NULL, &err), HS_OK);
    cr_expect_eq(asked(s.q), before);
    qh_free(s.q);
}

static bool no(void *ctx, uint64_t visited) {
    (void)ctx, (void)visited;
    return false;
}

Test(query_addresses, a_cancel_ends_the_lookup) {
    small s = small_heap();
    hs_error err = {0};
    cr_expect_eq(query_closure_of_pause(s.h, 0xdeadbee8, no, NULL, &err), HS_ERR_CANCELLED);
    cr_expect(!heap_reached_complete(s.h));
    qh_free(s.q);
}

/* A corrupt closure whose fields point nowhere a closure can be: none of
 * them is asked about, each is unreadable with the reason. */
Test(query_addresses, wild_fields_are_never_asked_about) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t stat = qh_static_con(q, LEAF);
    uint64_t fields[] = {
        UINT64_C(0x7f0000001000), /* far from every info table */
        0x10,                     /* below what a program can map */
        0x4200000040,             /* the heap's range, in no block */
        stat,                     /* a real static closure: asked */
    };
    uint64_t bad = qh_con(q, QUAD, 4, fields, 0);
    qh_root(q, bad);
    heap *h = qh_open(q);
    query_traversal t = {0};
    query_traversal_stats stats;
    hs_error err = {0};
    cr_assert_eq(query_traverse(h, &bad, 1, &t, &stats, &err), HS_OK, "%s", err.message);
    cr_expect_eq(stats.unreadable.count, 3);
    cr_expect_eq(qh_counts(q)->closures, 1, "only the static closure was asked for");
    qh_free(q);
}

/* An info pointer that lies in the heap (an interior pointer's first word)
 * is never sent with INFO_TABLES. */
Test(query_addresses, a_heap_word_is_no_info_pointer) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t leaf = qh_con(q, LEAF, 0, NULL, 1);
    uint64_t inner = qh_con(q, ONE, 1, &leaf, 0);
    uint64_t into = inner + 8; /* its first word is leaf, a heap address */
    uint64_t root = qh_con(q, PAIR, 2, (uint64_t[]){inner, into}, 0);
    qh_root(q, root);
    heap *h = qh_open(q);
    unsigned infos_before = qh_counts(q)->info_tables;
    query_traversal t = {0};
    query_traversal_stats stats;
    hs_error err = {0};
    cr_assert_eq(query_traverse(h, &root, 1, &t, &stats, &err), HS_OK, "%s", err.message);
    cr_expect_eq(stats.unreadable.count, 1);
    cr_expect(strstr(stats.unreadable.problem, "lies in the heap, where no info table lives"),
              "%s", stats.unreadable.problem);
    cr_expect_leq(qh_counts(q)->info_tables, infos_before + 3, "ONE, PAIR and LEAF only");
    qh_free(q);
}
