/* Private parts of the cache module, shared by its files. */
#ifndef HEAPSCOPE_CACHE_INTERNAL_H
#define HEAPSCOPE_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/cache.h"

/* A 128-bit content hash (elf_id.c). */
typedef struct cache_hash {
    uint64_t a, b, total;
} cache_hash;

void cache_hash_init(cache_hash *h);
/* Hashes 8-byte words: only the last call may pass a length that is not a
 * multiple of 8 (a short word is zero-padded). */
void cache_hash_add(cache_hash *h, const uint8_t *p, size_t len);
void cache_hash_hex(const cache_hash *h, char hex[33]);
/* The hash of every byte of fd (regular files up to 4 GiB). */
bool cache_hash_file(int fd, char hex[33]);

#endif
