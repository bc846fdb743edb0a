/* Source locations: splitting an IPE position, and what to tell a person
 * whose debuggee has none. */
#include <stdio.h>
#include <string.h>

#include "heapscope/heap.h"

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
