/* The heap source of a debuggee's pause, with a gate: while the debuggee
 * is paused every request goes through to the cache and the wire; once
 * session_let_go resumed it, the gate is shut and the heap answers only
 * from what it fetched during the pause. Nothing else may reach the
 * debuggee then: an address is not valid once the program runs, so a
 * request it did not make in time is refused here with HEAP_UNAVAILABLE
 * ("not fetched during the pause"), never sent. */
#include "session_internal.h"

#define NOT_FETCHED(err, what, key)                                                         \
    hs_fail(err, HEAP_UNAVAILABLE, "%s 0x%llx was not fetched during the pause (the program " \
            "runs again)", what, (unsigned long long)(key))

#define GATE(self) ((session_gate *)(self))
#define INNER(self) GATE(self)->inner

static hs_status g_version(void *s, wire_version *o, hs_error *e) {
    if (GATE(s)->offline)
        return hs_fail(e, HEAP_UNAVAILABLE, "VERSION was not fetched during the pause");
    return INNER(s).ops->version(INNER(s).self, o, e);
}
static hs_status g_roots(void *s, wire_ptr_list *o, hs_error *e) {
    if (GATE(s)->offline)
        return hs_fail(e, HEAP_UNAVAILABLE, "the roots were not fetched during the pause");
    return INNER(s).ops->roots(INNER(s).self, o, e);
}
static hs_status g_saved(void *s, wire_ptr_list *o, hs_error *e) {
    if (GATE(s)->offline)
        return hs_fail(e, HEAP_UNAVAILABLE, "the saved objects were not fetched during the pause");
    return INNER(s).ops->saved_objects(INNER(s).self, o, e);
}
static hs_status g_blocks(void *s, heap_block_list *o, hs_error *e) {
    if (GATE(s)->offline)
        return hs_fail(e, HEAP_UNAVAILABLE, "the heap's blocks were not fetched during the pause");
    return INNER(s).ops->blocks(INNER(s).self, o, e);
}
static hs_status g_load_block(void *s, heap_block_list *o, size_t i, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the block group", o->items[i].start);
    return INNER(s).ops->load_block(INNER(s).self, o, i, e);
}
static hs_status g_closures(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the closure at", n ? p[0] : 0);
    return INNER(s).ops->closures(INNER(s).self, p, n, o, e);
}
static hs_status g_infos(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the info table", n ? p[0] : 0);
    return INNER(s).ops->info_tables(INNER(s).self, p, n, o, e);
}
static hs_status g_srts(void *s, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the SRT of info table", n ? p[0] : 0);
    return INNER(s).ops->srts(INNER(s).self, p, n, o, e);
}
static hs_status g_frame_bitmap(void *s, uint64_t sp, uint32_t off, const heap_info *fi,
                                heap_bitmap *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the bitmap of the frame at", sp + off);
    return INNER(s).ops->frame_bitmap(INNER(s).self, sp, off, fi, o, e);
}
static hs_status g_fun_bitmap(void *s, uint64_t f, const heap_info *fi, uint16_t n,
                              heap_bitmap *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the bitmap of the function", f);
    return INNER(s).ops->fun_bitmap(INNER(s).self, f, fi, n, o, e);
}
static hs_status g_con_desc(void *s, uint64_t i, char **text, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the constructor description of info table", i);
    return INNER(s).ops->con_desc(INNER(s).self, i, text, e);
}
static hs_status g_source_info(void *s, uint64_t i, wire_source_info *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the source location of info table", i);
    return INNER(s).ops->source_info(INNER(s).self, i, o, e);
}
static hs_status g_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the cost-centre stack", p);
    return INNER(s).ops->ccs(INNER(s).self, p, o, e);
}
static hs_status g_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the cost centre", p);
    return INNER(s).ops->cc(INNER(s).self, p, o, e);
}
static hs_status g_index_entry(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    if (GATE(s)->offline)
        return NOT_FETCHED(e, "the index-table entry", p);
    return INNER(s).ops->index_entry(INNER(s).self, p, o, e);
}
static hs_status g_ccs_main(void *s, uint64_t *o, hs_error *e) {
    if (GATE(s)->offline)
        return hs_fail(e, HEAP_UNAVAILABLE, "CCS_MAIN was not fetched during the pause");
    return INNER(s).ops->ccs_main(INNER(s).self, o, e);
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
    g->inner = inner;
    g->offline = false;
    return (heap_source){inner.ops->load_block ? &lazy_ops : &eager_ops, g};
}
