#include "heapscope/grow.h"

#include <stdint.h>
#include <stdlib.h>

bool hs_grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem)
        return false;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}
