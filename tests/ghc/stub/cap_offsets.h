/* Capability field offsets of the GHC 9.0.2 threaded RTS that the stub
 * needs and DerivedConstants.h does not publish, derived from ones it
 * does. Plain numbers, so that offsets.c can check them against
 * DerivedConstants.h (which cannot be included together with Rts.h: it
 * redefines BLOCK_SIZE). */
#ifndef HEAPSCOPE_STUB_CAP_OFFSETS_H
#define HEAPSCOPE_STUB_CAP_OFFSETS_H

/* Capability.weak_ptr_list_hd and .saved_mut_lists (= mut_lists + 8) */
#define CAP_OFF_WEAK_PTR_LIST_HD 1160
#define CAP_OFF_SAVED_MUT_LISTS 1024

/* In 9.0 the non-moving collector's update remembered set (112 bytes) sits
 * between saved_mut_lists and pinned_object_block, so the two pinned-block
 * fields are the two words right before weak_ptr_list_hd. blocks.c checks
 * that what it finds there are pinned blocks. */
#define CAP_OFF_PINNED_OBJECT_BLOCK (CAP_OFF_WEAK_PTR_LIST_HD - 16)
#define CAP_OFF_PINNED_OBJECT_BLOCKS (CAP_OFF_WEAK_PTR_LIST_HD - 8)

#endif
