/* Read-only export of everything a heap read from its source in this
 * pause, for the store: with these answers (and heap_version, heap_roots,
 * heap_saved_objects) a snapshot source serves every request the heap made.
 *
 * Each heap_foreach_X calls fn once per item, in no particular order, and
 * stops at the first status other than HS_OK, which it returns. Items and
 * the pointers in them are valid during the call only. Immutable answers
 * (info tables, constructor descriptions, source infos, SRTs, bitmaps of
 * info tables and functions) may come from earlier pauses of the same
 * process; the others belong to this pause. To have every reachable
 * closure's info table and constructor description here, traverse the heap
 * first (a census does); source infos are asked only when shown. */
#ifndef HEAPSCOPE_HEAP_EXPORT_H
#define HEAPSCOPE_HEAP_EXPORT_H

#include "heapscope/heap.h"

/* Block groups, each once (an identical copy the source listed again is
 * left out: heap_open); data is NULL for a group a lazy source has not
 * loaded (heap_load_all_blocks loads them all). */
typedef hs_status (*heap_block_fn)(void *ctx, const heap_block *b, hs_error *err);
hs_status heap_foreach_block(const heap *h, heap_block_fn fn, void *ctx, hs_error *err);

/* An info table: decoded, and the raw bytes the source gave. */
typedef struct heap_export_info {
    const heap_info *info;
    const uint8_t *raw;
    size_t raw_len;
} heap_export_info;
typedef hs_status (*heap_info_fn)(void *ctx, const heap_export_info *i, hs_error *err);
hs_status heap_foreach_info(const heap *h, heap_info_fn fn, void *ctx, hs_error *err);

/* A constructor's description; text NULL when the source had none. */
typedef hs_status (*heap_con_desc_fn)(void *ctx, uint64_t info, const char *text,
                                      hs_error *err);
hs_status heap_foreach_con_desc(const heap *h, heap_con_desc_fn fn, void *ctx, hs_error *err);

/* A source location asked for; si NULL when the source had none. */
typedef hs_status (*heap_source_info_fn)(void *ctx, uint64_t info, const wire_source_info *si,
                                         hs_error *err);
hs_status heap_foreach_source_info(const heap *h, heap_source_info_fn fn, void *ctx,
                                   hs_error *err);

/* An SRT answer: srt 0 = none. Only info tables that were asked. */
typedef hs_status (*heap_srt_fn)(void *ctx, uint64_t info, uint64_t srt, hs_error *err);
hs_status heap_foreach_srt(const heap *h, heap_srt_fn fn, void *ctx, hs_error *err);

/* A frame's pointer map (heap_source_ops.frame_bitmap): frame is 0 for a
 * map of the info table (RET_BIG), else the frame's address (sp + offset,
 * RET_FUN). */
typedef struct heap_export_frame_bitmap {
    uint64_t frame_info;
    uint64_t frame;
    const uint8_t *bits;
    size_t count;
} heap_export_frame_bitmap;
typedef hs_status (*heap_frame_bitmap_fn)(void *ctx, const heap_export_frame_bitmap *b,
                                          hs_error *err);
hs_status heap_foreach_frame_bitmap(const heap *h, heap_frame_bitmap_fn fn, void *ctx,
                                    hs_error *err);

/* A function's argument map of n words (heap_source_ops.fun_bitmap). */
typedef struct heap_export_fun_bitmap {
    uint64_t fun_info;
    uint16_t n;
    const uint8_t *bits; /* n entries */
} heap_export_fun_bitmap;
typedef hs_status (*heap_fun_bitmap_fn)(void *ctx, const heap_export_fun_bitmap *b,
                                        hs_error *err);
hs_status heap_foreach_fun_bitmap(const heap *h, heap_fun_bitmap_fn fn, void *ctx,
                                  hs_error *err);

/* The image of a closure outside the blocks, as the source gave it. */
typedef hs_status (*heap_static_fn)(void *ctx, uint64_t addr, const uint8_t *bytes, size_t len,
                                    hs_error *err);
hs_status heap_foreach_static(const heap *h, heap_static_fn fn, void *ctx, hs_error *err);

/* Cost centres, stacks and index-table entries asked in this pause. */
typedef hs_status (*heap_ccs_fn)(void *ctx, uint64_t addr, const wire_ccs *ccs, hs_error *err);
hs_status heap_foreach_ccs(const heap *h, heap_ccs_fn fn, void *ctx, hs_error *err);
typedef hs_status (*heap_cc_fn)(void *ctx, uint64_t addr, const wire_cc *cc, hs_error *err);
hs_status heap_foreach_cc(const heap *h, heap_cc_fn fn, void *ctx, hs_error *err);
typedef hs_status (*heap_index_entry_fn)(void *ctx, uint64_t addr, const wire_index_entry *e,
                                         hs_error *err);
hs_status heap_foreach_index_entry(const heap *h, heap_index_entry_fn fn, void *ctx,
                                   hs_error *err);
/* CCS_MAIN's answer if it was asked in this pause: true with *ccs_main. */
bool heap_export_ccs_main(const heap *h, uint64_t *ccs_main);

#endif
