/* Census rows from the groups: each level's raw numbers are named once
 * (census_key.c), equal names get one id, groups with the same ids are
 * merged, and the rows (with their second-level children) are made and
 * sorted. Sorting by any column lives here too. */
#include <stdlib.h>
#include <string.h>

#include "census_internal.h"
#include "heapscope/u64map.h"

/* The distinct raw values of one level with their names. */
typedef struct level_names {
    u64map index;        /* raw + 1 -> position + 1 (raw UINT64_MAX uses `top`) */
    size_t top;          /* position + 1 of raw UINT64_MAX */
    char **names;
    uint32_t *canon;     /* position -> id shared by equal names */
    size_t n, cap;
} level_names;

typedef struct merged {
    uint32_t id[QUERY_CENSUS_MAX_LEVELS];
    uint64_t count, bytes, max;
} merged;

static void level_free(level_names *l) {
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    free(l->canon);
    u64map_free(&l->index);
}

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory naming the census rows");
}

/* The position of raw in l, named on first sight. */
static hs_status level_position(heap *h, query_census_by by, level_names *l, uint64_t raw,
                                size_t *pos, hs_error *err) {
    uint64_t *found = raw == UINT64_MAX ? NULL : u64map_find(&l->index, raw + 1);
    if (raw == UINT64_MAX && l->top) {
        *pos = l->top - 1;
        return HS_OK;
    }
    if (found) {
        *pos = (size_t)*found - 1;
        return HS_OK;
    }
    char name[512];
    hs_status st = census_key_of_raw(h, by, raw, name, sizeof name, err);
    if (st != HS_OK)
        return st;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **names = realloc(l->names, cap * sizeof *names);
        if (!names)
            return nomem(err);
        l->names = names;
        l->cap = cap;
    }
    if (!(l->names[l->n] = strdup(name)))
        return nomem(err);
    if (raw == UINT64_MAX)
        l->top = l->n + 1;
    else if (!u64map_put(&l->index, raw + 1, l->n + 1))
        return nomem(err);
    *pos = l->n++;
    return HS_OK;
}

static _Thread_local char **sort_names; /* the level being sorted (qsort has no context) */

static int cmp_position(const void *a, const void *b) {
    return strcmp(sort_names[*(const uint32_t *)a], sort_names[*(const uint32_t *)b]);
}

/* canon[i]: the rank of names[i] among the distinct names of the level. */
static hs_status level_canon(level_names *l, hs_error *err) {
    uint32_t *order = malloc((l->n ? l->n : 1) * sizeof *order);
    l->canon = malloc((l->n ? l->n : 1) * sizeof *l->canon);
    if (!order || !l->canon) {
        free(order);
        return nomem(err);
    }
    for (size_t i = 0; i < l->n; i++)
        order[i] = (uint32_t)i;
    sort_names = l->names;
    if (l->n > 1)
        qsort(order, l->n, sizeof *order, cmp_position);
    uint32_t id = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0 && strcmp(l->names[order[i]], l->names[order[i - 1]]) != 0)
            id++;
        l->canon[order[i]] = id;
    }
    free(order);
    return HS_OK;
}

static int cmp_merged(const void *a, const void *b) {
    const merged *x = a, *y = b;
    for (size_t l = 0; l < QUERY_CENSUS_MAX_LEVELS; l++)
        if (x->id[l] != y->id[l])
            return x->id[l] < y->id[l] ? -1 : 1;
    return 0;
}

static void add_to(query_census_row *r, uint64_t count, uint64_t bytes, uint64_t max) {
    r->count += count;
    r->bytes += bytes;
    if (max > r->max)
        r->max = max;
}

/* Rows of the runs of m (sorted, merged) with level-1 id equal: a row per
 * run, children per level-2 id; first_names[id] and second_names[id]
 * name the ids of the levels. */
static hs_status make_rows(const merged *m, size_t n, size_t levels, char **const first_names,
                           char **const second_names, query_census *out, hs_error *err) {
    out->rows = calloc(n ? n : 1, sizeof *out->rows);
    if (!out->rows)
        return nomem(err);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && m[j].id[0] == m[i].id[0])
            j++;
        query_census_row *r = &out->rows[out->n_rows++];
        if (!(r->key = strdup(first_names[m[i].id[0]])))
            return nomem(err);
        if (levels > 1 && !(r->children = calloc(j - i, sizeof *r->children)))
            return nomem(err);
        for (size_t k = i; k < j; k++) {
            add_to(r, m[k].count, m[k].bytes, m[k].max);
            if (levels > 1) {
                query_census_row *c = &r->children[r->n_children++];
                if (!(c->key = strdup(second_names[m[k].id[1]])))
                    return nomem(err);
                add_to(c, m[k].count, m[k].bytes, m[k].max);
            }
        }
        out->total_count += r->count;
        out->total_bytes += r->bytes;
        i = j;
    }
    return HS_OK;
}

/* Merges entries of m (sorted) with equal ids; returns the new count. */
static size_t merge_equal(merged *m, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w > 0 && cmp_merged(&m[w - 1], &m[i]) == 0) {
            m[w - 1].count += m[i].count;
            m[w - 1].bytes += m[i].bytes;
            if (m[i].max > m[w - 1].max)
                m[w - 1].max = m[i].max;
        } else {
            m[w++] = m[i];
        }
    }
    return w;
}

/* names by id: one name of each canonical id of the level. */
static char **names_by_id(const level_names *l) {
    char **by_id = calloc(l->n ? l->n : 1, sizeof *by_id);
    for (size_t i = 0; by_id && i < l->n; i++)
        by_id[l->canon[i]] = l->names[i];
    return by_id;
}

hs_status census_rows_build(heap *h, const query_census_spec *spec, const census_group *groups,
                            size_t n_groups, query_census *out, hs_error *err) {
    level_names lv[QUERY_CENSUS_MAX_LEVELS] = {0};
    merged *m = calloc(n_groups ? n_groups : 1, sizeof *m);
    char **ids[QUERY_CENSUS_MAX_LEVELS] = {0};
    hs_status st = m ? HS_OK : nomem(err);
    for (size_t g = 0; st == HS_OK && g < n_groups; g++) {
        m[g].count = groups[g].count;
        m[g].bytes = groups[g].bytes;
        m[g].max = groups[g].max;
        for (size_t l = 0; st == HS_OK && l < spec->levels; l++) {
            size_t pos = 0;
            st = level_position(h, spec->by[l], &lv[l], groups[g].raw[l], &pos, err);
            m[g].id[l] = (uint32_t)pos;
        }
    }
    for (size_t l = 0; st == HS_OK && l < spec->levels; l++) {
        st = level_canon(&lv[l], err);
        if (st == HS_OK && !(ids[l] = names_by_id(&lv[l])))
            st = nomem(err);
        for (size_t g = 0; st == HS_OK && g < n_groups; g++)
            m[g].id[l] = lv[l].canon[m[g].id[l]];
    }
    if (st == HS_OK) {
        if (n_groups > 1)
            qsort(m, n_groups, sizeof *m, cmp_merged);
        size_t n = merge_equal(m, n_groups);
        st = make_rows(m, n, spec->levels, ids[0], ids[1], out, err);
    }
    if (st == HS_OK)
        query_census_sort(out, QUERY_CENSUS_COL_BYTES, true);
    for (size_t l = 0; l < QUERY_CENSUS_MAX_LEVELS; l++) {
        free(ids[l]);
        level_free(&lv[l]);
    }
    free(m);
    return st;
}

/* ---- sorting ---- */

static _Thread_local query_census_column sort_column;
static _Thread_local bool sort_descending;

static int cmp_u64(uint64_t x, uint64_t y) {
    return x < y ? -1 : x > y ? 1 : 0;
}

static int cmp_rows(const void *a, const void *b) {
    const query_census_row *x = a, *y = b;
    int c = 0;
    switch (sort_column) {
    case QUERY_CENSUS_COL_COUNT: c = cmp_u64(x->count, y->count); break;
    case QUERY_CENSUS_COL_MAX: c = cmp_u64(x->max, y->max); break;
    case QUERY_CENSUS_COL_AVG: { /* x.bytes / x.count against y.bytes / y.count, exactly */
        unsigned __int128 l = (unsigned __int128)x->bytes * (y->count ? y->count : 1);
        unsigned __int128 r = (unsigned __int128)y->bytes * (x->count ? x->count : 1);
        c = l < r ? -1 : l > r ? 1 : 0;
        break;
    }
    case QUERY_CENSUS_COL_KEY: c = strcmp(x->key, y->key); break;
    case QUERY_CENSUS_COL_RETAINED: c = cmp_u64(x->retained, y->retained); break;
    default: c = cmp_u64(x->bytes, y->bytes); break;
    }
    if (sort_descending)
        c = -c;
    return c ? c : strcmp(x->key, y->key);
}

void query_census_sort(query_census *c, query_census_column column, bool descending) {
    sort_column = column;
    sort_descending = descending;
    if (c->n_rows > 1)
        qsort(c->rows, c->n_rows, sizeof *c->rows, cmp_rows);
    if (column == QUERY_CENSUS_COL_RETAINED) /* only the first level has it */
        sort_column = QUERY_CENSUS_COL_BYTES;
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].n_children > 1)
            qsort(c->rows[i].children, c->rows[i].n_children, sizeof *c->rows[i].children,
                  cmp_rows);
}

void query_census_free(query_census *c) {
    for (size_t i = 0; i < c->n_rows; i++) {
        for (size_t k = 0; k < c->rows[i].n_children; k++)
            free(c->rows[i].children[k].key);
        free(c->rows[i].children);
        free(c->rows[i].key);
    }
    free(c->rows);
    memset(c, 0, sizeof *c);
}
