/* heap_source over a live debuggee: every request goes to the wire. */
#include "heapscope/heap.h"

static hs_status live_version(void *s, wire_version *o, hs_error *e) { return wire_get_version(s, o, e); }
static hs_status live_roots(void *s, wire_ptr_list *o, hs_error *e) { return wire_roots(s, o, e); }
static hs_status live_saved(void *s, wire_ptr_list *o, hs_error *e) {
    return wire_saved_objects(s, o, e);
}
static hs_status live_all_blocks(void *s, wire_block_list *o, hs_error *e) {
    return wire_all_blocks(s, o, e);
}
static hs_status live_closures(void *s, const uint64_t *p, size_t n, wire_blobs *o, hs_error *e) {
    return wire_closures(s, p, n, o, e);
}
static hs_status live_infos(void *s, const uint64_t *p, size_t n, wire_blobs *o, hs_error *e) {
    return wire_info_tables(s, p, n, o, e);
}
static hs_status live_srts(void *s, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    return wire_srts(s, p, n, o, e);
}
static hs_status live_stack_bitmap(void *s, uint64_t sp, uint32_t off, wire_bitmap *o,
                                   hs_error *e) {
    return wire_stack_bitmap(s, sp, off, o, e);
}
static hs_status live_fun_bitmap(void *s, uint64_t f, uint16_t n, wire_bitmap *o, hs_error *e) {
    return wire_fun_bitmap(s, f, n, o, e);
}
static hs_status live_con_desc(void *s, uint64_t i, wire_con_desc *o, hs_error *e) {
    return wire_get_con_desc(s, i, o, e);
}
static hs_status live_source_info(void *s, uint64_t i, wire_source_info *o, hs_error *e) {
    return wire_get_source_info(s, i, o, e);
}
static hs_status live_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) { return wire_get_ccs(s, p, o, e); }
static hs_status live_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) { return wire_get_cc(s, p, o, e); }
static hs_status live_index_table(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    return wire_index_table(s, p, o, e);
}
static hs_status live_ccs_main(void *s, uint64_t *o, hs_error *e) { return wire_ccs_main(s, o, e); }

static const heap_source_ops live_ops = {
    .version = live_version,
    .roots = live_roots,
    .saved_objects = live_saved,
    .all_blocks = live_all_blocks,
    .closures = live_closures,
    .info_tables = live_infos,
    .srts = live_srts,
    .stack_bitmap = live_stack_bitmap,
    .fun_bitmap = live_fun_bitmap,
    .con_desc = live_con_desc,
    .source_info = live_source_info,
    .ccs = live_ccs,
    .cc = live_cc,
    .index_table = live_index_table,
    .ccs_main = live_ccs_main,
};

heap_source heap_source_live(wire_conn *c) { return (heap_source){&live_ops, c}; }
