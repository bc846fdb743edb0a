/* The strings analysis (grouping by value, what a copy's bytes are, Text
 * 1.x and 2.x, BS and PS, Strings and their shared tails, what is not
 * counted), the value filter, the escaping of values, and the paged read
 * of a byte array's payload, on small heaps built by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "query_heap.h"

#define TEXT2 "text-2.1.1:Data.Text.Internal.Text"
#define TEXT1 "text-1.2.5.0:Data.Text.Internal.Text"
#define BS "bytestring-0.11.5.3:Data.ByteString.Internal.Type.BS"
#define PS "bytestring-0.10.12.1:Data.ByteString.Internal.PS"
#define PLAIN "base:GHC.ForeignPtr.PlainPtr"
#define CONS "ghc-prim:GHC.Types.:"
#define CHAR "ghc-prim:GHC.Types.C#"
#define NIL "ghc-prim:GHC.Types.[]"

/* Header 8 bytes (not profiled): sizes below are 8 + 8 x words. */
static uint64_t arr(qh *q, const void *bytes, size_t n) {
    size_t words = (n + 7) / 8;
    uint64_t a = qh_plain(q, HS_ARR_WORDS, 0, NULL, 1 + (uint32_t)words);
    qh_set_ptr(q, a, 0, n);
    for (size_t w = 0; w < words; w++) {
        uint64_t v = 0;
        for (size_t i = 0; i < 8 && 8 * w + i < n; i++)
            v |= (uint64_t)((const uint8_t *)bytes)[8 * w + i] << (8 * i);
        qh_set_ptr(q, a, 1 + (uint32_t)w, v);
    }
    return a;
}

static uint64_t text(qh *q, const char *desc, uint64_t array, uint64_t off, uint64_t len) {
    uint64_t t = qh_con(q, desc, 1, &array, 2);
    qh_set_ptr(q, t, 1, off);
    qh_set_ptr(q, t, 2, len);
    return t;
}

/* A BS (or a PS with offset off) over a PlainPtr over array. */
static uint64_t bytestring(qh *q, bool ps, uint64_t array, uint64_t off, uint64_t len) {
    uint64_t contents = qh_con(q, PLAIN, 1, &array, 0);
    uint64_t b = qh_con(q, ps ? PS : BS, 1, &contents, ps ? 3 : 2);
    qh_set_ptr(q, b, 1, array + 8 + 8 + (ps ? 0 : off)); /* Addr# into the payload */
    qh_set_ptr(q, b, 2, ps ? off : len);
    if (ps)
        qh_set_ptr(q, b, 3, len);
    return b;
}

static uint64_t chr(qh *q, uint32_t cp) {
    uint64_t c = qh_con(q, CHAR, 0, NULL, 1);
    qh_set_ptr(q, c, 0, cp);
    return c;
}

static uint64_t cons(qh *q, uint64_t head, uint64_t tail) {
    uint64_t p[2] = {head, tail};
    return qh_con(q, CONS, 2, p, 0);
}

/* "s" as a fresh list ending in tail. */
static uint64_t string(qh *q, const char *s, uint64_t tail) {
    size_t n = strlen(s);
    uint64_t l = tail;
    for (size_t i = n; i-- > 0;)
        l = cons(q, chr(q, (uint8_t)s[i]), l);
    return l;
}

static void run(qh *q, query_filters *f, query_strings *out) {
    heap *h = qh_open(q);
    hs_error err = {0};
    query_strings_spec spec = {.filters = f};
    cr_assert_eq(query_strings_run(h, &spec, out, &err), HS_OK, "%s", err.message);
}

static const query_strings_row *row(const query_strings *s, const char *value) {
    for (size_t i = 0; i < s->n_rows; i++)
        if (s->rows[i].value_len == strlen(value) &&
            memcmp(s->rows[i].value, value, strlen(value)) == 0)
            return &s->rows[i];
    return NULL;
}

Test(query_strings, text_and_byte_array_copies_group_by_value) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t a1 = arr(q, "hello", 5), a2 = arr(q, "hello", 5), a3 = arr(q, "hello", 5);
    qh_root(q, text(q, TEXT2, a1, 0, 5));
    qh_root(q, text(q, TEXT2, a2, 0, 5));
    qh_root(q, a3); /* held by no Text: a copy of its own */
    qh_root(q, arr(q, "unique", 6));
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *r = row(&s, "hello");
    cr_assert(r);
    cr_expect_eq(r->count, 3);
    cr_expect_eq(r->kinds, QUERY_STRING_TEXT | QUERY_STRING_BYTES);
    cr_expect_eq(r->bytes, 2 * (32 + 24) + 24); /* Text 32 + its array 24, array 24 */
    cr_expect_eq(r->wasted, r->bytes - 24);     /* all but the smallest copy */
    cr_expect_eq(s.rows[0].value_len, 5, "sorted by wasted bytes");
    const query_strings_row *u = row(&s, "unique");
    cr_assert(u);
    cr_expect_eq(u->count, 1);
    cr_expect_eq(u->wasted, 0);
    cr_expect_eq(s.n_rows, 2);
    cr_expect_eq(s.total_count, 4);
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, slices_of_one_array_count_it_once) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t a = arr(q, "hello world", 11);
    qh_root(q, text(q, TEXT2, a, 0, 5));
    qh_root(q, text(q, TEXT2, a, 6, 5));
    qh_root(q, text(q, TEXT2, a, 6, 6)); /* past the end: skipped */
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *hello = row(&s, "hello"), *world = row(&s, "world");
    cr_assert(hello && world);
    cr_expect_eq(hello->bytes, 32 + 32, "the first Text holds the array");
    cr_expect_eq(world->bytes, 32);
    cr_expect_eq(hello->first_array, a);
    cr_expect_eq(s.n_rows, 2, "no row for the array itself");
    cr_expect_eq(s.skipped, 1);
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, text_1_is_utf16_shown_as_utf8) {
    qh *q = qh_new(WIRE_PROF_NONE);
    /* "xhé😀" in UTF-16LE; the Text skips the x */
    const uint8_t u16[] = {'x', 0, 'h', 0, 0xE9, 0, 0x3D, 0xD8, 0x00, 0xDE};
    uint64_t a = arr(q, u16, sizeof u16);
    qh_root(q, text(q, TEXT1, a, 1, 4));
    query_strings s;
    run(q, NULL, &s);
    cr_assert(row(&s, "h\xc3\xa9\xf0\x9f\x98\x80"), "UTF-8 of the UTF-16 slice");
    cr_expect_eq(s.n_rows, 1);
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, bytestrings_bs_and_ps) {
    qh *q = qh_new(WIRE_PROF_NONE);
    qh_root(q, bytestring(q, false, arr(q, "GET /x", 6), 0, 6));
    qh_root(q, bytestring(q, true, arr(q, "xxGET /x", 8), 2, 6));
    uint64_t foreign_target = qh_con(q, "main:Main.Box", 0, NULL, 1);
    uint64_t foreign = qh_con(q, "base:GHC.ForeignPtr.PlainForeignPtr", 1, &foreign_target, 0);
    uint64_t ext = qh_con(q, BS, 1, &foreign, 2);
    qh_root(q, ext);
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *r = row(&s, "GET /x");
    cr_assert(r);
    cr_expect_eq(r->count, 2);
    cr_expect_eq(r->kinds, QUERY_STRING_BYTESTRING);
    /* BS 32 + PlainPtr 16 + array 24; PS 40 + 16 + array 24 */
    cr_expect_eq(r->bytes, 72 + 80);
    cr_expect_eq(r->wasted, 80);
    cr_expect_eq(s.external, 1, "a PlainForeignPtr's bytes are outside the heap");
    cr_expect_eq(s.n_rows, 1);
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, bytestring_over_ghc_9_10_plain_ptr) {
    /* GHC 9.10 moved GHC.ForeignPtr into ghc-internal as GHC.Internal.ForeignPtr */
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t array = arr(q, "bytes-7", 7);
    uint64_t contents = qh_con(q, "ghc-internal:GHC.Internal.ForeignPtr.PlainPtr", 1, &array, 0);
    uint64_t b = qh_con(q, BS, 1, &contents, 2);
    qh_set_ptr(q, b, 1, array + 8 + 8);
    qh_set_ptr(q, b, 2, 7);
    qh_root(q, b);
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *r = row(&s, "bytes-7");
    cr_assert(r, "a ByteString over a GHC 9.10 PlainPtr is counted");
    cr_expect_eq(r->kinds, QUERY_STRING_BYTESTRING);
    cr_expect_eq(s.external, 0);
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, strings_counted_once_at_their_first_cell) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t nil = qh_static_con(q, NIL);
    uint64_t bc = string(q, "bc", nil);
    qh_root(q, cons(q, chr(q, 'a'), bc));
    qh_root(q, cons(q, chr(q, 'x'), bc)); /* shares the tail "bc" */
    qh_root(q, string(q, "abc", nil));
    uint64_t lazy_tail = qh_plain(q, HS_THUNK_1_0, 1, &nil, 0);
    qh_root(q, cons(q, chr(q, 'q'), lazy_tail)); /* not fully evaluated */
    uint64_t cyc = cons(q, chr(q, 'y'), 0);
    qh_set_ptr(q, cyc, 1, cyc);
    qh_root(q, cons(q, chr(q, 'z'), cyc)); /* runs into a cycle */
    uint64_t box = qh_con(q, "ghc-prim:GHC.Types.I#", 0, NULL, 1);
    qh_root(q, cons(q, box, nil)); /* [Int]: no String at all */
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *abc = row(&s, "abc"), *xbc = row(&s, "xbc");
    cr_assert(abc && xbc);
    cr_expect_eq(abc->count, 2);
    cr_expect_eq(abc->bytes, 2 * 3 * (24 + 16), "cells 24, C# boxes 16");
    cr_expect_eq(abc->wasted, 3 * 40);
    cr_expect_eq(xbc->count, 1);
    cr_expect_eq(xbc->bytes, 40, "the shared tail counted by the first String only");
    cr_expect_eq(abc->kinds, QUERY_STRING_LIST);
    cr_expect_eq(abc->first_array, 0);
    cr_expect_null(row(&s, "bc"), "a tail is not a String of its own");
    cr_expect_eq(s.n_rows, 2);
    cr_expect_eq(s.skipped, 2, "the lazy list and the one into a cycle");
    query_strings_free(&s);
    qh_free(q);
}

static bool value_matches(heap *h, query_filters *f, uint64_t addr) {
    heap_closure c = {0};
    hs_error err = {0};
    bool out = false;
    cr_assert_eq(heap_decode(h, addr, &c, &err), HS_OK, "%s", err.message);
    cr_assert_eq(query_filters_match(f, h, &c, &out, &err), HS_OK, "%s", err.message);
    heap_closure_free(&c);
    return out;
}

Test(query_strings, value_filter_matches_each_kind) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t nil = qh_static_con(q, NIL);
    uint64_t a = arr(q, "ab\\\x01", 4), other = arr(q, "ab\\\x02", 4);
    uint64_t t = text(q, TEXT2, a, 0, 4);
    uint64_t t1 = text(q, TEXT1, arr(q, "a\0b\0\\\0\x01\0", 8), 0, 4);
    uint64_t b = bytestring(q, true, arr(q, "--ab\\\x01", 6), 2, 4);
    uint64_t l = string(q, "ab\\\x01", nil);
    uint64_t tail = string(q, "b\\\x01", nil);
    uint64_t longer = string(q, "ab\\\x01!", nil);
    uint64_t roots[] = {t, other, t1, b, l, tail, longer};
    for (size_t i = 0; i < 7; i++)
        qh_root(q, roots[i]);
    heap *h = qh_open(q);
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_VALUE, "ab\\\\\\x01", false, &err), HS_OK,
                 "%s", err.message);
    cr_assert_eq(query_filters_prepare(f, h, &err), HS_OK);
    cr_expect(value_matches(h, f, a));
    cr_expect(!value_matches(h, f, other));
    cr_expect(value_matches(h, f, t));
    cr_expect(value_matches(h, f, t1), "text 1.x compared as UTF-8");
    cr_expect(value_matches(h, f, b));
    cr_expect(value_matches(h, f, l));
    cr_expect(!value_matches(h, f, tail));
    cr_expect(!value_matches(h, f, longer));
    cr_expect(!value_matches(h, f, nil));
    char d[128];
    query_filters_describe(f, 0, d, sizeof d);
    cr_expect_str_eq(d, "String value ab\\\\\\x01");
    /* the same filter in the analysis: only the matching copies count */
    query_strings s;
    query_strings_spec spec = {.filters = f, .prepared = true};
    cr_assert_eq(query_strings_run(h, &spec, &s, &err), HS_OK, "%s", err.message);
    cr_expect_eq(s.n_rows, 1);
    cr_expect_eq(s.rows[0].count, 4);
    cr_expect_eq(s.rows[0].kinds,
                 QUERY_STRING_TEXT | QUERY_STRING_BYTESTRING | QUERY_STRING_LIST);
    query_strings_free(&s);
    query_filters_free(f);
    qh_free(q);
}

Test(query_strings, value_filter_rejects_bad_escapes) {
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_expect_eq(query_filters_add(f, QUERY_FILTER_VALUE, "a\\x4", false, &err), HS_ERR_USAGE);
    cr_expect(strstr(err.message, "offset 1"), "%s", err.message);
    cr_expect_eq(query_filters_add(f, QUERY_FILTER_VALUE, "a\\n", false, &err), HS_ERR_USAGE);
    cr_expect_eq(query_filters_add(f, QUERY_FILTER_VALUE, "\\", false, &err), HS_ERR_USAGE);
    cr_expect_eq(query_filters_count(f), 0);
    cr_expect_str_eq(query_filter_kind_name(QUERY_FILTER_VALUE), "value");
    query_filters_free(f);
}

Test(query_strings, escape_keeps_utf8_and_never_splits_an_escape) {
    const uint8_t v[] = {'a', 0, '\\', 0xC3, 0xA9, 0xFF, 0xC2, 0x85, 0xED, 0xA0, 0x80};
    char buf[64];
    cr_expect_eq(query_strings_escape(v, sizeof v, buf, sizeof buf), sizeof v);
    /* C1 controls, surrogates and bad bytes are escaped */
    cr_expect_str_eq(buf, "a\\x00\\\\\xc3\xa9\\xff\\xc2\\x85\\xed\\xa0\\x80");
    cr_expect_eq(query_strings_escape(v, sizeof v, buf, 4), 1); /* "a" + no room for \x00 */
    cr_expect_str_eq(buf, "a");
    cr_expect_eq(query_strings_escape(v, sizeof v, buf, 6), 2);
    cr_expect_str_eq(buf, "a\\x00");
    char *all = query_strings_escape_all(v, 3);
    cr_expect_str_eq(all, "a\\x00\\\\");
    free(all);
    char k[64];
    query_strings_kinds_text(QUERY_STRING_BYTES | QUERY_STRING_LIST, k, sizeof k);
    cr_expect_str_eq(k, "ARR_WORDS,String");
}

Test(query_strings, payload_read_pages_and_errors) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint8_t big[3000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    uint64_t a = arr(q, big, sizeof big);
    uint64_t t = text(q, TEXT2, a, 0, 1);
    qh_root(q, t);
    heap *h = qh_open(q);
    uint8_t page[1024], back[3000];
    uint64_t total = 0, off = 0;
    size_t got;
    hs_error err = {0};
    /* a person's address: a closure of this pause before anything is read */
    cr_assert_eq(query_closure_of_pause(h, a, NULL, NULL, &err), HS_OK, "%s", err.message);
    do {
        cr_assert_eq(heap_payload_read(h, a, off, page, sizeof page, &got, &total, &err), HS_OK,
                     "%s", err.message);
        memcpy(back + off, page, got);
        off += got;
    } while (got > 0);
    cr_expect_eq(total, sizeof big);
    cr_expect_eq(off, sizeof big);
    cr_expect_arr_eq(back, big, sizeof big);
    cr_expect_eq(heap_payload_read(h, t, 0, page, sizeof page, &got, &total, &err), HS_ERR_USAGE);
    cr_expect(strstr(err.message, "is a CONSTR, not a byte array"), "%s", err.message);
    cr_expect_eq(heap_payload_read(h, QH_BLOCK + 0x8000, 0, page, sizeof page, &got, &total,
                                   &err),
                 HS_ERR_NOT_FOUND);
    cr_expect(strstr(err.message, "no closure at"), "%s", err.message);
    qh_free(q);
}

Test(query_strings, static_cells_are_found_but_cost_no_heap_bytes) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t nil = qh_static_con(q, NIL);
    uint64_t sb = qh_static_con_ptrs(q, CHAR, 0, NULL, 1), sa = qh_static_con_ptrs(q, CHAR, 0, NULL, 1);
    qh_set_ptr(q, sb, 0, 'b');
    qh_set_ptr(q, sa, 0, 'a');
    uint64_t p2[2] = {sb, nil};
    uint64_t c2 = qh_static_con_ptrs(q, CONS, 2, p2, 0);
    uint64_t p1[2] = {sa, c2};
    qh_root(q, qh_static_con_ptrs(q, CONS, 2, p1, 0)); /* a static "ab" */
    qh_root(q, string(q, "ab", nil));                   /* and one on the heap */
    uint64_t mixed = cons(q, chr(q, 'x'), c2);          /* a heap cell onto the static tail */
    qh_root(q, mixed);
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *ab = row(&s, "ab"), *xb = row(&s, "xb");
    cr_assert(ab && xb);
    cr_expect_eq(ab->count, 2);
    cr_expect_eq(ab->bytes, 2 * (24 + 16), "the static copy costs nothing");
    cr_expect_eq(ab->wasted, 2 * (24 + 16));
    cr_expect_eq(xb->count, 1);
    cr_expect_eq(xb->bytes, 24 + 16);
    cr_expect_null(row(&s, "b"), "the static tail is part of both");
    cr_expect_eq(s.n_rows, 2);
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, strings_sharing_a_long_tail_are_spelt_out_within_a_budget) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t nil = qh_static_con(q, NIL), y = chr(q, 'y'), x = chr(q, 'x');
    uint64_t tail = nil;
    for (int i = 0; i < 1000; i++) /* "yyy...y", one C# box for all */
        tail = cons(q, y, tail);
    uint64_t spine = nil; /* [String]: its cells hold Strings, not characters */
    for (int i = 0; i < 100; i++)
        spine = cons(q, cons(q, x, tail), spine);
    qh_root(q, spine);
    query_strings s;
    run(q, NULL, &s);
    /* 1100 cells: 2 x 1100 + 65536 characters, so 67 of the 100 Strings of
     * 1001 characters are spelt out, the others skipped */
    cr_assert_eq(s.n_rows, 1);
    cr_expect_eq(s.rows[0].value_len, 1001);
    cr_expect_eq(s.rows[0].count, (2 * 1100 + 65536) / 1001);
    cr_expect_eq(s.skipped, 100 - (2 * 1100 + 65536) / 1001);
    query_strings_free(&s);
    qh_free(q);
}

static uint64_t ind(qh *q, uint32_t type, uint64_t target) {
    return qh_plain(q, type, 1, &target, 0);
}

Test(query_strings, strings_read_through_indirections_once) {
    /* evaluated thunks the GC has not cleaned yet: BLACKHOLE, IND and
     * IND_STATIC whose indirectee is the value */
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t nil = qh_static_con(q, NIL);
    uint64_t c = cons(q, ind(q, HS_BLACKHOLE, chr(q, 'c')), ind(q, HS_IND, nil));
    uint64_t bc = cons(q, chr(q, 'b'), ind(q, HS_BLACKHOLE, ind(q, HS_IND, c)));
    uint64_t abc = cons(q, chr(q, 'a'), ind(q, HS_BLACKHOLE, bc));
    qh_root(q, abc);
    qh_root(q, ind(q, HS_BLACKHOLE, abc)); /* the same String by a second path */
    qh_root(q, ind(q, HS_BLACKHOLE, bc));  /* and its tail: no String of its own */
    /* under evaluation: the indirectee is no value (a thunk here, a TSO in GHC) */
    uint64_t pending = ind(q, HS_BLACKHOLE, qh_plain(q, HS_THUNK_1_0, 1, &nil, 0));
    qh_root(q, cons(q, chr(q, 'p'), pending));
    /* a cycle of indirections is left after a bounded number of hops */
    uint64_t loop = ind(q, HS_BLACKHOLE, 0);
    qh_set_ptr(q, loop, 0, loop);
    qh_root(q, cons(q, chr(q, 'l'), loop));
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *r = row(&s, "abc");
    cr_assert(r, "a String behind indirections is read");
    cr_expect_eq(r->count, 1);
    cr_expect_eq(r->kinds, QUERY_STRING_LIST);
    cr_expect_eq(r->first, abc);
    cr_expect_eq(r->bytes, 3 * 24 + 3 * 16, "its cells and C# boxes");
    cr_expect_null(row(&s, "bc"));
    cr_expect_null(row(&s, "c"));
    cr_expect_eq(s.n_rows, 1);
    cr_expect_eq(s.skipped, 2, "the String under evaluation and the one into a cycle");
    query_strings_free(&s);
    qh_free(q);
}

Test(query_strings, bytestring_contents_through_indirections_and_outside_the_heap) {
    qh *q = qh_new(WIRE_PROF_NONE);
    /* ForeignPtr's contents field is lazy: an evaluated thunk's BLACKHOLE */
    uint64_t array = arr(q, "xxslice", 7);
    uint64_t plain = qh_con(q, "ghc-internal:GHC.Internal.ForeignPtr.PlainPtr", 1, &array, 0);
    uint64_t bh = ind(q, HS_BLACKHOLE, plain);
    uint64_t b = qh_con(q, BS, 1, &bh, 2);
    qh_set_ptr(q, b, 1, array + 8 + 8 + 2); /* a slice: the Addr# 2 bytes in */
    qh_set_ptr(q, b, 2, 5);
    qh_root(q, b);
    /* MallocPtr: the array and an IORef of finalizers */
    uint64_t marray = arr(q, "malloc", 6);
    uint64_t ref = qh_con(q, "main:Main.Ref", 0, NULL, 1);
    uint64_t mfields[2] = {marray, ref};
    uint64_t malloc_ptr = qh_con(q, "base:GHC.ForeignPtr.MallocPtr", 2, mfields, 0);
    uint64_t m = qh_con(q, BS, 1, &malloc_ptr, 2);
    qh_set_ptr(q, m, 1, marray + 8 + 8);
    qh_set_ptr(q, m, 2, 6);
    qh_root(q, m);
    /* FinalPtr (static memory) and PlainForeignPtr (malloc'd): outside */
    uint64_t final = qh_static_con(q, "ghc-internal:GHC.Internal.ForeignPtr.FinalPtr");
    uint64_t f = qh_con(q, BS, 1, &final, 2);
    qh_root(q, f);
    uint64_t plain_foreign = qh_con(q, "base:GHC.ForeignPtr.PlainForeignPtr", 1, &ref, 0);
    uint64_t pf_bh = ind(q, HS_BLACKHOLE, plain_foreign);
    qh_root(q, qh_con(q, BS, 1, &pf_bh, 2));
    /* contents not evaluated: neither outside the heap nor a value */
    uint64_t lazy = qh_plain(q, HS_THUNK_1_0, 1, &array, 0);
    qh_root(q, qh_con(q, BS, 1, &lazy, 2));
    query_strings s;
    run(q, NULL, &s);
    const query_strings_row *r = row(&s, "slice"), *mr = row(&s, "malloc");
    cr_assert(r && mr);
    cr_expect_eq(r->kinds, QUERY_STRING_BYTESTRING);
    cr_expect_eq(r->bytes, 32 + 16 + 24, "BS, PlainPtr, array");
    cr_expect_eq(mr->kinds, QUERY_STRING_BYTESTRING);
    cr_expect_eq(mr->count, 1);
    cr_expect_eq(s.n_rows, 2, "no array left over as a value of its own");
    cr_expect_eq(s.external, 2);
    cr_expect_eq(s.skipped, 1);
    query_strings_free(&s);
    qh_free(q);
}

typedef struct match_list {
    uint64_t *addrs;
    size_t *n;
} match_list;

static bool collect_match(void *ctx, heap *h, const query_match *m) {
    (void)h;
    match_list *l = ctx;
    if (*l->n < 8)
        l->addrs[(*l->n)++] = m->steps[m->n_steps - 1].addr;
    return true;
}

Test(query_strings, value_filter_follows_indirections_and_skips_held_arrays) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t nil = qh_static_con(q, NIL);
    uint64_t list = cons(q, ind(q, HS_BLACKHOLE, chr(q, 'a')),
                         ind(q, HS_IND, cons(q, chr(q, 'b'), ind(q, HS_BLACKHOLE, nil))));
    uint64_t a = arr(q, "ab", 2), alone = arr(q, "ab", 2), barr = arr(q, "ab", 2);
    uint64_t t = text(q, TEXT2, a, 0, 2);
    uint64_t plain = qh_con(q, PLAIN, 1, &barr, 0);
    uint64_t bh = ind(q, HS_BLACKHOLE, plain);
    uint64_t b = qh_con(q, BS, 1, &bh, 2);
    qh_set_ptr(q, b, 1, barr + 8 + 8);
    qh_set_ptr(q, b, 2, 2);
    uint64_t raw = arr(q, "ab", 2);
    uint64_t raw_plain = qh_con(q, PLAIN, 1, &raw, 0); /* a ForeignPtr's, no ByteString's */
    uint64_t roots[] = {list, t, alone, b, raw_plain};
    for (size_t i = 0; i < 5; i++)
        qh_root(q, roots[i]);
    heap *h = qh_open(q);
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_VALUE, "ab", false, &err), HS_OK);
    cr_assert_eq(query_filters_prepare(f, h, &err), HS_OK);
    cr_expect(value_matches(h, f, list), "a String through indirections");
    cr_expect(value_matches(h, f, t));
    cr_expect(!value_matches(h, f, a), "the array of a Text seen is part of it");
    cr_expect(value_matches(h, f, alone), "an array no Text holds is a value");
    cr_expect(value_matches(h, f, b), "a ByteString whose contents are behind a BLACKHOLE");
    cr_expect(!value_matches(h, f, plain));
    cr_expect(!value_matches(h, f, barr), "the array of a ByteString seen");
    cr_expect(value_matches(h, f, raw), "as strings shows it: an ARR_WORDS of its own");
    /* a search (breadth first) meets each holder before its array: one
     * match a value, the Text and ByteString without their arrays */
    uint64_t found[8] = {0};
    size_t n = 0;
    query_search search = {.filters = f, .on_match = collect_match, .ctx = &(match_list){found, &n}};
    query_search_stats st;
    cr_assert_eq(query_search_run(h, &search, &st, &err), HS_OK, "%s", err.message);
    uint64_t want[5] = {list, t, alone, b, raw};
    cr_expect_eq(st.matches, 5);
    for (size_t i = 0; i < 5; i++) {
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= found[k] == want[i];
        cr_expect(seen, "match %zu", i);
    }
    query_filters_free(f);
    qh_free(q);
}
