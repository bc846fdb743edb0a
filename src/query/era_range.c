/* Era ranges as the TUI reads and shows them (retainers-and-eras.md §4.5):
 * `N`, `A-B`, `A-`, `-B` and `-`, inclusive, eras unsigned 64-bit. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/query.h"

/* One end: a number with optional spaces around it, or nothing at all for
 * an open end (spaces alone are not nothing: §4.5). Returns false when
 * malformed; *open says the end was empty. */
static bool parse_end(const char *s, size_t n, uint64_t *out, bool *open) {
    *open = n == 0;
    if (n == 0)
        return true;
    char buf[64];
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n >= sizeof buf || !isdigit((unsigned char)*s))
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    bool hex = n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
    const char *digits = hex ? buf + 2 : buf;
    if (strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(digits))
        return false;
    errno = 0;
    *out = strtoull(digits, NULL, hex ? 16 : 10);
    return errno == 0;
}

hs_status query_era_range_parse(const char *text, query_era_range *out, hs_error *err) {
    const char *dash = strchr(text, '-');
    static const char syntax[] = "an era range is N, A-B, A- or -B (eras are whole numbers "
                                 "from 0 to 18446744073709551615)";
    if (dash && strchr(dash + 1, '-'))
        return hs_fail(err, HS_ERR_USAGE, "'%s' is not an era range: more than one '-'; %s",
                       text, syntax);
    uint64_t lo = 0, hi = UINT64_MAX;
    bool open_lo, open_hi;
    if (!dash) {
        if (!parse_end(text, strlen(text), &lo, &open_lo) || open_lo)
            return hs_fail(err, HS_ERR_USAGE, "'%s' is not an era range: %s", text, syntax);
        hi = lo;
    } else {
        if (!parse_end(text, (size_t)(dash - text), &lo, &open_lo))
            return hs_fail(err, HS_ERR_USAGE,
                           "'%s' is not an era range: bad start before '-'; %s", text, syntax);
        if (!parse_end(dash + 1, strlen(dash + 1), &hi, &open_hi))
            return hs_fail(err, HS_ERR_USAGE, "'%s' is not an era range: bad end after '-'; %s",
                           text, syntax);
        if (open_lo)
            lo = 0;
        if (open_hi)
            hi = UINT64_MAX;
    }
    if (lo > hi) /* would match nothing: surely a typo */
        return hs_fail(err, HS_ERR_USAGE,
                       "'%s' is not an era range: it starts at era %" PRIu64
                       " after it ends at era %" PRIu64,
                       text, lo, hi);
    *out = (query_era_range){lo, hi};
    return HS_OK;
}

void query_era_range_format(query_era_range r, char *buf, size_t cap) {
    if (r.lo == r.hi)
        snprintf(buf, cap, "%" PRIu64, r.lo);
    else if (r.hi == UINT64_MAX)
        snprintf(buf, cap, "[%" PRIu64 ",\xe2\x88\x9e)", r.lo); /* U+221E */
    else
        snprintf(buf, cap, "[%" PRIu64 ",%" PRIu64 "]", r.lo, r.hi);
}
