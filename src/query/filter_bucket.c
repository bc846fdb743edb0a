/* The bucket filter, "BY=KEY": the closures whose census key under BY is
 * exactly KEY, so a census row's closures can be searched (retainers of
 * one bucket). The key is made by the census's own naming (census_key.c)
 * from one number of the closure, and the outcome cached per number: per
 * info table for the kinds named by the info table, per CCS for cost
 * centres; an era is compared as a number. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census_internal.h"
#include "filter_internal.h"

struct query_bucket {
    query_census_by by;
    char *key;
    uint64_t era; /* by era: KEY as a number */
    u64map outcomes; /* raw + 1 -> 1 (no match) or 2 (match) */
};

enum { OUT_NO = 1, OUT_YES = 2 };

hs_status query_bucket_parse(const char *text, query_bucket **out, hs_error *err) {
    *out = NULL;
    const char *eq = strchr(text, '=');
    char by_name[32];
    if (!eq || (size_t)(eq - text) >= sizeof by_name)
        return hs_fail(err, HS_ERR_USAGE,
                       "a bucket is BY=KEY (e.g. constructor=main:Main:Leak), not '%s'", text);
    memcpy(by_name, text, (size_t)(eq - text));
    by_name[eq - text] = '\0';
    query_census_by by;
    if (!query_census_by_from_name(by_name, &by))
        return hs_fail(err, HS_ERR_USAGE,
                       "unknown census kind '%s' in bucket '%s'; the kinds are type, "
                       "constructor, era, source, closure-name, cost-centre and thunk",
                       by_name, text);
    uint64_t era = 0;
    if (by == QUERY_CENSUS_BY_ERA) {
        char *end;
        errno = 0;
        era = strtoull(eq + 1, &end, 10);
        if (errno || end == eq + 1 || *end || eq[1] == '-' || eq[1] == '+')
            return hs_fail(err, HS_ERR_USAGE, "an era bucket's key is a whole number, not '%s'",
                           eq + 1);
    }
    query_bucket *b = calloc(1, sizeof *b);
    if (!b || !(b->key = strdup(eq + 1))) {
        free(b);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    b->by = by;
    b->era = era;
    *out = b;
    return HS_OK;
}

void query_bucket_free(query_bucket *b) {
    if (!b)
        return;
    free(b->key);
    u64map_free(&b->outcomes);
    free(b);
}

bool query_bucket_info_only(const query_bucket *b) {
    return census_by_source(b->by) == CENSUS_SRC_INFO;
}

hs_status query_bucket_prepare(query_bucket *b, heap *h, hs_error *err) {
    u64map_free(&b->outcomes); /* answers of another heap's program */
    return query_census_by_usable(b->by, h, err);
}

hs_status query_bucket_match(query_bucket *b, heap *h, const heap_closure *c, bool *applies,
                             bool *pred, hs_error *err) {
    *applies = b->by != QUERY_CENSUS_BY_THUNK || query_census_is_thunk(c->type);
    *pred = false;
    if (!*applies)
        return HS_OK;
    census_source src = census_by_source(b->by);
    uint64_t raw = census_raw(src, c);
    if (src == CENSUS_SRC_ERA) {
        *pred = raw == b->era;
        return HS_OK;
    }
    uint64_t *known = raw == UINT64_MAX ? NULL : u64map_find(&b->outcomes, raw + 1);
    if (known) {
        *pred = *known == OUT_YES;
        return HS_OK;
    }
    char key[512];
    hs_status st = census_key_of_raw(h, b->by, raw, key, sizeof key, err);
    if (st != HS_OK)
        return st;
    *pred = strcmp(key, b->key) == 0;
    if (raw != UINT64_MAX && !u64map_put(&b->outcomes, raw + 1, *pred ? OUT_YES : OUT_NO))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}
