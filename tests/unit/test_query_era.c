/* Era ranges: parsing and display (retainers-and-eras.md §4.5). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "heapscope/query.h"

static query_era_range ok(const char *text) {
    query_era_range r = {0, 0};
    hs_error err = {0};
    hs_status st = query_era_range_parse(text, &r, &err);
    cr_assert_eq(st, HS_OK, "'%s': %s", text, err.message);
    return r;
}

static const char *bad(const char *text) {
    static hs_error err;
    memset(&err, 0, sizeof err);
    query_era_range r = {7, 7};
    hs_status st = query_era_range_parse(text, &r, &err);
    cr_assert_eq(st, HS_ERR_USAGE, "'%s' should be refused", text);
    cr_expect_eq(r.lo, 7, "'%s' changed the output on error", text);
    cr_expect(strstr(err.message, "is not an era range"), "'%s': %s", text, err.message);
    return err.message;
}

#define EXPECT_RANGE(text, a, b)                                                         \
    do {                                                                                 \
        query_era_range r_ = ok(text);                                                   \
        cr_expect_eq(r_.lo, (uint64_t)(a), "'%s' lo %llu", text, (unsigned long long)r_.lo); \
        cr_expect_eq(r_.hi, (uint64_t)(b), "'%s' hi %llu", text, (unsigned long long)r_.hi); \
    } while (0)

Test(query_era, single_and_closed) {
    EXPECT_RANGE("3", 3, 3);
    EXPECT_RANGE("0", 0, 0);
    EXPECT_RANGE("2-5", 2, 5);
    EXPECT_RANGE("4-4", 4, 4);
    EXPECT_RANGE("0x10", 16, 16);
    EXPECT_RANGE("18446744073709551615", UINT64_MAX, UINT64_MAX);
}

Test(query_era, open_ends) {
    EXPECT_RANGE("-7", 0, 7);
    EXPECT_RANGE("7-", 7, UINT64_MAX);
    EXPECT_RANGE("-", 0, UINT64_MAX);
}

Test(query_era, spaces_around_numbers) {
    EXPECT_RANGE(" 5 ", 5, 5);
    EXPECT_RANGE(" 2 - 9 ", 2, 9);
    EXPECT_RANGE("2 -", 2, UINT64_MAX);
    EXPECT_RANGE("- 4", 0, 4);
}

Test(query_era, malformed) {
    /* an open end must be literally empty: a space is not a number */
    bad(" -5");
    bad("5- ");
    bad("");
    bad("   ");
    bad("abc");
    bad("1.5");
    bad("+3");
    bad("3x");
    bad("0x");
    cr_expect(strstr(bad("1-2-3"), "more than one '-'"));
    cr_expect(strstr(bad("--"), "more than one '-'"));
    cr_expect(strstr(bad("x-3"), "bad start"));
    cr_expect(strstr(bad("3-y"), "bad end"));
    cr_expect(strstr(bad("18446744073709551616"), "is not an era range")); /* 2^64 */
}

Test(query_era, reversed_range_is_refused) {
    const char *msg = bad("5-3");
    cr_expect(strstr(msg, "starts at era 5 after it ends at era 3"), "%s", msg);
}

static const char *shown(uint64_t lo, uint64_t hi) {
    static char buf[64];
    query_era_range_format((query_era_range){lo, hi}, buf, sizeof buf);
    return buf;
}

Test(query_era, display) {
    cr_expect_str_eq(shown(3, 3), "3");
    cr_expect_str_eq(shown(2, 5), "[2,5]");
    cr_expect_str_eq(shown(0, 7), "[0,7]");
    cr_expect_str_eq(shown(7, UINT64_MAX), "[7,\xe2\x88\x9e)");
    cr_expect_str_eq(shown(0, UINT64_MAX), "[0,\xe2\x88\x9e)");
    cr_expect_str_eq(shown(UINT64_MAX, UINT64_MAX), "18446744073709551615");
}
