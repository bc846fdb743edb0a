/* Decoding closures back from the finished fake process, the way the
 * client will (heap-layout.md §6-§13): the closure's census size and its
 * children in traversal order. Used by the plan; reads only memory, never
 * the generator's own bookkeeping, so the plan checks what was written. */
#include <stdio.h>
#include <string.h>

#include "synth_gen_internal.h"

const char *const sg_type_names[SG_N_CLOSURE_TYPES + 1] = {
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
    "CONTINUATION", "ANN_FRAME", "N_CLOSURE_TYPES"};

const char *sg_type_name(unsigned major, unsigned type, char *buf, size_t cap) {
    if (type < sg_closure_types_of(major))
        return sg_type_names[type];
    if (type > 255)
        return "UNKNOWN_TYPE_LARGE";
    snprintf(buf, cap, "UNKNOWN_TYPE_%u", type);
    return buf;
}

bool sg_is_constructor(unsigned type) {
    return type >= SG_CONSTR && type <= SG_CONSTR_NOCAF;
}

/* A reader that remembers the first failure instead of checking each load. */
typedef struct rd {
    const sg_walk *w;
    bool bad;
} rd;

static uint64_t u64(rd *r, uint64_t addr) {
    const uint8_t *b = synth_mem(r->w->p, addr, 8);
    if (!b) {
        r->bad = true;
        return 0;
    }
    return sg_get64(b);
}

static uint32_t u32(rd *r, uint64_t addr) {
    const uint8_t *b = synth_mem(r->w->p, addr, 4);
    if (!b) {
        r->bad = true;
        return 0;
    }
    return sg_get32(b);
}

static const uint8_t *info_table(rd *r, uint64_t info) {
    const uint8_t *t = synth_mem(r->w->p, info - r->w->S, r->w->S);
    if (!t)
        r->bad = true;
    return t;
}

/* the standard fields: layout word, type, srt (after the profiling part) */
static const uint8_t *std_part(const sg_walk *w, const uint8_t *t) {
    return t + (w->S - 16);
}

/* Is argument i of function closure `fun` a pointer (heap-layout.md §9)? */
static bool fun_arg_is_ptr(rd *r, uint64_t fun, unsigned i) {
    uint64_t info = u64(r, fun);
    const uint8_t *t = info_table(r, info);
    if (!t)
        return false;
    unsigned type = sg_get32(std_part(r->w, t) + 8);
    if (type < SG_FUN || type > SG_FUN_STATIC) {
        r->bad = true;
        return false;
    }
    uint64_t extra = info - r->w->S - 24;
    uint64_t bitmap = u64(r, extra + 8);
    unsigned fun_type = u32(r, extra + 16);
    if (fun_type == 0)
        return i >= 58 || !((bitmap >> 6 >> i) & 1);
    if (fun_type == 1) {
        uint64_t big = info + (uint64_t)(int64_t)(int32_t)(uint32_t)bitmap;
        if (i >= u64(r, big))
            return true;
        return !((u64(r, big + 8 + 8 * (i / 64)) >> (i % 64)) & 1);
    }
    const char *pat = sg_canned_pattern(fun_type);
    if (!pat) {
        r->bad = true;
        return false;
    }
    return i >= strlen(pat) || pat[i] == 'P';
}

static void emit_ptr(rd *r, sg_child_fn emit, void *ud, uint64_t addr) {
    uint64_t v = u64(r, addr);
    if (emit && !r->bad)
        emit(ud, v & ~(uint64_t)7);
}

/* Frames in [sp, end), walked as GHC lays them out (spec README policy):
 * the last frame is kept, a RET_FUN frame's function and every frame's SRT
 * are children, and a RET_BCO frame ends the walk. ANN_FRAME is a frame
 * with a small bitmap from GHC 9.14 on. */
static void walk_frames(rd *r, uint64_t sp, uint64_t end, sg_child_fn emit, void *ud) {
    uint64_t off = sp;
    while (off < end && !r->bad) {
        uint64_t info = u64(r, off);
        const uint8_t *t = info_table(r, info);
        if (!t)
            return;
        const uint8_t *s = std_part(r->w, t);
        uint64_t layout = sg_get64(s);
        unsigned type = sg_get32(s + 8);
        uint64_t n, hdr = 1, fun = 0, big = 0;
        if (type == SG_ANN_FRAME && sg_has_ann_frame(r->w->p->ghc_major))
            type = SG_RET_SMALL; /* the same walk */
        switch (type) {
        case SG_RET_SMALL: case SG_UPDATE_FRAME: case SG_CATCH_FRAME: case SG_UNDERFLOW_FRAME:
        case SG_STOP_FRAME: case SG_ATOMICALLY_FRAME: case SG_CATCH_RETRY_FRAME:
        case SG_CATCH_STM_FRAME:
            n = layout & 0x3f;
            break;
        case SG_RET_BIG:
            big = info + (uint64_t)(int64_t)(int32_t)(uint32_t)layout;
            n = u64(r, big);
            break;
        case SG_RET_FUN:
            n = u64(r, off + 8);
            fun = u64(r, off + 16) & ~(uint64_t)7;
            hdr = 3;
            break;
        case SG_RET_BCO:
            return;
        default:
            r->bad = true;
            return;
        }
        uint64_t size = 8 * (hdr + n);
        if (off + size > end) {
            r->bad = true;
            return;
        }
        int32_t srt = (int32_t)sg_get32(s + 12);
        if (srt != 0 && emit)
            emit(ud, (info + (uint64_t)(int64_t)srt) & ~(uint64_t)7);
        if (fun && emit)
            emit(ud, fun);
        for (uint64_t i = 0; i < n && !r->bad; i++) {
            bool ptr;
            if (type == SG_RET_BIG)
                ptr = !((u64(r, big + 8 + 8 * (i / 64)) >> (i % 64)) & 1);
            else if (type == SG_RET_FUN)
                ptr = fun_arg_is_ptr(r, fun, (unsigned)i);
            else
                ptr = i >= 58 || !((layout >> 6 >> i) & 1);
            if (ptr)
                emit_ptr(r, emit, ud, off + 8 * (hdr + i));
        }
        off += size;
    }
}

int sg_decode(const sg_walk *w, uint64_t addr, sg_closure *out, sg_child_fn emit, void *ud) {
    rd r = {w, false};
    const uint64_t H = w->H;
    uint64_t info = u64(&r, addr);
    const uint8_t *t = r.bad ? NULL : info_table(&r, info);
    if (!t)
        return -1;
    const uint8_t *s = std_part(w, t);
    uint32_t ptrs = sg_get32(s), nptrs = sg_get32(s + 4), type = sg_get32(s + 8);
    int32_t srt = (int32_t)sg_get32(s + 12);
    out->addr = addr;
    out->info = info;
    out->type = type;
    out->itab = t;
    out->ccs = H > 8 ? u64(&r, addr + 8) : 0;
    out->word = H > 8 ? u64(&r, addr + 16) : 0;
    out->era = sg_prof_era(w->prof_mode, out->word);
    uint64_t size = H + 8 * ((uint64_t)ptrs + nptrs), first = H, n = 0;
    bool has_srt = false;

    switch (type) {
    case SG_CONSTR: case SG_CONSTR_1_0: case SG_CONSTR_0_1: case SG_CONSTR_2_0:
    case SG_CONSTR_1_1: case SG_CONSTR_0_2: case SG_CONSTR_NOCAF: case SG_PRIM:
    case SG_MUT_PRIM:
        n = ptrs;
        break;
    case SG_FUN: case SG_FUN_1_0: case SG_FUN_0_1: case SG_FUN_2_0: case SG_FUN_1_1:
    case SG_FUN_0_2: case SG_FUN_STATIC: case SG_THUNK_STATIC:
        has_srt = true;
        n = ptrs;
        break;
    case SG_THUNK: case SG_THUNK_1_0: case SG_THUNK_0_1: case SG_THUNK_2_0:
    case SG_THUNK_1_1: case SG_THUNK_0_2:
        has_srt = true;
        size += 8;
        first = H + 8;
        n = ptrs;
        break;
    case SG_THUNK_SELECTOR:
        size = H + 16;
        first = H + 8;
        n = 1;
        break;
    case SG_IND: case SG_IND_STATIC: case SG_BLACKHOLE: case SG_MUT_VAR_CLEAN:
    case SG_MUT_VAR_DIRTY:
        size = H + 8;
        n = 1;
        break;
    case SG_MVAR_CLEAN: case SG_MVAR_DIRTY:
        size = H + 24;
        n = 3;
        break;
    case SG_TVAR:
        size = H + 24;
        n = 2;
        break;
    case SG_BLOCKING_QUEUE:
        size = H + 32;
        n = 4;
        break;
    case SG_BCO:
        size = 8 * (uint64_t)u32(&r, addr + H + 28);
        n = 3;
        break;
    case SG_ARR_WORDS:
        size = H + 8 + 8 * ((u64(&r, addr + H) + 7) / 8);
        break;
    case SG_MUT_ARR_PTRS_CLEAN: case SG_MUT_ARR_PTRS_DIRTY: case SG_MUT_ARR_PTRS_FROZEN_DIRTY:
    case SG_MUT_ARR_PTRS_FROZEN_CLEAN:
        n = u64(&r, addr + H);
        size = H + 16 + 8 * n;
        first = H + 16;
        break;
    case SG_SMALL_MUT_ARR_PTRS_CLEAN: case SG_SMALL_MUT_ARR_PTRS_DIRTY:
    case SG_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY: case SG_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
        n = u64(&r, addr + H);
        size = H + 8 + 8 * n;
        first = H + 8;
        break;
    case SG_PAP:
        size = H + 16 + 8 * (uint64_t)u32(&r, addr + H + 4);
        break;
    case SG_AP:
        size = H + 24 + 8 * (uint64_t)u32(&r, addr + H + 12);
        break;
    case SG_AP_STACK:
        size = H + 24 + 8 * u64(&r, addr + H + 8);
        break;
    case SG_WEAK:
        size = H + 40;
        n = 4;
        break;
    case SG_TSO:
        size = H + 124;
        break;
    case SG_STACK:
        size = H + 16 + 8 * (uint64_t)u32(&r, addr + H);
        break;
    case SG_TREC_CHUNK:
        size = H + 16 + 32 * u64(&r, addr + H + 8);
        break;
    default: /* types the client shows as opaque leaves: RTS size rule */
        break;
    }
    out->size = size;
    if (r.bad)
        return -1;
    if (!emit)
        return 0;

    if (has_srt && srt != 0)
        emit(ud, (info + (uint64_t)(int64_t)srt) & ~(uint64_t)7);
    for (uint64_t i = 0; i < n && !r.bad; i++)
        emit_ptr(&r, emit, ud, addr + first + 8 * i);
    switch (type) {
    case SG_WEAK:
        if (u64(&r, addr + H + 32))
            emit_ptr(&r, emit, ud, addr + H + 32);
        break;
    case SG_PAP: case SG_AP: {
        uint64_t fo = type == SG_PAP ? H + 8 : H + 16;
        uint64_t nargs = u32(&r, addr + fo - 4);
        uint64_t fun = u64(&r, addr + fo) & ~(uint64_t)7;
        emit_ptr(&r, emit, ud, addr + fo);
        for (uint64_t i = 0; i < nargs && !r.bad; i++)
            if (fun_arg_is_ptr(&r, fun, (unsigned)i))
                emit_ptr(&r, emit, ud, addr + fo + 8 + 8 * i);
        break;
    }
    case SG_AP_STACK:
        emit_ptr(&r, emit, ud, addr + H + 16);
        walk_frames(&r, addr + H + 24, addr + size, emit, ud);
        break;
    case SG_TSO: {
        static const unsigned fields[] = {0, 8, 16, 80, 96, 104};
        for (size_t i = 0; i < 6; i++)
            emit_ptr(&r, emit, ud, addr + H + fields[i]);
        if (u64(&r, addr + H + 88))
            emit_ptr(&r, emit, ud, addr + H + 88);
        break;
    }
    case SG_STACK: {
        uint64_t sp = u64(&r, addr + H + 8), lo = addr + H + 16;
        if (sp < lo || sp > addr + size)
            r.bad = true;
        else
            walk_frames(&r, sp, addr + size, emit, ud);
        break;
    }
    case SG_TREC_CHUNK: {
        uint64_t used = u64(&r, addr + H + 8);
        emit_ptr(&r, emit, ud, addr + H);
        for (uint64_t i = 0; i < used && !r.bad; i++)
            for (unsigned k = 0; k < 3; k++)
                emit_ptr(&r, emit, ud, addr + H + 16 + 32 * i + 8 * k);
        break;
    }
    default:
        break;
    }
    return r.bad ? -1 : 0;
}

const char *sg_con_desc(const sg_walk *w, uint64_t info) {
    const uint8_t *off = synth_mem(w->p, info - w->S - 8, 4);
    if (!off)
        return NULL;
    uint64_t addr = info + (uint64_t)(int64_t)(int32_t)sg_get32(off);
    const uint8_t *s = synth_mem(w->p, addr, 1);
    for (uint64_t i = 0; s && i < 1024; i++) {
        const uint8_t *b = synth_mem(w->p, addr + i, 1);
        if (!b)
            return NULL;
        if (!*b)
            return (const char *)s;
    }
    return NULL;
}

static bool latin1_upper(unsigned char ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 0xc0 && ch <= 0xde && ch != 0xd7);
}

void sg_con_key(const char *desc, char *key, size_t keylen, char *name, size_t namelen) {
    const char *colon = strchr(desc, ':');
    size_t pkg_len = colon ? (size_t)(colon - desc) : strlen(desc);
    const char *rest = colon ? colon + 1 : desc + strlen(desc);
    const char *mod = rest;
    size_t mod_len = 0;
    while (latin1_upper((unsigned char)*rest) && strchr(rest, '.')) {
        const char *dot = strchr(rest, '.');
        mod_len = (size_t)(dot - mod);
        rest = dot + 1;
    }
    bool srt = strncmp(desc, "SRT_", 4) == 0 && desc[4] && strspn(desc + 4, "0123456789") ==
                                                              strlen(desc + 4);
    if (srt) { /* the RTS's static reference tables: heapscope names them so */
        snprintf(key, keylen, "%s (static reference table)", desc);
        snprintf(name, namelen, "%s", desc);
        return;
    }
    if (!pkg_len || !mod_len || !*rest) {
        snprintf(key, keylen, "::%s", desc);
        snprintf(name, namelen, "%s", desc);
        return;
    }
    snprintf(key, keylen, "%.*s:%.*s:%s", (int)pkg_len, desc, (int)mod_len, mod, rest);
    snprintf(name, namelen, "%s", rest);
}
