/* Text a person types: era ranges, filter values of every kind (regexes,
 * addresses, sizes, eras, cost centres, buckets, escaped values), integers,
 * byte sizes, census and closure-type names, constructor names and targets. The first byte picks the parser (and a
 * filter's kind and inversion); the rest is the text, cut at its first
 * NUL as a command line or the footer would. */
#include <string.h>

#include "fuzz_check.h"
#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "heapscope/size.h"
#include "heapscope/wire.h"

static void era_range(const char *text) {
    query_era_range r;
    hs_error err = {0};
    if (query_era_range_parse(text, &r, &err) == HS_OK) {
        FUZZ_CHECK(r.lo <= r.hi);
        char buf[64];
        query_era_range_format(r, buf, sizeof buf);
        query_era_range again;
        /* what is shown as a single era or [A,B] reads back the same */
        if (buf[0] != '[')
            FUZZ_CHECK(query_era_range_parse(buf, &again, &err) == HS_OK && again.lo == r.lo &&
                       again.hi == r.hi);
    } else {
        FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
    }
}

static void filter(uint8_t pick, const char *text) {
    query_filters *f = NULL;
    hs_error err = {0};
    if (query_filters_new(&f, &err) != HS_OK)
        return;
    query_filter_kind kind = (query_filter_kind)(pick % QUERY_FILTER_KIND_COUNT);
    bool invert = pick & 0x80;
    if (query_filters_add(f, kind, text, invert, &err) == HS_OK) {
        FUZZ_CHECK(query_filters_count(f) == 1);
        char buf[256];
        query_filters_describe(f, 0, buf, sizeof buf);
        FUZZ_CHECK(strlen(buf) < sizeof buf);
    } else {
        FUZZ_CHECK(query_filters_count(f) == 0);
        FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
    }
    query_filters_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    hs_error err = {0};
    switch (data[0] % 6) {
    case 0: era_range(text); break;
    case 1: { /* numbers, sizes and names given to options */
        int64_t v;
        uint64_t a;
        query_parse_int(text, &v);
        if (query_parse_hex_address(text, &a))
            FUZZ_CHECK(strncmp(text, "0x", 2) == 0);
        if (hs_size_parse(text, &a)) {
            char buf[64];
            hs_size_format(a, buf, sizeof buf);
        }
        query_census_by by;
        query_census_column column;
        query_census_by_from_name(text, &by);
        query_census_column_from_name(text, &column);
        int type = hs_closure_type_from_name(text);
        FUZZ_CHECK(type >= -1 && type < HS_N_CLOSURE_TYPES);
        break;
    }
    case 2: {
        wire_con_desc d = {0};
        if (wire_parse_con_desc(text, strlen(text), &d, &err) == HS_OK)
            FUZZ_CHECK(d.name && strlen(d.name) <= strlen(text));
        wire_con_desc_free(&d);
        break;
    }
    case 3: {
        wire_target t;
        if (wire_target_parse(text, &t, &err) != HS_OK)
            FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
        break;
    }
    default: filter(data[0] / 6, text); break;
    }
    free(text);
    return 0;
}
