/* An in-memory heap_source for unit tests of the heap module: block groups
 * and static closure images the test fills byte by byte, info tables built
 * from (type, layout, srt), constructor descriptions, SRT answers and
 * pointer maps. Bitmaps are answered from the stored maps by the keys the
 * contract gives (frame info table, function info table), what it lacks is
 * HEAP_UNAVAILABLE, and every request is counted so tests can check what
 * was (not) asked. Optionally lazy: block groups come without bytes and
 * are loaded when the heap asks. */
#ifndef HEAPSCOPE_TEST_FAKE_SOURCE_H
#define HEAPSCOPE_TEST_FAKE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/heap.h"

typedef struct fake_source fake_source;

typedef struct fake_counts {
    unsigned closures, info_tables, srts, stack_bitmap, fun_bitmap, con_desc, source_info,
        load_block, ccs, cc;
} fake_counts;

/* A debuggee of GHC `major` (e.g. 910) with the given patch and VERSION
 * profiling mode (0 = non-profiled: H = 8, S = 16; else H = 24, S = 32). */
fake_source *fake_new(uint32_t major, uint32_t patch, uint8_t prof_mode);
void fake_free(fake_source *f);
heap_source fake_heap_source(fake_source *f);
/* Its operations, for sources that wrap it and change a few. */
extern const heap_source_ops fake_source_ops;
/* Lazy: ALL blocks arrive without bytes, each group loaded on demand. */
void fake_set_lazy(fake_source *f, bool lazy);
fake_counts *fake_counts_of(fake_source *f);

/* Memory, zero-filled. A block group is sent by ALL_BLOCKS; a static
 * region is served by CLOSURES (from the asked address to its end). Add
 * both before heap_open. */
void fake_add_block(fake_source *f, uint64_t start, uint32_t len);
void fake_add_static(fake_source *f, uint64_t addr, uint32_t len);
/* Lists a block group again, as the RTS lists an empty pinned group once
 * per capability: a new group of len bytes at start holding a copy of the
 * memory there now. Writes (fake_w*) go to the first group at an address,
 * so writing after the copy makes the two differ. */
void fake_add_block_copy(fake_source *f, uint64_t start, uint32_t len);
void fake_w8(fake_source *f, uint64_t addr, uint8_t v);
void fake_w16(fake_source *f, uint64_t addr, uint16_t v);
void fake_w32(fake_source *f, uint64_t addr, uint32_t v);
void fake_w64(fake_source *f, uint64_t addr, uint64_t v);
void fake_wbytes(fake_source *f, uint64_t addr, const void *bytes, size_t n);
uint64_t fake_r64(fake_source *f, uint64_t addr);

/* Info tables. */
void fake_info(fake_source *f, uint64_t ptr, uint32_t type, uint32_t ptrs, uint32_t nptrs);
void fake_info_layout(fake_source *f, uint64_t ptr, uint32_t type, uint64_t layout);
/* A constructor: info table plus CON_DESC text, e.g. "ghc-prim:GHC.Types.I#". */
void fake_con(fake_source *f, uint64_t ptr, uint32_t type, uint32_t ptrs, uint32_t nptrs,
              const char *desc);
/* The SRT answer for an info pointer (also gives it a non-zero srt field). */
void fake_srt(fake_source *f, uint64_t info, uint64_t srt);
/* Pointer maps as strings of 'P' (pointer) and 'N' (non-pointer): the
 * large bitmap of a RET_BIG info table, and the argument bitmap of a
 * function info table (entries past its end are pointers, as in the RTS). */
void fake_ret_big(fake_source *f, uint64_t info, const char *map);
void fake_fun_map(fake_source *f, uint64_t fun_info, const char *map);

/* A cost-centre stack at ccs whose cost centre (at cc, id id) is label in
 * module at srcloc; answered by CCS and CC, everything else unavailable. */
void fake_cost_centre(fake_source *f, uint64_t ccs, uint64_t cc, int64_t id, const char *label,
                      const char *module, const char *srcloc);

/* The SOURCE_INFO answer for an info pointer (others have none). */
void fake_source_location(fake_source *f, uint64_t info, const char *label, const char *module,
                          const char *position);

/* Small-bitmap layout word for frames (heap-layout §8.3) from a map. */
uint64_t fake_small_layout(const char *map);

#endif
