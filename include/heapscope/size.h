/* Byte sizes as people write and read them: "512M", "2G", "1.5 GiB". */
#ifndef HEAPSCOPE_SIZE_H
#define HEAPSCOPE_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A whole number of bytes, optionally followed by K, M, G or T (powers of
 * 1024, either case, optionally followed by "iB" or "B"): "1048576",
 * "512M", "2GiB", "64k". False when malformed or beyond 2^64 - 1. */
bool hs_size_parse(const char *text, uint64_t *out);
/* "4096 bytes", "256 MiB", "1.5 GiB": exact below 1 KiB, else one decimal
 * at most in the largest unit that keeps the number >= 1. */
void hs_size_format(uint64_t bytes, char *buf, size_t cap);

#endif
