/* Open-addressing hash map from non-zero u64 keys (addresses) to u64
 * values: addresses to indexes or pointers (heap caches, visited sets). */
#ifndef HEAPSCOPE_U64MAP_H
#define HEAPSCOPE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct u64map {
    uint64_t *keys; /* 0 = empty slot */
    uint64_t *values;
    size_t cap;     /* power of two */
    size_t count;
} u64map;

/* Returns a pointer to the value of key, or NULL. */
uint64_t *u64map_find(const u64map *m, uint64_t key);
/* Inserts or overwrites; false when out of memory. key must not be 0. */
bool u64map_put(u64map *m, uint64_t key, uint64_t value);
void u64map_free(u64map *m);

static inline uint64_t u64map_hash(uint64_t k) {
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return k;
}

#endif
