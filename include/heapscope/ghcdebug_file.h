/* ghc-debug's own snapshot files: what its TUI's "Take snapshot" (Ctrl-X)
 * and GHC.Debug.Snapshot.snapshot write, read-only. The format is the
 * client's request cache: every request it made during a pause, in wire
 * encoding, each followed by its answer in the cache's own encoding. The
 * byte-level description, with references into ghc-debug's source, is at
 * the top of src/store/ghcdebug_file.c.
 *
 * The whole file is read and checked when it is opened: every length is
 * checked against what is left of the file and a cap, every answer is
 * decoded once, and a file that is truncated, corrupted, of an unknown
 * format version or from a ghc-debug older than 0.6 is refused with a
 * one-line message. Lookups afterwards only fail with HS_ERR_NOT_FOUND:
 * ghc-debug did not record that request. */
#ifndef HEAPSCOPE_GHCDEBUG_FILE_H
#define HEAPSCOPE_GHCDEBUG_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"
#include "heapscope/status.h"
#include "heapscope/wire.h"

/* The only format version ghc-debug has written (snapshotVersion). */
#define GHCDEBUG_FORMAT_VERSION 0u
/* Files larger than this are refused before anything is read. */
#define GHCDEBUG_FILE_MAX_BYTES (UINT64_C(1) << 38) /* 256 GiB */

typedef struct ghcdebug_file ghcdebug_file;

/* One block group: ALL_BLOCKS' groups as recorded (a group may be there
 * twice; heap_open keeps the first copy and refuses other overlaps) plus
 * those of BLOCK entries that overlap none of them, sorted by start, then
 * file order; data points into the file's bytes. */
typedef struct ghcdebug_block {
    uint64_t start;
    uint32_t len;
    uint16_t flags;
    const uint8_t *data;
} ghcdebug_block;

/* True when the first bytes of a file look like a ghc-debug snapshot of
 * any format version: a small u32 version, a plausible entry count and,
 * for version 0, a first request ghc-debug could have made. Used to tell
 * the kind of a target before opening it. */
bool ghcdebug_file_sniff(const uint8_t *head, size_t len);
/* ghcdebug_file_sniff on the first bytes of the file at path; false when
 * it cannot be read. */
bool ghcdebug_file_sniff_path(const char *path);

/* Reads and checks the whole file. */
hs_status ghcdebug_file_open(const char *path, ghcdebug_file **out, hs_error *err);
/* The same on bytes in memory (copied: the caller keeps its buffer). */
hs_status ghcdebug_file_parse(const uint8_t *bytes, size_t len, ghcdebug_file **out,
                              hs_error *err);
void ghcdebug_file_free(ghcdebug_file *f);

/* Entries in the file, and how many were answers to command cmd. */
size_t ghcdebug_file_entry_count(const ghcdebug_file *f);
size_t ghcdebug_file_count(const ghcdebug_file *f, uint32_t cmd);

/* A heap_source answering from the file (valid while it is open): what
 * ghc-debug did not record is HEAP_UNAVAILABLE. */
heap_source ghcdebug_file_source(ghcdebug_file *f);

/* ---- answers (HS_OK, or HS_ERR_NOT_FOUND when not recorded) ---------- */

/* Every file that opens has a VERSION entry. */
const wire_version *ghcdebug_file_version(const ghcdebug_file *f);
/* Untagged, in the order ghc-debug received them. The lists stay owned by
 * the file. */
hs_status ghcdebug_file_roots(const ghcdebug_file *f, const wire_ptr_list **out,
                              hs_error *err);
hs_status ghcdebug_file_saved_objects(const ghcdebug_file *f, const wire_ptr_list **out,
                                      hs_error *err);
const ghcdebug_block *ghcdebug_file_blocks(const ghcdebug_file *f, size_t *count);
/* The recorded image of the closure at addr (a CLOSURES entry). */
hs_status ghcdebug_file_closure(const ghcdebug_file *f, uint64_t addr, const uint8_t **bytes,
                                size_t *len, hs_error *err);
hs_status ghcdebug_file_info_table(const ghcdebug_file *f, uint64_t info,
                                   const uint8_t **bytes, size_t *len, hs_error *err);
/* *srt = 0 when the recorded answer is "no SRT". */
hs_status ghcdebug_file_srt(const ghcdebug_file *f, uint64_t info, uint64_t *srt,
                            hs_error *err);
/* Entries 0 / 1 (1 = pointer), pointing into the file. */
hs_status ghcdebug_file_stack_bitmap(const ghcdebug_file *f, uint64_t sp, uint32_t offset,
                                     const uint8_t **bits, size_t *n, hs_error *err);
hs_status ghcdebug_file_fun_bitmap(const ghcdebug_file *f, uint64_t fun, uint16_t n_args,
                                   const uint8_t **bits, size_t *n, hs_error *err);
/* The description as the stub sent it ("pkg:Module.Name") and its parts. */
hs_status ghcdebug_file_con_desc(const ghcdebug_file *f, uint64_t info, wire_con_desc *out,
                                 hs_error *err);
/* out->found is false when ghc-debug recorded "no source information". */
hs_status ghcdebug_file_source_info(const ghcdebug_file *f, uint64_t info,
                                    wire_source_info *out, hs_error *err);
hs_status ghcdebug_file_ccs(const ghcdebug_file *f, uint64_t ccs, wire_ccs *out,
                            hs_error *err);
hs_status ghcdebug_file_cc(const ghcdebug_file *f, uint64_t cc, wire_cc *out, hs_error *err);
hs_status ghcdebug_file_index_entry(const ghcdebug_file *f, uint64_t entry,
                                    wire_index_entry *out, hs_error *err);
hs_status ghcdebug_file_ccs_main(const ghcdebug_file *f, uint64_t *out, hs_error *err);

#endif
