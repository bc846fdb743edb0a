/* A heap_source answering from a fuzz input, and the walk over a heap that
 * the heap targets share.
 *
 * Input: two header bytes, then records until the input ends:
 *   byte 0      VERSION: profiling mode (mod 6)
 *   byte 1      bits 0-2 pick the GHC version, bit 3 clears tables-next-to-code
 *   records     u8 kind, u64 key (little-endian), u16 len, len bytes (cut
 *               short by the end of the input)
 * Record kinds (fuzz_record_kind) say what the key and bytes answer. What
 * the records do not answer is HEAP_UNAVAILABLE, as from a debuggee or a
 * snapshot without it. Answers keep what every real source guarantees (a
 * bitmap entry is 0 or 1, one blob per asked key) and nothing more. */
#ifndef HEAPSCOPE_FUZZ_SOURCE_H
#define HEAPSCOPE_FUZZ_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"

enum fuzz_record_kind {
    FUZZ_BLOCK,        /* key: start; bytes: u16 flags, then the group's bytes */
    FUZZ_STATIC,       /* key: address; bytes: the image CLOSURES answers */
    FUZZ_INFO,         /* key: info pointer; bytes: the raw table */
    FUZZ_SRT,          /* key: info pointer; bytes: u64 SRT closure */
    FUZZ_CON_DESC,     /* key: info pointer; bytes: the description text */
    FUZZ_SOURCE_INFO,  /* key: info pointer; bytes: a SOURCE_INFO answer body */
    FUZZ_FRAME_BITMAP, /* key: frame info pointer; bytes: entries (low bit) */
    FUZZ_FUN_BITMAP,   /* key: function info pointer; bytes: entries (low bit) */
    FUZZ_ROOT,         /* key: a GC root */
    FUZZ_SAVED,        /* key: a saved object */
    FUZZ_CCS,          /* key: address; bytes: a CCS answer body */
    FUZZ_CC,           /* key: address; bytes: a CC answer body */
    FUZZ_INDEX,        /* key: address; bytes: an INDEX_TABLE answer body */
    FUZZ_CCS_MAIN,     /* key: CCS_MAIN's answer */
    FUZZ_RECORD_KINDS
};

#define FUZZ_HEADER_BYTES 2u
#define FUZZ_RECORD_HEAD 11u /* kind, key, len */

typedef struct fuzz_record {
    uint8_t kind;
    uint64_t key;
    const uint8_t *bytes;
    size_t len;
} fuzz_record;

typedef struct fuzz_source {
    wire_version version;
    fuzz_record *records;
    size_t n_records, cap;
} fuzz_source;

/* Reads the header and the records (pointing into data, which must
 * outlive the source); false on out of memory. */
bool fuzz_source_init(fuzz_source *f, const uint8_t *data, size_t size);
void fuzz_source_free(fuzz_source *f);
/* Appends a record after those of the input (which win over it: the first
 * record of a kind and key answers); bytes must outlive the source. */
bool fuzz_source_add(fuzz_source *f, uint8_t kind, uint64_t key, const uint8_t *bytes,
                     size_t len);
heap_source fuzz_source_heap(fuzz_source *f);

/* What a person does with a heap, bounded for a fuzz run: opens it,
 * traverses from the roots and saved objects labelling every closure and
 * edge, decodes the first words of every block as typed addresses, reads
 * byte arrays and profiling headers, then refreshes and walks again. */
void fuzz_heap_walk(heap_source src);

/* A scratch file for targets that hand a path to SQLite: created once per
 * process on tmpfs (/dev/shm, else $TMPDIR or /tmp), removed at exit; the
 * fd is open read-write. -1 when it cannot be made. */
int fuzz_scratch_file(void);
const char *fuzz_scratch_path(void);

#endif
