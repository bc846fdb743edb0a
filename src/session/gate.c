/* The heap source of a debuggee's pause, with a gate: while the debuggee
 * is paused every request goes through to the cache and the wire; once
 * session_let_go resumed it, the gate is shut and the heap answers only
 * from what it fetched during the pause. Nothing else may reach the
 * debuggee then: an address is not valid once the program runs, so a
 * request it did not make in time is refused here with HEAP_UNAVAILABLE
 * ("not fetched during the pause"), never sent. What the source said it
 * has no answer for during the pause (a stub without cost centres) is kept
 * and said again, as the heap would have heard it. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"
#include "session_internal.h"

enum { OP_VERSION = 1, OP_ROOTS, OP_SAVED, OP_BLOCKS, OP_LOAD, OP_CLOSURES, OP_INFOS, OP_SRTS,
       OP_FRAME_BITMAP, OP_FUN_BITMAP, OP_CON_DESC, OP_SOURCE_INFO, OP_CCS, OP_CC, OP_INDEX,
       OP_CCS_MAIN };

#define AGAIN " was not fetched during the pause (the program runs again)"

static uint64_t refusal_key(int op, uint64_t key) {
    uint64_t k = u64map_hash(key ^ ((uint64_t)op << 56)) ^ (uint64_t)op;
    return k ? k : 1;
}

/* An answer the source did not have, kept while online. */
static hs_status noted(session_gate *g, int op, uint64_t key, hs_status st, hs_error *e) {
    if (st != HEAP_UNAVAILABLE || g->offline || !e)
        return st;
    uint64_t k = refusal_key(op, key);
    if (u64map_find(&g->refused, k) ||
        !hs_grow((void **)&g->items, &g->cap, g->n + 1, sizeof *g->items))
        return st;
    char *m = strdup(e->message);
    if (!m || !u64map_put(&g->refused, k, g->n + 1)) {
        free(m);
        return st;
    }
    g->items[g->n++] = (session_gate_refusal){op, key, m};
    return st;
}

/* Offline: the kept refusal of this request, else "not fetched". */
static hs_status shut(session_gate *g, int op, uint64_t key, hs_error *e, const char *what) {
    uint64_t *i = u64map_find(&g->refused, refusal_key(op, key));
    if (i && g->items[*i - 1].op == op && g->items[*i - 1].key == key)
        return hs_fail(e, HEAP_UNAVAILABLE, "%s", g->items[*i - 1].message);
    if (op == OP_VERSION || op == OP_ROOTS || op == OP_SAVED || op == OP_BLOCKS ||
        op == OP_CCS_MAIN)
        return hs_fail(e, HEAP_UNAVAILABLE, "%s" AGAIN, what);
    return hs_fail(e, HEAP_UNAVAILABLE, "%s 0x%llx" AGAIN, what, (unsigned long long)key);
}

void session_gate_free(session_gate *g) {
    for (size_t i = 0; i < g->n; i++)
        free(g->items[i].message);
    free(g->items);
    u64map_free(&g->refused);
    *g = (session_gate){0};
}


/* Forwards a request while the gate is open, keeping what the source did
 * not have; refuses it once shut. */
#define FORWARD(op, key, what, call)                                                       \
    do {                                                                                   \
        session_gate *g = self;                                                            \
        if (g->offline)                                                                    \
            return shut(g, op, key, e, what);                                              \
        return noted(g, op, key, g->inner.ops->call, e);                                   \
    } while (0)

static hs_status g_version(void *self, wire_version *o, hs_error *e) {
    FORWARD(OP_VERSION, 0, "VERSION", version(g->inner.self, o, e));
}
static hs_status g_roots(void *self, wire_ptr_list *o, hs_error *e) {
    FORWARD(OP_ROOTS, 0, "ROOTS", roots(g->inner.self, o, e));
}
static hs_status g_saved(void *self, wire_ptr_list *o, hs_error *e) {
    FORWARD(OP_SAVED, 0, "SAVED_OBJECTS", saved_objects(g->inner.self, o, e));
}
static hs_status g_blocks(void *self, heap_block_list *o, hs_error *e) {
    FORWARD(OP_BLOCKS, 0, "ALL_BLOCKS", blocks(g->inner.self, o, e));
}
static hs_status g_load_block(void *self, heap_block_list *o, size_t i, hs_error *e) {
    FORWARD(OP_LOAD, o->items[i].start, "the block group", load_block(g->inner.self, o, i, e));
}
static hs_status g_closures(void *self, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    FORWARD(OP_CLOSURES, n ? p[0] : 0, "the closure at", closures(g->inner.self, p, n, o, e));
}
static hs_status g_infos(void *self, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    FORWARD(OP_INFOS, n ? p[0] : 0, "the info table", info_tables(g->inner.self, p, n, o, e));
}
static hs_status g_srts(void *self, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    FORWARD(OP_SRTS, n ? p[0] : 0, "the SRT of info table", srts(g->inner.self, p, n, o, e));
}
static hs_status g_frame_bitmap(void *self, uint64_t sp, uint32_t off, const heap_info *fi,
                                heap_bitmap *o, hs_error *e) {
    FORWARD(OP_FRAME_BITMAP, sp + off, "the bitmap of the frame at",
            frame_bitmap(g->inner.self, sp, off, fi, o, e));
}
static hs_status g_fun_bitmap(void *self, uint64_t f, const heap_info *fi, uint16_t n,
                              heap_bitmap *o, hs_error *e) {
    FORWARD(OP_FUN_BITMAP, f ^ ((uint64_t)n << 48), "the argument bitmap of the function",
            fun_bitmap(g->inner.self, f, fi, n, o, e));
}
static hs_status g_con_desc(void *self, uint64_t i, char **text, hs_error *e) {
    FORWARD(OP_CON_DESC, i, "the constructor description of info table",
            con_desc(g->inner.self, i, text, e));
}
static hs_status g_source_info(void *self, uint64_t i, wire_source_info *o, hs_error *e) {
    FORWARD(OP_SOURCE_INFO, i, "the source location of info table",
            source_info(g->inner.self, i, o, e));
}
static hs_status g_ccs(void *self, uint64_t p, wire_ccs *o, hs_error *e) {
    FORWARD(OP_CCS, p, "the cost-centre stack", ccs(g->inner.self, p, o, e));
}
static hs_status g_cc(void *self, uint64_t p, wire_cc *o, hs_error *e) {
    FORWARD(OP_CC, p, "the cost centre", cc(g->inner.self, p, o, e));
}
static hs_status g_index_entry(void *self, uint64_t p, wire_index_entry *o, hs_error *e) {
    FORWARD(OP_INDEX, p, "the index-table entry", index_entry(g->inner.self, p, o, e));
}
static hs_status g_ccs_main(void *self, uint64_t *o, hs_error *e) {
    FORWARD(OP_CCS_MAIN, 0, "CCS_MAIN", ccs_main(g->inner.self, o, e));
}

#define GATE_OPS(load)                                                                    \
    {.version = g_version, .roots = g_roots, .saved_objects = g_saved, .blocks = g_blocks,   \
     .load_block = (load), .closures = g_closures, .info_tables = g_infos, .srts = g_srts,   \
     .frame_bitmap = g_frame_bitmap, .fun_bitmap = g_fun_bitmap, .con_desc = g_con_desc,     \
     .source_info = g_source_info, .ccs = g_ccs, .cc = g_cc, .index_entry = g_index_entry,   \
     .ccs_main = g_ccs_main}

static const heap_source_ops lazy_ops = GATE_OPS(g_load_block);
static const heap_source_ops eager_ops = GATE_OPS(NULL); /* blocks come loaded */

heap_source session_gate_source(session_gate *g, heap_source inner) {
    session_gate_free(g);
    g->inner = inner;
    return (heap_source){inner.ops->load_block ? &lazy_ops : &eager_ops, g};
}
