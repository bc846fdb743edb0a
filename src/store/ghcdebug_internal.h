/* Internals of the ghc-debug snapshot reader (ghcdebug_file.c parses and
 * indexes, ghcdebug_answers.c decodes answers). */
#ifndef HEAPSCOPE_GHCDEBUG_INTERNAL_H
#define HEAPSCOPE_GHCDEBUG_INTERNAL_H

#include "heapscope/ghcdebug_file.h"

#define GD_CMD_LIMIT 22 /* command ids are below this */

/* One recorded request and where its answer lies in the file. k1 is the
 * request's address (untagged, as ghc-debug's decoder leaves it), k2 the
 * STACK_BITMAP offset or FUN_BITMAP count; both 0 when unused. */
typedef struct gd_entry {
    uint64_t k1;
    uint32_t k2;
    uint8_t cmd;
    size_t off;
    size_t len;
} gd_entry;

struct ghcdebug_file {
    uint8_t *bytes;
    size_t len;
    gd_entry *entries; /* sorted by (cmd, k1, k2), no PAUSE/RESUME/POLL */
    size_t n_entries;
    size_t n_total;    /* every entry of the file */
    size_t counts[GD_CMD_LIMIT];
    wire_version version;
    wire_ptr_list roots;
    wire_ptr_list saved;
    bool has_roots, has_saved;
    ghcdebug_block *blocks;
    size_t n_blocks;
};

/* A bounded cursor over the file's bytes. */
typedef struct gd_reader {
    const uint8_t *p;
    size_t left;
} gd_reader;

static inline bool gd_has(const gd_reader *r, size_t n) { return r->left >= n; }
static inline const uint8_t *gd_take(gd_reader *r, size_t n) {
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

/* The entry of (cmd, k1, k2), or NULL. */
const gd_entry *gd_find(const ghcdebug_file *f, uint8_t cmd, uint64_t k1, uint32_t k2);

/* Steps over one answer of cmd, checking everything ghc-debug's reader
 * would and what only a corrupt file could break (ghc-debug writes bitmap
 * entries and booleans as 0 / 1, constructor descriptions one byte per
 * character). */
hs_status gd_scan_answer(uint8_t cmd, gd_reader *r, hs_error *err);

/* Decoders of a scanned answer (exact extent). */
hs_status gd_decode_ptr_list(const uint8_t *p, size_t len, wire_ptr_list *out, hs_error *err);
hs_status gd_decode_con_desc(const uint8_t *p, size_t len, wire_con_desc *out, hs_error *err);

#endif
