/* Source locations and names of info tables for a person: splitting an
 * IPE position, the best name known, and what to tell a person whose
 * debuggee has none. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heap_internal.h"

/* At most this many SOURCE_INFO requests to find out whether a program has
 * IPE at all: a program built with it has entries for a good share of its
 * tables, one without it needs every table asked. */
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

bool heap_info_is_srt(const heap_info *info) {
    const char *n = info->con_name;
    if (!hs_closure_type_is_constructor(info->type) || !n || strncmp(n, "SRT_", 4) != 0 ||
        nonempty(info->con_package) || nonempty(info->con_module))
        return false;
    for (n += 4; *n; n++)
        if (*n < '0' || *n > '9')
            return false;
    return n > info->con_name + 4;
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
    const char *what = nonempty(ipe->label) ? ipe->label : ipe->name;
    if (nonempty(ipe->module) && nonempty(what))
        snprintf(buf, cap, "%s (%s)", ipe->module, what);
    else if (nonempty(ipe->module) || nonempty(what))
        snprintf(buf, cap, "%s", nonempty(what) ? what : ipe->module);
    return false;
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

hs_status heap_program_ipe(heap *h, heap_ipe_presence *out, hs_error *err) {
    if (h->ipe_seen) {
        *out = HEAP_IPE_SOME;
        return HS_OK;
    }
    size_t asked = 0;
    bool all_asked = true;
    for (size_t i = 0; i < h->infos.cap; i++) {
        if (!h->infos.keys[i])
            continue;
        const info_entry *e = (const info_entry *)(uintptr_t)h->infos.values[i];
        if (e->failed)
            continue;
        if (!e->pub.ipe_fetched) {
            if (asked == IPE_PROBE_MAX) {
                all_asked = false;
                continue;
            }
            asked++;
            const wire_source_info *ipe;
            hs_status st = heap_info_source(h, &e->pub, &ipe, err);
            if (st != HS_OK)
                return st;
        }
        if (e->pub.ipe) {
            h->ipe_seen = true;
            *out = HEAP_IPE_SOME;
            return HS_OK;
        }
    }
    *out = all_asked ? HEAP_IPE_NONE : HEAP_IPE_UNKNOWN;
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
