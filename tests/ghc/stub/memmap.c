/* Readable address ranges of this process, from /proc/self/maps, so that a
 * bad address in a request gets an error reply instead of a segfault. The
 * RTS reserves its whole heap range PROT_NONE and commits megablocks as it
 * needs them, so a heap-range address is not readable just because it is
 * in range. Re-read at every pause (the heap only grows while running). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stub.h"

typedef struct range {
    uintptr_t lo, hi;
} range;

static range *ranges;
static size_t n_ranges, cap_ranges;

static bool add_range(uintptr_t lo, uintptr_t hi) {
    if (n_ranges > 0 && ranges[n_ranges - 1].hi == lo) { /* merge neighbours */
        ranges[n_ranges - 1].hi = hi;
        return true;
    }
    if (n_ranges == cap_ranges) {
        size_t cap = cap_ranges ? cap_ranges * 2 : 256;
        range *r = realloc(ranges, cap * sizeof *r);
        if (!r)
            return false;
        ranges = r;
        cap_ranges = cap;
    }
    ranges[n_ranges++] = (range){lo, hi};
    return true;
}

bool memmap_refresh(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    n_ranges = 0;
    char line[512];
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
            continue;
        /* [vvar] pages can fault on read even though they say r */
        if (perms[0] != 'r' || strstr(line, "[vvar"))
            continue;
        ok = add_range(lo, hi); /* maps lists ranges in address order */
    }
    fclose(f);
    if (!ok)
        n_ranges = 0;
    return ok;
}

static const range *find(uintptr_t addr) {
    size_t lo = 0, hi = n_ranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranges[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_ranges && ranges[lo].lo <= addr ? &ranges[lo] : NULL;
}

size_t mem_readable_span(uintptr_t addr) {
    const range *r = find(addr);
    return r ? r->hi - addr : 0;
}

bool mem_readable(uintptr_t addr, size_t len) {
    if (len == 0)
        return true;
    return mem_readable_span(addr) >= len;
}
