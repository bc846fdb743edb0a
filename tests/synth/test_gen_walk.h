/* An independent reader of generated heaps, for the generator's tests.
 * Written from heap-layout.md alone (it shares no code with
 * synth_gen_walk.c): info tables, closure sizes (client and RTS rules),
 * children with their raw (tagged) values, and an iterative traversal. */
#ifndef TEST_GEN_WALK_H
#define TEST_GEN_WALK_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "synth_gen.h"

#define TW_HEAP_HI UINT64_C(0x14200000000)

typedef struct tw {
    const synth_process *p;
    unsigned H, S;
} tw;

static inline tw tw_of(const synth_process *p) {
    tw t = {p, p->prof_mode ? 24u : 8u, p->prof_mode ? 32u : 16u};
    return t;
}

static inline bool tw_in_heap(uint64_t a) {
    return a >= SYNTH_HEAP_BASE && a <= TW_HEAP_HI;
}

static inline uint64_t tw_u64(const tw *t, uint64_t a) {
    const uint8_t *b = synth_mem(t->p, a, 8);
    cr_assert_not_null(b, "unmapped read at 0x%llx", (unsigned long long)a);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static inline uint32_t tw_u32(const tw *t, uint64_t a) {
    return (uint32_t)(tw_u64(t, a & ~(uint64_t)7) >> (8 * (a & 7)));
}

typedef struct tw_info {
    uint64_t layout;
    uint32_t ptrs, nptrs, type;
    int32_t srt;
} tw_info;

static inline tw_info tw_itab(const tw *t, uint64_t info) {
    uint64_t base = info - 16; /* the last 16 bytes of the table */
    tw_info i;
    i.layout = tw_u64(t, base);
    i.ptrs = (uint32_t)i.layout;
    i.nptrs = (uint32_t)(i.layout >> 32);
    uint64_t w = tw_u64(t, base + 8);
    i.type = (uint32_t)w;
    i.srt = (int32_t)(uint32_t)(w >> 32);
    return i;
}

static inline tw_info tw_closure_info(const tw *t, uint64_t a) {
    return tw_itab(t, tw_u64(t, a));
}

static inline bool tw_is_con(uint32_t ty) { return ty >= 1 && ty <= 7; }
static inline bool tw_is_fun(uint32_t ty) { return ty >= 8 && ty <= 14; }
static inline bool tw_is_thunk(uint32_t ty) { return ty >= 15 && ty <= 20; }
static inline bool tw_is_marr(uint32_t ty) { return ty >= 43 && ty <= 46; }
static inline bool tw_is_smarr(uint32_t ty) { return ty >= 59 && ty <= 62; }

/* Census size (heap-layout.md §11.2; AP_STACK and BCO as GHC lays them). */
static inline uint64_t tw_size(const tw *t, uint64_t a) {
    tw_info i = tw_closure_info(t, a);
    uint64_t H = t->H, std = H + 8 * ((uint64_t)i.ptrs + i.nptrs);
    if (tw_is_con(i.type) || tw_is_fun(i.type) || i.type == 21 || i.type == 50 || i.type == 51)
        return std;
    if (tw_is_thunk(i.type))
        return std + 8;
    switch (i.type) {
    case 22: return H + 16;
    case 23: return 8 * (uint64_t)tw_u32(t, a + H + 28);
    case 24: return H + 24 + 8 * (uint64_t)tw_u32(t, a + H + 12);
    case 25: return H + 16 + 8 * (uint64_t)tw_u32(t, a + H + 4);
    case 26: return H + 24 + 8 * tw_u64(t, a + H + 8);
    case 27: case 28: case 38: case 47: case 48: return H + 8;
    case 39: case 40: case 41: return H + 24;
    case 37: return H + 32;
    case 49: return H + 40;
    case 42: return H + 8 + 8 * ((tw_u64(t, a + H) + 7) / 8);
    case 52: return H + 124;
    case 53: return H + 16 + 8 * (uint64_t)tw_u32(t, a + H);
    case 54: return H + 16 + 32 * tw_u64(t, a + H + 8);
    default:
        if (tw_is_marr(i.type))
            return H + 16 + 8 * tw_u64(t, a + H);
        if (tw_is_smarr(i.type))
            return H + 8 + 8 * tw_u64(t, a + H);
        return std;
    }
}

/* Bytes the object occupies in memory (heap-layout.md §11.1). */
static inline uint64_t tw_rts_size(const tw *t, uint64_t a) {
    tw_info i = tw_closure_info(t, a);
    uint64_t H = t->H;
    switch (i.type) {
    case 52: return H + (t->H == 8 ? 128 : 136);
    case 54: return H + 16 + 8 * 64;
    case 42: return tw_size(t, a);
    default:
        if (tw_is_marr(i.type))
            return H + 16 + 8 * tw_u64(t, a + H + 8);
        return tw_size(t, a);
    }
}

/* Function argument i a pointer? From the FUN's own info table (§9). */
static inline bool tw_arg_ptr(const tw *t, uint64_t fun, unsigned i) {
    static const char *const canned[29] = {
        NULL, NULL, NULL, "", "N", "P", "N", "N", "N", "NN", "NNNN", "NNNNNNNN", "NN", "NP",
        "PN", "PP", "NNN", "NNP", "NPN", "NPP", "PNN", "PNP", "PPN", "PPP", "PPPP", "PPPPP",
        "PPPPPP", "PPPPPPP", "PPPPPPPP"};
    uint64_t info = tw_u64(t, fun);
    cr_assert(tw_is_fun(tw_itab(t, info).type), "PAP/AP/RET_FUN function is not a FUN");
    uint64_t ext = info - t->S - 24;
    uint64_t bitmap = tw_u64(t, ext + 8);
    uint32_t ft = tw_u32(t, ext + 16);
    if (ft == 0)
        return 6 + i >= 64 || !((bitmap >> (6 + i)) & 1);
    if (ft == 1) {
        uint64_t lb = info + (uint64_t)(int64_t)(int32_t)(uint32_t)bitmap;
        cr_assert_lt(i, tw_u64(t, lb));
        return !((tw_u64(t, lb + 8 + 8 * (i / 64)) >> (i % 64)) & 1);
    }
    cr_assert(ft < 29 && canned[ft], "bad fun_type %u", ft);
    return i >= strlen(canned[ft]) || canned[ft][i] == 'P';
}

/* Edge kinds. Stacks are walked as GHC lays them out (spec README policy):
 * the last frame of a chunk is kept (TW_LAST_FRAME: its pointers, e.g. an
 * UNDERFLOW_FRAME's older chunk, are children), a RET_FUN frame's function
 * is a child, frame SRTs are children, and a RET_BCO frame ends the walk. */
enum { TW_CHILD, TW_SRT, TW_LAST_FRAME };
typedef void (*tw_edge)(void *ud, uint64_t from, uint64_t value, int kind);

/* Frames in [sp, end); pointers of the last one are reported as TW_LAST_FRAME. */
static inline void tw_frames(const tw *t, uint64_t owner, uint64_t sp, uint64_t end, tw_edge f,
                             void *ud) {
    while (sp < end) {
        uint64_t info = tw_u64(t, sp);
        tw_info i = tw_itab(t, info);
        uint64_t hdr = 1, n;
        bool big = false;
        uint64_t lb = 0, fun = 0;
        if (i.type == 31) {
            big = true;
            lb = info + (uint64_t)(int64_t)(int32_t)i.ptrs;
            n = tw_u64(t, lb);
        } else if (i.type == 32) {
            hdr = 3;
            n = tw_u64(t, sp + 8);
            fun = tw_u64(t, sp + 16) & ~(uint64_t)7;
        } else if (i.type == 30 || (i.type >= 33 && i.type <= 36) ||
                   (i.type >= 55 && i.type <= 57) ||
                   (i.type == 65 && t->p->ghc_major >= 914)) { /* ANN_FRAME: GHC 9.14 */
            n = i.layout & 63;
        } else {
            cr_assert_eq(i.type, 29, "unexpected frame type %u", i.type);
            return; /* RET_BCO: the walk ends */
        }
        uint64_t next = sp + 8 * (hdr + n);
        cr_assert_leq(next, end, "frame overruns its stack");
        int kind = next == end ? TW_LAST_FRAME : TW_CHILD;
        if (i.srt)
            f(ud, owner, info + (uint64_t)(int64_t)i.srt, TW_SRT);
        if (fun)
            f(ud, owner, fun, kind);
        for (uint64_t k = 0; k < n; k++) {
            bool ptr;
            if (big)
                ptr = !((tw_u64(t, lb + 8 + 8 * (k / 64)) >> (k % 64)) & 1);
            else if (fun)
                ptr = tw_arg_ptr(t, fun, (unsigned)k);
            else
                ptr = 6 + k >= 64 || !((i.layout >> (6 + k)) & 1);
            if (ptr)
                f(ud, owner, tw_u64(t, sp + 8 * (hdr + k)), kind);
        }
        sp = next;
    }
}

/* Every pointer of closure a, in the tracer's order (heap-layout.md §13). */
static inline void tw_children(const tw *t, uint64_t a, tw_edge f, void *ud) {
    uint64_t info = tw_u64(t, a), H = t->H;
    tw_info i = tw_itab(t, info);
    uint64_t first = H, n = 0;
    if ((tw_is_fun(i.type) || tw_is_thunk(i.type) || i.type == 21) && i.srt)
        f(ud, a, info + (uint64_t)(int64_t)i.srt, TW_SRT);
    if (tw_is_con(i.type) || tw_is_fun(i.type) || i.type == 21 || i.type == 50 || i.type == 51)
        n = i.ptrs;
    else if (tw_is_thunk(i.type))
        first = H + 8, n = i.ptrs;
    else if (tw_is_marr(i.type))
        first = H + 16, n = tw_u64(t, a + H);
    else if (tw_is_smarr(i.type))
        first = H + 8, n = tw_u64(t, a + H);
    for (uint64_t k = 0; k < n; k++)
        f(ud, a, tw_u64(t, a + first + 8 * k), TW_CHILD);
    static const uint8_t fixed_count[] = {[22] = 1, [23] = 3, [27] = 1, [28] = 1, [37] = 4,
                                          [38] = 1, [39] = 3, [40] = 3, [41] = 2, [47] = 1,
                                          [48] = 1, [49] = 4};
    uint64_t off0 = i.type == 22 ? H + 8 : H;
    if (i.type < sizeof fixed_count)
        for (uint64_t k = 0; k < fixed_count[i.type]; k++)
            f(ud, a, tw_u64(t, a + off0 + 8 * k), TW_CHILD);
    switch (i.type) {
    case 49:
        if (tw_u64(t, a + H + 32))
            f(ud, a, tw_u64(t, a + H + 32), TW_CHILD);
        break;
    case 24: case 25: {
        uint64_t fo = i.type == 25 ? H + 8 : H + 16, fun = tw_u64(t, a + fo);
        uint32_t nargs = tw_u32(t, a + fo - 4);
        f(ud, a, fun, TW_CHILD);
        for (uint32_t k = 0; k < nargs; k++)
            if (tw_arg_ptr(t, fun & ~(uint64_t)7, k))
                f(ud, a, tw_u64(t, a + fo + 8 + 8 * k), TW_CHILD);
        break;
    }
    case 26:
        f(ud, a, tw_u64(t, a + H + 16), TW_CHILD);
        tw_frames(t, a, a + H + 24, a + H + 24 + 8 * tw_u64(t, a + H + 8), f, ud);
        break;
    case 52: {
        static const unsigned off[] = {0, 8, 16, 80, 96, 104};
        for (int k = 0; k < 6; k++)
            f(ud, a, tw_u64(t, a + H + off[k]), TW_CHILD);
        if (tw_u64(t, a + H + 88))
            f(ud, a, tw_u64(t, a + H + 88), TW_CHILD);
        break;
    }
    case 53: {
        uint64_t sp = tw_u64(t, a + H + 8), end = a + tw_size(t, a);
        cr_assert(sp >= a + H + 16 && sp <= end, "sp outside its stack");
        tw_frames(t, a, sp, end, f, ud);
        break;
    }
    case 54: {
        f(ud, a, tw_u64(t, a + H), TW_CHILD);
        uint64_t used = tw_u64(t, a + H + 8);
        cr_assert_leq(used, 16);
        for (uint64_t e = 0; e < used; e++)
            for (int k = 0; k < 3; k++)
                f(ud, a, tw_u64(t, a + H + 16 + 32 * e + 8 * (uint64_t)k), TW_CHILD);
        break;
    }
    default:
        break;
    }
}

/* --- a set of addresses and a growable vector --- */
typedef struct tw_set {
    uint64_t *slot;
    size_t cap, n;
} tw_set;

static inline uint64_t tw_hash(uint64_t x) {
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    return x ^ (x >> 33);
}

static inline bool tw_set_has(const tw_set *s, uint64_t a) {
    if (!s->cap)
        return false;
    for (size_t h = tw_hash(a) & (s->cap - 1); s->slot[h]; h = (h + 1) & (s->cap - 1))
        if (s->slot[h] == a)
            return true;
    return false;
}

static inline bool tw_set_add(tw_set *s, uint64_t a) {
    if (2 * (s->n + 1) > s->cap) {
        tw_set o = *s;
        s->cap = o.cap ? 2 * o.cap : 1024;
        s->slot = calloc(s->cap, 8);
        s->n = 0;
        cr_assert_not_null(s->slot);
        for (size_t k = 0; k < o.cap; k++)
            if (o.slot[k])
                tw_set_add(s, o.slot[k]);
        free(o.slot);
    }
    size_t h = tw_hash(a) & (s->cap - 1);
    for (; s->slot[h]; h = (h + 1) & (s->cap - 1))
        if (s->slot[h] == a)
            return false;
    s->slot[h] = a;
    s->n++;
    return true;
}

typedef struct tw_vec {
    uint64_t *v;
    size_t n, cap;
} tw_vec;

static inline void tw_push(tw_vec *v, uint64_t x) {
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 1024;
        v->v = realloc(v->v, v->cap * 8);
        cr_assert_not_null(v->v);
    }
    v->v[v->n++] = x;
}

/* Depth-first reachability from the roots, never entering `blocked`;
 * returns every reachable closure (untagged), each once. */
typedef struct tw_reach_ctx {
    tw_set seen;
    tw_vec stack;
    uint64_t blocked;
} tw_reach_ctx;

static inline void tw_reach_edge(void *ud, uint64_t from, uint64_t v, int kind) {
    (void)from;
    (void)kind;
    tw_reach_ctx *r = ud;
    uint64_t a = v & ~(uint64_t)7;
    if (a == r->blocked)
        return;
    if (tw_set_add(&r->seen, a))
        tw_push(&r->stack, a);
}

static inline tw_vec tw_reach(const tw *t, uint64_t blocked, tw_set *seen_out) {
    tw_reach_ctx r = {{0}, {0}, blocked};
    tw_vec all = {0};
    for (size_t k = 0; k < t->p->n_roots; k++)
        tw_reach_edge(&r, 0, t->p->roots[k], TW_CHILD);
    while (r.stack.n) {
        uint64_t a = r.stack.v[--r.stack.n];
        tw_push(&all, a);
        tw_children(t, a, tw_reach_edge, &r);
    }
    free(r.stack.v);
    if (seen_out)
        *seen_out = r.seen;
    else
        free(r.seen.slot);
    return all;
}

/* Constructor description string of an info pointer. */
static inline const char *tw_con_desc(const tw *t, uint64_t info) {
    int32_t off = (int32_t)tw_u32(t, info - t->S - 8);
    const char *s = (const char *)synth_mem(t->p, info + (uint64_t)(int64_t)off, 1);
    cr_assert_not_null(s);
    return s;
}

/* Census key: package:module:name per the CON_DESC parse rules. */
static inline void tw_key(const tw *t, uint64_t a, char *out, size_t len) {
    uint64_t info = tw_u64(t, a);
    tw_info i = tw_itab(t, info);
    static const char *const names[] = {
        "INVALID_OBJECT", "CONSTR", "CONSTR_1_0", "CONSTR_0_1", "CONSTR_2_0", "CONSTR_1_1",
        "CONSTR_0_2", "CONSTR_NOCAF", "FUN", "FUN_1_0", "FUN_0_1", "FUN_2_0", "FUN_1_1",
        "FUN_0_2", "FUN_STATIC", "THUNK", "THUNK_1_0", "THUNK_0_1", "THUNK_2_0", "THUNK_1_1",
        "THUNK_0_2", "THUNK_STATIC", "THUNK_SELECTOR", "BCO", "AP", "PAP", "AP_STACK", "IND",
        "IND_STATIC", "RET_BCO", "RET_SMALL", "RET_BIG", "RET_FUN", "UPDATE_FRAME",
        "CATCH_FRAME", "UNDERFLOW_FRAME", "STOP_FRAME", "BLOCKING_QUEUE", "BLACKHOLE",
        "MVAR_CLEAN", "MVAR_DIRTY", "TVAR", "ARR_WORDS", "MUT_ARR_PTRS_CLEAN",
        "MUT_ARR_PTRS_DIRTY", "MUT_ARR_PTRS_FROZEN_DIRTY", "MUT_ARR_PTRS_FROZEN_CLEAN",
        "MUT_VAR_CLEAN", "MUT_VAR_DIRTY", "WEAK", "PRIM", "MUT_PRIM", "TSO", "STACK",
        "TREC_CHUNK", "ATOMICALLY_FRAME", "CATCH_RETRY_FRAME", "CATCH_STM_FRAME", "WHITEHOLE",
        "SMALL_MUT_ARR_PTRS_CLEAN", "SMALL_MUT_ARR_PTRS_DIRTY",
        "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY", "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN", "COMPACT_NFDATA",
        "CONTINUATION"};
    if (!tw_is_con(i.type)) {
        cr_assert_lt(i.type, sizeof names / sizeof names[0]);
        snprintf(out, len, "%s", names[i.type]);
        return;
    }
    const char *d = tw_con_desc(t, info);
    const char *colon = strchr(d, ':');
    char mod[256] = "";
    const char *rest = colon ? colon + 1 : "";
    while (*rest >= 'A' && *rest <= 'Z' && strchr(rest, '.')) {
        const char *dot = strchr(rest, '.');
        size_t ml = strlen(mod);
        snprintf(mod + ml, sizeof mod - ml, "%s%.*s", ml ? "." : "", (int)(dot - rest), rest);
        rest = dot + 1;
    }
    bool srt = strncmp(d, "SRT_", 4) == 0 && d[4] && strspn(d + 4, "0123456789") == strlen(d + 4);
    if (srt) /* the RTS's static reference tables, as heapscope names them */
        snprintf(out, len, "%s (static reference table)", d);
    else if (!colon || colon == d || !*mod || !*rest)
        snprintf(out, len, "::%s", d);
    else
        snprintf(out, len, "%.*s:%s:%s", (int)(colon - d), d, mod, rest);
}

static inline const char *tw_json_section(const char *json, const char *name, char *buf,
                                          size_t len) {
    char head[128];
    snprintf(head, sizeof head, "\"%s\": {", name);
    const char *s = strstr(json, head);
    cr_assert_not_null(s, "section %s missing", name);
    const char *e = strstr(s, "\n  }");
    cr_assert_not_null(e);
    cr_assert_lt((size_t)(e - s), len);
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = 0;
    return buf;
}

static inline uint64_t tw_json_u64(const char *json, const char *key) {
    const char *s = strstr(json, key);
    cr_assert_not_null(s, "%s missing", key);
    s = strchr(s, ':');
    return strtoull(s + 1, NULL, 0);
}

static inline void tw_generate(synth_options *o, synth_process *p) {
    char err[256] = "";
    int rc = synth_generate(o, p, err, sizeof err);
    cr_assert_eq(rc, 0, "synth_generate failed: %s", err);
}

#endif
