/* The fuzz input as a heap source (fuzz_source.h), and the walk over the
 * heap it makes. */
#include "fuzz_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heapscope/query.h"

static const uint32_t ghc_majors[8] = {900, 902, 904, 906, 908, 910, 912, 810};

bool fuzz_source_init(fuzz_source *f, const uint8_t *data, size_t size) {
    *f = (fuzz_source){0};
    f->version.major = 910;
    f->version.tntc = true;
    if (size >= FUZZ_HEADER_BYTES) {
        f->version.prof_mode = data[0] % 6;
        f->version.major = ghc_majors[data[1] & 7];
        f->version.tntc = !(data[1] & 8);
        data += FUZZ_HEADER_BYTES;
        size -= FUZZ_HEADER_BYTES;
    }
    f->cap = size / FUZZ_RECORD_HEAD + 1;
    f->records = malloc(f->cap * sizeof *f->records);
    if (!f->records)
        return false;
    while (size >= FUZZ_RECORD_HEAD) {
        fuzz_record *r = &f->records[f->n_records++];
        r->kind = data[0] % FUZZ_RECORD_KINDS;
        r->key = hs_load_le64(data + 1);
        size_t len = hs_load_le16(data + 9);
        data += FUZZ_RECORD_HEAD;
        size -= FUZZ_RECORD_HEAD;
        r->len = len < size ? len : size;
        r->bytes = data;
        data += r->len;
        size -= r->len;
    }
    return true;
}

void fuzz_source_free(fuzz_source *f) {
    free(f->records);
    *f = (fuzz_source){0};
}

bool fuzz_source_add(fuzz_source *f, uint8_t kind, uint64_t key, const uint8_t *bytes,
                     size_t len) {
    if (f->n_records == f->cap) {
        size_t cap = 2 * f->cap + 8;
        fuzz_record *r = realloc(f->records, cap * sizeof *r);
        if (!r)
            return false;
        f->records = r;
        f->cap = cap;
    }
    f->records[f->n_records++] = (fuzz_record){kind, key, bytes, len};
    return true;
}

static const fuzz_record *find(const fuzz_source *f, uint8_t kind, uint64_t key) {
    for (size_t i = 0; i < f->n_records; i++)
        if (f->records[i].kind == kind && f->records[i].key == key)
            return &f->records[i];
    return NULL;
}

static hs_status unavailable(hs_error *err, const char *what, uint64_t key) {
    return hs_fail(err, HEAP_UNAVAILABLE, "the fuzz input has no %s for 0x%llx", what,
                   (unsigned long long)key);
}

static hs_status src_version(void *self, wire_version *out, hs_error *err) {
    (void)err;
    *out = ((fuzz_source *)self)->version;
    return HS_OK;
}

static hs_status list_of(const fuzz_source *f, uint8_t kind, wire_ptr_list *out,
                         hs_error *err) {
    *out = (wire_ptr_list){0};
    for (size_t i = 0; i < f->n_records; i++) {
        if (f->records[i].kind != kind)
            continue;
        if (out->count == out->cap) {
            size_t cap = out->cap ? 2 * out->cap : 8;
            uint64_t *items = realloc(out->items, cap * sizeof *items);
            if (!items) {
                wire_ptr_list_free(out);
                return hs_fail(err, HS_ERR_NOMEM, "out of memory");
            }
            out->items = items;
            out->cap = cap;
        }
        out->items[out->count++] = wire_untag(f->records[i].key); /* as the wire decodes */
    }
    return HS_OK;
}

static hs_status src_roots(void *self, wire_ptr_list *out, hs_error *err) {
    return list_of(self, FUZZ_ROOT, out, err);
}

static hs_status src_saved(void *self, wire_ptr_list *out, hs_error *err) {
    return list_of(self, FUZZ_SAVED, out, err);
}

static hs_status src_blocks(void *self, heap_block_list *out, hs_error *err) {
    const fuzz_source *f = self;
    *out = (heap_block_list){0};
    out->items = malloc((f->n_records + 1) * sizeof *out->items);
    if (!out->items)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < f->n_records; i++) {
        const fuzz_record *r = &f->records[i];
        if (r->kind != FUZZ_BLOCK || r->len < 2)
            continue;
        out->items[out->count++] =
            (heap_block){r->key, (uint32_t)(r->len - 2), hs_load_le16(r->bytes), r->bytes + 2};
    }
    return HS_OK;
}

/* One blob per key, or the whole batch refused (as a stub refuses it). */
static hs_status blobs_of(const fuzz_source *f, uint8_t kind, const uint64_t *keys, size_t n,
                          heap_blobs *out, hs_error *err) {
    *out = (heap_blobs){0};
    out->items = malloc((n ? n : 1) * sizeof *out->items);
    if (!out->items)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const fuzz_record *r = find(f, kind, keys[i]);
        if (!r) {
            heap_blobs_free(out);
            return unavailable(err, kind == FUZZ_INFO ? "info table" : "closure", keys[i]);
        }
        out->items[i] = (heap_blob){r->bytes, r->len};
    }
    out->count = n;
    return HS_OK;
}

static hs_status src_closures(void *self, const uint64_t *addrs, size_t n, heap_blobs *out,
                              hs_error *err) {
    return blobs_of(self, FUZZ_STATIC, addrs, n, out, err);
}

static hs_status src_infos(void *self, const uint64_t *infos, size_t n, heap_blobs *out,
                           hs_error *err) {
    return blobs_of(self, FUZZ_INFO, infos, n, out, err);
}

static hs_status src_srts(void *self, const uint64_t *infos, size_t n, uint64_t *out,
                          hs_error *err) {
    (void)err;
    for (size_t i = 0; i < n; i++) {
        const fuzz_record *r = find(self, FUZZ_SRT, infos[i]);
        out[i] = r && r->len >= 8 ? wire_untag(hs_load_le64(r->bytes)) : 0;
    }
    return HS_OK;
}

static hs_status bitmap_of(const fuzz_record *r, heap_bitmap *out, hs_error *err) {
    *out = (heap_bitmap){0};
    out->bits = malloc(r->len ? r->len : 1);
    if (!out->bits)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < r->len; i++)
        out->bits[i] = r->bytes[i] & 1;
    out->count = r->len;
    return HS_OK;
}

static hs_status src_frame_bitmap(void *self, uint64_t sp, uint32_t offset,
                                  const heap_info *frame_info, heap_bitmap *out,
                                  hs_error *err) {
    const fuzz_record *r = find(self, FUZZ_FRAME_BITMAP, frame_info->ptr);
    if (!r)
        return unavailable(err, "frame bitmap", sp + offset);
    return bitmap_of(r, out, err);
}

static hs_status src_fun_bitmap(void *self, uint64_t fun, const heap_info *fun_info,
                                uint16_t n, heap_bitmap *out, hs_error *err) {
    (void)n; /* a peer may answer any length */
    const fuzz_record *r = find(self, FUZZ_FUN_BITMAP, fun_info->ptr);
    if (!r)
        return unavailable(err, "function bitmap", fun);
    return bitmap_of(r, out, err);
}

static hs_status src_con_desc(void *self, uint64_t info, char **text, hs_error *err) {
    const fuzz_record *r = find(self, FUZZ_CON_DESC, info);
    *text = NULL;
    if (!r)
        return unavailable(err, "constructor description", info);
    if (!(*text = strndup((const char *)r->bytes, r->len)))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

static hs_status src_source_info(void *self, uint64_t info, wire_source_info *out,
                                 hs_error *err) {
    const fuzz_record *r = find(self, FUZZ_SOURCE_INFO, info);
    *out = (wire_source_info){0};
    return r ? wire_decode_source_info(r->bytes, r->len, out, err)
             : unavailable(err, "source information", info);
}

static hs_status src_ccs(void *self, uint64_t addr, wire_ccs *out, hs_error *err) {
    const fuzz_record *r = find(self, FUZZ_CCS, addr);
    return r ? wire_decode_ccs(r->bytes, r->len, out, err)
             : unavailable(err, "cost-centre stack", addr);
}

static hs_status src_cc(void *self, uint64_t addr, wire_cc *out, hs_error *err) {
    const fuzz_record *r = find(self, FUZZ_CC, addr);
    *out = (wire_cc){0};
    return r ? wire_decode_cc(r->bytes, r->len, out, err)
             : unavailable(err, "cost centre", addr);
}

static hs_status src_index_entry(void *self, uint64_t addr, wire_index_entry *out,
                                 hs_error *err) {
    const fuzz_record *r = find(self, FUZZ_INDEX, addr);
    return r ? wire_decode_index_entry(r->bytes, r->len, out, err)
             : unavailable(err, "index-table entry", addr);
}

static hs_status src_ccs_main(void *self, uint64_t *out, hs_error *err) {
    const fuzz_source *f = self;
    for (size_t i = 0; i < f->n_records; i++)
        if (f->records[i].kind == FUZZ_CCS_MAIN) {
            *out = f->records[i].key;
            return HS_OK;
        }
    return unavailable(err, "CCS_MAIN", 0);
}

static const heap_source_ops fuzz_ops = {
    .version = src_version,
    .roots = src_roots,
    .saved_objects = src_saved,
    .blocks = src_blocks,
    .closures = src_closures,
    .info_tables = src_infos,
    .srts = src_srts,
    .frame_bitmap = src_frame_bitmap,
    .fun_bitmap = src_fun_bitmap,
    .con_desc = src_con_desc,
    .source_info = src_source_info,
    .ccs = src_ccs,
    .cc = src_cc,
    .index_entry = src_index_entry,
    .ccs_main = src_ccs_main,
};

heap_source fuzz_source_heap(fuzz_source *f) { return (heap_source){&fuzz_ops, f}; }

/* ---- the walk ---------------------------------------------------------- */

#define WALK_MAX_VISITS 2048u
#define WALK_BLOCK_WORDS 64u

typedef struct walk {
    unsigned visits;
} walk;

/* Everything a view shows of one closure. */
static void show_closure(heap *h, const heap_closure *c) {
    char text[512], file[128], span[64];
    heap_closure_label(h, c, text, sizeof text);
    heap_census_key(c, text, sizeof text);
    for (size_t i = 0; i < c->n_edges; i++) {
        heap_edge_label(&c->edges[i], text, sizeof text);
        heap_closure_edge_label(h, c, i, text, sizeof text); /* frames: kind and IPE */
    }
    for (size_t i = 0; i < c->n_frames; i++)
        heap_frame_text(h, c->frames[i].info, text, sizeof text);
    if (c->type == HS_TSO) /* its label, read through its label pointer */
        query_thread_label(h, c, text, sizeof text);
    uint64_t era;
    heap_closure_era(h, c, &era);
    heap_prof_info pi;
    heap_prof_describe(h, &c->prof, &pi);
    heap_prof_state_text(&pi, HEAP_PROF_PANE, text, sizeof text);
    heap_prof_cc_text(&pi, HEAP_PROF_LINE, text, sizeof text);
    const wire_source_info *ipe = NULL;
    hs_error err;
    if (c->info && heap_info_source(h, c->info, &ipe, &err) == HS_OK && ipe && ipe->position)
        heap_position_split(ipe->position, file, sizeof file, span, sizeof span);
    if (c->type == HS_ARR_WORDS) {
        uint8_t page[64];
        size_t got;
        uint64_t total, off;
        heap_payload_read(h, c->addr, c->count / 2, page, sizeof page, &got, &total, &err);
        heap_payload_index(h, c, c->addr + 24, &off);
    }
}

static query_action visit(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)depth;
    walk *w = ctx;
    show_closure(h, c);
    return ++w->visits >= WALK_MAX_VISITS ? QUERY_STOP : QUERY_CONTINUE;
}

static bool on_match(void *ctx, heap *h, const query_match *m) {
    (void)h;
    walk *w = ctx;
    return m->n_steps > 0 && ++w->visits < 2 * WALK_MAX_VISITS;
}

/* Addresses typed by a person: every word at the start of every group. */
static void decode_block_words(heap *h) {
    size_t n;
    const heap_block_range *r = heap_block_ranges(h, &n);
    heap_closure c = {0};
    hs_error err;
    char text[256];
    for (size_t i = 0; i < n; i++)
        for (uint64_t a = r[i].lo; a < r[i].hi && a < r[i].lo + 8 * WALK_BLOCK_WORDS; a += 8)
            if (heap_decode_named(h, a, &c, &err) == HS_OK)
                heap_closure_label(h, &c, text, sizeof text);
    heap_closure_free(&c);
}

/* Every query once; after a refresh (full is false) the traversal only. */
static void walk_once(heap *h, bool full) {
    hs_error err;
    const wire_ptr_list *roots = heap_roots(h), *saved = heap_saved_objects(h);
    heap_prefetch(h, roots->items, roots->count, &err);
    query_starts phases[2] = {{roots->items, roots->count}, {saved->items, saved->count}};
    walk w = {0};
    query_traversal t = {.visit = visit, .ctx = &w};
    query_traversal_stats stats;
    query_traverse_phases(h, phases, 2, &t, &stats, &err);
    if (!full)
        return;

    query_search s = {.paths = true, .limit = 64, .on_match = on_match, .ctx = &w};
    query_search_stats ss;
    query_search_run(h, &s, &ss, &err);

    query_dominators *d = NULL;
    if (query_dominators_run(h, NULL, NULL, &d, &err) == HS_OK) {
        query_dominators_info info;
        query_dominators_stats(d, &info);
        query_dominators_free(d);
    }
    decode_block_words(h);
}

void fuzz_heap_walk(heap_source src) {
    heap *h = NULL;
    hs_error err;
    if (heap_open(src, &h, &err) != HS_OK)
        return;
    walk_once(h, true);
    if (heap_refresh(h, &err) == HS_OK)
        walk_once(h, false);
    heap_free(h);
}

/* ---- scratch file ---------------------------------------------------- */

static char scratch_path[4096];
static int scratch_fd = -1;

static void remove_scratch(void) { unlink(scratch_path); }

int fuzz_scratch_file(void) {
    if (scratch_fd >= 0)
        return scratch_fd;
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(scratch_path, sizeof scratch_path, "%s/heapscope-fuzz-XXXXXX", dir ? dir : "/tmp");
    scratch_fd = mkstemp(scratch_path);
    if (scratch_fd >= 0)
        atexit(remove_scratch);
    return scratch_fd;
}

const char *fuzz_scratch_path(void) { return scratch_path; }
