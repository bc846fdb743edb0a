#include "heapscope/size.h"

#include <stdio.h>
#include <strings.h>

static const char units[] = "KMGT";

bool hs_size_parse(const char *text, uint64_t *out) {
    const char *p = text;
    uint64_t v = 0;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p) {
        unsigned shift = 0;
        for (unsigned i = 0; units[i]; i++)
            if ((*p | 0x20) == (units[i] | 0x20))
                shift = 10 * (i + 1);
        if (!shift || (strcasecmp(p + 1, "") != 0 && strcasecmp(p + 1, "iB") != 0 &&
                       strcasecmp(p + 1, "B") != 0))
            return false;
        if (v > UINT64_MAX >> shift)
            return false;
        v <<= shift;
    }
    *out = v;
    return true;
}

void hs_size_format(uint64_t bytes, char *buf, size_t cap) {
    if (bytes < 1024) {
        snprintf(buf, cap, "%llu byte%s", (unsigned long long)bytes, bytes == 1 ? "" : "s");
        return;
    }
    unsigned i = 0;
    while (units[i + 1] && bytes >> (10 * (i + 2)) > 0)
        i++;
    uint64_t unit = UINT64_C(1) << (10 * (i + 1));
    /* tenths, rounded to nearest */
    uint64_t tenths = bytes / unit * 10 + ((bytes % unit) * 10 + unit / 2) / unit;
    if (tenths % 10 == 0)
        snprintf(buf, cap, "%llu %ciB", (unsigned long long)(tenths / 10), units[i]);
    else
        snprintf(buf, cap, "%llu.%llu %ciB", (unsigned long long)(tenths / 10),
                 (unsigned long long)(tenths % 10), units[i]);
}
