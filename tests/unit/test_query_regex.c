/* Constructor-name regexes (PCRE2, UTF mode): anchors, alternation,
 * Unicode, names that are not valid UTF-8, invalid patterns with the
 * offset of the error, and the non-constructor rule (§4.1). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "query_heap.h"

static const char *const names[] = {
    "Leak", "LeakX", "XLeak", "Span", "Fu\xc3\xafte" /* Fuïte */,
    "\xc3\x9cn\xc3\xaf" "code" /* Ünïcode */, ":", "(,)", "Bad\xff",
};
#define N_NAMES (sizeof names / sizeof names[0])

/* Which of names (and a MUT_VAR, the last bit) a pattern selects. */
static unsigned selected(const char *pattern, bool invert) {
    qh *q = qh_new(WIRE_PROF_NONE);
    uint64_t addr[N_NAMES + 1];
    char desc[N_NAMES][64];
    for (size_t i = 0; i < N_NAMES; i++) {
        snprintf(desc[i], sizeof desc[i], "main:Main.%s", names[i]);
        addr[i] = qh_con(q, desc[i], 0, NULL, 1);
    }
    addr[N_NAMES] = qh_plain(q, HS_MUT_VAR_CLEAN, 1, &addr[0], 0);
    heap *h = qh_open(q);
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    cr_assert_eq(query_filters_add(f, QUERY_FILTER_CONSTRUCTOR, pattern, invert, &err), HS_OK,
                 "/%s/: %s", pattern, err.message);
    heap_closure c = {0};
    unsigned bits = 0;
    for (size_t i = 0; i <= N_NAMES; i++) {
        cr_assert_eq(heap_decode(h, addr[i], &c, &err), HS_OK, "%s", err.message);
        bool m = false;
        cr_assert_eq(query_filters_match(f, h, &c, &m, &err), HS_OK, "/%s/: %s", pattern,
                     err.message);
        if (m)
            bits |= 1u << i;
    }
    heap_closure_free(&c);
    query_filters_free(f);
    qh_free(q);
    return bits;
}

enum { LEAK = 1, LEAKX = 2, XLEAK = 4, SPAN = 8, FUITE = 16, UNICODE = 32, CONS = 64,
       PAIR = 128, BAD = 256, MUTVAR = 512, ALL_CONS = 511 };

#define EXPECT_SEL(pattern, want)                                                      \
    do {                                                                               \
        unsigned got_ = selected(pattern, false);                                      \
        cr_expect_eq(got_, (unsigned)(want), "/%s/ selected 0x%x, expected 0x%x", pattern, \
                     got_, (unsigned)(want));                                          \
    } while (0)

Test(query_regex, anchors) {
    EXPECT_SEL("^Leak$", LEAK);
    EXPECT_SEL("Leak", LEAK | LEAKX | XLEAK);
    EXPECT_SEL("^Leak", LEAK | LEAKX);
    EXPECT_SEL("Leak$", LEAK | XLEAK);
    EXPECT_SEL("\\ALeak\\z", LEAK);
    EXPECT_SEL("^eak", 0);
}

Test(query_regex, alternation_and_groups) {
    EXPECT_SEL("^(Leak|Span)$", LEAK | SPAN);
    EXPECT_SEL("^Leak$|^Span$", LEAK | SPAN);
    EXPECT_SEL("X", LEAKX | XLEAK);
    EXPECT_SEL("^(?:X?Leak|Sp)", LEAK | LEAKX | XLEAK | SPAN);
    EXPECT_SEL("^Leak(?!X)", LEAK);
}

Test(query_regex, special_constructor_names) {
    EXPECT_SEL("^:$", CONS);
    EXPECT_SEL("^\\(,\\)$", PAIR);
    EXPECT_SEL("^\\(,+\\)$", PAIR);
}

Test(query_regex, unicode_code_points_not_bytes) {
    EXPECT_SEL("^Fu.te$", FUITE);      /* . is one code point: ï is two bytes */
    EXPECT_SEL("^Fu..te$", 0);
    EXPECT_SEL("^.{5}$", FUITE | LEAKX | XLEAK);
    EXPECT_SEL("^Fu\\x{ef}te$", FUITE);
    EXPECT_SEL("^\\p{Lu}n\\p{Ll}code$", UNICODE);
    EXPECT_SEL("(?i)^\xc3\xbcn\xc3\x8f" "code$", UNICODE); /* üNÏcode, caseless */
    EXPECT_SEL("\xc3\xaf", FUITE | UNICODE);               /* ï anywhere */
}

Test(query_regex, names_that_are_not_utf8_do_not_fail) {
    EXPECT_SEL("^Bad", BAD);
    EXPECT_SEL("^Bad.$", 0); /* the invalid byte matches nothing */
}

Test(query_regex, empty_pattern_selects_every_constructor_only) {
    EXPECT_SEL("", ALL_CONS);
}

Test(query_regex, inverted_never_selects_a_non_constructor) {
    unsigned got = selected("^Leak$", true);
    cr_expect_eq(got, ALL_CONS & ~(unsigned)LEAK, "selected 0x%x", got);
    cr_expect_eq(got & MUTVAR, 0);
    cr_expect_eq(selected("", true), 0);
}

static void invalid(const char *pattern, const char *needle) {
    query_filters *f;
    hs_error err = {0};
    cr_assert_eq(query_filters_new(&f, &err), HS_OK);
    hs_status st = query_filters_add(f, QUERY_FILTER_CONSTRUCTOR, pattern, false, &err);
    cr_expect_eq(st, HS_ERR_USAGE, "/%s/ compiled", pattern);
    cr_expect(strstr(err.message, "bad regex"), "%s", err.message);
    cr_expect(strstr(err.message, needle), "/%s/: '%s' lacks '%s'", pattern, err.message, needle);
    cr_expect_eq(query_filters_count(f), 0);
    query_filters_free(f);
}

Test(query_regex, invalid_patterns_name_the_offset) {
    invalid("(", "missing closing parenthesis at offset 1");
    invalid("Le(ak", "at offset 5");
    invalid("[a-", "at offset 3");
    invalid("a{2,1}", "at offset 5");
    invalid("Leak\\", "at offset 5");
    invalid("*Leak", "at offset 0");
    invalid("(?<n", "at offset");
    invalid("\\p{NoSuchProperty}", "at offset");
}

Test(query_regex, invalid_utf8_patterns) {
    invalid("\xff", "bad regex '\\xff': UTF-8 error"); /* shown escaped */
    invalid("Le\xc3", "at offset 2");
}
