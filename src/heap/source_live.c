/* heap_source over a live debuggee: every request goes to the wire, and
 * the stub's refusals (BAD_COMMAND, BAD_STACK) become HEAP_UNAVAILABLE. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/heap.h"

/* The stub refused this request (a debuggee without that data): not a
 * failure of the source. */
static hs_status refused(hs_status st, hs_error *e) {
    if (st != HS_ERR_BAD_COMMAND && st != HS_ERR_BAD_STACK && st != HS_ERR_NOT_FOUND)
        return st;
    if (e)
        e->status = HEAP_UNAVAILABLE;
    return HEAP_UNAVAILABLE;
}

/* Moves the slices of a wire answer into heap blobs. */
static hs_status take_blobs(hs_status st, wire_blobs *w, heap_blobs *o, hs_error *e) {
    *o = (heap_blobs){0};
    if (st == HS_OK) {
        o->items = malloc((w->count ? w->count : 1) * sizeof *o->items);
        if (!o->items)
            st = hs_fail(e, HS_ERR_NOMEM, "out of memory");
    }
    if (st == HS_OK) {
        for (size_t i = 0; i < w->count; i++)
            o->items[i] = (heap_blob){w->items[i].data, w->items[i].len};
        o->count = w->count;
        o->storage = w->body.data;
        w->body = (wire_buf){0};
    }
    wire_blobs_free(w);
    return refused(st, e);
}

static hs_status take_bitmap(hs_status st, wire_bitmap *w, heap_bitmap *o, hs_error *e) {
    *o = (heap_bitmap){0};
    if (st == HS_OK) {
        o->bits = w->bits;
        o->count = w->count;
    } else {
        wire_bitmap_free(w);
    }
    return refused(st, e);
}

static hs_status live_version(void *s, wire_version *o, hs_error *e) { return wire_get_version(s, o, e); }
static hs_status live_roots(void *s, wire_ptr_list *o, hs_error *e) { return wire_roots(s, o, e); }
static hs_status live_saved(void *s, wire_ptr_list *o, hs_error *e) {
    return wire_saved_objects(s, o, e);
}

static hs_status live_blocks(void *s, heap_block_list *o, hs_error *e) {
    wire_block_list w = {0};
    hs_status st = wire_all_blocks(s, &w, e);
    *o = (heap_block_list){0};
    if (st == HS_OK) {
        o->items = malloc((w.count ? w.count : 1) * sizeof *o->items);
        if (!o->items)
            st = hs_fail(e, HS_ERR_NOMEM, "out of memory");
    }
    if (st == HS_OK) {
        for (size_t i = 0; i < w.count; i++)
            o->items[i] = (heap_block){w.items[i].start, w.items[i].len, w.items[i].flags,
                                       w.items[i].data};
        o->count = w.count;
        void *body = w.body.data; /* adopt frees it even when it fails */
        w.body = (wire_buf){0};
        if (!heap_block_list_adopt(o, body))
            st = hs_fail(e, HS_ERR_NOMEM, "out of memory");
    }
    if (st != HS_OK)
        heap_block_list_free(o);
    wire_block_list_free(&w);
    return st;
}

static hs_status live_closures(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    wire_blobs w = {0};
    return take_blobs(wire_closures(s, p, n, &w, e), &w, o, e);
}
static hs_status live_infos(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    wire_blobs w = {0};
    return take_blobs(wire_info_tables(s, p, n, &w, e), &w, o, e);
}
static hs_status live_srts(void *s, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    return refused(wire_srts(s, p, n, o, e), e);
}
static hs_status live_frame_bitmap(void *s, uint64_t sp, uint32_t off, const heap_info *fi,
                                   heap_bitmap *o, hs_error *e) {
    (void)fi; /* the stub reads the frame itself */
    wire_bitmap w = {0};
    return take_bitmap(wire_stack_bitmap(s, sp, off, &w, e), &w, o, e);
}
static hs_status live_fun_bitmap(void *s, uint64_t f, const heap_info *fi, uint16_t n,
                                 heap_bitmap *o, hs_error *e) {
    (void)fi;
    wire_bitmap w = {0};
    return take_bitmap(wire_fun_bitmap(s, f, n, &w, e), &w, o, e);
}
static hs_status live_con_desc(void *s, uint64_t i, char **text, hs_error *e) {
    wire_con_desc d = {0};
    hs_status st = wire_get_con_desc(s, i, &d, e);
    *text = st == HS_OK ? d.raw : NULL;
    if (st == HS_OK)
        d.raw = NULL;
    wire_con_desc_free(&d);
    return refused(st, e);
}
static hs_status live_source_info(void *s, uint64_t i, wire_source_info *o, hs_error *e) {
    return refused(wire_get_source_info(s, i, o, e), e);
}
static hs_status live_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) {
    return refused(wire_get_ccs(s, p, o, e), e);
}
static hs_status live_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) {
    return refused(wire_get_cc(s, p, o, e), e);
}
static hs_status live_index_entry(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    return refused(wire_index_table(s, p, o, e), e);
}
static hs_status live_ccs_main(void *s, uint64_t *o, hs_error *e) {
    return refused(wire_ccs_main(s, o, e), e);
}

static const heap_source_ops live_ops = {
    .version = live_version,
    .roots = live_roots,
    .saved_objects = live_saved,
    .blocks = live_blocks,
    .load_block = NULL, /* ALL_BLOCKS sends every byte */
    .closures = live_closures,
    .info_tables = live_infos,
    .srts = live_srts,
    .frame_bitmap = live_frame_bitmap,
    .fun_bitmap = live_fun_bitmap,
    .con_desc = live_con_desc,
    .source_info = live_source_info,
    .ccs = live_ccs,
    .cc = live_cc,
    .index_entry = live_index_entry,
    .ccs_main = live_ccs_main,
};

heap_source heap_source_live(wire_conn *c) { return (heap_source){&live_ops, c}; }
