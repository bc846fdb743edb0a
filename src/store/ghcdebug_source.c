/* A heap_source over a ghc-debug snapshot: every answer is the one
 * ghc-debug recorded for the same request. What it did not record is
 * HEAP_UNAVAILABLE, saying so: ghc-debug's traversal skips a few things
 * heapscope reads (the last frame of each stack, a RET_FUN frame's
 * function), and an older chunk of a stack is reached through that last
 * frame. Block groups come from the file's bytes, which outlive the heap. */
#include <stdlib.h>
#include <string.h>

#include "ghcdebug_internal.h"

static hs_status gd_version(void *s, wire_version *o, hs_error *e) {
    (void)e;
    *o = *ghcdebug_file_version(s);
    return HS_OK;
}

static hs_status copy_list(hs_status st, const wire_ptr_list *l, wire_ptr_list *o,
                           hs_error *e) {
    *o = (wire_ptr_list){0};
    if (st != HS_OK)
        return st;
    if (l->count == 0)
        return HS_OK;
    o->items = malloc(l->count * sizeof *o->items);
    if (!o->items)
        return hs_fail(e, HS_ERR_NOMEM, "out of memory for %zu pointers", l->count);
    if (l->count) /* l->items may be NULL when empty */
        memcpy(o->items, l->items, l->count * sizeof *o->items);
    o->count = o->cap = l->count;
    return HS_OK;
}

static hs_status gd_roots(void *s, wire_ptr_list *o, hs_error *e) {
    const wire_ptr_list *l = NULL;
    hs_status st = ghcdebug_file_roots(s, &l, e);
    return copy_list(st, l, o, e);
}

static hs_status gd_saved(void *s, wire_ptr_list *o, hs_error *e) {
    const wire_ptr_list *l = NULL;
    hs_status st = ghcdebug_file_saved_objects(s, &l, e);
    return copy_list(st, l, o, e);
}

static hs_status gd_blocks(void *s, heap_block_list *o, hs_error *e) {
    size_t n;
    const ghcdebug_block *b = ghcdebug_file_blocks(s, &n);
    *o = (heap_block_list){0};
    o->items = malloc((n ? n : 1) * sizeof *o->items);
    if (!o->items)
        return hs_fail(e, HS_ERR_NOMEM, "out of memory for %zu block groups", n);
    for (size_t i = 0; i < n; i++)
        o->items[i] = (heap_block){b[i].start, b[i].len, b[i].flags, b[i].data};
    o->count = n;
    return HS_OK;
}

/* The group holding addr with at least 8 bytes from it, or NULL: ghc-debug
 * reads closures in the heap range from blocks. */
static const ghcdebug_block *block_of(const ghcdebug_file *f, uint64_t addr) {
    size_t lo = 0, hi = f->n_blocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->blocks[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const ghcdebug_block *b = &f->blocks[lo - 1];
    return addr - b->start + 8 <= b->len ? b : NULL;
}

typedef hs_status (*blob_lookup)(const ghcdebug_file *f, uint64_t key, const uint8_t **bytes,
                                 size_t *len, hs_error *err);

/* n answers pointing into the file; the whole call is unavailable when one
 * is (the heap then asks for them one by one). */
static hs_status blobs(const ghcdebug_file *f, blob_lookup find, bool blocks,
                       const uint64_t *keys, size_t n, heap_blobs *o, hs_error *e) {
    *o = (heap_blobs){0};
    o->items = malloc((n ? n : 1) * sizeof *o->items);
    if (!o->items)
        return hs_fail(e, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const uint8_t *bytes;
        size_t len;
        hs_status st = find(f, keys[i], &bytes, &len, e);
        const ghcdebug_block *b = st == HEAP_UNAVAILABLE && blocks ? block_of(f, keys[i]) : NULL;
        if (b) {
            bytes = b->data + (keys[i] - b->start);
            len = b->len - (size_t)(keys[i] - b->start);
            st = HS_OK;
        }
        if (st != HS_OK) {
            heap_blobs_free(o);
            return st;
        }
        o->items[i] = (heap_blob){bytes, len};
    }
    o->count = n;
    return HS_OK;
}

static hs_status gd_closures(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    return blobs(s, ghcdebug_file_closure, true, p, n, o, e);
}

static hs_status gd_infos(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    return blobs(s, ghcdebug_file_info_table, false, p, n, o, e);
}

static hs_status gd_srts(void *s, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    for (size_t i = 0; i < n; i++) {
        hs_status st = ghcdebug_file_srt(s, p[i], &o[i], e);
        if (st != HS_OK)
            return st;
    }
    return HS_OK;
}

static hs_status copy_bits(hs_status st, const uint8_t *bits, size_t n, heap_bitmap *o,
                           hs_error *e) {
    *o = (heap_bitmap){0};
    if (st != HS_OK || n == 0)
        return st;
    if (!(o->bits = malloc(n)))
        return hs_fail(e, HS_ERR_NOMEM, "out of memory for a bitmap of %zu entries", n);
    memcpy(o->bits, bits, n);
    o->count = n;
    return HS_OK;
}

static hs_status gd_frame_bitmap(void *s, uint64_t sp, uint32_t off, const heap_info *fi,
                                 heap_bitmap *o, hs_error *e) {
    (void)fi; /* ghc-debug keyed it by the frame's place */
    const uint8_t *bits = NULL;
    size_t n = 0;
    hs_status st = ghcdebug_file_stack_bitmap(s, sp, off, &bits, &n, e);
    return copy_bits(st, bits, n, o, e);
}

static hs_status gd_fun_bitmap(void *s, uint64_t f, const heap_info *fi, uint16_t n_args,
                               heap_bitmap *o, hs_error *e) {
    (void)fi;
    const uint8_t *bits = NULL;
    size_t n = 0;
    hs_status st = ghcdebug_file_fun_bitmap(s, f, n_args, &bits, &n, e);
    return copy_bits(st, bits, n, o, e);
}

static hs_status gd_con_desc(void *s, uint64_t i, char **text, hs_error *e) {
    wire_con_desc d;
    hs_status st = ghcdebug_file_con_desc(s, i, &d, e);
    *text = st == HS_OK ? d.raw : NULL;
    if (st == HS_OK)
        d.raw = NULL;
    wire_con_desc_free(&d);
    return st;
}

static hs_status gd_source_info(void *s, uint64_t i, wire_source_info *o, hs_error *e) {
    return ghcdebug_file_source_info(s, i, o, e);
}
static hs_status gd_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) {
    return ghcdebug_file_ccs(s, p, o, e);
}
static hs_status gd_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) {
    return ghcdebug_file_cc(s, p, o, e);
}
static hs_status gd_index_entry(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    return ghcdebug_file_index_entry(s, p, o, e);
}
static hs_status gd_ccs_main(void *s, uint64_t *o, hs_error *e) {
    return ghcdebug_file_ccs_main(s, o, e);
}

static const heap_source_ops ghcdebug_ops = {
    .version = gd_version,
    .roots = gd_roots,
    .saved_objects = gd_saved,
    .blocks = gd_blocks,
    .load_block = NULL, /* the whole file is in memory */
    .closures = gd_closures,
    .info_tables = gd_infos,
    .srts = gd_srts,
    .frame_bitmap = gd_frame_bitmap,
    .fun_bitmap = gd_fun_bitmap,
    .con_desc = gd_con_desc,
    .source_info = gd_source_info,
    .ccs = gd_ccs,
    .cc = gd_cc,
    .index_entry = gd_index_entry,
    .ccs_main = gd_ccs_main,
};

heap_source ghcdebug_file_source(ghcdebug_file *f) { return (heap_source){&ghcdebug_ops, f}; }
