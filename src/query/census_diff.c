/* What changed between two censuses of the same spec: the buckets matched
 * by key (at each level), those whose count or bytes differ, ordered so
 * that what grew most comes first and what shrank most comes after it.
 * And a two-level census split into two one-level ones, so that a diff
 * that wants the census by era as well walks each heap once. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/query.h"

static int by_key(const void *x, const void *y) {
    const query_census_row *a = *(const query_census_row *const *)x;
    const query_census_row *b = *(const query_census_row *const *)y;
    return strcmp(a->key, b->key);
}

/* Pointers to rows, sorted by key, for the merge. */
static hs_status sorted_rows(const query_census_row *rows, size_t n,
                             const query_census_row ***out, hs_error *err) {
    *out = NULL;
    if (n == 0)
        return HS_OK;
    const query_census_row **p = malloc(n * sizeof *p);
    if (!p)
        return hs_fail(err, HS_ERR_NOMEM, "census diff: out of memory for %zu rows", n);
    for (size_t i = 0; i < n; i++)
        p[i] = &rows[i];
    qsort(p, n, sizeof *p, by_key);
    *out = p;
    return HS_OK;
}

/* Grown (0), only the second level changed (1), shrunk (2). */
static int section(const query_census_diff_row *r) {
    int64_t d = r->bytes_delta ? r->bytes_delta : r->count_delta;
    return d > 0 ? 0 : d == 0 ? 1 : 2;
}

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

static int by_growth(const void *x, const void *y) {
    const query_census_diff_row *a = x, *b = y;
    int sa = section(a), sb = section(b);
    if (sa != sb)
        return sa - sb;
    int c = cmp_i64(a->bytes_delta, b->bytes_delta);
    if (c == 0)
        c = cmp_i64(a->count_delta, b->count_delta);
    if (c != 0)
        return sa == 0 ? -c : c; /* grown: largest first; shrunk: most lost first */
    return strcmp(a->key, b->key);
}

static void free_rows(query_census_diff_row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free_rows(rows[i].children, rows[i].n_children);
        free(rows[i].key);
    }
    free(rows);
}

static hs_status diff_level(const query_census_row *a, size_t na, const query_census_row *b,
                            size_t nb, query_census_diff_row **out, size_t *n_out,
                            size_t *unchanged, hs_error *err);

/* The row of a key: its counts in A (ra, or NULL) and B (rb, or NULL),
 * and the diff of its children. *keep is false when nothing changed. */
static hs_status diff_row(const query_census_row *ra, const query_census_row *rb,
                          query_census_diff_row *r, bool *keep, hs_error *err) {
    static const query_census_row none = {0};
    const query_census_row *x = ra ? ra : &none, *y = rb ? rb : &none;
    *r = (query_census_diff_row){
        .count_a = x->count,
        .bytes_a = x->bytes,
        .count_b = y->count,
        .bytes_b = y->bytes,
        .count_delta = (int64_t)(y->count - x->count),
        .bytes_delta = (int64_t)(y->bytes - x->bytes),
    };
    size_t ignored = 0;
    hs_status st = diff_level(x->children, x->n_children, y->children, y->n_children,
                              &r->children, &r->n_children, &ignored, err);
    if (st != HS_OK)
        return st;
    *keep = r->count_delta || r->bytes_delta || r->n_children;
    if (!*keep)
        return HS_OK;
    r->key = strdup(ra ? ra->key : rb->key);
    if (!r->key) {
        free_rows(r->children, r->n_children);
        return hs_fail(err, HS_ERR_NOMEM, "census diff: out of memory for a key");
    }
    return HS_OK;
}

static hs_status diff_level(const query_census_row *a, size_t na, const query_census_row *b,
                            size_t nb, query_census_diff_row **out, size_t *n_out,
                            size_t *unchanged, hs_error *err) {
    *out = NULL;
    *n_out = 0;
    if (na + nb == 0)
        return HS_OK;
    const query_census_row **sa = NULL, **sb = NULL;
    query_census_diff_row *rows = calloc(na + nb, sizeof *rows);
    hs_status st = rows ? HS_OK
                        : hs_fail(err, HS_ERR_NOMEM, "census diff: out of memory for %zu rows",
                                  na + nb);
    if (st == HS_OK)
        st = sorted_rows(a, na, &sa, err);
    if (st == HS_OK)
        st = sorted_rows(b, nb, &sb, err);
    size_t i = 0, k = 0, n = 0;
    while (st == HS_OK && (i < na || k < nb)) {
        int c = i == na ? 1 : k == nb ? -1 : strcmp(sa[i]->key, sb[k]->key);
        const query_census_row *ra = c <= 0 ? sa[i++] : NULL;
        const query_census_row *rb = c >= 0 ? sb[k++] : NULL;
        bool keep = false;
        st = diff_row(ra, rb, &rows[n], &keep, err);
        if (st == HS_OK && keep)
            n++;
        else if (st == HS_OK)
            (*unchanged)++;
    }
    free(sa);
    free(sb);
    if (st != HS_OK) {
        free_rows(rows, n);
        return st;
    }
    if (n == 0) { /* nothing changed: no rows at all (keep tests n_children) */
        free(rows);
        return HS_OK;
    }
    qsort(rows, n, sizeof *rows, by_growth);
    *out = rows;
    *n_out = n;
    return HS_OK;
}

hs_status query_census_diff_compute(const query_census *a, const query_census *b,
                                    query_census_diff *out, hs_error *err) {
    *out = (query_census_diff){0};
    return diff_level(a->rows, a->n_rows, b->rows, b->n_rows, &out->rows, &out->n_rows,
                      &out->unchanged, err);
}

void query_census_diff_free(query_census_diff *d) {
    free_rows(d->rows, d->n_rows);
    *d = (query_census_diff){0};
}

/* The children of every row, pointers sorted by key. */
static hs_status all_children(const query_census *c, const query_census_row ***out, size_t *n,
                              hs_error *err) {
    *n = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        *n += c->rows[i].n_children;
    const query_census_row **p = malloc((*n ? *n : 1) * sizeof *p);
    if (!p)
        return hs_fail(err, HS_ERR_NOMEM, "census split: out of memory for %zu rows", *n);
    size_t k = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        for (size_t j = 0; j < c->rows[i].n_children; j++)
            p[k++] = &c->rows[i].children[j];
    qsort(p, *n, sizeof *p, by_key);
    *out = p;
    return HS_OK;
}

hs_status query_census_split(query_census *c, query_census *second, hs_error *err) {
    *second = (query_census){.total_count = c->total_count, .total_bytes = c->total_bytes,
                             .visited = c->visited, .unreadable = c->unreadable};
    const query_census_row **kids = NULL;
    size_t n;
    hs_status st = all_children(c, &kids, &n, err);
    if (st != HS_OK)
        return st;
    second->rows = calloc(n ? n : 1, sizeof *second->rows);
    if (!second->rows)
        st = hs_fail(err, HS_ERR_NOMEM, "census split: out of memory for %zu rows", n);
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        query_census_row *r = second->n_rows ? &second->rows[second->n_rows - 1] : NULL;
        if (!r || strcmp(r->key, kids[i]->key) != 0) {
            r = &second->rows[second->n_rows];
            if (!(r->key = strdup(kids[i]->key))) {
                st = hs_fail(err, HS_ERR_NOMEM, "census split: out of memory for a key");
                break;
            }
            second->n_rows++;
        }
        r->count += kids[i]->count;
        r->bytes += kids[i]->bytes;
        if (kids[i]->max > r->max)
            r->max = kids[i]->max;
    }
    free(kids);
    if (st != HS_OK) {
        query_census_free(second);
        return st;
    }
    for (size_t i = 0; i < c->n_rows; i++) {
        for (size_t k = 0; k < c->rows[i].n_children; k++)
            free(c->rows[i].children[k].key);
        free(c->rows[i].children);
        c->rows[i].children = NULL;
        c->rows[i].n_children = 0;
    }
    query_census_sort(second, QUERY_CENSUS_COL_BYTES, true);
    return HS_OK;
}
