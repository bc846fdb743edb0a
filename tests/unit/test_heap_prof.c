/* The profiling header decoded by mode and worded for the TUI's details
 * pane and the CLI's closure lines (retainers-and-eras.md §5), and its
 * cost-centre stack looked up once per stack. */
#include <criterion/criterion.h>
#include <string.h>

#include "fake_source.h"
#include "heapscope/heap.h"

#define LDV_USED UINT64_C(0x1000000000000000)

static heap_prof_info decoded(uint8_t mode, uint64_t ccs, uint64_t word) {
    heap_prof_header h = {.present = true, .ccs = ccs, .word = word};
    heap_prof_info p;
    heap_prof_decode(mode, &h, &p);
    return p;
}

static const char *state(const heap_prof_info *p, heap_prof_style style) {
    static char buf[256];
    heap_prof_state_text(p, style, buf, sizeof buf);
    return buf;
}

Test(heap_prof, absent_without_header) {
    heap_prof_info p = decoded(WIRE_PROF_NONE, 0, 0);
    cr_assert_eq(p.kind, HEAP_PROF_ABSENT);
    cr_assert_null(heap_prof_state_key(&p));
    cr_assert_str_empty(state(&p, HEAP_PROF_PANE));
    cr_assert_str_empty(state(&p, HEAP_PROF_LINE));
    heap_prof_header none = {.present = false};
    heap_prof_decode(WIRE_PROF_LDV, &none, &p);
    cr_assert_eq(p.kind, HEAP_PROF_ABSENT, "a closure without a header has none in any mode");
}

Test(heap_prof, era) {
    heap_prof_info p = decoded(WIRE_PROF_ERA, 0x4d1230, 1000);
    cr_assert_eq(p.kind, HEAP_PROF_ERA);
    cr_assert_eq(p.era, 1000);
    cr_assert_eq(p.ccs, 0x4d1230);
    cr_assert_str_eq(heap_prof_state_key(&p), "Era");
    cr_assert_str_eq(state(&p, HEAP_PROF_PANE), "1000");
    cr_assert_str_eq(state(&p, HEAP_PROF_LINE), "era 1000");
}

Test(heap_prof, ldv_used) {
    uint64_t w = LDV_USED | (UINT64_C(12) << 30) | 17;
    heap_prof_info p = decoded(WIRE_PROF_LDV, 0, w);
    cr_assert_eq(p.kind, HEAP_PROF_LDV);
    cr_assert(p.ldv_used);
    cr_assert_eq(p.ldv_created, 12);
    cr_assert_eq(p.ldv_last_use, 17);
    cr_assert_str_eq(heap_prof_state_key(&p), "LDV info");
    cr_assert_str_eq(state(&p, HEAP_PROF_PANE), "✓ created: 12 last used: 17");
    cr_assert_str_eq(state(&p, HEAP_PROF_PANE_ASCII), "used created: 12 last used: 17");
    cr_assert_str_eq(state(&p, HEAP_PROF_LINE), "ldv created 12 used 17");
}

Test(heap_prof, ldv_unused_and_widest_fields) {
    /* created fills its 30 bits; stray low bits of an unused word are no last use */
    uint64_t w = UINT64_C(0x0FFFFFFFC0000000) | 5;
    heap_prof_info p = decoded(WIRE_PROF_LDV, 0, w);
    cr_assert_not(p.ldv_used);
    cr_assert_eq(p.ldv_created, 0x3FFFFFFF);
    cr_assert_eq(p.ldv_last_use, 0);
    cr_assert_str_eq(state(&p, HEAP_PROF_PANE), "✘ created: 1073741823");
    cr_assert_str_eq(state(&p, HEAP_PROF_PANE_ASCII), "unused created: 1073741823");
    cr_assert_str_eq(state(&p, HEAP_PROF_LINE), "ldv created 1073741823 unused");
    /* the top bits (above the used state) are not part of any field */
    p = decoded(WIRE_PROF_LDV, 0, UINT64_C(0xE000000000000000) | (UINT64_C(3) << 30));
    cr_assert_eq(p.ldv_created, 3);
    cr_assert_not(p.ldv_used);
}

Test(heap_prof, retainer) {
    heap_prof_info p = decoded(WIRE_PROF_RETAINER, 0, UINT64_C(0x7f12a0c41));
    cr_assert_eq(p.kind, HEAP_PROF_RETAINER);
    cr_assert_eq(p.retainer_set, UINT64_C(0x7f12a0c40));
    cr_assert(p.retainer_flag);
    cr_assert_str_eq(heap_prof_state_key(&p), "Retainer info");
    cr_assert_str_eq(state(&p, HEAP_PROF_PANE), "0x7f12a0c40 flag 1");
    cr_assert_str_eq(state(&p, HEAP_PROF_LINE), "retainer set 0x7f12a0c40 flag 1");
    p = decoded(WIRE_PROF_RETAINER, 0, 0);
    cr_assert_eq(p.retainer_set, 0);
    cr_assert_not(p.retainer_flag);
    cr_assert_str_eq(state(&p, HEAP_PROF_LINE), "retainer set none flag 0");
}

Test(heap_prof, raw_modes) {
    for (uint8_t mode = WIRE_PROF_PLAIN; mode <= 9; mode += 4) { /* 1, 5, 9 */
        heap_prof_info p = decoded(mode, 0, 42);
        cr_assert_eq(p.kind, HEAP_PROF_RAW, "mode %u", mode);
        cr_assert_str_eq(heap_prof_state_key(&p), "Other");
        cr_assert_str_eq(state(&p, HEAP_PROF_PANE), "Not supported: 42");
        cr_assert_str_empty(state(&p, HEAP_PROF_LINE), "a word without meaning is not shown");
    }
}

Test(heap_prof, texts_fit_small_buffers) {
    heap_prof_info p = decoded(WIRE_PROF_LDV, 0, LDV_USED | (UINT64_C(12) << 30) | 17);
    char buf[8];
    heap_prof_state_text(&p, HEAP_PROF_LINE, buf, sizeof buf);
    cr_assert_str_eq(buf, "ldv cre");
    heap_prof_state_text(&p, HEAP_PROF_LINE, buf, 0); /* writes nothing */
}

#define CCS_A UINT64_C(0x4d1000)
#define CC_A UINT64_C(0x4d2000)
#define CCS_B UINT64_C(0x4d1100)
#define CC_B UINT64_C(0x4d2100)

static heap *open_heap(fake_source *f) {
    heap *h = NULL;
    hs_error err = {0};
    cr_assert_eq(heap_open(fake_heap_source(f), &h, &err), HS_OK, "%s", err.message);
    return h;
}

Test(heap_prof, describe_looks_each_stack_up_once) {
    fake_source *f = fake_new(902, 2, WIRE_PROF_LDV);
    fake_cost_centre(f, CCS_A, CC_A, 4, "leaky", "Main", "app/Main.hs:30:1-40");
    fake_cost_centre(f, CCS_B, CC_B, 5, "CAF", "GHC.Show", "<entire-module>");
    heap *h = open_heap(f);
    heap_prof_info p;
    char buf[256];
    for (int round = 0; round < 3; round++) {
        heap_prof_describe(h, &(heap_prof_header){true, CCS_A, (UINT64_C(2) << 30)}, &p);
        cr_assert_not_null(p.cc);
        cr_assert_eq(p.stack->id, 4);
        cr_assert_str_empty(p.problem);
        heap_prof_cc_text(&p, HEAP_PROF_PANE, buf, sizeof buf);
        cr_assert_str_eq(buf, "leaky   Main   app/Main.hs:30:1-40");
        heap_prof_cc_text(&p, HEAP_PROF_LINE, buf, sizeof buf);
        cr_assert_str_eq(buf, "cc Main:leaky (app/Main.hs:30:1-40)");
        heap_prof_describe(h, &(heap_prof_header){true, CCS_B, 0}, &p);
        cr_assert_str_eq(p.cc->label, "CAF");
        cr_assert_eq(p.ldv_created, 0);
    }
    cr_assert_eq(fake_counts_of(f)->ccs, 2, "one CCS request per stack, not per closure");
    cr_assert_eq(fake_counts_of(f)->cc, 2, "one CC request per cost centre");
    heap_free(h);
    fake_free(f);
}

Test(heap_prof, control_bytes_of_a_cost_centre_cannot_reach_the_terminal) {
    fake_source *f = fake_new(902, 2, WIRE_PROF_ERA);
    fake_cost_centre(f, CCS_A, CC_A, 4, "a\x1b[31mb", "M\nN", "x\x7fy");
    heap *h = open_heap(f);
    heap_prof_info p;
    heap_prof_describe(h, &(heap_prof_header){true, CCS_A, 1}, &p);
    char buf[256];
    heap_prof_cc_text(&p, HEAP_PROF_LINE, buf, sizeof buf);
    cr_assert_str_eq(buf, "cc M?N:a?[31mb (x?y)");
    heap_prof_cc_text(&p, HEAP_PROF_PANE, buf, sizeof buf);
    cr_assert_str_eq(buf, "a?[31mb   M?N   x?y");
    heap_free(h);
    fake_free(f);
}

Test(heap_prof, describe_unreadable_stack_keeps_the_rest) {
    fake_source *f = fake_new(902, 2, WIRE_PROF_ERA);
    heap *h = open_heap(f);
    heap_prof_info p;
    heap_prof_describe(h, &(heap_prof_header){true, CCS_A, 3}, &p);
    cr_assert_eq(p.era, 3, "the header word is decoded whatever the stack");
    cr_assert_null(p.cc);
    cr_assert_str_eq(p.problem, "fake: no CCS at 0x4d1000");
    char buf[256];
    heap_prof_cc_text(&p, HEAP_PROF_LINE, buf, sizeof buf);
    cr_assert_str_eq(buf, "ccs 0x4d1000 <fake: no CCS at 0x4d1000>");
    heap_prof_cc_text(&p, HEAP_PROF_PANE, buf, sizeof buf);
    cr_assert_str_eq(buf, "fake: no CCS at 0x4d1000");
    /* asked once: a search printing many closures of that stack waits once */
    heap_prof_describe(h, &(heap_prof_header){true, CCS_A, 4}, &p);
    cr_assert_str_eq(p.problem, "fake: no CCS at 0x4d1000");
    cr_assert_eq(fake_counts_of(f)->ccs, 1, "asked %u times", fake_counts_of(f)->ccs);
    /* no stack at all: nothing to say, nothing asked */
    unsigned asked = fake_counts_of(f)->ccs;
    heap_prof_describe(h, &(heap_prof_header){true, 0, 3}, &p);
    heap_prof_cc_text(&p, HEAP_PROF_LINE, buf, sizeof buf);
    cr_assert_str_empty(buf);
    cr_assert_eq(fake_counts_of(f)->ccs, asked);
    heap_free(h);
    fake_free(f);
}
