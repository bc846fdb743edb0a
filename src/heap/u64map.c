#include "heapscope/u64map.h"

#include <stdlib.h>

uint64_t *u64map_find(const u64map *m, uint64_t key) {
    if (m->cap == 0 || key == 0)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = u64map_hash(key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == key)
            return &m->values[i];
        if (m->keys[i] == 0)
            return NULL;
    }
}

static bool grow(u64map *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = calloc(cap, sizeof *keys), *values = malloc(cap * sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return false;
    }
    for (size_t j = 0; j < m->cap; j++) {
        if (!m->keys[j])
            continue;
        size_t i = u64map_hash(m->keys[j]) & (cap - 1);
        while (keys[i])
            i = (i + 1) & (cap - 1);
        keys[i] = m->keys[j];
        values[i] = m->values[j];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    return true;
}

bool u64map_put(u64map *m, uint64_t key, uint64_t value) {
    uint64_t *v = u64map_find(m, key);
    if (v) {
        *v = value;
        return true;
    }
    if ((m->count + 1) * 4 > m->cap * 3 && !grow(m)) /* load factor <= 3/4 */
        return false;
    size_t mask = m->cap - 1, i = u64map_hash(key) & mask;
    while (m->keys[i])
        i = (i + 1) & mask;
    m->keys[i] = key;
    m->values[i] = value;
    m->count++;
    return true;
}

void u64map_free(u64map *m) {
    free(m->keys);
    free(m->values);
    *m = (u64map){0};
}
