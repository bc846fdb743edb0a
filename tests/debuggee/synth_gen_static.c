/* The data region: static closures (RTS sentinels, nullary constructors,
 * INTLIKE/CHARLIKE boxes, top-level functions, CAFs, SRTs), stand-ins for
 * RTS structs the TSOs and block descriptors point to, and, profiled, the
 * cost-centre tree (synth.h). Addresses are reserved before the info
 * tables exist (tables need SRT addresses), contents written after. */
#include <string.h>

#include "synth_gen_internal.h"

#define N_INTLIKE (SG_INTLIKE_MAX - SG_INTLIKE_MIN + 1)
#define N_CHARLIKE (SG_CHARLIKE_MAX + 1)

/* info table and payload words (after the header) of each static closure */
static const struct { int tab; unsigned words; } static_shape[SG_S_COUNT] = {
    [SG_S_END_TSO_QUEUE] = {SG_T_END_TSO_QUEUE, 0},
    [SG_S_NO_TREC] = {SG_T_NO_TREC, 0},
    [SG_S_END_STM_WATCH_QUEUE] = {SG_T_END_STM_WATCH_QUEUE, 0},
    [SG_S_END_STM_CHUNK_LIST] = {SG_T_END_STM_CHUNK_LIST, 0},
    [SG_S_NO_FINALIZER] = {SG_T_NO_FINALIZER, 0},
    [SG_S_NIL] = {SG_T_NIL, 0},
    [SG_S_NOTHING] = {SG_T_NOTHING, 0},
    [SG_S_TIP] = {SG_T_TIP, 0},
    [SG_S_TRUE] = {SG_T_TRUE, 0},
    [SG_S_FALSE] = {SG_T_FALSE, 0},
    [SG_S_UNIT] = {SG_T_UNIT, 0},
    [SG_S_OPA] = {SG_T_OPA, 0},
    [SG_S_OPB] = {SG_T_OPB, 0},
    [SG_S_OPC] = {SG_T_OPC, 0},
    [SG_S_OPD] = {SG_T_OPD, 0},
    [SG_S_OPE] = {SG_T_OPE, 0},
    [SG_S_OPF] = {SG_T_OPF, 0},
    /* functions: static link; CAFs: indirectee slot, static link, saved info */
    [SG_S_FUN_A] = {SG_T_FUN_STATIC_A, 1},
    [SG_S_FUN_B] = {SG_T_FUN_STATIC_B, 1},
    [SG_S_HANDLER] = {SG_T_HANDLER, 1},
    [SG_S_CAF_A] = {SG_T_CAF_A, 3},
    [SG_S_CAF_B] = {SG_T_IND_STATIC, 3},
    [SG_S_CAF_C] = {SG_T_IND_STATIC, 3},
    [SG_S_SRT_A] = {SG_T_SRT2, 2},
    [SG_S_SRT_B] = {SG_T_SRT3, 3},
    [SG_S_SRT_C] = {SG_T_SRT1, 1},
};

/* RTS structs that are not closures: Capability, InCall, generations */
static const unsigned blob_bytes[SG_S_COUNT] = {
    [SG_S_CAPABILITY] = 512, [SG_S_INCALL] = 64, [SG_S_GEN0] = 128, [SG_S_GEN1] = 128};

static const struct { const char *label, *module, *srcloc; bool caf; int parent; } cc_def[] = {
    [SG_CC_MAIN] = {"MAIN", "MAIN", "<built-in>", false, -1},
    [SG_CC_CAF] = {"CAF", "Main", "<entire-module>", true, SG_CC_MAIN},
    [SG_CC_DONT_CARE] = {"DONT_CARE", "MAIN", "<built-in>", false, -1},
    [SG_CC_MAIN_FN] = {"main", "Main", "app/Main.hs:(30,1)-(45,20)", false, SG_CC_MAIN},
    [SG_CC_LEAKY] = {"leaky", "Main", "app/Main.hs:(38,1)-(42,30)", false, SG_CC_MAIN_FN},
    [SG_CC_BUILDMAP] = {"buildMap", "Data.Foo", "src/Data/Foo.hs:(12,1)-(20,9)", false,
                        SG_CC_MAIN_FN},
    [SG_CC_WORKER] = {"worker", "Worker", "src/Worker.hs:(8,1)-(30,14)", false, SG_CC_MAIN_FN},
    [SG_CC_GO] = {"go", "Worker", "src/Worker.hs:(15,5)-(22,40)", false, SG_CC_WORKER},
};
/* index-table entries (parent -> child); GO -> WORKER is a recursion back edge */
static const struct { int from, to; bool back; } cc_edges[] = {
    {SG_CC_MAIN, SG_CC_CAF, false},       {SG_CC_MAIN, SG_CC_MAIN_FN, false},
    {SG_CC_MAIN_FN, SG_CC_LEAKY, false},  {SG_CC_MAIN_FN, SG_CC_BUILDMAP, false},
    {SG_CC_MAIN_FN, SG_CC_WORKER, false}, {SG_CC_WORKER, SG_CC_GO, false},
    {SG_CC_GO, SG_CC_WORKER, true},
};
#define N_EDGES (sizeof cc_edges / sizeof cc_edges[0])
_Static_assert(N_EDGES <= 8, "sg_ctx.cc_index holds 8 entries");

static uint64_t data_addr(size_t off) {
    return SYNTH_DATA_BASE + off;
}

void sg_static_reserve(sg_ctx *c) {
    for (int s = 0; s < SG_S_COUNT; s++) {
        size_t n = blob_bytes[s] ? blob_bytes[s] : c->H + 8 * static_shape[s].words;
        c->stat[s] = data_addr(sg_buf_zero(c, &c->data, n));
    }
    c->static_bytes = c->H + 8;
    c->intlike0 = data_addr(sg_buf_zero(c, &c->data, (size_t)N_INTLIKE * c->static_bytes));
    c->charlike0 = data_addr(sg_buf_zero(c, &c->data, (size_t)N_CHARLIKE * c->static_bytes));
    if (!c->prof)
        return;
    for (int i = 0; i < SG_CC_COUNT; i++) {
        c->cc[i] = data_addr(sg_buf_zero(c, &c->data, 64));
        c->ccs[i] = data_addr(sg_buf_zero(c, &c->data, 96));
    }
    for (size_t e = 0; e < N_EDGES; e++)
        c->cc_index[e] = data_addr(sg_buf_zero(c, &c->data, 32));
}

bool sg_cost_centre_of(const sg_ctx *c, uint64_t ccs, const char **label, const char **module,
                       const char **srcloc) {
    for (int i = 0; c->prof && i < SG_CC_COUNT; i++)
        if (c->ccs[i] == ccs) {
            *label = cc_def[i].label;
            *module = cc_def[i].module;
            *srcloc = cc_def[i].srcloc;
            return true;
        }
    return false;
}

static uint8_t *data_at(sg_ctx *c, uint64_t addr) {
    return c->data.b + (addr - SYNTH_DATA_BASE);
}

static void static_header(sg_ctx *c, uint64_t addr, int tab) {
    uint8_t *p = data_at(c, addr);
    sg_wset(p, 0, c->tabs[tab].p);
    if (c->prof) {
        sg_wset(p, 1, c->ccs[SG_CC_DONT_CARE]);
        sg_wset(p, 2, 0); /* static closures: era 0 */
    }
}

static uint8_t *payload(sg_ctx *c, enum sg_static s) {
    return data_at(c, c->stat[s]) + c->H;
}

static void fill_cost_centres(sg_ctx *c) {
    for (int i = 0; i < SG_CC_COUNT; i++) {
        uint8_t *cc = data_at(c, c->cc[i]);
        sg_wset(cc, 0, (uint64_t)i + 1);
        sg_wset(cc, 1, sg_text_string(c, cc_def[i].label));
        sg_wset(cc, 2, sg_text_string(c, cc_def[i].module));
        sg_wset(cc, 3, sg_text_string(c, cc_def[i].srcloc));
        sg_wset(cc, 4, UINT64_C(4096) * (uint64_t)(i * i + 3)); /* mem_alloc */
        sg_wset(cc, 5, (uint64_t)(7 * i + 2));                  /* time_ticks */
        sg_wset(cc, 6, cc_def[i].caf);
        sg_wset(cc, 7, i + 1 < SG_CC_COUNT ? c->cc[i + 1] : 0); /* registry link */

        uint8_t *s = data_at(c, c->ccs[i]);
        int depth = 0;
        for (int q = cc_def[i].parent; q >= 0; q = cc_def[q].parent)
            depth++;
        uint64_t root = i == SG_CC_DONT_CARE ? c->ccs[i] : c->ccs[SG_CC_MAIN];
        uint64_t words[12] = {(uint64_t)i + 1,
                              c->cc[i],
                              cc_def[i].parent >= 0 ? c->ccs[cc_def[i].parent] : 0,
                              0,
                              root,
                              (uint64_t)depth,
                              (uint64_t)(11 * i + 1),
                              0,
                              (uint64_t)(5 * i),
                              UINT64_C(8192) * (uint64_t)(i + 1),
                              UINT64_C(16384) * (uint64_t)(i + 2),
                              (uint64_t)(9 * i + 4)};
        for (int w = 0; w < 12; w++)
            sg_wset(s, (size_t)w, words[w]);
    }
    /* index tables: each CCS's entries chained in edge order */
    for (size_t e = 0; e < N_EDGES; e++) {
        uint8_t *it = data_at(c, c->cc_index[e]);
        sg_wset(it, 0, c->cc[cc_edges[e].to]);
        sg_wset(it, 1, c->ccs[cc_edges[e].to]);
        uint64_t next = 0;
        for (size_t f = e + 1; f < N_EDGES && !next; f++)
            if (cc_edges[f].from == cc_edges[e].from)
                next = c->cc_index[f];
        sg_wset(it, 2, next);
        it[24] = cc_edges[e].back;
        uint8_t *owner = data_at(c, c->ccs[cc_edges[e].from]);
        if (sg_get64(owner + 24) == 0)
            sg_wset(owner, 3, c->cc_index[e]);
    }
}

void sg_static_fill(sg_ctx *c) {
    for (int s = 0; s < SG_S_COUNT; s++)
        if (!blob_bytes[s])
            static_header(c, c->stat[s], static_shape[s].tab);
    for (int v = SG_INTLIKE_MIN; v <= SG_INTLIKE_MAX; v++) {
        uint64_t a = c->intlike0 + (uint64_t)(v - SG_INTLIKE_MIN) * c->static_bytes;
        static_header(c, a, SG_T_INTLIKE);
        sg_put64(data_at(c, a) + c->H, (uint64_t)(int64_t)v);
    }
    for (unsigned ch = 0; ch <= SG_CHARLIKE_MAX; ch++) {
        uint64_t a = c->charlike0 + (uint64_t)ch * c->static_bytes;
        static_header(c, a, SG_T_CHARLIKE);
        sg_put64(data_at(c, a) + c->H, ch);
    }
    /* CAF_A unevaluated; CAF_B and CAF_C evaluated (indirectee set later) */
    sg_wset(payload(c, SG_S_CAF_B), 2, c->tabs[SG_T_CAF_B].p);
    sg_wset(payload(c, SG_S_CAF_C), 2, c->tabs[SG_T_CAF_C].p);
    sg_static_set_caf(c, SG_S_CAF_B, sg_static_tagged(c, SG_S_NIL));
    sg_static_set_caf(c, SG_S_CAF_C, sg_static_tagged(c, SG_S_NIL));
    uint64_t srt_a[2] = {sg_static_tagged(c, SG_S_FUN_A), c->stat[SG_S_CAF_A]};
    uint64_t srt_b[3] = {c->stat[SG_S_CAF_B], sg_static_tagged(c, SG_S_FUN_B),
                         c->stat[SG_S_SRT_A]};
    for (size_t i = 0; i < 2; i++)
        sg_wset(payload(c, SG_S_SRT_A), i, srt_a[i]);
    for (size_t i = 0; i < 3; i++)
        sg_wset(payload(c, SG_S_SRT_B), i, srt_b[i]);
    sg_wset(payload(c, SG_S_SRT_C), 0, c->stat[SG_S_CAF_C]);
    /* stand-in RTS structs: a recognisable but non-closure pattern */
    for (int s = 0; s < SG_S_COUNT; s++)
        for (unsigned w = 0; blob_bytes[s] && w < blob_bytes[s] / 8; w++)
            sg_wset(data_at(c, c->stat[s]), w, UINT64_C(0x5ca1ab1e00000000) | w);
    if (c->prof)
        fill_cost_centres(c);
}

void sg_static_set_caf(sg_ctx *c, enum sg_static s, uint64_t indirectee) {
    sg_wset(payload(c, s), 0, indirectee);
}

uint64_t sg_intlike(sg_ctx *c, int64_t v) {
    return (c->intlike0 + (uint64_t)(v - SG_INTLIKE_MIN) * c->static_bytes) | 1;
}

uint64_t sg_charlike(sg_ctx *c, unsigned ch) {
    return (c->charlike0 + (uint64_t)ch * c->static_bytes) | 1;
}

/* Constructors carry their tag + 1, functions their arity; RTS sentinels,
 * CAFs and SRTs are referenced untagged. */
uint64_t sg_static_tagged(sg_ctx *c, enum sg_static s) {
    if (s >= SG_S_NIL && s <= SG_S_OPF)
        return c->stat[s] | (uint64_t)(c->tabs[static_shape[s].tab].tag + 1);
    if (s >= SG_S_FUN_A && s <= SG_S_HANDLER)
        return c->stat[s] | c->tabs[static_shape[s].tab].arity;
    return c->stat[s];
}
