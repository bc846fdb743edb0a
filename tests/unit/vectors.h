/* Loader for tests/unit/vectors.json: a JSON object whose members are
 * strings or objects of strings (the hex test vectors of wire-protocol.md
 * §12). A small purpose-built parser; no JSON dependency. */
#ifndef HEAPSCOPE_TEST_VECTORS_H
#define HEAPSCOPE_TEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vector_entry {
    char *section; /* "requests", "responses", ...; "" for top-level strings */
    char *key;
    char *value;
} vector_entry;

typedef struct vector_set {
    vector_entry *items;
    size_t count;
} vector_set;

/* Parses the file; returns 0 on success, -1 with a message on stderr. */
int vectors_load(const char *path, vector_set *out);
void vectors_free(vector_set *v);
/* The value of section/key, or NULL. */
const char *vectors_get(const vector_set *v, const char *section, const char *key);

/* Decodes a hex string (no separators) into a malloc'd buffer; returns its
 * length, or (size_t)-1 if the text is not hex. */
size_t hex_decode(const char *hex, uint8_t **out);

#endif
