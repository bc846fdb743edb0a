/* Compile-time check of cap_offsets.h against the RTS's own
 * DerivedConstants.h: a different GHC fails here, not at run time. */
#include "DerivedConstants.h"
#include "cap_offsets.h"

_Static_assert(OFFSET_Capability_weak_ptr_list_hd == CAP_OFF_WEAK_PTR_LIST_HD,
               "Capability.weak_ptr_list_hd moved: fix cap_offsets.h");
_Static_assert(OFFSET_Capability_mut_lists + 8 == CAP_OFF_SAVED_MUT_LISTS,
               "Capability.mut_lists moved: fix cap_offsets.h");
/* saved_mut_lists, the 112-byte upd_rem_set, then the two pinned-block words */
_Static_assert(CAP_OFF_PINNED_OBJECT_BLOCK == CAP_OFF_SAVED_MUT_LISTS + 8 + 112,
               "unexpected Capability layout between saved_mut_lists and weak_ptr_list_hd");
