/* The server on generated heaps: a client-style walk from the roots
 * (wire-protocol.md §10.3, heap-layout.md §13, with the GHC-faithful stack
 * policy of the spec README) must succeed on every request, see CLOSURES
 * bytes equal to the block bytes, and reach exactly the closures the
 * generator's plan counts. */
#include "test_server_helpers.c"

#include "synth_gen.h"

#define HEAP_LO UINT64_C(0x4200000000)
#define HEAP_HI UINT64_C(0x14200000000)

static synth_process P;
static synth_state ST;
static tconn C;
static uint64_t H;

/* Sends a request and returns the body of its OKAY answer. */
static tbuf ask(uint32_t cmd, const tbuf *payload) {
    tc_request(&C, cmd, payload);
    tresp r;
    tc_read_response(&C, &r);
    cr_assert_eq(r.status, 0, "command %u failed with status %#x", cmd, r.status);
    tb_free(&r.raw);
    return r.body;
}

static tbuf ask_ptr(uint32_t cmd, uint64_t a, bool counted) {
    tbuf pl = {0};
    if (counted)
        tb_be16(&pl, 1);
    tb_le64(&pl, a);
    tbuf b = ask(cmd, &pl);
    tb_free(&pl);
    return b;
}

/* ---- a small open-addressing set/map of addresses ---- */
typedef struct amap {
    uint64_t *key;
    uint32_t *val;
    size_t cap, n;
} amap;

static bool amap_get(amap *m, uint64_t k, uint32_t *v) {
    if (!m->cap)
        return false;
    for (size_t i = (k * 0x9e3779b97f4a7c15) >> 20 & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == 0)
            return false;
        if (m->key[i] == k) {
            if (v)
                *v = m->val[i];
            return true;
        }
    }
}

static void amap_put(amap *m, uint64_t k, uint32_t v) {
    if (2 * (m->n + 1) > m->cap) {
        amap old = *m;
        m->cap = old.cap ? old.cap * 2 : 1024;
        m->key = calloc(m->cap, sizeof *m->key);
        m->val = calloc(m->cap, sizeof *m->val);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.key[i])
                amap_put(m, old.key[i], old.val[i]);
        free(old.key);
        free(old.val);
    }
    size_t i = (k * 0x9e3779b97f4a7c15) >> 20 & (m->cap - 1);
    while (m->key[i] != 0 && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (m->key[i] == 0)
        m->n++;
    m->key[i] = k;
    m->val[i] = v;
}

static void amap_free(amap *m) {
    free(m->key);
    free(m->val);
    *m = (amap){0};
}

/* ---- the walk ---- */

static tbuf ALL;      /* ALL_BLOCKS body */
static amap BLOCKS;   /* block start -> offset of its RawBlock in ALL */
static amap ITBL;     /* info pointer -> type | ptrs << 8 */
static amap SEEN;
static uint64_t *TODO;
static size_t NTODO, CAPTODO;

static void push(uint64_t a) {
    a &= ~(uint64_t)7;
    if (NTODO == CAPTODO) {
        CAPTODO = CAPTODO ? 2 * CAPTODO : 4096;
        TODO = realloc(TODO, CAPTODO * sizeof *TODO);
    }
    TODO[NTODO++] = a;
}

static void itbl(uint64_t info, uint32_t *type, uint32_t *ptrs) {
    uint32_t v;
    if (!amap_get(&ITBL, info, &v)) {
        tbuf b = ask_ptr(6, info, true);
        size_t s = P.prof_mode ? 32 : 16;
        cr_assert_eq(b.n, 4 + s);
        const uint8_t *t = b.b + 4 + s - 16;
        cr_assert(hs_load_le32(t) < (1u << 24));
        v = hs_load_le32(t + 8) | hs_load_le32(t) << 8;
        amap_put(&ITBL, info, v);
        tb_free(&b);
    }
    *type = v & 0xff;
    *ptrs = v >> 8;
}

static uint64_t srt(uint64_t info) {
    tbuf b = ask_ptr(17, info, true);
    cr_assert_eq(b.n, 8);
    uint64_t s = hs_load_le64(b.b) & ~(uint64_t)7;
    tb_free(&b);
    return s;
}

static uint64_t w(const uint8_t *raw, size_t len, uint64_t off) {
    cr_assert(off + 8 <= len, "field at %llu beyond %zu bytes", (unsigned long long)off, len);
    return hs_load_le64(raw + off);
}

/* Pointer fields of the frames in [sp, sp + len). heapscope follows GHC
 * where the reference client does not (spec README): the last frame is
 * kept and a RET_FUN frame's function is a child; like the generator's
 * walk, frame SRTs are children too. A RET_BCO frame ends the walk. */
static void frames(const uint8_t *stk, size_t len, uint64_t sp) {
    size_t off = 0;
    while (off < len) {
        uint64_t info = w(stk, len, off);
        uint32_t type, ptrs;
        itbl(info, &type, &ptrs);
        if (type == 29)
            return;
        tbuf pl = {0};
        tb_le64(&pl, sp);
        tb_be32(&pl, (uint32_t)off);
        tbuf bm = ask(7, &pl);
        tb_free(&pl);
        uint32_t n = hs_load_be32(bm.b);
        cr_assert_eq(bm.n, 4 + (size_t)n);
        size_t hdr = type == 32 ? 3 : 1, size = 8 * (hdr + n);
        cr_assert(off + size <= len, "frame at +%zu overruns its stack", off);
        for (uint32_t i = 0; i < n; i++)
            if (bm.b[4 + i])
                push(w(stk, len, off + 8 * (hdr + i)));
        tb_free(&bm);
        if (type == 32)
            push(w(stk, len, off + 16));
        uint64_t s = srt(info);
        if (s)
            push(s);
        off += size;
    }
}

static void children(uint64_t p, const uint8_t *raw, size_t len) {
    uint64_t info = w(raw, len, 0);
    uint32_t type, ptrs;
    itbl(info, &type, &ptrs);
    if (type >= 1 && type <= 7) {
        for (uint32_t i = 0; i < ptrs; i++)
            push(w(raw, len, H + 8 * i));
        tbuf d = ask_ptr(11, info, false);
        cr_assert(d.n >= 4 && hs_load_be32(d.b) == d.n - 4);
        tb_free(&d);
    } else if ((type >= 8 && type <= 14) || type == 21 || type == 50 || type == 51) {
        if (type <= 21 && srt(info))
            push(srt(info));
        for (uint32_t i = 0; i < ptrs; i++)
            push(w(raw, len, H + 8 * i));
    } else if (type >= 15 && type <= 20) {
        if (srt(info))
            push(srt(info));
        for (uint32_t i = 0; i < ptrs; i++)
            push(w(raw, len, H + 8 + 8 * i));
    } else if (type == 22) {
        push(w(raw, len, H + 8));
    } else if (type == 24 || type == 25) {
        uint64_t base = type == 24 ? H + 8 : H;
        uint32_t nargs = (uint32_t)(w(raw, len, base) >> 32);
        uint64_t fun = w(raw, len, base + 8);
        push(fun);
        tbuf pl = {0};
        tb_le64(&pl, fun);
        tb_be16(&pl, (uint16_t)nargs);
        tbuf bm = ask(16, &pl);
        tb_free(&pl);
        cr_assert_eq(bm.n, 4 + (size_t)nargs);
        for (uint32_t i = 0; i < nargs; i++)
            if (bm.b[4 + i])
                push(w(raw, len, base + 16 + 8 * i));
        tb_free(&bm);
    } else if (type == 26) {
        uint64_t size = w(raw, len, H + 8);
        push(w(raw, len, H + 16));
        cr_assert(H + 24 + 8 * size <= len);
        frames(raw + H + 24, 8 * size, p + H + 24);
    } else if (type == 27 || type == 28 || type == 38 || type == 47 || type == 48) {
        push(w(raw, len, H));
    } else if (type == 23 || type == 39 || type == 40) {
        for (int i = 0; i < 3; i++)
            push(w(raw, len, H + 8 * (uint64_t)i));
    } else if (type >= 43 && type <= 46) {
        for (uint64_t i = 0, n = w(raw, len, H); i < n; i++)
            push(w(raw, len, H + 16 + 8 * i));
    } else if (type >= 59 && type <= 62) {
        for (uint64_t i = 0, n = w(raw, len, H); i < n; i++)
            push(w(raw, len, H + 8 + 8 * i));
    } else if (type == 41) {
        push(w(raw, len, H));
        push(w(raw, len, H + 8));
    } else if (type == 49 || type == 37) {
        for (int i = 0; i < 4; i++)
            push(w(raw, len, H + 8 * (uint64_t)i));
        if (type == 49 && w(raw, len, H + 32))
            push(w(raw, len, H + 32));
    } else if (type == 52) { /* TSO, layout C (GHC 9.10) */
        uint64_t f[] = {0, 8, 16, 80, 96, 104};
        for (int i = 0; i < 6; i++)
            push(w(raw, len, H + f[i]));
        if (w(raw, len, H + 88))
            push(w(raw, len, H + 88));
    } else if (type == 53) {
        uint64_t ssize = w(raw, len, H) & 0xffffffff, sp = w(raw, len, H + 8);
        uint64_t end = p + H + 16 + 8 * ssize;
        cr_assert(sp >= p + H + 16 && sp < end && end - p <= len);
        frames(raw + (sp - p), end - sp, sp);
    } else if (type == 54) {
        push(w(raw, len, H));
        for (uint64_t i = 0, n = w(raw, len, H + 8); i < n; i++)
            for (int k = 0; k < 3; k++)
                push(w(raw, len, H + 16 + 32 * i + 8 * (uint64_t)k));
    } else {
        cr_assert_eq(type, 42, "unexpected closure type %u at 0x%llx", type,
                     (unsigned long long)p);
    }
}

/* CLOSURES(p), checked against the block bytes the client would use. */
static tbuf closure(uint64_t p) {
    tbuf b = ask_ptr(5, p, true);
    cr_assert(b.n >= 12 && hs_load_be32(b.b) == b.n - 4);
    if (p >= HEAP_LO && p <= HEAP_HI) {
        uint32_t at;
        const uint8_t *data;
        uint64_t start;
        uint32_t glen;
        tbuf blk = {0};
        if (amap_get(&BLOCKS, p & ~(uint64_t)0xfff, &at)) {
            data = ALL.b + at;
        } else { /* interior block of a group: fetched on its own */
            blk = ask_ptr(15, p, false);
            data = blk.b;
        }
        start = hs_load_le64(data + 2);
        glen = hs_load_be32(data + 10);
        cr_assert(p >= start && p - start + (b.n - 4) <= glen);
        cr_assert(memcmp(data + 14 + (p - start), b.b + 4, b.n - 4) == 0,
                  "CLOSURES and BLOCK disagree at 0x%llx", (unsigned long long)p);
        tb_free(&blk);
    }
    return b;
}

static uint64_t plan_count(const char *key) {
    const char *at = strstr(P.plan_json, key);
    cr_assert(at != NULL, "plan lacks %s", key);
    at = strstr(at, "\"count\":");
    cr_assert(at != NULL);
    return strtoull(at + 8, NULL, 10);
}

static void walk(bool profiled, uint64_t seed) {
    synth_options o;
    char err[256];
    synth_options_default(&o);
    o.closures = 4000;
    o.profiled = profiled;
    o.seed = seed;
    cr_assert_eq(synth_generate(&o, &P, err, sizeof err), 0, "%s", err);
    H = profiled ? 24 : 8;
    synth_state_init(&ST, -1);
    tc_start(&C, &P, &ST);

    tbuf none = {0};
    tc_send_hex(&C, "00 00 00 05 | 00 00 00 02 | 00");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");
    ALL = ask(14, &none);
    for (size_t off = 0; off < ALL.n;) {
        cr_assert(off + 14 <= ALL.n);
        uint64_t start = hs_load_le64(ALL.b + off + 2);
        uint32_t len = hs_load_be32(ALL.b + off + 10);
        cr_assert(len > 0 && len % 4096 == 0 && off + 14 + len <= ALL.n);
        amap_put(&BLOCKS, start, (uint32_t)off);
        off += 14 + (size_t)len;
    }
    cr_assert_eq(BLOCKS.n, P.n_groups);

    tbuf roots = ask(4, &none);
    cr_assert(roots.n > 0 && roots.n % 8 == 0);
    for (size_t i = 0; i < roots.n; i += 8)
        push(hs_load_le64(roots.b + i));
    tbuf saved = ask(9, &none);
    tb_free(&saved);

    uint64_t heap = 0, stat = 0;
    while (NTODO) {
        uint64_t p = TODO[--NTODO];
        if (amap_get(&SEEN, p, NULL))
            continue;
        amap_put(&SEEN, p, 1);
        tbuf raw = closure(p);
        if (p >= HEAP_LO && p <= HEAP_HI)
            heap++;
        else
            stat++;
        tbuf src = ask_ptr(12, hs_load_le64(raw.b + 4), false);
        uint32_t count = hs_load_be32(src.b);
        cr_assert(count == 0 || count == 6);
        tb_free(&src);
        children(p, raw.b + 4, raw.n - 4);
        tb_free(&raw);
    }
    cr_assert_eq(heap + stat, plan_count("\"reachable\""), "walk reached %llu + %llu",
                 (unsigned long long)heap, (unsigned long long)stat);
    cr_assert_eq(stat, plan_count("\"static\""));

    if (profiled) {
        tbuf m = ask(21, &none);
        cr_assert_eq(m.n, 8);
        tbuf ccs = ask_ptr(18, hs_load_le64(m.b), false);
        cr_assert_eq(ccs.n, 96);
        tbuf cc = ask_ptr(19, hs_load_le64(ccs.b + 8), false);
        cr_assert(cc.n >= 8 + 12 + 32);
        tb_free(&m);
        tb_free(&ccs);
        tb_free(&cc);
    }
    tc_send_hex(&C, "00 00 00 04 | 00 00 00 03");
    tc_expect_hex(&C, "00 00 00 00 | 00 00");

    tb_free(&roots);
    tb_free(&ALL);
    amap_free(&BLOCKS);
    amap_free(&ITBL);
    amap_free(&SEEN);
    free(TODO);
    cr_assert_eq(tc_stop(&C), SYNTH_SERVE_CLOSED);
    synth_process_free(&P);
}

Test(generated, walk_non_profiled) { walk(false, 1); }
Test(generated, walk_non_profiled_other_seed) { walk(false, 99); }
Test(generated, walk_era_profiled) { walk(true, 3); }
