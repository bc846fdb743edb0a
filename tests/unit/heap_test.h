/* Shared set-up of the heap decoder tests: a fake source with one block
 * group at BLK and a static region at STATIC, both header flavours
 * (H = 8, or H = 24 with an era word), and assertion helpers. */
#ifndef HEAPSCOPE_TEST_HEAP_TEST_H
#define HEAPSCOPE_TEST_HEAP_TEST_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fake_source.h"
#include "heapscope/closure_type.h"
#include "heapscope/heap.h"

#define BLK UINT64_C(0x4200100000)
#define BLK_LEN 0x4000u
#define STATIC UINT64_C(0x4c7000)
#define STATIC_LEN 0x1000u
#define CCS_ADDR UINT64_C(0x4d1230)
#define ERA 7u

typedef struct ht {
    fake_source *f;
    heap *h;
    unsigned H;
    bool prof;
    heap_closure c;
    hs_error err;
    char label[1024];
} ht;

/* prof: profiled RTS in era mode (H = 24, S = 32). */
static inline void ht_init_version(ht *t, bool prof, uint32_t major, uint32_t patch) {
    memset(t, 0, sizeof *t);
    t->prof = prof;
    t->H = prof ? 24 : 8;
    t->f = fake_new(major, patch, prof ? WIRE_PROF_ERA : WIRE_PROF_NONE);
    fake_add_block(t->f, BLK, BLK_LEN);
    fake_add_static(t->f, STATIC, STATIC_LEN);
}

static inline void ht_init(ht *t, bool prof) { ht_init_version(t, prof, 910, 0); }

/* Writes a closure header at addr; returns the address of its payload. */
static inline uint64_t ht_hdr(ht *t, uint64_t addr, uint64_t info) {
    fake_w64(t->f, addr, info);
    if (t->prof) {
        fake_w64(t->f, addr + 8, CCS_ADDR);
        fake_w64(t->f, addr + 16, ERA);
    }
    return addr + t->H;
}

static inline void ht_open(ht *t) {
    hs_status st = heap_open(fake_heap_source(t->f), &t->h, &t->err);
    cr_assert_eq(st, HS_OK, "heap_open: %s", t->err.message);
}

static inline hs_status ht_decode(ht *t, uint64_t addr) {
    memset(&t->err, 0, sizeof t->err);
    return heap_decode(t->h, addr, &t->c, &t->err);
}

/* Decodes and asserts success. */
static inline void ht_ok(ht *t, uint64_t addr) {
    hs_status st = ht_decode(t, addr);
    cr_assert_eq(st, HS_OK, "decode 0x%llx: %s", (unsigned long long)addr, t->err.message);
}

static inline const char *ht_label(ht *t) {
    heap_closure_label(t->h, &t->c, t->label, sizeof t->label);
    return t->label;
}

static inline const char *ht_edge_label(ht *t, size_t i) {
    cr_assert_lt(i, t->c.n_edges);
    heap_edge_label(&t->c.edges[i], t->label, sizeof t->label);
    return t->label;
}

static inline void ht_fini(ht *t) {
    heap_closure_free(&t->c);
    heap_free(t->h);
    fake_free(t->f);
}

static inline void ht_edge(const ht *t, size_t i, uint64_t addr, uint16_t kind, uint16_t frame,
                           uint32_t index) {
    cr_assert_lt(i, t->c.n_edges, "edge %zu missing (only %zu)", i, t->c.n_edges);
    const heap_edge *e = &t->c.edges[i];
    cr_expect_eq(e->addr, addr, "edge %zu addr 0x%llx, expected 0x%llx", i,
                 (unsigned long long)e->addr, (unsigned long long)addr);
    cr_expect_eq(e->kind, kind, "edge %zu kind %u, expected %u", i, e->kind, kind);
    cr_expect_eq(e->frame, frame, "edge %zu frame %u, expected %u", i, e->frame, frame);
    cr_expect_eq(e->index, index, "edge %zu index %u, expected %u", i, e->index, index);
}

/* Checks the profiling header of the last decode. */
static inline void ht_prof(const ht *t) {
    cr_expect_eq(t->c.prof.present, t->prof);
    if (t->prof) {
        cr_expect_eq(t->c.prof.ccs, CCS_ADDR);
        cr_expect_eq(t->c.prof.word, ERA);
    }
}

#define NF HEAP_EDGE_NO_FRAME

#endif
