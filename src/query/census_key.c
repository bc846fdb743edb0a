/* Census keys: the text naming a closure's bucket under each kind, made
 * from one number of the closure (info pointer, era, CCS), and the names
 * of the kinds and columns. Shared by the census and the bucket filter, so
 * a row's key is exactly what the filter compares. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "census_internal.h"
#include "heapscope/closure_type.h"

static const char *const by_names[QUERY_CENSUS_BY_COUNT] = {
    [QUERY_CENSUS_BY_TYPE] = "type",
    [QUERY_CENSUS_BY_CONSTRUCTOR] = "constructor",
    [QUERY_CENSUS_BY_ERA] = "era",
    [QUERY_CENSUS_BY_SOURCE] = "source",
    [QUERY_CENSUS_BY_CLOSURE_NAME] = "closure-name",
    [QUERY_CENSUS_BY_COST_CENTRE] = "cost-centre",
    [QUERY_CENSUS_BY_THUNK] = "thunk",
};

static const char *const column_names[QUERY_CENSUS_COL_COUNT_] = {
    [QUERY_CENSUS_COL_COUNT] = "count", [QUERY_CENSUS_COL_BYTES] = "bytes",
    [QUERY_CENSUS_COL_MAX] = "max",     [QUERY_CENSUS_COL_AVG] = "avg",
    [QUERY_CENSUS_COL_KEY] = "key",     [QUERY_CENSUS_COL_RETAINED] = "retained",
};

bool query_census_by_from_name(const char *name, query_census_by *out) {
    for (size_t i = 0; i < QUERY_CENSUS_BY_COUNT; i++) {
        if (strcmp(name, by_names[i]) == 0) {
            *out = (query_census_by)i;
            return true;
        }
    }
    return false;
}

const char *query_census_by_name(query_census_by by) {
    return (unsigned)by < QUERY_CENSUS_BY_COUNT ? by_names[by] : "unknown";
}

bool query_census_column_from_name(const char *name, query_census_column *out) {
    for (size_t i = 0; i < QUERY_CENSUS_COL_COUNT_; i++) {
        if (strcmp(name, column_names[i]) == 0) {
            *out = (query_census_column)i;
            return true;
        }
    }
    return false;
}

const char *query_census_column_name(query_census_column column) {
    return (unsigned)column < QUERY_CENSUS_COL_COUNT_ ? column_names[column] : "unknown";
}

bool query_census_is_thunk(uint32_t type) {
    return (type >= HS_THUNK && type <= HS_THUNK_SELECTOR) || type == HS_AP ||
           type == HS_AP_STACK;
}

hs_status query_census_by_usable(query_census_by by, heap *h, hs_error *err) {
    uint8_t mode = heap_version(h)->prof_mode;
    if ((unsigned)by >= QUERY_CENSUS_BY_COUNT)
        return hs_fail(err, HS_ERR_USAGE, "unknown census kind %d", (int)by);
    if (by == QUERY_CENSUS_BY_ERA)
        return heap_eras_needed(heap_version(h), "a census by era", err);
    if (by == QUERY_CENSUS_BY_COST_CENTRE && mode == WIRE_PROF_NONE)
        return hs_fail(err, HS_ERR_USAGE,
                       "a census by cost centre needs a profiled debuggee; this one is not "
                       "profiled");
    return HS_OK;
}

/* A stack or cost centre the source has no answer for, or whose answer
 * makes no sense: one bad pointer in one closure's header is a row of its
 * own, not the end of the census. But when the source cannot even say which
 * stack is the main one, it answers no cost-centre request at all, and the
 * census fails saying so. */
static hs_status unreadable_key(heap *h, hs_status st, uint64_t addr, char *buf, size_t cap) {
    uint64_t main_ccs;
    hs_error local = {0};
    if (!query_unreadable_status(st) || heap_ccs_main(h, &main_ccs, &local) != HS_OK)
        return st;
    snprintf(buf, cap, "<unreadable cost-centre stack 0x%" PRIx64 ">", addr);
    return HS_OK;
}

static hs_status cost_centre_key(heap *h, uint64_t ccs_ptr, char *buf, size_t cap,
                                 hs_error *err) {
    if (!ccs_ptr) {
        snprintf(buf, cap, "<no cost centre>");
        return HS_OK;
    }
    const wire_ccs *ccs;
    hs_status st = heap_ccs(h, ccs_ptr, &ccs, err);
    if (st != HS_OK) {
        hs_fail_context(err, "cost-centre stack 0x%" PRIx64, ccs_ptr);
        return unreadable_key(h, st, ccs_ptr, buf, cap);
    }
    const wire_cc *cc;
    st = heap_cc(h, ccs->cc, &cc, err);
    if (st != HS_OK) {
        hs_fail_context(err, "cost centre 0x%" PRIx64, ccs->cc);
        return unreadable_key(h, st, ccs_ptr, buf, cap);
    }
    snprintf(buf, cap, "%s:%s", cc->module ? cc->module : "", cc->label ? cc->label : "");
    return HS_OK;
}

/* Keys made from the info table (type, constructor, source, closure-name, thunk). */
static hs_status info_key(heap *h, query_census_by by, uint64_t info_ptr, char *buf,
                          size_t cap, hs_error *err) {
    const heap_info *info;
    hs_status st = heap_info_get(h, info_ptr, &info, err);
    if (st != HS_OK)
        return st;
    bool con = hs_closure_type_is_constructor(info->type);
    if (by == QUERY_CENSUS_BY_TYPE || (by == QUERY_CENSUS_BY_CONSTRUCTOR && !con)) {
        snprintf(buf, cap, "%s", hs_closure_type_name(info->type));
        return HS_OK;
    }
    if (by == QUERY_CENSUS_BY_CONSTRUCTOR && heap_info_is_srt(info)) {
        snprintf(buf, cap, "%s (static reference table)", info->con_name);
        return HS_OK;
    }
    if (by == QUERY_CENSUS_BY_CONSTRUCTOR) {
        snprintf(buf, cap, "%s:%s:%s", info->con_package ? info->con_package : "",
                 info->con_module ? info->con_module : "", info->con_name ? info->con_name : "");
        return HS_OK;
    }
    const wire_source_info *ipe;
    st = heap_info_source(h, info, &ipe, err);
    if (st != HS_OK)
        return st;
    bool has_name = ipe && ipe->name && *ipe->name;
    char where[512];
    heap_ipe_location(ipe, where, sizeof where);
    switch (by) {
    case QUERY_CENSUS_BY_SOURCE:
        snprintf(buf, cap, "%s", where[0] ? where : "<no location>");
        break;
    case QUERY_CENSUS_BY_CLOSURE_NAME:
        snprintf(buf, cap, "%s", has_name ? ipe->name : "<no name>");
        break;
    default: /* thunk: without any location, one bucket per info table */
        if (where[0])
            snprintf(buf, cap, "%s", where);
        else
            snprintf(buf, cap, "<info 0x%" PRIx64 ">", info_ptr);
        break;
    }
    return HS_OK;
}

hs_status census_key_of_raw(heap *h, query_census_by by, uint64_t raw, char *buf, size_t cap,
                            hs_error *err) {
    switch (census_by_source(by)) {
    case CENSUS_SRC_ERA: snprintf(buf, cap, "%" PRIu64, raw); return HS_OK;
    case CENSUS_SRC_CCS: return cost_centre_key(h, raw, buf, cap, err);
    default: return info_key(h, by, raw, buf, cap, err);
    }
}

hs_status query_census_key(heap *h, query_census_by by, const heap_closure *c, char *buf,
                           size_t cap, bool *counted, hs_error *err) {
    if (cap)
        buf[0] = '\0';
    *counted = by != QUERY_CENSUS_BY_THUNK || query_census_is_thunk(c->type);
    if (!*counted)
        return HS_OK;
    return census_key_of_raw(h, by, census_raw(census_by_source(by), c), buf, cap, err);
}
