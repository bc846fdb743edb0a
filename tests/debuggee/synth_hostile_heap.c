/* --hostile heap kinds: hand-laid closures added to a generated process.
 *
 * Info tables (and constructor names, large bitmaps) go into a region of
 * their own below the text region; the closures into one block group of a
 * fresh megablock after the heap, the rest of which is left as stale bytes.
 * A constructor main:Main.Hostile holds a pointer to each planted closure
 * and one more GC root (a stable pointer) holds it, so every traversal
 * meets them. The server reads all of it as it reads the rest of the heap:
 * what the client sees is what a real stub would send from a corrupt
 * process. Layouts: heap-layout.md §3, §4, §6, §8. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"
#include "synth_hostile.h"

#define TEXT_BASE UINT64_C(0x3c0000) /* up to SYNTH_TEXT_BASE: nothing else there */
#define TEXT_SIZE (SYNTH_TEXT_BASE - TEXT_BASE)
#define GROUP_BLOCKS 64u
#define MAX_ITEMS 64
#define NOWHERE UINT64_C(0x7f0000001000) /* never mapped */
#define LONG_NAME 100000                  /* bytes of an absurdly long constructor name */

/* Closure types used here (heap-layout.md §2). */
enum {
    T_CONSTR = 1, T_CONSTR_2_0 = 4, T_FUN = 8, T_THUNK = 15, T_THUNK_SELECTOR = 22, T_BCO = 23,
    T_AP = 24, T_PAP = 25, T_AP_STACK = 26, T_IND = 27, T_RET_SMALL = 30, T_RET_BIG = 31,
    T_RET_FUN = 32, T_UPDATE_FRAME = 33, T_STOP_FRAME = 36, T_BLACKHOLE = 38,
    T_ARR_WORDS = 42, T_MUT_ARR_FROZEN_CLEAN = 46, T_MUT_VAR_DIRTY = 48, T_PRIM = 50,
    T_STACK = 53, T_TREC_CHUNK = 54, T_SMALL_ARR_FROZEN_CLEAN = 62,
};

typedef struct hctx {
    synth_process *p;
    unsigned H, S;
    uint8_t *text;   /* TEXT_SIZE bytes at TEXT_BASE */
    uint64_t text_used;
    uint8_t *mb;     /* the megablock */
    uint64_t mb_base, start, used; /* the group's first byte, bytes used from it */
    struct { const char *name; uint64_t addr; } items[MAX_ITEMS];
    size_t n_items;
    const char *fail;
} hctx;

static void put64(uint8_t *b, uint64_t v) { sg_put64(b, v); }

/* ---- the text region: info tables, names, bitmaps ---- */

static uint64_t text_alloc(hctx *h, uint64_t n) {
    h->text_used = (h->text_used + 15) & ~UINT64_C(15);
    if (n > TEXT_SIZE - h->text_used) {
        h->fail = "the hostile info tables do not fit their region";
        return TEXT_BASE;
    }
    uint64_t at = TEXT_BASE + h->text_used;
    h->text_used += n;
    return at;
}

static uint8_t *text_at(hctx *h, uint64_t addr) { return h->text + (addr - TEXT_BASE); }

static uint64_t text_string(hctx *h, const char *s, size_t n) {
    uint64_t at = text_alloc(h, n + 1);
    if (!h->fail) {
        memcpy(text_at(h, at), s, n);
        text_at(h, at)[n] = 0;
    }
    return at;
}

/* An info table of `type` with the whole layout word given; con: the
 * constructor description (NULL: none), desc_at overrides where its offset
 * points. fun_bitmap_n >= 0: a function table with a small argument
 * bitmap of that many pointers (fun_type 0). Returns the info pointer. */
static uint64_t info_full(hctx *h, uint32_t type, uint64_t layout, const char *con,
                          uint64_t desc_at, int fun_bitmap_n) {
    uint64_t before = 8 + 24 + h->S; /* con desc offset, function extras, the table */
    uint64_t base = text_alloc(h, before + 16);
    uint64_t P = base + before;
    if (h->fail)
        return P;
    uint8_t *t = text_at(h, P - h->S + (h->S - 16)); /* the non-profiled fields */
    put64(t, layout);
    sg_put32(t + 8, type);
    sg_put32(t + 12, 0); /* no SRT */
    if (fun_bitmap_n >= 0) {
        uint8_t *x = text_at(h, P - h->S - 24);
        put64(x + 8, (uint64_t)fun_bitmap_n); /* bitmap: size n, all bits 0 = pointers */
        sg_put32(x + 16, 0);                  /* fun_type ARG_GEN */
        sg_put32(x + 20, (uint32_t)fun_bitmap_n);
    }
    if (con && !desc_at)
        desc_at = text_string(h, con, strlen(con));
    if (desc_at)
        sg_put32(text_at(h, P - h->S - 8), (uint32_t)(int32_t)(int64_t)(desc_at - P));
    return P;
}

static uint64_t info(hctx *h, uint32_t type, uint32_t ptrs, uint32_t nptrs, const char *con) {
    return info_full(h, type, (uint64_t)ptrs | (uint64_t)nptrs << 32, con, 0, -1);
}

/* A frame's small bitmap layout word: n entries, bit set = non-pointer. */
static uint64_t small_layout(unsigned n, uint64_t nonptr_bits) { return n | nonptr_bits << 6; }

/* A RET_BIG table whose large bitmap claims `count` bits. */
static uint64_t ret_big(hctx *h, uint64_t count) {
    uint64_t bm = text_alloc(h, 8 + 8 * 4);
    if (!h->fail)
        put64(text_at(h, bm), count); /* the few words stored say: all pointers */
    uint64_t P = info_full(h, T_RET_BIG, 0, NULL, 0, -1);
    if (!h->fail) /* the layout word: a signed offset from P to the bitmap */
        put64(text_at(h, P - 16), (uint64_t)(uint32_t)(int32_t)(int64_t)(bm - P));
    return P;
}

/* ---- the block group: closures ---- */

static uint8_t *heap_at(hctx *h, uint64_t addr) { return h->mb + (addr - h->mb_base); }

/* A closure: the header (info, and when profiled its CCS and era word),
 * then `words` payload words from `w` (zeros when w is NULL). */
static uint64_t obj(hctx *h, uint64_t info_ptr, size_t words, const uint64_t *w) {
    uint64_t bytes = h->H + 8 * (uint64_t)words;
    if (bytes > (uint64_t)GROUP_BLOCKS * SYNTH_BLOCK_SIZE - h->used) {
        h->fail = "the hostile closures do not fit their block group";
        return h->start;
    }
    uint64_t at = h->start + h->used;
    h->used += bytes;
    uint8_t *b = heap_at(h, at);
    memset(b, 0, bytes);
    put64(b, info_ptr);
    if (h->H > 8) {
        put64(b + 8, h->p->ccs_main);
        put64(b + 16, sg_prof_word(h->p->prof_mode, 1, at));
    }
    for (size_t i = 0; w && i < words; i++)
        put64(b + h->H + 8 * i, w[i]);
    return at;
}

/* Word i after the header of the closure at addr. */
static void set(hctx *h, uint64_t addr, size_t i, uint64_t v) { put64(heap_at(h, addr + h->H + 8 * i), v); }

static void item(hctx *h, const char *name, uint64_t addr) {
    if (h->n_items == MAX_ITEMS) {
        h->fail = "too many hostile closures";
        return;
    }
    h->items[h->n_items].name = name;
    h->items[h->n_items++].addr = addr;
}

/* Cell: an ordinary two-field constructor. */
static uint64_t cell(hctx *h, uint64_t cell_info, uint64_t a, uint64_t b) {
    return obj(h, cell_info, 2, (uint64_t[]){a, b});
}

/* ---- the kinds ---- */

static void plant_cycles(hctx *h, uint64_t cell_info) {
    uint64_t self = cell(h, cell_info, 0, 0);
    set(h, self, 0, self);
    set(h, self, 1, self | 1); /* tagged, as a constructor pointer would be */
    item(h, "self_loop", self);
    uint64_t a = cell(h, cell_info, 0, 0), b = cell(h, cell_info, a, a), c = cell(h, cell_info, b, b);
    set(h, a, 0, c);
    set(h, a, 1, c);
    item(h, "cycle3", a);
    uint64_t ind = info(h, T_IND, 1, 0, NULL);
    uint64_t x = obj(h, ind, 1, NULL);
    set(h, x, 0, x);
    item(h, "ind_self", x);
    uint64_t y = obj(h, ind, 1, NULL), z = obj(h, ind, 1, (uint64_t[]){y});
    set(h, y, 0, z);
    item(h, "ind_pair", y);
    uint64_t bh = obj(h, info(h, T_BLACKHOLE, 1, 0, NULL), 1, NULL);
    set(h, bh, 0, bh);
    item(h, "blackhole_self", bh);
    uint64_t mv = obj(h, info(h, T_MUT_VAR_DIRTY, 1, 0, NULL), 1, NULL);
    set(h, mv, 0, mv);
    item(h, "mut_var_self", mv);
    uint64_t sel = obj(h, info(h, T_THUNK_SELECTOR, 0, 0, NULL), 2, NULL); /* pad, selectee */
    set(h, sel, 1, sel);
    item(h, "selector_self", sel);
}

static void plant_dangling(hctx *h, uint64_t cell_info) {
    item(h, "to_nowhere", cell(h, cell_info, NOWHERE, 0x10));
    /* past the group's free pointer: bytes of whatever lived there before */
    item(h, "to_stale", cell(h, cell_info, h->start + (GROUP_BLOCKS - 2) * SYNTH_BLOCK_SIZE, 0));
    item(h, "to_descriptor", cell(h, cell_info, h->mb_base + 64, h->mb_base));
    item(h, "null_fields", cell(h, cell_info, 0, 0));
    item(h, "ind_nowhere", obj(h, info(h, T_IND, 1, 0, NULL), 1, (uint64_t[]){NOWHERE + 8}));
}

static void plant_interior(hctx *h, uint64_t cell_info) {
    uint64_t target = cell(h, cell_info, cell(h, cell_info, 0, 0), 0);
    item(h, "into_middle", cell(h, cell_info, target + h->H, target + h->H + 8));
    uint64_t arr = obj(h, info(h, T_ARR_WORDS, 0, 0, NULL), 5,
                       (uint64_t[]){32, 0x4141414141414141, 0x4141414141414141, 0x4242, 0});
    item(h, "into_array", cell(h, cell_info, arr + h->H + 16, arr + h->H + 8));
    item(h, "into_code", cell(h, cell_info, cell_info, cell_info - h->S));
}

static void plant_huge_size(hctx *h) {
    uint64_t big = UINT64_C(1) << 62;
    item(h, "arr_words_huge", obj(h, info(h, T_ARR_WORDS, 0, 0, NULL), 2, (uint64_t[]){big, 7}));
    item(h, "mut_arr_huge", obj(h, info(h, T_MUT_ARR_FROZEN_CLEAN, 0, 0, NULL), 3,
                                (uint64_t[]){UINT64_C(1) << 40, (UINT64_C(1) << 40) + 1, 0}));
    item(h, "small_arr_huge", obj(h, info(h, T_SMALL_ARR_FROZEN_CLEAN, 0, 0, NULL), 2,
                                  (uint64_t[]){UINT32_MAX, 0}));
    uint64_t fun = obj(h, info_full(h, T_FUN, 0, NULL, 0, 4), 0, NULL);
    /* PAP: arity u32, n_args u32, fun; AP: padding word first */
    item(h, "pap_huge", obj(h, info(h, T_PAP, 0, 0, NULL), 3,
                            (uint64_t[]){1 | (uint64_t)UINT32_MAX << 32, fun, 0}));
    item(h, "ap_huge", obj(h, info(h, T_AP, 0, 0, NULL), 3,
                           (uint64_t[]){0, 1 | (uint64_t)0x7fffffff << 32, fun}));
    item(h, "ap_stack_huge", obj(h, info(h, T_AP_STACK, 0, 0, NULL), 3,
                                 (uint64_t[]){0, UINT64_C(1) << 60, fun}));
    uint64_t st = obj(h, info(h, T_STACK, 0, 0, NULL), 3, (uint64_t[]){UINT32_MAX, 0, 0});
    set(h, st, 1, st + h->H + 16);
    item(h, "stack_huge", st);
    /* BCO: instrs, literals, ptrs, arity u32 then size u32 (words) */
    item(h, "bco_huge", obj(h, info(h, T_BCO, 4, 0, NULL), 5,
                            (uint64_t[]){0, 0, 0, 1 | (uint64_t)UINT32_MAX << 32, 0}));
    item(h, "trec_huge", obj(h, info(h, T_TREC_CHUNK, 0, 0, NULL), 2,
                             (uint64_t[]){0, UINT64_C(1) << 62}));
}

static void plant_absurd_info(hctx *h) {
    uint64_t z[2] = {0, 0};
    item(h, "con_all_ptrs",
         obj(h, info(h, T_CONSTR, UINT32_MAX, UINT32_MAX, "main:Main.AllPointers"), 2, z));
    item(h, "con_2_0_lies", obj(h, info(h, T_CONSTR_2_0, 100000, 0, "main:Main.Liar"), 2, z));
    item(h, "thunk_ptrs", obj(h, info(h, T_THUNK, 0x80000000u, 0, NULL), 2, z));
    item(h, "fun_ptrs", obj(h, info(h, T_FUN, 0x7fffffff, 0x7fffffff, NULL), 2, z));
    item(h, "prim_ptrs", obj(h, info(h, T_PRIM, 1u << 30, 0, NULL), 2, z));
    item(h, "type_200", obj(h, info(h, 200, 1, 0, NULL), 2, z));
    item(h, "type_0", obj(h, info(h, 0, 1, 0, NULL), 2, z));
    item(h, "info_null", obj(h, 0, 2, z));
    item(h, "info_unmapped", obj(h, NOWHERE, 2, z));
    item(h, "evil_name", obj(h, info(h, T_CONSTR_2_0, 2, 0,
                                     "main:Main.Evil\x1b[2J\x1b]0;owned\x07\r\nforged line\t"),
                             2, z));
    char *name = malloc(LONG_NAME + 1);
    if (!name) {
        h->fail = "out of memory";
        return;
    }
    memcpy(name, "main:Main.", 10);
    memset(name + 10, 'L', LONG_NAME - 10);
    uint64_t desc = text_string(h, name, LONG_NAME);
    free(name);
    item(h, "long_name", obj(h, info_full(h, T_CONSTR_2_0, 2, "", desc, -1), 2, z));
    item(h, "desc_unmapped", obj(h, info_full(h, T_CONSTR_2_0, 2, "", TEXT_BASE - 4096, -1), 2, z));
}

/* A STACK of `words` words of stack area whose sp is `sp` (0: the area's
 * first word, and then frames[] from there); the last word is a STOP_FRAME. */
static uint64_t stack(hctx *h, size_t words, uint64_t sp, const uint64_t *frames, size_t n) {
    uint64_t st = obj(h, info(h, T_STACK, 0, 0, NULL), 2 + words, NULL);
    uint64_t area = st + h->H + 16;
    set(h, st, 0, words);
    set(h, st, 1, sp ? sp : area);
    for (size_t i = 0; i < n && i < words; i++)
        set(h, st, 2 + i, frames[i]);
    set(h, st, 2 + words - 1, info(h, T_STOP_FRAME, 0, 0, NULL));
    return st;
}

static void plant_bad_sp(hctx *h) {
    uint64_t st = stack(h, 8, 0, NULL, 0), area = st + h->H + 16;
    set(h, st, 1, area - 8);
    item(h, "sp_below", st);
    st = stack(h, 8, 0, NULL, 0);
    set(h, st, 1, st + h->H + 16 + 8 * 8 + 64);
    item(h, "sp_above", st);
    st = stack(h, 8, 0, NULL, 0);
    set(h, st, 1, st + h->H + 16 + 3);
    item(h, "sp_misaligned", st);
    st = stack(h, 8, 0, NULL, 0);
    set(h, st, 1, 0);
    item(h, "sp_zero", st);
    st = stack(h, 8, 0, NULL, 0);
    set(h, st, 1, UINT64_C(0xffffffffffff0000));
    item(h, "sp_far", st);
}

static void plant_long_bitmap(hctx *h, uint64_t cell_info) {
    uint64_t x = cell(h, cell_info, 0, 0);
    uint64_t small = info_full(h, T_RET_SMALL, small_layout(63, 0), NULL, 0, -1);
    item(h, "small_bitmap_long", stack(h, 6, 0, (uint64_t[]){small, x, x}, 3));
    uint64_t upd = info_full(h, T_UPDATE_FRAME, small_layout(40, 0), NULL, 0, -1);
    item(h, "update_frame_long", stack(h, 6, 0, (uint64_t[]){upd, x}, 2));
    item(h, "big_bitmap_long", stack(h, 8, 0, (uint64_t[]){ret_big(h, UINT64_C(1) << 20), x}, 2));
    item(h, "big_bitmap_absurd", stack(h, 8, 0, (uint64_t[]){ret_big(h, UINT64_C(1) << 40)}, 1));
    uint64_t fun = obj(h, info_full(h, T_FUN, 0, NULL, 0, 4), 0, NULL);
    uint64_t rf = info(h, T_RET_FUN, 0, 0, NULL);
    item(h, "ret_fun_long", stack(h, 8, 0, (uint64_t[]){rf, 1000, fun, x}, 4));
    item(h, "ret_fun_absurd", stack(h, 8, 0, (uint64_t[]){rf, UINT64_C(1) << 40, fun}, 3));
    /* an AP_STACK of 2 words whose one frame claims 10 */
    uint64_t aps = info(h, T_AP_STACK, 0, 0, NULL);
    item(h, "ap_stack_long", obj(h, aps, 5, (uint64_t[]){0, 2, fun,
                                                         info_full(h, T_RET_SMALL,
                                                                   small_layout(10, 0), NULL, 0,
                                                                   -1),
                                                         x}));
}

/* ---- cost centres (profiled flavour; layouts in synth.h) ---- */

/* A CostCentreStack in the text region: its cost centre, previous stack
 * and index table; the other nine words zero. */
static uint64_t ccs(hctx *h, uint64_t cc, uint64_t prev, uint64_t table) {
    uint64_t at = text_alloc(h, 96);
    if (!h->fail) {
        memset(text_at(h, at), 0, 96);
        put64(text_at(h, at), 900 + h->n_items); /* ccsID */
        put64(text_at(h, at) + 8, cc);
        put64(text_at(h, at) + 16, prev);
        put64(text_at(h, at) + 24, table);
    }
    return at;
}

static uint64_t index_entry(hctx *h, uint64_t cc, uint64_t stack, uint64_t next) {
    uint64_t at = text_alloc(h, 32);
    if (!h->fail) {
        memset(text_at(h, at), 0, 32);
        put64(text_at(h, at), cc);
        put64(text_at(h, at) + 8, stack);
        put64(text_at(h, at) + 16, next);
    }
    return at;
}

/* A Cell whose profiling header names the stack s. */
static uint64_t cell_under(hctx *h, uint64_t cell_info, uint64_t s) {
    uint64_t c = cell(h, cell_info, 0, 0);
    put64(heap_at(h, c) + 8, s);
    return c;
}

static void plant_bad_ccs(hctx *h, uint64_t cell_info) {
    synth_process *p = h->p;
    uint64_t main_cc;
    uint8_t *main_ccs = (uint8_t *)(uintptr_t)synth_mem(p, p->ccs_main, 96);
    if (!main_ccs) {
        h->fail = "bad-ccs needs a profiled heap (--profiled)";
        return;
    }
    main_cc = sg_get64(main_ccs + 8);
    item(h, "ccs_nowhere", cell_under(h, cell_info, NOWHERE));
    /* a stack that is its own previous one, whose index table loops on
     * itself, hung into the main stack's index table */
    uint64_t loop = ccs(h, main_cc, 0, 0);
    uint64_t entry = index_entry(h, main_cc, loop, 0);
    if (h->fail)
        return;
    put64(text_at(h, loop) + 16, loop);
    put64(text_at(h, loop) + 24, entry);
    put64(text_at(h, entry) + 16, entry);
    put64(main_ccs + 24, index_entry(h, main_cc, loop, sg_get64(main_ccs + 24)));
    item(h, "ccs_loop", cell_under(h, cell_info, loop));
    item(h, "cc_nowhere", cell_under(h, cell_info, ccs(h, NOWHERE, p->ccs_main, 0)));
    /* a cost centre whose label, module and location would drive a terminal */
    uint64_t cc = text_alloc(h, 64);
    const char *label = "evil\x1b[31mred\x1b]0;title\x07";
    uint64_t label_at = text_string(h, label, strlen(label));
    if (h->fail)
        return;
    memset(text_at(h, cc), 0, 64);
    put64(text_at(h, cc), 777);
    put64(text_at(h, cc) + 8, label_at);
    put64(text_at(h, cc) + 16, label_at);
    put64(text_at(h, cc) + 24, label_at);
    item(h, "cc_evil", cell_under(h, cell_info, ccs(h, cc, p->ccs_main, 0)));
}

/* ---- wiring it into the process ---- */

static int add_region(synth_process *p, uint64_t base, uint64_t size, uint8_t *bytes) {
    synth_region *r = realloc(p->regions, (p->n_regions + 1) * sizeof *r);
    if (!r)
        return -1;
    p->regions = r;
    size_t i = p->n_regions;
    while (i > 0 && r[i - 1].base > base) {
        r[i] = r[i - 1];
        i--;
    }
    r[i] = (synth_region){.base = base, .size = size, .bytes = bytes};
    p->n_regions++;
    return 0;
}

/* The plan gains "hostile": {"root": ..., "closures": {name: address}}. */
static int extend_plan(hctx *h, uint64_t root) {
    synth_process *p = h->p;
    size_t old = p->plan_json ? strlen(p->plan_json) : 0;
    size_t cap = old + 128 + h->n_items * 64;
    char *s = malloc(cap);
    if (!s)
        return -1;
    const char *end = p->plan_json ? strrchr(p->plan_json, '}') : NULL;
    size_t keep = end ? (size_t)(end - p->plan_json) : 0;
    while (keep > 0 && (p->plan_json[keep - 1] == '\n' || p->plan_json[keep - 1] == ' '))
        keep--;
    memcpy(s, p->plan_json ? p->plan_json : "{", end ? keep : 1);
    size_t n = end ? keep : 1;
    n += (size_t)snprintf(s + n, cap - n, "%s\n  \"hostile\": {\"root\": \"0x%llx\", \"closures\": {",
                          end ? "," : "", (unsigned long long)root);
    for (size_t i = 0; i < h->n_items; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s\"%s\": \"0x%llx\"", i ? ", " : "",
                              h->items[i].name, (unsigned long long)h->items[i].addr);
    snprintf(s + n, cap - n, "}}\n}\n");
    free(p->plan_json);
    p->plan_json = s;
    return 0;
}

int synth_hostile_heap(synth_process *p, uint32_t kinds, char *err, size_t errlen) {
    if (!kinds)
        return 0;
    hctx h = {.p = p, .H = p->prof_mode ? 24 : 8, .S = p->prof_mode ? 32 : 16};
    uint64_t top = 0;
    for (size_t i = 0; i < p->n_regions; i++)
        if (p->regions[i].base + p->regions[i].size > top)
            top = p->regions[i].base + p->regions[i].size;
    h.mb_base = ((top + SYNTH_MBLOCK_SIZE - 1) & ~(uint64_t)(SYNTH_MBLOCK_SIZE - 1)) +
                SYNTH_MBLOCK_SIZE; /* after a hole */
    h.start = h.mb_base + SYNTH_FIRST_BLOCK_OFFSET;
    h.text = malloc(TEXT_SIZE);
    h.mb = calloc(1, SYNTH_MBLOCK_SIZE);
    uint64_t *roots = realloc(p->roots, (p->n_roots + 3) * sizeof *roots);
    if (roots)
        p->roots = roots;
    if (!h.text || !h.mb || !roots) {
        free(h.text);
        free(h.mb);
        snprintf(err, errlen, "out of memory for the hostile heap");
        return -1;
    }
    memset(h.text, 0xcc, TEXT_SIZE); /* int3, as between real tables */
    memset(h.mb + SYNTH_FIRST_BLOCK_OFFSET, 0xa5, SYNTH_MBLOCK_SIZE - SYNTH_FIRST_BLOCK_OFFSET);

    uint64_t cell_info = info(&h, T_CONSTR_2_0, 2, 0, "main:Main.Cell");
    if (kinds & SYNTH_HOSTILE_CYCLES)
        plant_cycles(&h, cell_info);
    if (kinds & SYNTH_HOSTILE_DANGLING)
        plant_dangling(&h, cell_info);
    if (kinds & SYNTH_HOSTILE_INTERIOR)
        plant_interior(&h, cell_info);
    if (kinds & SYNTH_HOSTILE_HUGE_SIZE)
        plant_huge_size(&h);
    if (kinds & SYNTH_HOSTILE_ABSURD_INFO)
        plant_absurd_info(&h);
    if (kinds & SYNTH_HOSTILE_BAD_SP)
        plant_bad_sp(&h);
    if (kinds & SYNTH_HOSTILE_LONG_BITMAP)
        plant_long_bitmap(&h, cell_info);
    if ((kinds & SYNTH_HOSTILE_BAD_CCS) && p->prof_mode)
        plant_bad_ccs(&h, cell_info);
    uint64_t fields[MAX_ITEMS];
    for (size_t i = 0; i < h.n_items; i++)
        fields[i] = h.items[i].addr;
    uint64_t anchor = obj(&h, info(&h, T_CONSTR, (uint32_t)h.n_items, 0, "main:Main.Hostile"),
                          h.n_items, fields);
    if (h.fail) {
        free(h.text);
        free(h.mb);
        snprintf(err, errlen, "hostile heap: %s", h.fail);
        return -1;
    }

    /* the group's descriptor: start, free, flags 0, blocks */
    uint8_t *d = h.mb + ((h.start - h.mb_base) >> 12 << 6);
    put64(d, h.start);
    put64(d + 8, h.start + h.used);
    sg_put32(d + 48, GROUP_BLOCKS);
    uint64_t *groups = realloc(p->group_starts, (p->n_groups + 1) * sizeof *groups);
    if (!groups || add_region(p, TEXT_BASE, TEXT_SIZE, h.text) != 0) {
        if (groups)
            p->group_starts = groups;
        free(h.text);
        free(h.mb);
        snprintf(err, errlen, "out of memory for the hostile heap");
        return -1;
    }
    p->group_starts = groups;
    if (add_region(p, h.mb_base, SYNTH_MBLOCK_SIZE, h.mb) != 0) {
        free(h.mb);
        snprintf(err, errlen, "out of memory for the hostile heap");
        return -1;
    }
    p->group_starts[p->n_groups++] = h.start; /* the highest: the order holds */
    p->roots[p->n_roots++] = anchor | 1;      /* a stable pointer, tagged */
    if (kinds & SYNTH_HOSTILE_DANGLING) {     /* and stable pointers to nothing */
        p->roots[p->n_roots++] = 0;
        p->roots[p->n_roots++] = NOWHERE + 0x40;
    }
    if (extend_plan(&h, anchor) != 0) {
        snprintf(err, errlen, "out of memory for the plan");
        return -1;
    }
    return 0;
}
