/* Small hand-built heaps for the query tests: constructors and WEAKs laid
 * out in one block of a fake source, GC roots and saved objects, IPE
 * entries and cost-centre stacks, served through a heap_source that wraps
 * fake_source and answers what it does not (roots, SOURCE_INFO, CCS). */
#ifndef HEAPSCOPE_TEST_QUERY_HEAP_H
#define HEAPSCOPE_TEST_QUERY_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/heap.h"

#define QH_BLOCK UINT64_C(0x4200100000)
#define QH_STATIC UINT64_C(0x4c7000)

typedef struct qh qh;

/* prof_mode: WIRE_PROF_NONE (header 8 bytes) or a profiled mode (24). */
qh *qh_new(uint8_t prof_mode);
void qh_free(qh *q);

/* Info pointer of constructor desc ("pkg:Mod.Name") with n_ptrs pointer
 * and n_data data words (made on first use). */
uint64_t qh_con_info(qh *q, const char *desc, uint32_t n_ptrs, uint32_t n_data);
/* A new constructor closure in the block; data words are zero. */
uint64_t qh_con(qh *q, const char *desc, uint32_t n_ptrs, const uint64_t *ptrs, uint32_t n_data);
/* The same in the static region (era 0). */
uint64_t qh_static_con(qh *q, const char *desc);
/* A static constructor with pointer and (zero) data words, as qh_con. */
uint64_t qh_static_con_ptrs(qh *q, const char *desc, uint32_t n_ptrs, const uint64_t *ptrs,
                           uint32_t n_data);
/* A WEAK with the given key and value (no finalizers, no link). */
uint64_t qh_weak(qh *q, uint64_t key, uint64_t value);
/* A closure of any type laid out as ptrs pointers then n_data words. */
uint64_t qh_plain(qh *q, uint32_t type, uint32_t n_ptrs, const uint64_t *ptrs, uint32_t n_data);
/* A new info table of this type and layout (a distinct info pointer at
 * every call: thunks of different sites), and a closure of it. */
uint64_t qh_new_info(qh *q, uint32_t type, uint32_t n_ptrs, uint32_t n_data);
uint64_t qh_with_info(qh *q, uint64_t info, uint32_t n_ptrs, const uint64_t *ptrs,
                      uint32_t n_data);
/* Profiling header words of a closure (profiled heaps only). */
void qh_set_era(qh *q, uint64_t addr, uint64_t era);
void qh_set_ccs(qh *q, uint64_t addr, uint64_t ccs);
/* Sets pointer field i of a closure made by qh_con / qh_plain. */
void qh_set_ptr(qh *q, uint64_t addr, uint32_t i, uint64_t target);

/* The GHC that VERSION reports (e.g. 900); 910 unless set. Before qh_open. */
void qh_ghc(qh *q, uint32_t major);
void qh_root(qh *q, uint64_t addr);
void qh_saved(qh *q, uint64_t addr);
/* SOURCE_INFO answer for an info pointer. */
void qh_ipe(qh *q, uint64_t info, const char *name, const char *position);
/* The same with a label and module of its own (qh_ipe: "" and "Main"). */
void qh_ipe_full(qh *q, uint64_t info, const char *name, const char *label, const char *module,
                 const char *position);
/* A cost-centre stack at ccs_addr whose cost centre has id cc_id, and an
 * index-table entry of parent's table pointing at it. */
void qh_ccs(qh *q, uint64_t ccs_addr, int64_t cc_id);
void qh_ccs_child(qh *q, uint64_t parent, uint64_t child, bool back_edge);
void qh_ccs_main(qh *q, uint64_t ccs_addr);

/* Opens the heap (asserts success). */
heap *qh_open(qh *q);
unsigned qh_source_info_requests(const qh *q);
/* The requests the wrapped fake source served (struct fake_counts). */
struct fake_counts *qh_counts(qh *q);

#endif
