/* Hand-built heaps for the query tests (see query_heap.h). */
#include "query_heap.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_source.h"
#include "heapscope/closure_type.h"

#define BLOCK_LEN 0x10000u
#define STATIC_LEN 0x1000u
#define MAX_ITEMS 64

typedef struct ipe_entry {
    uint64_t info;
    const char *name, *position, *label, *module;
} ipe_entry;

typedef struct ccs_entry {
    uint64_t addr;
    int64_t cc_id;
    uint64_t first; /* first index-table entry (an index into entries + 1), 0 = none */
} ccs_entry;

typedef struct index_entry {
    uint64_t ccs;
    bool back_edge;
    size_t next; /* index + 1, 0 = end */
} index_entry;

struct qh {
    fake_source *f;
    heap_source inner;
    unsigned H;
    uint64_t next, next_static, next_info;
    struct {
        const char *desc;
        uint64_t info;
    } cons[MAX_ITEMS];
    size_t n_cons;
    uint64_t weak_info;
    uint64_t plain_info[HS_N_CLOSURE_TYPES];
    uint64_t roots[MAX_ITEMS], saved[MAX_ITEMS];
    size_t n_roots, n_saved;
    ipe_entry ipes[MAX_ITEMS];
    size_t n_ipes;
    ccs_entry ccs[MAX_ITEMS];
    size_t n_ccs;
    index_entry index[MAX_ITEMS];
    size_t n_index;
    uint64_t ccs_main;
    unsigned source_info_requests;
    uint32_t ghc_major; /* VERSION's GHC when set, else the fake source's 9.10 */
    heap *h;
};

/* Index-table entries are addressed as 0x4e0000 + 0x20 * i; cost centres
 * as the CCS address + 1 (the CC request gets it back). */
#define INDEX_BASE UINT64_C(0x4e0000)

qh *qh_new(uint8_t prof_mode) {
    qh *q = calloc(1, sizeof *q);
    cr_assert(q);
    q->f = fake_new(910, 0, prof_mode);
    q->inner = fake_heap_source(q->f);
    q->H = prof_mode == WIRE_PROF_NONE ? 8 : 24;
    fake_add_block(q->f, QH_BLOCK, BLOCK_LEN);
    fake_add_static(q->f, QH_STATIC, STATIC_LEN);
    q->next = QH_BLOCK;
    q->next_static = QH_STATIC;
    q->next_info = 0x401000;
    return q;
}

void qh_free(qh *q) {
    heap_free(q->h);
    fake_free(q->f);
    free(q);
}

uint64_t qh_con_info(qh *q, const char *desc, uint32_t n_ptrs, uint32_t n_data) {
    for (size_t i = 0; i < q->n_cons; i++)
        if (!strcmp(q->cons[i].desc, desc))
            return q->cons[i].info;
    cr_assert_lt(q->n_cons, MAX_ITEMS);
    uint64_t info = q->next_info;
    q->next_info += 0x40;
    fake_con(q->f, info, HS_CONSTR, n_ptrs, n_data, desc);
    q->cons[q->n_cons].desc = desc;
    q->cons[q->n_cons++].info = info;
    return info;
}

static uint64_t alloc(qh *q, uint64_t info, uint32_t words, bool in_static) {
    uint64_t *next = in_static ? &q->next_static : &q->next;
    uint64_t a = *next;
    *next += q->H + 8u * words;
    fake_w64(q->f, a, info);
    if (q->H > 8) {
        fake_w64(q->f, a + 8, 0);
        fake_w64(q->f, a + 16, in_static ? 0 : 1); /* era 1 unless set */
    }
    return a;
}

uint64_t qh_con(qh *q, const char *desc, uint32_t n_ptrs, const uint64_t *ptrs, uint32_t n_data) {
    uint64_t a = alloc(q, qh_con_info(q, desc, n_ptrs, n_data), n_ptrs + n_data, false);
    for (uint32_t i = 0; i < n_ptrs; i++)
        fake_w64(q->f, a + q->H + 8u * i, ptrs[i]);
    return a;
}

uint64_t qh_static_con_ptrs(qh *q, const char *desc, uint32_t n_ptrs, const uint64_t *ptrs,
                           uint32_t n_data) {
    uint64_t a = alloc(q, qh_con_info(q, desc, n_ptrs, n_data), n_ptrs + n_data, true);
    for (uint32_t i = 0; i < n_ptrs; i++)
        fake_w64(q->f, a + q->H + 8u * i, ptrs[i]);
    return a;
}

uint64_t qh_static_con(qh *q, const char *desc) {
    return alloc(q, qh_con_info(q, desc, 0, 1), 1, true);
}

uint64_t qh_plain(qh *q, uint32_t type, uint32_t n_ptrs, const uint64_t *ptrs, uint32_t n_data) {
    if (!q->plain_info[type]) {
        q->plain_info[type] = q->next_info;
        q->next_info += 0x40;
        fake_info(q->f, q->plain_info[type], type, n_ptrs, n_data);
    }
    uint64_t a = alloc(q, q->plain_info[type], n_ptrs + n_data, false);
    for (uint32_t i = 0; i < n_ptrs; i++)
        fake_w64(q->f, a + q->H + 8u * i, ptrs[i]);
    return a;
}

uint64_t qh_new_info(qh *q, uint32_t type, uint32_t n_ptrs, uint32_t n_data) {
    uint64_t info = q->next_info;
    q->next_info += 0x40;
    fake_info(q->f, info, type, n_ptrs, n_data);
    return info;
}

uint64_t qh_with_info(qh *q, uint64_t info, uint32_t n_ptrs, const uint64_t *ptrs,
                      uint32_t n_data) {
    uint64_t a = alloc(q, info, n_ptrs + n_data, false);
    for (uint32_t i = 0; i < n_ptrs; i++)
        fake_w64(q->f, a + q->H + 8u * i, ptrs[i]);
    return a;
}

uint64_t qh_weak(qh *q, uint64_t key, uint64_t value) {
    uint64_t none = qh_static_con(q, "base:GHC.Weak.NoFinalizer");
    /* cfinalizers, key, value, finalizer, link (heap-layout.md) */
    uint64_t f[5] = {none, key, value, none, 0};
    return qh_plain(q, HS_WEAK, 5, f, 0);
}

void qh_set_era(qh *q, uint64_t addr, uint64_t era) {
    cr_assert_gt(q->H, 8u);
    fake_w64(q->f, addr + 16, era);
}

void qh_set_ccs(qh *q, uint64_t addr, uint64_t ccs) {
    cr_assert_gt(q->H, 8u);
    fake_w64(q->f, addr + 8, ccs);
}

void qh_set_ptr(qh *q, uint64_t addr, uint32_t i, uint64_t target) {
    fake_w64(q->f, addr + q->H + 8u * i, target);
}

void qh_root(qh *q, uint64_t addr) {
    cr_assert_lt(q->n_roots, MAX_ITEMS);
    q->roots[q->n_roots++] = addr;
}

void qh_saved(qh *q, uint64_t addr) {
    cr_assert_lt(q->n_saved, MAX_ITEMS);
    q->saved[q->n_saved++] = addr;
}

void qh_ipe(qh *q, uint64_t info, const char *name, const char *position) {
    cr_assert_lt(q->n_ipes, MAX_ITEMS);
    q->ipes[q->n_ipes++] = (ipe_entry){info, name, position, "", "Main"};
}

void qh_ipe_full(qh *q, uint64_t info, const char *name, const char *label, const char *module,
                 const char *position) {
    cr_assert_lt(q->n_ipes, MAX_ITEMS);
    q->ipes[q->n_ipes++] = (ipe_entry){info, name, position, label, module};
}

static ccs_entry *find_ccs(qh *q, uint64_t addr) {
    for (size_t i = 0; i < q->n_ccs; i++)
        if (q->ccs[i].addr == addr)
            return &q->ccs[i];
    return NULL;
}

void qh_ccs(qh *q, uint64_t ccs_addr, int64_t cc_id) {
    cr_assert_lt(q->n_ccs, MAX_ITEMS);
    q->ccs[q->n_ccs++] = (ccs_entry){ccs_addr, cc_id, 0};
}

void qh_ccs_child(qh *q, uint64_t parent, uint64_t child, bool back_edge) {
    ccs_entry *p = find_ccs(q, parent);
    cr_assert(p && q->n_index < MAX_ITEMS);
    q->index[q->n_index] = (index_entry){child, back_edge, 0};
    size_t me = ++q->n_index; /* index + 1 */
    if (!p->first) {
        p->first = me;
        return;
    }
    size_t e = p->first;
    while (q->index[e - 1].next)
        e = q->index[e - 1].next;
    q->index[e - 1].next = me;
}

void qh_ccs_main(qh *q, uint64_t ccs_addr) {
    q->ccs_main = ccs_addr;
}

struct fake_counts *qh_counts(qh *q) {
    return fake_counts_of(q->f);
}

unsigned qh_source_info_requests(const qh *q) {
    return q->source_info_requests;
}

/* ---- the wrapping source ---------------------------------------------- */

#define INNER(q) ((q)->inner.ops)

static hs_status op_version(void *s, wire_version *o, hs_error *e) {
    qh *q = s;
    hs_status st = INNER(q)->version(q->inner.self, o, e);
    if (st == HS_OK && q->ghc_major)
        o->major = q->ghc_major;
    return st;
}

void qh_ghc(qh *q, uint32_t major) {
    q->ghc_major = major;
}

static hs_status list(const uint64_t *items, size_t n, wire_ptr_list *out) {
    out->items = calloc(n ? n : 1, sizeof *out->items);
    cr_assert(out->items);
    memcpy(out->items, items, n * sizeof *items);
    out->count = out->cap = n;
    return HS_OK;
}

static hs_status op_roots(void *s, wire_ptr_list *o, hs_error *e) {
    (void)e;
    qh *q = s;
    return list(q->roots, q->n_roots, o);
}

static hs_status op_saved(void *s, wire_ptr_list *o, hs_error *e) {
    (void)e;
    qh *q = s;
    return list(q->saved, q->n_saved, o);
}

static hs_status op_blocks(void *s, heap_block_list *o, hs_error *e) {
    qh *q = s;
    return INNER(q)->blocks(q->inner.self, o, e);
}

static hs_status op_closures(void *s, const uint64_t *p, size_t n, heap_blobs *o, hs_error *e) {
    qh *q = s;
    return INNER(q)->closures(q->inner.self, p, n, o, e);
}

static hs_status op_info_tables(void *s, const uint64_t *p, size_t n, heap_blobs *o,
                                hs_error *e) {
    qh *q = s;
    return INNER(q)->info_tables(q->inner.self, p, n, o, e);
}

static hs_status op_srts(void *s, const uint64_t *p, size_t n, uint64_t *o, hs_error *e) {
    qh *q = s;
    return INNER(q)->srts(q->inner.self, p, n, o, e);
}

static hs_status op_frame_bitmap(void *s, uint64_t sp, uint32_t off, const heap_info *fi,
                                 heap_bitmap *o, hs_error *e) {
    qh *q = s;
    return INNER(q)->frame_bitmap(q->inner.self, sp, off, fi, o, e);
}

static hs_status op_fun_bitmap(void *s, uint64_t f, const heap_info *fi, uint16_t n,
                               heap_bitmap *o, hs_error *e) {
    qh *q = s;
    return INNER(q)->fun_bitmap(q->inner.self, f, fi, n, o, e);
}

static hs_status op_con_desc(void *s, uint64_t info, char **o, hs_error *e) {
    qh *q = s;
    return INNER(q)->con_desc(q->inner.self, info, o, e);
}

static char *dup(const char *s) {
    char *d = strdup(s ? s : "");
    cr_assert(d);
    return d;
}

static hs_status op_source_info(void *s, uint64_t info, wire_source_info *o, hs_error *e) {
    (void)e;
    qh *q = s;
    q->source_info_requests++;
    *o = (wire_source_info){0};
    for (size_t i = 0; i < q->n_ipes; i++) {
        if (q->ipes[i].info != info)
            continue;
        *o = (wire_source_info){.found = true, .name = dup(q->ipes[i].name),
                                .closure_type_text = dup("1"), .closure_type = 1,
                                .type = dup(""), .label = dup(q->ipes[i].label),
                                .module = dup(q->ipes[i].module),
                                .position = dup(q->ipes[i].position)};
        break;
    }
    return HS_OK;
}

static hs_status op_ccs(void *s, uint64_t p, wire_ccs *o, hs_error *e) {
    qh *q = s;
    ccs_entry *c = find_ccs(q, p);
    if (!c)
        return hs_fail(e, HEAP_UNAVAILABLE, "qh: no CCS 0x%llx", (unsigned long long)p);
    *o = (wire_ccs){.id = c->cc_id, .cc = p + 1,
                    .index_table = c->first ? INDEX_BASE + 0x20 * (c->first - 1) : 0};
    return HS_OK;
}

static hs_status op_cc(void *s, uint64_t p, wire_cc *o, hs_error *e) {
    qh *q = s;
    ccs_entry *c = find_ccs(q, p - 1);
    if (!c)
        return hs_fail(e, HEAP_UNAVAILABLE, "qh: no CC 0x%llx", (unsigned long long)p);
    char label[32];
    snprintf(label, sizeof label, "cc%lld", (long long)c->cc_id);
    *o = (wire_cc){.id = c->cc_id, .label = dup(label), .module = dup("Main"), .srcloc = dup("")};
    return HS_OK;
}

static hs_status op_index_entry(void *s, uint64_t p, wire_index_entry *o, hs_error *e) {
    qh *q = s;
    size_t i = (size_t)((p - INDEX_BASE) / 0x20);
    if (p < INDEX_BASE || i >= q->n_index)
        return hs_fail(e, HEAP_UNAVAILABLE, "qh: no index entry 0x%llx", (unsigned long long)p);
    const index_entry *x = &q->index[i];
    *o = (wire_index_entry){.cc = x->ccs + 1, .ccs = x->ccs,
                            .next = x->next ? INDEX_BASE + 0x20 * (x->next - 1) : 0,
                            .back_edge = x->back_edge};
    return HS_OK;
}

static hs_status op_ccs_main(void *s, uint64_t *o, hs_error *e) {
    (void)e;
    *o = ((qh *)s)->ccs_main;
    return HS_OK;
}

static const heap_source_ops qh_ops = {
    .version = op_version,
    .roots = op_roots,
    .saved_objects = op_saved,
    .blocks = op_blocks,
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

heap *qh_open(qh *q) {
    hs_error err = {0};
    hs_status st = heap_open((heap_source){&qh_ops, q}, &q->h, &err);
    cr_assert_eq(st, HS_OK, "heap_open: %s", err.message);
    return q->h;
}
