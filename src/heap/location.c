/* Source locations and names of info tables for a person: splitting an
 * IPE position, the best name known, and what to tell a person whose
 * debuggee has none. */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heap_internal.h"

/* At most this many SOURCE_INFO requests to find out whether a program has
 * IPE at all: a program built with it has entries for a good share of its
 * tables, one without it needs every table asked (once: the answers are
 * kept). */
#define IPE_PROBE_MAX 4096

/* -finfo-table-map came with GHC 9.2: advice to build with it on an older
 * GHC could not be followed. */
#define IPE_FIRST_GHC 902

bool heap_version_has_provenance(const wire_version *v) {
    return v->major == 0 || v->major >= IPE_FIRST_GHC; /* 0: not known, assume it can */
}

void heap_provenance_advice(const wire_version *v, char *buf, size_t cap) {
    if (heap_version_has_provenance(v))
        snprintf(buf, cap, "build the program with -finfo-table-map");
    else
        snprintf(buf, cap, "GHC %u.%u has no info-table provenance (it came with GHC 9.2)",
                 (unsigned)(v->major / 100), (unsigned)(v->major % 100));
}

/* The span starts after the first ':' that is followed by a digit or '('
 * ("12:5-20", "(781,9)-(793,67)"): file names may hold colons themselves. */
void heap_position_split(const char *position, char *file, size_t file_cap, char *span,
                         size_t span_cap) {
    const char *cut = NULL;
    for (const char *p = position; (p = strchr(p, ':')) != NULL; p++) {
        if ((p[1] >= '0' && p[1] <= '9') || p[1] == '(') {
            cut = p;
            break;
        }
    }
    size_t n = cut ? (size_t)(cut - position) : strlen(position);
    if (file_cap) {
        size_t k = n < file_cap - 1 ? n : file_cap - 1;
        memcpy(file, position, k);
        file[k] = '\0';
    }
    if (span_cap) {
        const char *s = cut ? cut + 1 : "";
        size_t k = strlen(s) < span_cap - 1 ? strlen(s) : span_cap - 1;
        memcpy(span, s, k);
        span[k] = '\0';
    }
}

static bool nonempty(const char *s) { return s && *s; }

bool heap_con_is_srt(const char *package, const char *module, const char *name) {
    if (!name || strncmp(name, "SRT_", 4) != 0 || nonempty(package) || nonempty(module))
        return false;
    const char *n = name + 4;
    for (; *n; n++)
        if (*n < '0' || *n > '9')
            return false;
    return n > name + 4;
}

bool heap_info_is_srt(const heap_info *info) {
    return hs_closure_type_is_constructor(info->type) &&
           heap_con_is_srt(info->con_package, info->con_module, info->con_name);
}

static void short_name(const wire_source_info *ipe, char *buf, size_t cap) {
    if (cap)
        buf[0] = '\0';
    if (!ipe || !nonempty(ipe->name))
        return;
    size_t n = strlen(ipe->name);
    if (n > 5 && strcmp(ipe->name + n - 5, "_info") == 0)
        n -= 5;
    snprintf(buf, cap, "%.*s", (int)n, ipe->name);
}

bool heap_ipe_location(const wire_source_info *ipe, char *buf, size_t cap) {
    if (cap)
        buf[0] = '\0';
    if (!ipe)
        return false;
    /* the stub joins file and span with ':': ":" when both are empty */
    char file[8];
    heap_position_split(ipe->position ? ipe->position : "", file, sizeof file, NULL, 0);
    if (file[0] && strcmp(file, ":") != 0) {
        snprintf(buf, cap, "%s", ipe->position);
        return true;
    }
    char name[256];
    short_name(ipe, name, sizeof name);
    const char *what = nonempty(ipe->label) ? ipe->label : name;
    if (nonempty(ipe->module) && nonempty(what))
        snprintf(buf, cap, "%s (%s)", ipe->module, what);
    else if (nonempty(ipe->module) || nonempty(what))
        snprintf(buf, cap, "%s", nonempty(what) ? what : ipe->module);
    return false;
}

void heap_ipe_short_name(const heap_info *info, char *buf, size_t cap) {
    short_name(info->ipe_fetched ? info->ipe : NULL, buf, cap);
}

hs_status heap_info_display_name(heap *h, const heap_info *info, char *buf, size_t cap,
                                 hs_error *err) {
    if (cap)
        buf[0] = '\0';
    if (heap_info_is_srt(info)) {
        snprintf(buf, cap, "%s (static reference table)", info->con_name);
        return HS_OK;
    }
    if (hs_closure_type_is_constructor(info->type) && nonempty(info->con_name) &&
        strcmp(info->con_name, "?") != 0) {
        snprintf(buf, cap, "%s:%s:%s", info->con_package ? info->con_package : "",
                 info->con_module ? info->con_module : "", info->con_name);
        return HS_OK;
    }
    const wire_source_info *ipe;
    hs_status st = heap_info_source(h, info, &ipe, err);
    if (st != HS_OK)
        return st;
    short_name(ipe, buf, cap);
    if (buf[0])
        return HS_OK;
    if (ipe && nonempty(ipe->label))
        snprintf(buf, cap, "%s%s%s", nonempty(ipe->module) ? ipe->module : "",
                 nonempty(ipe->module) ? "." : "", ipe->label);
    else
        snprintf(buf, cap, "<info 0x%" PRIx64 ">", info->ptr);
    return HS_OK;
}

/* Asks SOURCE_INFO of one table, within the budget; *found when it has an
 * entry. False when the budget is spent. */
static bool probe(heap *h, const heap_info *info, size_t *asked, bool *found, hs_status *st,
                  hs_error *err) {
    if (!info->ipe_fetched) {
        if (*asked == IPE_PROBE_MAX)
            return false;
        ++*asked;
        const wire_source_info *ipe;
        *st = heap_info_source(h, info, &ipe, err);
    }
    *found = *st == HS_OK && info->ipe;
    return true;
}

/* The tables fetched so far: what the caller looked at. */
static hs_status probe_cached(heap *h, size_t *asked, bool *found, hs_error *err) {
    hs_status st = HS_OK;
    for (size_t i = 0; i < h->infos.cap && st == HS_OK && !*found; i++) {
        if (!h->infos.keys[i])
            continue;
        const info_entry *e = (const info_entry *)(uintptr_t)h->infos.values[i];
        if (!e->failed && !probe(h, &e->pub, asked, found, &st, err))
            break;
    }
    return st;
}

/* The closures reachable from the roots, breadth first, until a table with
 * an entry (the program's own closures hang off its threads' stacks and its
 * stable pointers), all of them, or the budget of closures or requests is
 * spent (*complete false). Unreadable closures are passed over. */
#define IPE_WALK_MAX 200000

/* The walk's queue of addresses still to decode, each queued once. */
typedef struct ipe_queue {
    uint64_t *items;
    size_t head, n, cap;
    u64map seen;
} ipe_queue;

static hs_status enqueue(ipe_queue *q, uint64_t addr, hs_error *err) {
    uint64_t a = wire_untag(addr);
    if (!a || u64map_find(&q->seen, a))
        return HS_OK;
    if (q->n == q->cap) {
        size_t ncap = q->cap ? 2 * q->cap : 1024;
        uint64_t *items = realloc(q->items, ncap * sizeof *items);
        if (!items)
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        q->items = items;
        q->cap = ncap;
    }
    if (!u64map_put(&q->seen, a, 1))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    q->items[q->n++] = a;
    return HS_OK;
}

static hs_status walk(heap *h, size_t *asked, bool *found, bool *complete, hs_error *err) {
    const wire_ptr_list *starts[2] = {&h->roots, &h->saved};
    ipe_queue q = {0};
    hs_status st = HS_OK;
    *complete = false;
    for (int k = 0; k < 2 && st == HS_OK; k++)
        for (size_t i = 0; i < starts[k]->count && st == HS_OK; i++)
            st = enqueue(&q, starts[k]->items[i], err);
    bool budget = true;
    while (st == HS_OK && !*found && budget && q.head < q.n) {
        if (q.head == IPE_WALK_MAX) {
            budget = false;
            break;
        }
        heap_closure c = {0};
        hs_error skip = {0};
        if (heap_decode(h, q.items[q.head++], &c, &skip) != HS_OK) {
            heap_closure_free(&c);
            continue;
        }
        if (c.info)
            budget = probe(h, c.info, asked, found, &st, err);
        for (size_t f = 0; f < c.n_frames && budget && st == HS_OK && !*found; f++)
            if (c.frames[f].info)
                budget = probe(h, c.frames[f].info, asked, found, &st, err);
        for (size_t e = 0; e < c.n_edges && st == HS_OK; e++)
            st = enqueue(&q, c.edges[e].addr, err);
        heap_closure_free(&c);
    }
    *complete = st == HS_OK && budget && q.head == q.n;
    free(q.items);
    u64map_free(&q.seen);
    return st;
}

hs_status heap_program_ipe(heap *h, heap_ipe_presence *out, hs_error *err) {
    *out = HEAP_IPE_UNKNOWN;
    if (!heap_version_has_provenance(&h->version)) { /* its GHC has none to ask for */
        *out = HEAP_IPE_NONE;
        return HS_OK;
    }
    if (!h->ipe_seen && h->ipe_here) { /* the walk is not made twice a pause */
        *out = (heap_ipe_presence)(h->ipe_here - 1);
        return HS_OK;
    }
    size_t asked = 0;
    bool found = h->ipe_seen, complete = false;
    hs_status st = found ? HS_OK : probe_cached(h, &asked, &found, err);
    if (st == HS_OK && !found)
        st = walk(h, &asked, &found, &complete, err);
    if (st != HS_OK)
        return st;
    h->ipe_seen = found;
    *out = found ? HEAP_IPE_SOME : complete ? HEAP_IPE_NONE : HEAP_IPE_UNKNOWN;
    h->ipe_here = (uint8_t)(*out + 1);
    return HS_OK;
}

hs_status heap_location_advice(heap *h, char *buf, size_t cap, hs_error *err) {
    if (cap)
        buf[0] = '\0';
    heap_ipe_presence p;
    hs_status st = heap_program_ipe(h, &p, err);
    if (st != HS_OK)
        return st;
    if (p == HEAP_IPE_NONE)
        heap_provenance_advice(heap_version(h), buf, cap);
    else if (p == HEAP_IPE_SOME)
        snprintf(buf, cap, "this info table (of the RTS or a library) was built without "
                           "-finfo-table-map");
    return HS_OK;
}

/* User eras came with GHC 9.10. */
#define ERAS_FIRST_GHC 910

hs_status heap_eras_needed(const wire_version *v, const char *what, hs_error *err) {
    if (v->prof_mode == WIRE_PROF_ERA)
        return HS_OK;
    char advice[120];
    heap_era_advice(v, advice, sizeof advice);
    return hs_fail(err, HS_ERR_USAGE,
                   "%s needs a debuggee with era profiling; this one has profiling mode '%s' (%s)",
                   what, v->prof_mode == WIRE_PROF_NONE ? "none" : "not era", advice);
}

void heap_era_advice(const wire_version *v, char *buf, size_t cap) {
    if (v->prof_mode == WIRE_PROF_ERA)
        snprintf(buf, cap, "%s", "");
    else if (v->major != 0 && v->major < ERAS_FIRST_GHC)
        snprintf(buf, cap, "GHC %u.%u has none: it came with GHC 9.10",
                 (unsigned)(v->major / 100), (unsigned)(v->major % 100));
    else if (v->prof_mode == WIRE_PROF_NONE)
        snprintf(buf, cap, "build the program with -prof and run it with +RTS -he");
    else
        snprintf(buf, cap, "run the program with +RTS -he");
}
