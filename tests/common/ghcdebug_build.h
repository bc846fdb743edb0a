/* Builds ghc-debug snapshot files byte by byte for tests (format: the
 * comment at the top of src/store/ghcdebug_file.c). */
#ifndef TESTS_GHCDEBUG_BUILD_H
#define TESTS_GHCDEBUG_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct gdb {
    uint8_t *b;
    size_t len, cap;
    uint64_t entries;
} gdb;

/* Starts a file: u32 format version, then an entry count that gdb_finish
 * fills in. */
void gdb_init(gdb *g, uint32_t version);
/* Writes the entry count; the bytes are g->b[0..g->len). */
void gdb_finish(gdb *g);
void gdb_free(gdb *g);

void gdb_bytes(gdb *g, const void *p, size_t n);
void gdb_u8(gdb *g, uint8_t v);
void gdb_be16(gdb *g, uint16_t v);
void gdb_be32(gdb *g, uint32_t v);
void gdb_be64(gdb *g, uint64_t v);
void gdb_le64(gdb *g, uint64_t v);
/* A Data.Binary String of bytes (each byte one Char, UTF-8 encoded). */
void gdb_string(gdb *g, const char *s);

/* A request as putRequest writes it; counts one entry. k1 = the address,
 * k2 = the STACK_BITMAP offset or FUN_BITMAP count. */
void gdb_request(gdb *g, uint32_t cmd, uint64_t k1, uint32_t k2);

/* Common whole entries. */
void gdb_version(gdb *g, uint32_t major, uint32_t patch, uint8_t prof, uint8_t tntc);
void gdb_ptr_list(gdb *g, uint32_t cmd, const uint64_t *ptrs, size_t n);
void gdb_sized(gdb *g, uint32_t cmd, uint64_t key, uint32_t k2, const void *p, uint32_t n);
void gdb_block(gdb *g, uint16_t flags, uint64_t start, const void *data, uint32_t n);

/* A small file with one entry of every kind (its values are listed in
 * ghcdebug_build.c), for unit tests and fuzz seeds. */
void gdb_sample(gdb *g);

#endif
