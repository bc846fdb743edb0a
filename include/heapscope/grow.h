/* Growing arrays by doubling (shared by the modules' list builders). */
#ifndef HEAPSCOPE_GROW_H
#define HEAPSCOPE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *p hold at least `need` elements of `elem` bytes, doubling *cap
 * (from 64); false when out of memory or the size overflows, with *p and
 * *cap unchanged. */
bool hs_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
