/* What a tree of the heap shows of a closure and what it holds, so that a
 * UI asks one question per row or per opened node and never decodes
 * closures, walks cost-centre stacks or batches requests itself. */
#ifndef HEAPSCOPE_QUERY_NODE_H
#define HEAPSCOPE_QUERY_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"
#include "heapscope/status.h"

/* A closure as one row shows it. */
typedef struct query_node {
    uint64_t addr;
    hs_status status;     /* HS_OK, or why it could not be read (text says it) */
    uint32_t type, size;
    heap_prof_kind prof;  /* HEAP_PROF_ABSENT without a profiling header */
    uint64_t era;         /* HEAP_PROF_ERA */
    bool ldv_used;        /* HEAP_PROF_LDV: used since it was created */
    bool has_children;    /* pointer fields, or a cost-centre stack */
    const char *text;     /* heap_closure_label's text, or the error; valid during the call */
} query_node;

/* Called once per address, in order; false stops. */
typedef bool (*query_node_fn)(void *ctx, const query_node *n);

/* Describes the closures at addrs (untagged, non-zero), asking the source
 * for the ones it does not hold in one batch first. A closure that cannot
 * be read is described by its error, not a failure of the call. */
hs_status query_nodes_describe(heap *h, const uint64_t *addrs, size_t n, query_node_fn fn,
                               void *ctx, hs_error *err);

/* What a details pane shows of one closure. Its texts point into the
 * heap's own tables: valid until the heap changes. */
typedef struct query_node_details {
    hs_status status;            /* HS_OK, else error says why it could not be read */
    char error[HS_ERROR_MESSAGE_MAX];
    uint64_t info_ptr;
    uint32_t type, size;
    const char *con_name;        /* a constructor's name, package and module; NULL for */
    const char *con_package;     /* other closures (and a part the description lacks) */
    const char *con_module;
    heap_prof_info prof;         /* heap_prof_describe's; HEAP_PROF_ABSENT without one */
    bool source_failed;          /* asking for the source location failed: source_error */
    char source_error[HS_ERROR_MESSAGE_MAX];
    const wire_source_info *ipe; /* the info table's source location; NULL: none (advice) */
    char advice[160];            /* how to get source locations, when ipe is NULL */
} query_node_details;

/* The details of the closure at addr (decoded, its profiling header and
 * cost centre, its info table's source location). A closure that cannot
 * be read is out->status, not a failure of the call. */
void query_node_details_get(heap *h, uint64_t addr, query_node_details *out);

/* A child of a node: a closure (its field), a cost-centre stack, or a cost centre. */
typedef enum query_child_kind {
    QUERY_CHILD_CLOSURE,
    QUERY_CHILD_CCS,
    QUERY_CHILD_CC
} query_child_kind;

/* Called once per child with its label ("Field 0", "CCS", "2"); false
 * means it could not be kept: the call stops with an out-of-memory error. */
typedef bool (*query_child_fn)(void *ctx, query_child_kind kind, const char *label,
                               uint64_t addr);

/* The children of the closure at addr (retainers-and-eras.md §6.3): its
 * cost-centre stack first when it has one, then its pointer fields. */
hs_status query_node_children(heap *h, uint64_t addr, query_child_fn fn, void *ctx,
                              hs_error *err);
/* The children of a cost-centre stack: its own cost centre, then each
 * ancestor's, numbered from 0, the last one twice (ghc-debug's quirk, §6.3). */
hs_status query_ccs_children(heap *h, uint64_t ccs, query_child_fn fn, void *ctx,
                             hs_error *err);
/* "label   module   srcloc" of a cost-centre stack's own cost centre
 * (is_ccs) or of a cost centre. */
hs_status query_cc_text(heap *h, uint64_t addr, bool is_ccs, char *buf, size_t cap,
                        hs_error *err);

#endif
