/* Reading the fake process as the stub reads a real one: bounded loads,
 * info tables before their info pointer, and the RTS closure sizes the stub
 * uses for CLOSURES (heap-layout.md §3, §11.1). Every access goes through
 * synth_mem, so a bad address is a refusal, never a wild read. */
#include <string.h>

#include "heapscope/bytes.h"
#include "synth_server_int.h"

bool synth_rd_u64(const synth_process *p, uint64_t addr, uint64_t *v) {
    const uint8_t *m = synth_mem(p, addr, 8);
    if (!m)
        return false;
    *v = hs_load_le64(m);
    return true;
}

bool synth_rd_u32(const synth_process *p, uint64_t addr, uint32_t *v) {
    const uint8_t *m = synth_mem(p, addr, 4);
    if (!m)
        return false;
    *v = hs_load_le32(m);
    return true;
}

/* Bytes mapped from addr to the end of its region (0 when unmapped). */
static uint64_t region_avail(const synth_process *p, uint64_t addr) {
    size_t lo = 0, hi = p->n_regions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->regions[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const synth_region *r = &p->regions[lo - 1];
    uint64_t off = addr - r->base;
    return off < r->size ? r->size - off : 0;
}

const char *synth_rd_cstr(const synth_process *p, uint64_t addr, size_t max, size_t *len) {
    uint64_t avail = region_avail(p, addr);
    if (avail == 0)
        return NULL;
    uint64_t scan = avail < (uint64_t)max + 1 ? avail : (uint64_t)max + 1;
    const char *s = (const char *)synth_mem(p, addr, scan);
    if (!s)
        return NULL;
    const char *nul = memchr(s, 0, (size_t)scan);
    if (!nul)
        return NULL; /* runs off the region, or longer than max */
    *len = (size_t)(nul - s);
    return s;
}

bool synth_addr_add(uint64_t a, int64_t off, uint64_t *out) {
    if (off >= 0) {
        if ((uint64_t)off > UINT64_MAX - a)
            return false;
        *out = a + (uint64_t)off;
    } else {
        uint64_t neg = (uint64_t)0 - (uint64_t)off;
        if (neg > a)
            return false;
        *out = a - neg;
    }
    return true;
}

bool synth_read_itbl(const synth_process *p, uint64_t info, synth_itbl *it) {
    uint64_t s = synth_itbl_size(p);
    if (info < s)
        return false;
    const uint8_t *m = synth_mem(p, info - s, s);
    if (!m)
        return false;
    const uint8_t *f = m + s - 16; /* the non-profiled fields end the struct */
    it->info = info;
    it->layout = hs_load_le64(f);
    it->ptrs = hs_load_le32(f);
    it->nptrs = hs_load_le32(f + 4);
    it->type = hs_load_le32(f + 8);
    it->srt = (int32_t)hs_load_le32(f + 12);
    return true;
}

/* Words of the RTS thread struct by compiler version (§11.1, §7 tests). */
static uint64_t tso_words(const synth_process *p) {
    uint32_t maj = p->ghc_major, pat = p->ghc_patch;
    uint64_t w;
    if (maj > 909 || (maj == 909 && pat >= 20240201))
        w = 17;
    else if (maj > 905 || (maj == 905 && pat >= 20220925))
        w = 16;
    else
        w = 15;
    return synth_profiled(p) ? w + 3 : w;
}

/* a + b + c in words, refusing anything that cannot be a real closure. */
static bool words3(uint64_t a, uint64_t b, uint64_t c, uint64_t *w) {
    const uint64_t lim = UINT64_C(1) << 40;
    if (a > lim || b > lim || c > lim)
        return false;
    *w = a + b + c;
    return true;
}

bool synth_closure_size(const synth_process *p, uint64_t addr, uint64_t *bytes) {
    uint64_t info;
    synth_itbl it;
    if (!synth_rd_u64(p, addr, &info) || !synth_read_itbl(p, info, &it))
        return false;
    const uint64_t h = synth_hdr_size(p), hw = h / 8;
    uint64_t w = 0, f64 = 0;
    uint32_t f32 = 0;
    bool ok = true;
    switch (it.type) {
    case 16: case 17: /* THUNK_1_0, THUNK_0_1 */
    case 22:          /* THUNK_SELECTOR */
        w = hw + 2;
        break;
    case 18: case 19: case 20: /* THUNK_2_0, THUNK_1_1, THUNK_0_2 */
        w = hw + 3;
        break;
    case 15: /* THUNK */
        ok = words3(hw + 1, it.ptrs, it.nptrs, &w);
        break;
    case 2: case 3: case 9: case 10: /* CONSTR_1_0/0_1, FUN_1_0/0_1 */
    case 27:                         /* IND */
        w = hw + 1;
        break;
    case 4: case 5: case 6: case 11: case 12: case 13: /* the _2_0/_1_1/_0_2 */
        w = hw + 2;
        break;
    case 26: /* AP_STACK: size in words at H+8 */
        ok = synth_rd_u64(p, addr + h + 8, &f64) && words3(hw + 3, f64, 0, &w);
        break;
    case 24: /* AP: n_args at H+12 */
        ok = synth_rd_u32(p, addr + h + 12, &f32) && words3(hw + 3, f32, 0, &w);
        break;
    case 25: /* PAP: n_args at H+4 */
        ok = synth_rd_u32(p, addr + h + 4, &f32) && words3(hw + 2, f32, 0, &w);
        break;
    case 42: /* ARR_WORDS: payload bytes at H */
        ok = synth_rd_u64(p, addr + h, &f64) && words3(hw + 1, f64 / 8, f64 % 8 != 0, &w);
        break;
    case 43: case 44: case 45: case 46: /* MUT_ARR_PTRS_*: size at H+8 */
        ok = synth_rd_u64(p, addr + h + 8, &f64) && words3(hw + 2, f64, 0, &w);
        break;
    case 59: case 60: case 61: case 62: /* SMALL_MUT_ARR_PTRS_*: ptrs at H */
        ok = synth_rd_u64(p, addr + h, &f64) && words3(hw + 1, f64, 0, &w);
        break;
    case 52: /* TSO */
        w = tso_words(p);
        break;
    case 53: /* STACK: stack_size (words) at H */
        ok = synth_rd_u32(p, addr + h, &f32) && words3(hw + 2, f32, 0, &w);
        break;
    case 23: /* BCO: its own size field, in words, at H+28 */
        ok = synth_rd_u32(p, addr + h + 28, &f32);
        w = f32;
        break;
    case 54: /* TREC_CHUNK */
        w = hw + 2 + 64;
        break;
    default: /* standard layout and the fixed-layout RTS objects */
        ok = words3(hw, it.ptrs, it.nptrs, &w);
        break;
    }
    if (!ok || w == 0 || w > UINT32_MAX / 8)
        return false; /* the length goes out as a u32 */
    if (!synth_mem(p, addr, w * 8))
        return false;
    *bytes = w * 8;
    return true;
}
