/* The eras side of a census diff ("the closures of eras that B has and A
 * does not"): each side's census by era alongside its census by the
 * diff's keys, and the era rows of their difference that only B has. */
#include <stdio.h>
#include <stdlib.h>

#include "heapscope/query.h"

hs_status query_census_and_eras(heap *h, const query_census_spec *spec, query_census *out,
                                query_census *eras, bool *eras_ok, char *why, size_t why_cap,
                                hs_error *err) {
    *eras_ok = false;
    hs_error no_eras = {0};
    bool has = query_census_by_usable(QUERY_CENSUS_BY_ERA, h, &no_eras) == HS_OK;
    if (!has)
        snprintf(why, why_cap, "%s", no_eras.message);
    /* one level: era goes below it and is split off again, one walk of h */
    query_census_spec s = *spec;
    bool split = has && s.levels == 1 && s.by[0] != QUERY_CENSUS_BY_ERA;
    if (split) {
        s.by[1] = QUERY_CENSUS_BY_ERA;
        s.levels = 2;
    }
    hs_status st = query_census_compute(h, &s, out, err);
    if (st != HS_OK)
        return st;
    if (split) {
        st = query_census_split(out, eras, err);
    } else if (has) { /* a census by era already, or two levels: count the eras apart */
        query_census_spec e = {.by = {QUERY_CENSUS_BY_ERA}, .levels = 1,
                               .filters = spec->filters, .prepared = spec->prepared,
                               .progress = spec->progress, .progress_ctx = spec->progress_ctx};
        st = query_census_compute(h, &e, eras, err);
    }
    if (st != HS_OK)
        query_census_free(out);
    *eras_ok = st == HS_OK && has;
    return st;
}

static uint64_t era_of(const query_census_diff_row *r) { return strtoull(r->key, NULL, 10); }

static int by_era(const void *x, const void *y) {
    uint64_t a = era_of(*(const query_census_diff_row *const *)x);
    uint64_t b = era_of(*(const query_census_diff_row *const *)y);
    return (a > b) - (a < b);
}

const query_census_diff_row **query_census_diff_new_eras(const query_census_diff *d,
                                                         size_t *n) {
    *n = 0;
    const query_census_diff_row **p = malloc((d->n_rows + 1) * sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < d->n_rows; i++)
        if (d->rows[i].count_a == 0 && d->rows[i].count_b > 0)
            p[(*n)++] = &d->rows[i];
    qsort(p, *n, sizeof *p, by_era);
    return p;
}
