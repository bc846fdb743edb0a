/* Byte sizes typed by people (--max-answer) and shown to them. */
#include <criterion/criterion.h>

#include "heapscope/size.h"

static uint64_t parsed(const char *text) {
    uint64_t v = 0;
    cr_assert(hs_size_parse(text, &v), "'%s' should parse", text);
    return v;
}

Test(size, parse_accepts_units) {
    cr_assert_eq(parsed("0"), 0);
    cr_assert_eq(parsed("1048576"), 1048576);
    cr_assert_eq(parsed("64k"), UINT64_C(64) << 10);
    cr_assert_eq(parsed("512M"), UINT64_C(512) << 20);
    cr_assert_eq(parsed("2G"), UINT64_C(2) << 30);
    cr_assert_eq(parsed("2GiB"), UINT64_C(2) << 30);
    cr_assert_eq(parsed("2gb"), UINT64_C(2) << 30);
    cr_assert_eq(parsed("1T"), UINT64_C(1) << 40);
    cr_assert_eq(parsed("18446744073709551615"), UINT64_MAX);
}

Test(size, parse_refuses_the_rest) {
    const char *bad[] = {"", "M", "-1", "+5", " 5", "5 ", "1.5G", "2X", "2Gi", "2GiBs", "0x10",
                         "18446744073709551616", "16777216T", "5MM"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t v = 42;
        cr_assert_not(hs_size_parse(bad[i], &v), "'%s' should not parse", bad[i]);
        cr_assert_eq(v, 42, "'%s' left the value alone", bad[i]);
    }
}

static void formats(uint64_t bytes, const char *want) {
    char buf[32];
    hs_size_format(bytes, buf, sizeof buf);
    cr_assert_str_eq(buf, want, "%llu bytes", (unsigned long long)bytes);
}

Test(size, format) {
    formats(0, "0 bytes");
    formats(1, "1 byte");
    formats(1023, "1023 bytes");
    formats(1024, "1 KiB");
    formats(1536, "1.5 KiB");
    formats(UINT64_C(256) << 20, "256 MiB");
    formats((UINT64_C(3) << 29), "1.5 GiB");
    formats((UINT64_C(16) << 30) - 1, "16 GiB");
    formats(UINT64_C(5) << 40, "5 TiB");
    formats(UINT64_MAX, "16777216 TiB");
}
