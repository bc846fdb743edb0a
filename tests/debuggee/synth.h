/* The synthetic debuggee: a fake GHC 9.10 x86_64 process (or 9.12, 9.14:
 * synth_options.ghc_version, doc/ghc-versions.md).
 *
 * The generator (synth_gen_*.c) lays out a heap byte for byte as the GHC
 * runtime does (../shared/spec/heap-layout.md): info tables in a "text"
 * region with the entry code right after each table (tables next to code),
 * static closures and SRTs in a "data" region, and heap closures in 4 KiB
 * blocks of 1 MiB megablocks from 0x4200000000, with block descriptors in
 * each megablock's first 16 KiB. The server (synth_server*.c) answers the
 * ghc-debug protocol by reading that memory exactly as the real stub reads
 * the real process: INFO_TABLES returns the bytes before the info pointer,
 * CON_DESC follows the offset stored before the constructor's info table,
 * BLOCK looks up block groups, STACK_BITMAP decodes frame layouts, and so on.
 * The two halves share nothing but this header. */
#ifndef SYNTH_H
#define SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYNTH_HEAP_BASE UINT64_C(0x4200000000)
#define SYNTH_TEXT_BASE UINT64_C(0x400000)  /* info tables, entry code, strings */
#define SYNTH_DATA_BASE UINT64_C(0x4c0000)  /* static closures, SRTs */

/* VERSION profiling modes (wire-protocol.md: the profiling-mode byte). */
enum { SYNTH_PROF_NONE = 0, SYNTH_PROF_PLAIN = 1, SYNTH_PROF_RETAINER = 2, SYNTH_PROF_LDV = 3,
       SYNTH_PROF_ERA = 4 };
#define SYNTH_BLOCK_SIZE 4096u
#define SYNTH_MBLOCK_SIZE (1u << 20)
#define SYNTH_DESCR_SIZE 64u
#define SYNTH_FIRST_BLOCK_OFFSET (4u * SYNTH_BLOCK_SIZE) /* descriptors area */
#define SYNTH_MAX_SAVED 20

/* Block-descriptor flags (heap-layout.md §12.1). */
#define SYNTH_BF_LARGE 0x0002u
#define SYNTH_BF_PINNED 0x0004u
#define SYNTH_BF_COMPACT 0x0200u

/* RTS structs that are not closures, as the generator lays them out in the
 * data region (profiled flavour) and the server reads them:
 *   CostCentreStack, 96 bytes: the 12 words of wire-protocol.md §7.16 in
 *     that order (ccsID, cc, prevStack, indexTable, root, depth, scc_count,
 *     selected, time_ticks, mem_alloc, inherited_alloc, inherited_ticks).
 *   CostCentre, 64 bytes: ccID i64 @0, label char* @8, module char* @16,
 *     srcloc char* @24 (NUL-terminated strings in the text region),
 *     mem_alloc u64 @32, time_ticks u64 @40, is_caf u64 @48 (0/1),
 *     link CostCentre* @56 (0 = none).
 *   IndexTable, 32 bytes: cc @0, ccs @8, next @16 (0 = end),
 *     back_edge u8 @24, 7 bytes padding.
 * Constructor descriptions are NUL-terminated strings in the text region,
 * at P + offset where the signed 32-bit offset sits at P - S - 8 (S = 16 or
 * 32, the standard info table size). Function info tables carry the 24
 * bytes of heap-layout.md §3 before the standard table; a large bitmap
 * (RET_BIG layout word, fun_type 1 bitmap field) is an offset from P to a
 * StgLargeBitmap: u64 bit count, then ceil(count/64) words, LSB first,
 * bit 0 = pointer. */

/* A contiguous range of the fake address space. */
typedef struct synth_region {
    uint64_t base;
    uint64_t size;
    uint8_t *bytes;
} synth_region;

/* One entry of the info-table provenance map, keyed by info pointer. */
typedef struct synth_ipe {
    uint64_t info;
    /* name, closure type as decimal text, Haskell type, label, module,
     * position "<file>:<span>" (wire-protocol.md §7.11) */
    const char *strings[6];
} synth_ipe;

typedef struct synth_process {
    /* VERSION answer */
    uint32_t ghc_major; /* 910, 912 or 914 */
    uint32_t ghc_patch; /* 1 (9.10.1, 9.14.1) or 2 (9.12.2) */
    uint8_t prof_mode;  /* SYNTH_PROF_*: 0 non-profiled, 4 era profiling, ... */

    /* the address space, sorted by base, non-overlapping */
    synth_region *regions;
    size_t n_regions;

    /* every block group the RTS knows about, sorted ascending (this is also
     * the ALL_BLOCKS order); each start is the first byte of a group whose
     * descriptor (in its megablock's descriptor area: start @0, free @8,
     * flags u16 @46, blocks u32 @48) holds its block count.
     * BLOCK answers with the whole group containing the address. For a
     * COMPACT group it imitates the RTS (objectGetCompactBlock): when the
     * descriptor of the block holding the address has blocks = 0 and a
     * non-zero link @16, link is the address of the head descriptor and its
     * group (start @0) is answered. Generators need not fill interior
     * descriptors: an all-zero one falls back to the containing group. */
    uint64_t *group_starts;
    size_t n_groups;

    /* GC roots in ROOTS order (TSOs first, then stable pointers); may be tagged */
    uint64_t *roots;
    size_t n_roots;
    uint64_t saved[SYNTH_MAX_SAVED];
    size_t n_saved;

    /* IPE map sorted by info pointer; its strings are static literals or
     * point into ipe_text (owned) */
    synth_ipe *ipes;
    size_t n_ipes;
    char *ipe_text;

    uint64_t ccs_main; /* profiled only: root cost-centre stack, else 0 */

    /* ALL_BLOCKS sends every pinned group (SYNTH_BF_PINNED) a second time,
     * byte for byte, after all the groups: the real RTS lists each empty
     * pinned group once per capability (ghc-debug keeps the first copy) */
    bool duplicate_pinned;

    /* JSON text describing what was planted (see synth_gen.h), owned */
    char *plan_json;
} synth_process;

/* Memory access for the server: a pointer to len bytes at addr, or NULL
 * when any of them lies outside the address space. */
const uint8_t *synth_mem(const synth_process *p, uint64_t addr, uint64_t len);

/* The IPE entry of an info pointer, or NULL. */
const synth_ipe *synth_find_ipe(const synth_process *p, uint64_t info);

/* The block group containing addr (index into group_starts), or -1. */
long synth_find_group(const synth_process *p, uint64_t addr);

void synth_process_free(synth_process *p);

#endif
