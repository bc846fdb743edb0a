/* Parts of the GHC 9.0.2 runtime that its installed headers do not declare.
 *
 * The functions and variables below are global symbols of the static RTS
 * libraries (libHSrts_thr*.a; hidden in the shared ones, so test programs
 * must link statically, GHC's default). Signatures follow the 9.0.2 RTS
 * sources (Task.h, Capability.h, Schedule.h, sm/GC.h, sm/Storage.h,
 * StablePtr.h). Struct layouts we cannot include are reached through field
 * offsets checked against DerivedConstants.h at compile time (offsets.c)
 * or found and checked at the first pause (layout.c, blocks.c). */
#ifndef HEAPSCOPE_STUB_RTS_PRIVATE_H
#define HEAPSCOPE_STUB_RTS_PRIVATE_H

#include "Rts.h"

#if !defined(THREADED_RTS)
#error "the stub needs the threaded RTS headers: compile with -optc-DTHREADED_RTS"
#endif
#if !defined(TABLES_NEXT_TO_CODE) || !defined(x86_64_HOST_ARCH)
#error "the stub assumes x86_64 with tables next to code"
#endif

typedef struct Task_ Task;
typedef struct gc_thread_ gc_thread;

/* sm/GC.h */
typedef void (*evac_fn)(void *user, StgClosure **root);

/* Task.h */
Task *newBoundTask(void);
void boundTaskExiting(Task *task);

/* Capability.h, Schedule.h */
void waitForCapability(Capability **pCap, Task *task);
void stopAllCapabilities(Capability **pCap, Task *task);
void releaseAllCapabilities(uint32_t n, Capability *keep_cap, Task *task);
extern Capability **capabilities;

/* sm/Storage.h, sm/GC.c, sm/GCThread.h */
void markCAFs(evac_fn evac, void *user);
extern nursery *nurseries;
extern uint32_t n_nurseries;
extern gc_thread **gc_threads;

/* StablePtr.h */
void markStablePtrTable(evac_fn evac, void *user);
void stablePtrLock(void);
void stablePtrUnlock(void);

/* Capability fields the headers do not give: cap_offsets.h. */
#include "cap_offsets.h"

static inline void *cap_field(const Capability *cap, size_t off) {
    return *(void *const *)((const char *)cap + off);
}

/* gen_workspace of 9.0 (sm/GCThread.h): gen, my_gct, todo_bd, todo_free,
 * todo_lim, todo_seg, todo_q, todo_overflow, n_todo_overflow,
 * todo_large_objects, scavd_list, n_scavd_blocks, n_scavd_words,
 * part_list, n_part_blocks, n_part_words; 64-byte aligned, 128 bytes.
 * Where gens[] starts inside gc_thread is found at run time (layout.c). */
#define WS_SIZE 128
#define WS_OFF_GEN 0
#define WS_OFF_MY_GCT 8
#define WS_OFF_TODO_BD 16
#define WS_OFF_TODO_SEG 40
#define WS_OFF_TODO_Q 48
#define WS_OFF_TODO_OVERFLOW 56
#define WS_OFF_TODO_LARGE 72
#define WS_OFF_SCAVD_LIST 80
#define WS_OFF_PART_LIST 104

#endif
