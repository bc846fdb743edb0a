/* Filters: parsing a value per kind, preparing them for a heap, and the
 * AND of the list, front to back, with short-circuit
 * (retainers-and-eras.md §4). Constructor and closure-name results depend
 * only on the info table, so they are cached per info pointer in a small
 * direct-mapped table: the regex runs once per constructor, not once per
 * closure. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_internal.h"
#include "heapscope/closure_type.h"
#include "heapscope/grow.h"
#include "strings_internal.h"

#define INFO_CACHE_SLOTS 1024 /* power of two */

/* Cached per-info-table outcomes. */
enum { NOT_APPLICABLE = 1, PRED_FALSE = 2, PRED_TRUE = 3 };

typedef struct info_cache {
    uint64_t keys[INFO_CACHE_SLOTS]; /* info pointer; 0 = empty */
    uint8_t values[INFO_CACHE_SLOTS];
} info_cache;

typedef struct query_filter {
    query_filter_kind kind;
    bool invert;
    char *text;            /* as given */
    uint64_t value;        /* address, info pointer, closure type */
    int64_t number;        /* minimum size, cost-centre id */
    query_era_range era;
    query_regex *re;
    info_cache *cache;     /* constructor, exact, closure-name */
    bool asked, had_ipe;   /* closure-name: asked about an info table, one had IPE */
    u64map ccs;            /* cost centre: the selected stacks */
    query_bucket *bucket;  /* bucket: BY=KEY */
    strings_value_filter *string_value; /* value */
} query_filter;

struct query_filters {
    query_filter *items;
    size_t count, cap;
    /* when every filter depends only on the info table (constructor and
     * closure names, info pointer, type), the whole AND is cached per info
     * pointer: one probe per closure */
    bool info_only;
    info_cache *all;
};

static bool info_only_filter(const query_filter *q) {
    query_filter_kind k = q->kind;
    return k == QUERY_FILTER_CONSTRUCTOR || k == QUERY_FILTER_EXACT ||
           k == QUERY_FILTER_CLOSURE_NAME || k == QUERY_FILTER_INFO || k == QUERY_FILTER_TYPE ||
           (k == QUERY_FILTER_BUCKET && query_bucket_info_only(q->bucket));
}

static const char *const kind_names[QUERY_FILTER_KIND_COUNT] = {
    [QUERY_FILTER_CONSTRUCTOR] = "constructor",   [QUERY_FILTER_EXACT] = "exact",
    [QUERY_FILTER_CLOSURE_NAME] = "closure-name", [QUERY_FILTER_ADDRESS] = "address",
    [QUERY_FILTER_INFO] = "info",                 [QUERY_FILTER_TYPE] = "type",
    [QUERY_FILTER_MIN_SIZE] = "min-size",         [QUERY_FILTER_ERA] = "era",
    [QUERY_FILTER_COST_CENTRE] = "cost-centre",   [QUERY_FILTER_BUCKET] = "bucket",
    [QUERY_FILTER_VALUE] = "value",
};

/* The filter list's labels, each naming what it matches (ghc-debug's
 * §4.3 labels call the closure-name filter "Constructor name (exact)");
 * the regex is shown as a regex. */
static const char *const row_labels[QUERY_FILTER_KIND_COUNT] = {
    [QUERY_FILTER_CONSTRUCTOR] = "Constructor name matching",
    [QUERY_FILTER_EXACT] = "Exact constructor name",
    [QUERY_FILTER_CLOSURE_NAME] = "Closure name (IPE)",
    [QUERY_FILTER_ADDRESS] = "Closure address",
    [QUERY_FILTER_INFO] = "Info table address",
    [QUERY_FILTER_TYPE] = "Closure type",
    [QUERY_FILTER_MIN_SIZE] = "Size (lower bound)",
    [QUERY_FILTER_ERA] = "Era range",
    [QUERY_FILTER_COST_CENTRE] = "CC Id",
    [QUERY_FILTER_BUCKET] = "Census bucket",
    [QUERY_FILTER_VALUE] = "String value",
};

const char *query_filter_kind_name(query_filter_kind kind) {
    return kind < QUERY_FILTER_KIND_COUNT ? kind_names[kind] : "unknown";
}

hs_status query_filters_new(query_filters **out, hs_error *err) {
    *out = calloc(1, sizeof **out);
    return *out ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

static void filter_free(query_filter *q) {
    free(q->text);
    query_regex_free(q->re);
    free(q->cache);
    u64map_free(&q->ccs);
    query_bucket_free(q->bucket);
    strings_value_filter_free(q->string_value);
}

void query_filters_free(query_filters *f) {
    if (!f)
        return;
    for (size_t i = 0; i < f->count; i++)
        filter_free(&f->items[i]);
    free(f->items);
    free(f->all);
    free(f);
}

size_t query_filters_count(const query_filters *f) {
    return f ? f->count : 0;
}

/* "A, B, C, ..." of the closure type names that fit, whole, for an error
 * message (all of them do not: the CLI prints the full list itself). */
static void type_names(char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t t = 1; t < HS_N_CLOSURE_TYPES; t++) {
        const char *name = hs_closure_type_name(t);
        if (used + strlen(name) + 2 + 5 >= cap) {
            snprintf(buf + used, cap - used, ", ...");
            return;
        }
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", t > 1 ? ", " : "", name);
    }
}

static hs_status parse_value(query_filter *q, const char *text, hs_error *err) {
    const char *what = kind_names[q->kind];
    switch (q->kind) {
    case QUERY_FILTER_CONSTRUCTOR:
        return query_regex_compile(text, &q->re, err);
    case QUERY_FILTER_EXACT:
    case QUERY_FILTER_CLOSURE_NAME:
        return HS_OK;
    case QUERY_FILTER_ADDRESS:
    case QUERY_FILTER_INFO:
        if (!query_parse_hex_address(text, &q->value))
            return hs_fail(err, HS_ERR_USAGE,
                           "%s wants 0x followed by 1 to 16 hex digits, not '%s'", what, text);
        if (q->kind == QUERY_FILTER_ADDRESS)
            q->value = wire_untag(q->value);
        return HS_OK;
    case QUERY_FILTER_TYPE: {
        uint32_t t;
        if (!hs_closure_type_parse(text, &t)) {
            char names[400];
            type_names(names, sizeof names);
            return hs_fail(err, HS_ERR_USAGE, "unknown closure type '%s'; the types are: %s",
                           text, names);
        }
        q->value = t;
        return HS_OK;
    }
    case QUERY_FILTER_MIN_SIZE:
    case QUERY_FILTER_COST_CENTRE:
        if (!query_parse_int(text, &q->number))
            return hs_fail(err, HS_ERR_USAGE,
                           "%s wants a whole number (decimal or 0x hex), not '%s'", what, text);
        return HS_OK;
    case QUERY_FILTER_ERA:
        return query_era_range_parse(text, &q->era, err);
    case QUERY_FILTER_BUCKET:
        return query_bucket_parse(text, &q->bucket, err);
    case QUERY_FILTER_VALUE:
        return strings_value_filter_new(text, &q->string_value, err);
    default:
        return hs_fail(err, HS_ERR_USAGE, "unknown filter kind %d", (int)q->kind);
    }
}

hs_status query_filters_add(query_filters *f, query_filter_kind kind, const char *text,
                            bool invert, hs_error *err) {
    if ((unsigned)kind >= QUERY_FILTER_KIND_COUNT)
        return hs_fail(err, HS_ERR_USAGE, "unknown filter kind %d", (int)kind);
    query_filter q = {.kind = kind, .invert = invert};
    hs_status st = parse_value(&q, text, err);
    if (st == HS_OK && !(q.text = strdup(text)))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (st == HS_OK &&
        (kind == QUERY_FILTER_CONSTRUCTOR || kind == QUERY_FILTER_EXACT ||
         kind == QUERY_FILTER_CLOSURE_NAME) &&
        !(q.cache = calloc(1, sizeof *q.cache)))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (st == HS_OK && !hs_grow((void **)&f->items, &f->cap, f->count + 1, sizeof *f->items))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    bool info_only = st == HS_OK && (f->count == 0 || f->info_only) && info_only_filter(&q);
    if (st == HS_OK && info_only && !f->all && !(f->all = malloc(sizeof *f->all)))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (st != HS_OK) {
        filter_free(&q);
        return st;
    }
    f->items[f->count++] = q;
    f->info_only = info_only;
    if (info_only) /* the list changed: forget the cached results */
        memset(f->all, 0, sizeof *f->all);
    return HS_OK;
}

void query_filters_describe(const query_filters *f, size_t i, char *buf, size_t cap) {
    if (!f || i >= f->count) {
        snprintf(buf, cap, "?");
        return;
    }
    const query_filter *q = &f->items[i];
    char value[64];
    const char *shown = q->text;
    switch (q->kind) {
    case QUERY_FILTER_ADDRESS:
    case QUERY_FILTER_INFO:
        snprintf(value, sizeof value, "0x%" PRIx64, q->value);
        shown = value;
        break;
    case QUERY_FILTER_MIN_SIZE:
    case QUERY_FILTER_COST_CENTRE:
        snprintf(value, sizeof value, "%" PRId64, q->number);
        shown = value;
        break;
    case QUERY_FILTER_ERA:
        query_era_range_format(q->era, value, sizeof value);
        shown = value;
        break;
    default: break;
    }
    if (q->kind == QUERY_FILTER_CONSTRUCTOR)
        snprintf(buf, cap, "%s%s /%s/", q->invert ? "!" : "", row_labels[q->kind], shown);
    else
        snprintf(buf, cap, "%s%s %s", q->invert ? "!" : "", row_labels[q->kind], shown);
}

hs_status query_filter_usable(query_filter_kind kind, heap *h, hs_error *err) {
    const wire_version *v = heap_version(h);
    if (kind == QUERY_FILTER_ERA)
        return heap_eras_needed(v, "an era filter", err);
    if (kind == QUERY_FILTER_COST_CENTRE && v->prof_mode == WIRE_PROF_NONE)
        return hs_fail(err, HS_ERR_USAGE,
                       "a cost-centre filter needs a profiled debuggee; this one is not "
                       "profiled");
    if (kind == QUERY_FILTER_CLOSURE_NAME && !heap_version_has_provenance(v)) {
        char advice[160];
        heap_provenance_advice(v, advice, sizeof advice);
        return hs_fail(err, HS_ERR_USAGE,
                       "a closure-name filter needs info-table provenance (IPE): %s", advice);
    }
    return HS_OK;
}

bool query_filters_provenance_missing(const query_filters *f) {
    for (size_t i = 0; f && i < f->count; i++)
        if (f->items[i].kind == QUERY_FILTER_CLOSURE_NAME && f->items[i].asked &&
            !f->items[i].had_ipe)
            return true;
    return false;
}

hs_status query_filters_prepare(query_filters *f, heap *h, hs_error *err) {
    if (f && f->all) /* cached results may belong to another heap's program */
        memset(f->all, 0, sizeof *f->all);
    for (size_t i = 0; f && i < f->count; i++) {
        query_filter *q = &f->items[i];
        if (q->cache)
            memset(q->cache, 0, sizeof *q->cache);
        q->asked = q->had_ipe = false;
        if (q->string_value)
            strings_value_filter_forget(q->string_value);
        hs_status st = query_filter_usable(q->kind, h, err);
        if (st != HS_OK)
            return st;
        if (q->bucket && (st = query_bucket_prepare(q->bucket, h, err)) != HS_OK)
            return st;
        if (q->kind == QUERY_FILTER_COST_CENTRE) {
            u64map_free(&q->ccs);
            st = query_ccs_collect(h, q->number, &q->ccs, err);
            if (st != HS_OK)
                return st;
        }
    }
    return HS_OK;
}

/* The outcome of an info-table-only filter for c's info table. */
static inline size_t cache_slot(uint64_t key) {
    return (size_t)((key >> 3) ^ (key >> 13)) & (INFO_CACHE_SLOTS - 1);
}

static hs_status info_outcome(query_filter *q, heap *h, const heap_closure *c, uint8_t *out,
                              hs_error *err) {
    uint64_t key = c->info_ptr;
    size_t slot = cache_slot(key);
    if (key && q->cache->keys[slot] == key) {
        *out = q->cache->values[slot];
        return HS_OK;
    }
    uint8_t v;
    if (q->kind == QUERY_FILTER_CLOSURE_NAME) {
        const wire_source_info *ipe = NULL;
        if (c->info) {
            hs_status st = heap_info_source(h, c->info, &ipe, err);
            if (st != HS_OK)
                return st;
        }
        q->asked = true;
        q->had_ipe |= ipe != NULL;
        v = !ipe ? NOT_APPLICABLE
                 : strcmp(ipe->name ? ipe->name : "", q->text) == 0 ? PRED_TRUE : PRED_FALSE;
    } else {
        const char *name = c->info && c->info->con_name ? c->info->con_name : "";
        if (q->kind == QUERY_FILTER_EXACT) {
            v = strcmp(name, q->text) == 0 ? PRED_TRUE : PRED_FALSE;
        } else {
            int m = query_regex_match(q->re, name, err);
            if (m < 0)
                return HS_ERR_USAGE;
            v = m ? PRED_TRUE : PRED_FALSE;
        }
    }
    if (key) {
        q->cache->keys[slot] = key;
        q->cache->values[slot] = v;
    }
    *out = v;
    return HS_OK;
}

static hs_status one(query_filter *q, heap *h, const heap_closure *c, bool *out, hs_error *err) {
    bool pred;
    switch (q->kind) {
    case QUERY_FILTER_CONSTRUCTOR:
    case QUERY_FILTER_EXACT:
    case QUERY_FILTER_CLOSURE_NAME: {
        if (q->kind != QUERY_FILTER_CLOSURE_NAME && !hs_closure_type_is_constructor(c->type)) {
            *out = false; /* not a constructor: false even when inverted (§4.1) */
            return HS_OK;
        }
        uint8_t v = NOT_APPLICABLE;
        hs_status st = info_outcome(q, h, c, &v, err);
        if (st != HS_OK)
            return st;
        if (v == NOT_APPLICABLE) { /* no IPE: false even when inverted (§4.1) */
            *out = false;
            return HS_OK;
        }
        pred = v == PRED_TRUE;
        break;
    }
    case QUERY_FILTER_ADDRESS: pred = c->addr == q->value; break;
    case QUERY_FILTER_INFO: pred = c->info_ptr == q->value; break;
    case QUERY_FILTER_TYPE: pred = c->type == q->value; break;
    case QUERY_FILTER_MIN_SIZE: pred = (int64_t)c->size >= q->number; break;
    case QUERY_FILTER_ERA: /* no header: true (§4.5) */
        pred = !c->prof.present || (c->prof.word >= q->era.lo && c->prof.word <= q->era.hi);
        break;
    case QUERY_FILTER_COST_CENTRE:
        pred = c->prof.present && u64map_find(&q->ccs, c->prof.ccs) != NULL;
        break;
    case QUERY_FILTER_BUCKET: {
        bool applies;
        hs_status st = query_bucket_match(q->bucket, h, c, &applies, &pred, err);
        if (st != HS_OK)
            return st;
        if (!applies) { /* not counted by that census: false even when inverted */
            *out = false;
            return HS_OK;
        }
        break;
    }
    case QUERY_FILTER_VALUE: {
        hs_status st = strings_value_filter_match(q->string_value, h, c, &pred, err);
        if (st != HS_OK)
            return st;
        break;
    }
    default: pred = false; break;
    }
    *out = pred != q->invert;
    return HS_OK;
}

static hs_status all_of(query_filters *f, heap *h, const heap_closure *c, bool *out,
                        hs_error *err) {
    *out = true;
    for (size_t i = 0; i < f->count && *out; i++) {
        hs_status st = one(&f->items[i], h, c, out, err);
        if (st != HS_OK)
            return st;
    }
    return HS_OK;
}

hs_status query_filters_match(query_filters *f, heap *h, const heap_closure *c, bool *out,
                              hs_error *err) {
    if (!f || f->count == 0) {
        *out = true;
        return HS_OK;
    }
    if (!f->info_only || !c->info_ptr)
        return all_of(f, h, c, out, err);
    size_t slot = cache_slot(c->info_ptr);
    if (f->all->keys[slot] == c->info_ptr) {
        *out = f->all->values[slot] == PRED_TRUE;
        return HS_OK;
    }
    hs_status st = all_of(f, h, c, out, err);
    if (st == HS_OK) {
        f->all->keys[slot] = c->info_ptr;
        f->all->values[slot] = *out ? PRED_TRUE : PRED_FALSE;
    }
    return st;
}

bool query_filters_info_only(const query_filters *f) {
    return f && f->count > 0 && f->info_only;
}

hs_status query_filters_match_info(query_filters *f, heap *h, const heap_info *info, bool *out,
                                   hs_error *err) {
    /* info-only filters read nothing of a closure but these */
    heap_closure c = {.info_ptr = info->ptr, .info = info, .type = info->type};
    return query_filters_match(f, h, &c, out, err);
}
