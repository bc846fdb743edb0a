/* The word for a count: "1 step", "2 steps", "0 matches". */
#ifndef HEAPSCOPE_PLURAL_H
#define HEAPSCOPE_PLURAL_H

#include <stdint.h>

static inline const char *hs_plural(uint64_t n, const char *one, const char *many) {
    return n == 1 ? one : many;
}

#endif
