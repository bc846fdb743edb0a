/* In-memory heap_source for the heap unit tests (see fake_source.h): a
 * source that is not the wire, answering the heap contract directly. */
#include "fake_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"

typedef struct region {
    uint64_t start;
    uint32_t len;
    bool block; /* else a static image */
    uint8_t *data;
} region;

typedef struct fake_info_entry {
    uint64_t ptr;
    uint32_t type;
    uint64_t layout;
    int32_t srt_field;
    uint64_t srt;
    char *desc;    /* constructors */
    char *ret_big; /* RET_BIG map */
    char *fun_map; /* function argument map */
    char *ipe_label, *ipe_module, *ipe_position; /* its source location, if given */
} fake_info_entry;

typedef struct fake_cost {
    uint64_t ccs, cc;
    int64_t id;
    const char *label, *module, *srcloc;
} fake_cost;

struct fake_source {
    wire_version version;
    fake_cost costs[8];
    size_t n_costs;
    region *regions;
    size_t n_regions;
    fake_info_entry *infos;
    size_t n_infos;
    fake_counts counts;
    bool lazy; /* blocks come unloaded; load_block brings them */
};

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "fake_source: out of memory\n");
        abort();
    }
    return p;
}

static void *xrealloc(void *p, size_t size) {
    p = realloc(p, size ? size : 1);
    if (!p) {
        fprintf(stderr, "fake_source: out of memory\n");
        abort();
    }
    return p;
}

fake_source *fake_new(uint32_t major, uint32_t patch, uint8_t prof_mode) {
    fake_source *f = xcalloc(1, sizeof *f);
    f->version = (wire_version){major, patch, prof_mode, true};
    return f;
}

void fake_free(fake_source *f) {
    if (!f)
        return;
    for (size_t i = 0; i < f->n_regions; i++)
        free(f->regions[i].data);
    for (size_t i = 0; i < f->n_infos; i++) {
        free(f->infos[i].desc);
        free(f->infos[i].ret_big);
        free(f->infos[i].fun_map);
        free(f->infos[i].ipe_label);
        free(f->infos[i].ipe_module);
        free(f->infos[i].ipe_position);
    }
    free(f->regions);
    free(f->infos);
    free(f);
}

fake_counts *fake_counts_of(fake_source *f) { return &f->counts; }

/* ---- memory ---------------------------------------------------------- */

static void add_region(fake_source *f, uint64_t start, uint32_t len, bool block) {
    f->regions = xrealloc(f->regions, (f->n_regions + 1) * sizeof *f->regions);
    f->regions[f->n_regions++] = (region){start, len, block, xcalloc(len, 1)};
}

void fake_add_block(fake_source *f, uint64_t start, uint32_t len) {
    add_region(f, start, len, true);
}

void fake_add_static(fake_source *f, uint64_t addr, uint32_t len) {
    add_region(f, addr, len, false);
}

static region *find_region(fake_source *f, uint64_t addr, size_t n);

void fake_add_block_copy(fake_source *f, uint64_t start, uint32_t len) {
    region *r = find_region(f, start, len);
    if (!r) {
        fprintf(stderr, "fake_source: no memory to copy at 0x%llx\n", (unsigned long long)start);
        abort();
    }
    const uint8_t *from = r->data + (start - r->start);
    add_region(f, start, len, true);
    memcpy(f->regions[f->n_regions - 1].data, from, len);
}

static region *find_region(fake_source *f, uint64_t addr, size_t n) {
    for (size_t i = 0; i < f->n_regions; i++) {
        region *r = &f->regions[i];
        if (addr >= r->start && addr - r->start <= r->len && n <= r->len - (addr - r->start))
            return r;
    }
    return NULL;
}

static uint8_t *at(fake_source *f, uint64_t addr, size_t n) {
    region *r = find_region(f, addr, n);
    if (!r) {
        fprintf(stderr, "fake_source: no memory at 0x%llx (+%zu)\n", (unsigned long long)addr, n);
        abort();
    }
    return r->data + (addr - r->start);
}

void fake_w8(fake_source *f, uint64_t addr, uint8_t v) { *at(f, addr, 1) = v; }
void fake_w16(fake_source *f, uint64_t addr, uint16_t v) { hs_store_le16(at(f, addr, 2), v); }
void fake_w32(fake_source *f, uint64_t addr, uint32_t v) { hs_store_le32(at(f, addr, 4), v); }
void fake_w64(fake_source *f, uint64_t addr, uint64_t v) { hs_store_le64(at(f, addr, 8), v); }
void fake_wbytes(fake_source *f, uint64_t addr, const void *bytes, size_t n) {
    if (n)
        memcpy(at(f, addr, n), bytes, n);
}
uint64_t fake_r64(fake_source *f, uint64_t addr) { return hs_load_le64(at(f, addr, 8)); }

/* Reads for the source operations: a missing word is an error answer. */
static bool try_r64(fake_source *f, uint64_t addr, uint64_t *out) {
    region *r = find_region(f, addr, 8);
    if (r)
        *out = hs_load_le64(r->data + (addr - r->start));
    return r != NULL;
}

/* ---- info tables ----------------------------------------------------- */

static fake_info_entry *find_info(fake_source *f, uint64_t ptr) {
    for (size_t i = 0; i < f->n_infos; i++)
        if (f->infos[i].ptr == ptr)
            return &f->infos[i];
    return NULL;
}

static fake_info_entry *info_entry(fake_source *f, uint64_t ptr) {
    fake_info_entry *e = find_info(f, ptr);
    if (e)
        return e;
    f->infos = xrealloc(f->infos, (f->n_infos + 1) * sizeof *f->infos);
    e = &f->infos[f->n_infos++];
    *e = (fake_info_entry){.ptr = ptr};
    return e;
}

static char *dup(const char *s) {
    char *d = xcalloc(strlen(s) + 1, 1);
    memcpy(d, s, strlen(s));
    return d;
}

void fake_info_layout(fake_source *f, uint64_t ptr, uint32_t type, uint64_t layout) {
    fake_info_entry *e = info_entry(f, ptr);
    e->type = type;
    e->layout = layout;
}

void fake_info(fake_source *f, uint64_t ptr, uint32_t type, uint32_t ptrs, uint32_t nptrs) {
    fake_info_layout(f, ptr, type, (uint64_t)nptrs << 32 | ptrs);
}

void fake_con(fake_source *f, uint64_t ptr, uint32_t type, uint32_t ptrs, uint32_t nptrs,
              const char *desc) {
    fake_info(f, ptr, type, ptrs, nptrs);
    fake_info_entry *e = info_entry(f, ptr);
    free(e->desc);
    e->desc = dup(desc);
}

void fake_srt(fake_source *f, uint64_t info, uint64_t srt) {
    fake_info_entry *e = info_entry(f, info);
    e->srt = srt;
    e->srt_field = srt ? 0x100 : 0;
}

void fake_ret_big(fake_source *f, uint64_t info, const char *map) {
    fake_info_entry *e = info_entry(f, info);
    free(e->ret_big);
    e->ret_big = dup(map);
}

void fake_fun_map(fake_source *f, uint64_t fun_info, const char *map) {
    fake_info_entry *e = info_entry(f, fun_info);
    free(e->fun_map);
    e->fun_map = dup(map);
}

uint64_t fake_small_layout(const char *map) {
    size_t n = strlen(map);
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++)
        if (map[i] == 'N')
            bits |= UINT64_C(1) << i;
    return bits << 6 | n;
}

/* ---- the source operations ------------------------------------------- */

static hs_status op_version(void *self, wire_version *out, hs_error *err) {
    (void)err;
    *out = ((fake_source *)self)->version;
    return HS_OK;
}

static hs_status op_empty_list(void *self, wire_ptr_list *out, hs_error *err) {
    (void)self;
    (void)err;
    *out = (wire_ptr_list){0};
    return HS_OK;
}

/* The block regions as a list: each group's bytes copied into one adopted
 * buffer, or (lazy) none until load_block. */
static hs_status op_blocks(void *self, heap_block_list *out, hs_error *err) {
    (void)err;
    fake_source *f = self;
    size_t total = 0, n = 0;
    for (size_t i = 0; i < f->n_regions; i++)
        if (f->regions[i].block) {
            total += f->regions[i].len;
            n++;
        }
    *out = (heap_block_list){0};
    out->items = xcalloc(n, sizeof *out->items);
    uint8_t *body = f->lazy ? NULL : xcalloc(total, 1);
    if (body && !heap_block_list_adopt(out, body))
        abort();
    size_t off = 0;
    for (size_t i = 0; i < f->n_regions; i++) {
        const region *r = &f->regions[i];
        if (!r->block)
            continue;
        if (body)
            memcpy(body + off, r->data, r->len);
        out->items[out->count++] = (heap_block){r->start, r->len, 0, body ? body + off : NULL};
        off += r->len;
    }
    return HS_OK;
}

static hs_status op_load_block(void *self, heap_block_list *out, size_t i, hs_error *err) {
    fake_source *f = self;
    f->counts.load_block++;
    if (i >= out->count)
        return hs_fail(err, HS_ERR_INTERNAL, "fake: no block group %zu", i);
    region *r = NULL; /* the i-th block region (ALL_BLOCKS' order), else by address */
    for (size_t k = 0, b = 0; k < f->n_regions && !r; k++)
        if (f->regions[k].block && b++ == i && f->regions[k].start == out->items[i].start &&
            f->regions[k].len == out->items[i].len)
            r = &f->regions[k];
    if (!r)
        r = find_region(f, out->items[i].start, out->items[i].len);
    if (!r || !r->block)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: block group %zu is gone", i);
    uint8_t *copy = xcalloc(r->len, 1);
    memcpy(copy, r->data + (out->items[i].start - r->start), out->items[i].len);
    if (!heap_block_list_adopt(out, copy))
        return hs_fail(err, HS_ERR_NOMEM, "fake: out of memory");
    out->items[i].data = copy;
    return HS_OK;
}

/* Fills blobs with one item per request. */
static void make_blobs(heap_blobs *out, size_t n, const uint8_t **data, const size_t *lens) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lens[i];
    uint8_t *body = xcalloc(total, 1);
    *out = (heap_blobs){xcalloc(n, sizeof *out->items), n, body};
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        if (lens[i])
            memcpy(body + off, data[i], lens[i]);
        out->items[i] = (heap_blob){body + off, lens[i]};
        off += lens[i];
    }
}

static hs_status op_closures(void *self, const uint64_t *ptrs, size_t n, heap_blobs *out,
                             hs_error *err) {
    fake_source *f = self;
    f->counts.closures++;
    const uint8_t **data = xcalloc(n, sizeof *data);
    size_t *lens = xcalloc(n, sizeof *lens);
    for (size_t i = 0; i < n; i++) {
        region *r = find_region(f, wire_untag(ptrs[i]), 8);
        if (!r) {
            free(data);
            free(lens);
            return hs_fail(err, HEAP_UNAVAILABLE, "fake: no closure at 0x%llx",
                           (unsigned long long)ptrs[i]);
        }
        uint64_t a = wire_untag(ptrs[i]);
        data[i] = r->data + (a - r->start);
        lens[i] = r->len - (a - r->start);
    }
    make_blobs(out, n, data, lens);
    free(data);
    free(lens);
    return HS_OK;
}

static hs_status op_info_tables(void *self, const uint64_t *ptrs, size_t n, heap_blobs *out,
                                hs_error *err) {
    fake_source *f = self;
    f->counts.info_tables++;
    size_t s = f->version.prof_mode ? 32 : 16;
    uint8_t *tables = xcalloc(n, 32);
    const uint8_t **data = xcalloc(n, sizeof *data);
    size_t *lens = xcalloc(n, sizeof *lens);
    hs_status st = HS_OK;
    for (size_t i = 0; i < n && st == HS_OK; i++) {
        const fake_info_entry *e = find_info(f, ptrs[i]);
        if (!e) {
            st = hs_fail(err, HEAP_UNAVAILABLE, "fake: no info table 0x%llx",
                         (unsigned long long)ptrs[i]);
            break;
        }
        uint8_t *t = tables + 32 * i, *std = t + s - 16;
        hs_store_le64(std, e->layout);
        hs_store_le32(std + 8, e->type);
        hs_store_le32(std + 12, (uint32_t)e->srt_field);
        data[i] = t;
        lens[i] = s;
    }
    if (st == HS_OK)
        make_blobs(out, n, data, lens);
    free(tables);
    free(data);
    free(lens);
    return st;
}

static hs_status op_srts(void *self, const uint64_t *infos, size_t n, uint64_t *out,
                         hs_error *err) {
    (void)err;
    fake_source *f = self;
    f->counts.srts++;
    for (size_t i = 0; i < n; i++) {
        const fake_info_entry *e = find_info(f, infos[i]);
        out[i] = e ? e->srt : 0;
    }
    return HS_OK;
}

/* n entries of a 'P'/'N' map; entries past its end are pointers. */
static void map_bits(const char *map, size_t n, heap_bitmap *out) {
    size_t len = map ? strlen(map) : 0;
    out->bits = xcalloc(n, 1);
    out->count = n;
    for (size_t i = 0; i < n; i++)
        out->bits[i] = i < len ? map[i] == 'P' : 1;
}

/* A RET_BIG frame's map comes from its info table, a RET_FUN frame's from
 * its function's argument map and size word; other frames are described
 * by their layout word, which the heap reads itself. */
static hs_status op_frame_bitmap(void *self, uint64_t sp, uint32_t offset,
                                 const heap_info *frame_info, heap_bitmap *out, hs_error *err) {
    fake_source *f = self;
    f->counts.stack_bitmap++;
    uint64_t c = sp + offset, n = 0, fun = 0, fun_info = 0;
    const fake_info_entry *e = find_info(f, frame_info->ptr);
    *out = (heap_bitmap){0};
    if (!e || e->type != frame_info->type)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: unknown frame info");
    if (e->type == HS_RET_BIG) {
        map_bits(e->ret_big, e->ret_big ? strlen(e->ret_big) : 0, out);
        return HS_OK;
    }
    if (e->type != HS_RET_FUN)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: frame type %u has no bitmap", e->type);
    if (!try_r64(f, c + 8, &n) || !try_r64(f, c + 16, &fun) ||
        !try_r64(f, wire_untag(fun), &fun_info) || n > 0xFFFF)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: RET_FUN frame unreadable");
    const fake_info_entry *fe = find_info(f, fun_info);
    map_bits(fe ? fe->fun_map : NULL, (size_t)n, out);
    return HS_OK;
}

static hs_status op_fun_bitmap(void *self, uint64_t fun, const heap_info *fun_info, uint16_t n,
                               heap_bitmap *out, hs_error *err) {
    (void)fun;
    fake_source *f = self;
    f->counts.fun_bitmap++;
    const fake_info_entry *e = find_info(f, fun_info->ptr);
    if (!e)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: function without info");
    map_bits(e->fun_map, n, out);
    return HS_OK;
}

static hs_status op_con_desc(void *self, uint64_t info, char **text, hs_error *err) {
    fake_source *f = self;
    f->counts.con_desc++;
    const fake_info_entry *e = find_info(f, info);
    *text = NULL;
    if (!e || !e->desc)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: no constructor description");
    *text = dup(e->desc);
    return HS_OK;
}

static hs_status op_source_info(void *self, uint64_t info, wire_source_info *out,
                                hs_error *err) {
    fake_source *f = self;
    f->counts.source_info++;
    *out = (wire_source_info){0};
    const fake_info_entry *e = find_info(f, info);
    if (!e || !e->ipe_label)
        return hs_fail(err, HEAP_UNAVAILABLE, "fake: no source locations");
    *out = (wire_source_info){.found = true, .name = dup("fake_info"),
                              .closure_type_text = dup("0"), .type = dup(""),
                              .label = dup(e->ipe_label), .module = dup(e->ipe_module),
                              .position = dup(e->ipe_position)};
    return HS_OK;
}

void fake_source_location(fake_source *f, uint64_t info, const char *label, const char *module,
                          const char *position) {
    fake_info_entry *e = info_entry(f, info);
    free(e->ipe_label);
    free(e->ipe_module);
    free(e->ipe_position);
    e->ipe_label = dup(label);
    e->ipe_module = dup(module);
    e->ipe_position = dup(position);
}

void fake_cost_centre(fake_source *f, uint64_t ccs, uint64_t cc, int64_t id, const char *label,
                      const char *module, const char *srcloc) {
    if (f->n_costs == sizeof f->costs / sizeof f->costs[0]) {
        fprintf(stderr, "fake_source: too many cost centres\n");
        abort();
    }
    f->costs[f->n_costs++] = (fake_cost){ccs, cc, id, label, module, srcloc};
}

static char *xstrdup(const char *s) {
    char *d = xcalloc(strlen(s) + 1, 1);
    memcpy(d, s, strlen(s) + 1);
    return d;
}

static hs_status op_ccs(void *self, uint64_t p, wire_ccs *out, hs_error *err) {
    fake_source *f = self;
    f->counts.ccs++;
    for (size_t i = 0; i < f->n_costs; i++)
        if (f->costs[i].ccs == p) {
            *out = (wire_ccs){.id = f->costs[i].id, .cc = f->costs[i].cc};
            return HS_OK;
        }
    return hs_fail(err, HEAP_UNAVAILABLE, "fake: no CCS at 0x%llx", (unsigned long long)p);
}
static hs_status op_cc(void *self, uint64_t p, wire_cc *out, hs_error *err) {
    fake_source *f = self;
    f->counts.cc++;
    for (size_t i = 0; i < f->n_costs; i++)
        if (f->costs[i].cc == p) {
            *out = (wire_cc){.id = f->costs[i].id, .label = xstrdup(f->costs[i].label),
                             .module = xstrdup(f->costs[i].module),
                             .srcloc = xstrdup(f->costs[i].srcloc)};
            return HS_OK;
        }
    return hs_fail(err, HEAP_UNAVAILABLE, "fake: no CC at 0x%llx", (unsigned long long)p);
}
static hs_status op_index_entry(void *self, uint64_t p, wire_index_entry *out, hs_error *err) {
    (void)self, (void)p, (void)out;
    return hs_fail(err, HEAP_UNAVAILABLE, "fake: no index table");
}
static hs_status op_ccs_main(void *self, uint64_t *out, hs_error *err) {
    (void)self, (void)out;
    return hs_fail(err, HEAP_UNAVAILABLE, "fake: no CCS_MAIN");
}

const heap_source_ops fake_source_ops = {
    .version = op_version,
    .roots = op_empty_list,
    .saved_objects = op_empty_list,
    .blocks = op_blocks,
    .load_block = op_load_block,
    .closures = op_closures,
    .info_tables = op_info_tables,
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

heap_source fake_heap_source(fake_source *f) { return (heap_source){&fake_source_ops, f}; }

void fake_set_lazy(fake_source *f, bool lazy) { f->lazy = lazy; }
