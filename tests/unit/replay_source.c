/* The replay source (see replay_source.h). */
#include "replay_source.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/heap_export.h"
#include "heapscope/u64map.h"

typedef struct bytes {
    uint8_t *data;
    size_t len;
} bytes;

typedef struct bitmap_entry {
    uint64_t a, b; /* (frame info, frame address or 0) or (fun info, n) */
    bytes bits;
} bitmap_entry;

typedef struct block_entry {
    heap_block b;
    bytes data;
} block_entry;

struct replay {
    wire_version version;
    wire_ptr_list roots, saved;
    block_entry *blocks;
    size_t n_blocks;
    bool lazy;
    u64map statics, infos, con_descs, source_infos, srts, ccs, cc, index; /* -> malloc'd */
    bitmap_entry *frames, *funs;
    size_t n_frames, n_funs;
    uint64_t ccs_main;
    bool ccs_main_known;
    unsigned misses, loads;
};

static void *copy(const void *p, size_t n) {
    void *d = malloc(n ? n : 1);
    cr_assert(d);
    if (n)
        memcpy(d, p, n);
    return d;
}

static char *copy_str(const char *s) { return s ? copy(s, strlen(s) + 1) : NULL; }

static void put(u64map *m, uint64_t key, void *value) {
    cr_assert(u64map_put(m, key, (uintptr_t)value));
}

static void *get(replay *r, const u64map *m, uint64_t key) {
    uint64_t *v = u64map_find(m, key);
    if (!v)
        r->misses++;
    return v ? (void *)(uintptr_t)*v : NULL;
}

/* ---- taking the export -------------------------------------------------- */

static hs_status on_block(void *ctx, const heap_block *b, hs_error *err) {
    (void)err;
    replay *r = ctx;
    cr_assert(b->data, "heap_load_all_blocks left group 0x%llx unloaded",
              (unsigned long long)b->start);
    r->blocks = realloc(r->blocks, (r->n_blocks + 1) * sizeof *r->blocks);
    cr_assert(r->blocks);
    r->blocks[r->n_blocks++] = (block_entry){*b, {copy(b->data, b->len), b->len}};
    return HS_OK;
}

static bytes *new_bytes(const void *p, size_t n) {
    bytes *b = malloc(sizeof *b);
    cr_assert(b);
    *b = (bytes){copy(p, n), n};
    return b;
}

static hs_status on_static(void *ctx, uint64_t addr, const uint8_t *p, size_t len,
                           hs_error *err) {
    (void)err;
    put(&((replay *)ctx)->statics, addr, new_bytes(p, len));
    return HS_OK;
}

static hs_status on_info(void *ctx, const heap_export_info *i, hs_error *err) {
    (void)err;
    cr_assert(i->raw_len >= 16, "info table 0x%llx exported without its bytes",
              (unsigned long long)i->info->ptr);
    put(&((replay *)ctx)->infos, i->info->ptr, new_bytes(i->raw, i->raw_len));
    return HS_OK;
}

/* Unavailable answers are kept as a NULL payload in a box. */
typedef struct box {
    void *v;
} box;

static box *boxed(void *v) {
    box *b = malloc(sizeof *b);
    cr_assert(b);
    b->v = v;
    return b;
}

static hs_status on_con_desc(void *ctx, uint64_t info, const char *text, hs_error *err) {
    (void)err;
    put(&((replay *)ctx)->con_descs, info, boxed(copy_str(text)));
    return HS_OK;
}

static void copy_si(wire_source_info *c, const wire_source_info *si) {
    *c = *si;
    c->name = copy_str(si->name);
    c->closure_type_text = copy_str(si->closure_type_text);
    c->type = copy_str(si->type);
    c->label = copy_str(si->label);
    c->module = copy_str(si->module);
    c->position = copy_str(si->position);
}

static hs_status on_source_info(void *ctx, uint64_t info, const wire_source_info *si,
                                hs_error *err) {
    (void)err;
    wire_source_info *c = NULL;
    if (si) {
        c = malloc(sizeof *c);
        cr_assert(c);
        copy_si(c, si);
    }
    put(&((replay *)ctx)->source_infos, info, boxed(c));
    return HS_OK;
}

static hs_status on_srt(void *ctx, uint64_t info, uint64_t srt, hs_error *err) {
    (void)err;
    put(&((replay *)ctx)->srts, info, boxed(copy(&srt, sizeof srt)));
    return HS_OK;
}

static void add_bitmap(bitmap_entry **items, size_t *n, uint64_t a, uint64_t b,
                       const uint8_t *bits, size_t count) {
    *items = realloc(*items, (*n + 1) * sizeof **items);
    cr_assert(*items);
    (*items)[(*n)++] = (bitmap_entry){a, b, {copy(bits, count), count}};
}

static hs_status on_frame_bitmap(void *ctx, const heap_export_frame_bitmap *b, hs_error *err) {
    (void)err;
    replay *r = ctx;
    add_bitmap(&r->frames, &r->n_frames, b->frame_info, b->frame, b->bits, b->count);
    return HS_OK;
}

static hs_status on_fun_bitmap(void *ctx, const heap_export_fun_bitmap *b, hs_error *err) {
    (void)err;
    replay *r = ctx;
    add_bitmap(&r->funs, &r->n_funs, b->fun_info, b->n, b->bits, b->n);
    return HS_OK;
}

static hs_status on_ccs(void *ctx, uint64_t addr, const wire_ccs *v, hs_error *err) {
    (void)err;
    put(&((replay *)ctx)->ccs, addr, copy(v, sizeof *v));
    return HS_OK;
}

static hs_status on_cc(void *ctx, uint64_t addr, const wire_cc *v, hs_error *err) {
    (void)err;
    wire_cc *c = copy(v, sizeof *v);
    c->label = copy_str(v->label);
    c->module = copy_str(v->module);
    c->srcloc = copy_str(v->srcloc);
    put(&((replay *)ctx)->cc, addr, c);
    return HS_OK;
}

static hs_status on_index(void *ctx, uint64_t addr, const wire_index_entry *v, hs_error *err) {
    (void)err;
    put(&((replay *)ctx)->index, addr, copy(v, sizeof *v));
    return HS_OK;
}

static void copy_list(wire_ptr_list *to, const wire_ptr_list *from) {
    *to = (wire_ptr_list){copy(from->items, from->count * sizeof *from->items), from->count,
                          from->count};
}

replay *replay_from_heap(heap *h, bool lazy) {
    replay *r = calloc(1, sizeof *r);
    cr_assert(r);
    hs_error err = {0};
    r->lazy = lazy;
    r->version = *heap_version(h);
    copy_list(&r->roots, heap_roots(h));
    copy_list(&r->saved, heap_saved_objects(h));
    cr_assert_eq(heap_load_all_blocks(h, &err), HS_OK, "%s", err.message);
    cr_assert_eq(heap_foreach_block(h, on_block, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_static(h, on_static, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_info(h, on_info, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_con_desc(h, on_con_desc, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_source_info(h, on_source_info, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_srt(h, on_srt, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_frame_bitmap(h, on_frame_bitmap, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_fun_bitmap(h, on_fun_bitmap, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_ccs(h, on_ccs, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_cc(h, on_cc, r, &err), HS_OK);
    cr_assert_eq(heap_foreach_index_entry(h, on_index, r, &err), HS_OK);
    r->ccs_main_known = heap_export_ccs_main(h, &r->ccs_main);
    return r;
}

static void free_values(u64map *m, void (*inner)(void *)) {
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        void *v = (void *)(uintptr_t)m->values[i];
        if (inner)
            inner(v);
        free(v);
    }
    u64map_free(m);
}

static void free_bytes(void *v) { free(((bytes *)v)->data); }
static void free_box_str(void *v) { free(((box *)v)->v); }
static void free_box_si(void *v) {
    wire_source_info *si = ((box *)v)->v;
    if (si)
        wire_source_info_free(si);
    free(si);
}
static void free_cc(void *v) { wire_cc_free(v); }

void replay_free(replay *r) {
    if (!r)
        return;
    free(r->roots.items);
    free(r->saved.items);
    for (size_t i = 0; i < r->n_blocks; i++)
        free(r->blocks[i].data.data);
    free(r->blocks);
    for (size_t i = 0; i < r->n_frames; i++)
        free(r->frames[i].bits.data);
    for (size_t i = 0; i < r->n_funs; i++)
        free(r->funs[i].bits.data);
    free(r->frames);
    free(r->funs);
    free_values(&r->statics, free_bytes);
    free_values(&r->infos, free_bytes);
    free_values(&r->con_descs, free_box_str);
    free_values(&r->source_infos, free_box_si);
    free_values(&r->srts, free_box_str);
    free_values(&r->ccs, NULL);
    free_values(&r->cc, free_cc);
    free_values(&r->index, NULL);
    free(r);
}

unsigned replay_misses(const replay *r) { return r->misses; }
unsigned replay_loads(const replay *r) { return r->loads; }

/* ---- answering ------------------------------------------------------- */

static hs_status missing(replay *r, hs_error *err, const char *what, uint64_t key) {
    (void)r;
    return hs_fail(err, HEAP_UNAVAILABLE, "replay: no %s for 0x%llx", what,
                   (unsigned long long)key);
}

static hs_status op_version(void *s, wire_version *o, hs_error *e) {
    (void)e;
    *o = ((replay *)s)->version;
    return HS_OK;
}

static hs_status op_roots(void *s, wire_ptr_list *o, hs_error *e) {
    (void)e;
    copy_list(o, &((replay *)s)->roots);
    return HS_OK;
}

static hs_status op_saved(void *s, wire_ptr_list *o, hs_error *e) {
    (void)e;
    copy_list(o, &((replay *)s)->saved);
    return HS_OK;
}

static hs_status op_blocks(void *s, heap_block_list *o, hs_error *e) {
    (void)e;
    replay *r = s;
    *o = (heap_block_list){0};
    o->items = calloc(r->n_blocks ? r->n_blocks : 1, sizeof *o->items);
    cr_assert(o->items);
    for (size_t i = 0; i < r->n_blocks; i++) {
        o->items[i] = r->blocks[i].b;
        o->items[i].data = NULL;
        if (!r->lazy) {
            uint8_t *d = copy(r->blocks[i].data.data, r->blocks[i].data.len);
            cr_assert(heap_block_list_adopt(o, d));
            o->items[i].data = d;
        }
    }
    o->count = r->n_blocks;
    return HS_OK;
}

static hs_status op_load_block(void *s, heap_block_list *o, size_t i, hs_error *e) {
    replay *r = s;
    if (i >= r->n_blocks)
        return missing(r, e, "block group", i);
    r->loads++;
    uint8_t *d = copy(r->blocks[i].data.data, r->blocks[i].data.len);
    if (!heap_block_list_adopt(o, d))
        return hs_fail(e, HS_ERR_NOMEM, "out of memory");
    o->items[i].data = d;
    return HS_OK;
}

/* Answers n byte strings from map m. */
static hs_status blobs(replay *r, const u64map *m, const char *what, const uint64_t *keys,
                       size_t n, heap_blobs *o, hs_error *e) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const bytes *b = get(r, m, keys[i]);
        if (!b)
            return missing(r, e, what, keys[i]);
        total += b->len;
    }
    uint8_t *storage = malloc(total ? total : 1);
    heap_blob *items = calloc(n ? n : 1, sizeof *items);
    cr_assert(storage && items);
    for (size_t i = 0, off = 0; i < n; i++) {
        const bytes *b = get(r, m, keys[i]);
        memcpy(storage + off, b->data, b->len);
        items[i] = (heap_blob){storage + off, b->len};
        off += b->len;
    }
    *o = (heap_blobs){items, n, storage};
    return HS_OK;
}

static hs_status op_closures(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    replay *r = s;
    return blobs(r, &r->statics, "static closure", p, n, o, e);
}

static hs_status op_infos(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    replay *r = s;
    return blobs(r, &r->infos, "info table", p, n, o, e);
}

static hs_status op_srts(void *s, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    replay *r = s;
    for (size_t i = 0; i < n; i++) {
        const box *b = get(r, &r->srts, p[i]);
        if (!b)
            return missing(r, e, "SRT", p[i]);
        o[i] = *(const uint64_t *)b->v;
    }
    return HS_OK;
}

static hs_status bitmap(replay *r, const bitmap_entry *items, size_t n, uint64_t a, uint64_t b,
                        heap_bitmap *o, hs_error *e) {
    for (size_t i = 0; i < n; i++) {
        if (items[i].a == a && items[i].b == b) {
            *o = (heap_bitmap){copy(items[i].bits.data, items[i].bits.len), items[i].bits.len};
            return HS_OK;
        }
    }
    r->misses++;
    return missing(r, e, "bitmap", a);
}

static hs_status op_frame_bitmap(void *s, uint64_t sp, uint32_t off, const heap_info *fi,
                                 heap_bitmap *o, hs_error *e) {
    replay *r = s;
    uint64_t frame = fi->type == HS_RET_BIG ? 0 : sp + off;
    return bitmap(r, r->frames, r->n_frames, fi->ptr, frame, o, e);
}

static hs_status op_fun_bitmap(void *s, uint64_t fun, const heap_info *fi, uint16_t n,
                               heap_bitmap *o, hs_error *e) {
    (void)fun;
    replay *r = s;
    return bitmap(r, r->funs, r->n_funs, fi->ptr, n, o, e);
}

static hs_status op_con_desc(void *s, uint64_t info, char **text, hs_error *e) {
    replay *r = s;
    const box *b = get(r, &r->con_descs, info);
    *text = b && b->v ? copy_str(b->v) : NULL;
    return *text ? HS_OK : missing(r, e, "constructor description", info);
}

static hs_status op_source_info(void *s, uint64_t info, wire_source_info *o, hs_error *e) {
    replay *r = s;
    const box *b = get(r, &r->source_infos, info);
    *o = (wire_source_info){0};
    if (!b || !b->v) /* asked before and had none is no miss */
        return b ? hs_fail(e, HEAP_UNAVAILABLE, "no source location")
                 : missing(r, e, "source info", info);
    copy_si(o, b->v);
    return HS_OK;
}

static hs_status op_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) {
    replay *r = s;
    const wire_ccs *v = get(r, &r->ccs, p);
    if (!v)
        return missing(r, e, "cost-centre stack", p);
    *o = *v;
    return HS_OK;
}

static hs_status op_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) {
    replay *r = s;
    const wire_cc *v = get(r, &r->cc, p);
    if (!v)
        return missing(r, e, "cost centre", p);
    *o = *v;
    o->label = copy_str(v->label);
    o->module = copy_str(v->module);
    o->srcloc = copy_str(v->srcloc);
    return HS_OK;
}

static hs_status op_index_entry(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    replay *r = s;
    const wire_index_entry *v = get(r, &r->index, p);
    if (!v)
        return missing(r, e, "index entry", p);
    *o = *v;
    return HS_OK;
}

static hs_status op_ccs_main(void *s, uint64_t *o, hs_error *e) {
    replay *r = s;
    if (!r->ccs_main_known) {
        r->misses++;
        return missing(r, e, "CCS_MAIN", 0);
    }
    *o = r->ccs_main;
    return HS_OK;
}

static const heap_source_ops replay_ops = {
    .version = op_version,
    .roots = op_roots,
    .saved_objects = op_saved,
    .blocks = op_blocks,
    .load_block = op_load_block,
    .closures = op_closures,
    .info_tables = op_infos,
    .srts = op_srts,
    .frame_bitmap = op_frame_bitmap,
    .fun_bitmap = op_fun_bitmap,
    .con_desc = op_con_desc,
    .source_info = op_source_info,
    .ccs = op_ccs,
    .cc = op_cc,
    .index_entry = op_index_entry,
    .ccs_main = op_ccs_main,
};

heap_source replay_source(replay *r) { return (heap_source){&replay_ops, r}; }
