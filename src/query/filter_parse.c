/* Filter values as the TUI reads them (retainers-and-eras.md §4.1, §4.4). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter_internal.h"

bool query_parse_int(const char *text, int64_t *out) {
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    bool neg = *s == '-';
    if (neg)
        s++;
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex)
        s += 2;
    size_t n = strspn(s, hex ? "0123456789abcdefABCDEF" : "0123456789");
    if (n == 0)
        return false;
    const char *end = s + n;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, hex ? 16 : 10);
    if (errno || v > (unsigned long long)INT64_MAX + (neg ? 1u : 0u))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v; /* 0 - v wraps to INT64_MIN for 2^63 */
    return true;
}

bool query_parse_hex_address(const char *text, uint64_t *out) {
    if (strncmp(text, "0x", 2) != 0)
        return false;
    const char *d = text + 2;
    size_t n = strlen(d);
    if (n == 0 || n > 16 || strspn(d, "0123456789abcdefABCDEF") != n)
        return false;
    *out = strtoull(d, NULL, 16);
    return true;
}
