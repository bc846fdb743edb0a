/* The requests of ghc-debug-client 0.6.0.0's GHC.Debug.Snapshot.snapshot,
 * imitated from its source (zoominsoftware/ghc-debug, vendor-fork):
 * precacheBlocks, version, gcRoots, savedObjects, findAllChildrenOfCC
 * (CostCentres.hs) for a profiled program, then tracePar (ParTrace.hs) from
 * the roots: every closure is dereferenced as Client/Query.hs does it
 * (block cache keyed by group start and looked up by 4 KiB block, CLOSURES
 * outside the heap range), decoded as Decode.hs decodes it, and the
 * SOURCE_INFO of its info table asked; then its cost-centre stack, SRT,
 * PAP payload bitmap, constructor description, stack frames
 * (Decode/Stack.hs) and pointer fields follow (the Hextraversable instance
 * of Types/Closures.hs). Which requests are made does not depend on the
 * order, so one worker walks what ghc-debug's threads walk. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "synth_ghcdebug.h"
#include "synth_ghcdebug_int.h"
#include "synth_server_int.h"

#define HEAP_LO UINT64_C(0x4200000000) /* Ptr.hs: heapAlloced, inclusive */
#define HEAP_HI UINT64_C(0x14200000000)
#define CCS_ITEM 1u /* low bit of a work item: a cost-centre stack */
#define MAX_CCS_WALK 1000000u

/* u64 set / map by open addressing; keys are stored + 1 so 0 is empty. */
typedef struct u64tab {
    uint64_t *keys, *vals;
    size_t cap, n;
} u64tab;

typedef struct blk {
    const uint8_t *data;
    uint32_t len;
    uint64_t start;
} blk;

typedef struct tracer {
    gw *w;
    bool tntc;
    gw_layout layout;
    u64tab blocks; /* group start -> index in blks */
    blk *blks;
    size_t n_blks, cap_blks;
    u64tab visited;
    uint64_t *work;
    size_t n_work, cap_work;
} tracer;

static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    return k ^ (k >> 33);
}

static uint64_t *tab_find(const u64tab *t, uint64_t key) {
    if (!t->cap)
        return NULL;
    for (size_t i = mix(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (t->keys[i] == 0)
            return NULL;
        if (t->keys[i] == key + 1)
            return &t->vals[i];
    }
}

static bool tab_put(tracer *tr, u64tab *t, uint64_t key, uint64_t val) {
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4096;
        uint64_t *k = calloc(cap, sizeof *k), *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            gw_fatal(tr->w, "out of memory for the traversal");
            return false;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->keys[i])
                continue;
            size_t j = mix(t->keys[i] - 1) & (cap - 1);
            while (k[j])
                j = (j + 1) & (cap - 1);
            k[j] = t->keys[i];
            v[j] = t->vals[i];
        }
        free(t->keys);
        free(t->vals);
        *t = (u64tab){k, v, cap, t->n};
    }
    size_t i = mix(key) & (t->cap - 1);
    while (t->keys[i] && t->keys[i] != key + 1)
        i = (i + 1) & (t->cap - 1);
    if (!t->keys[i])
        t->n++;
    t->keys[i] = key + 1;
    t->vals[i] = val;
    return true;
}

static void push(tracer *tr, uint64_t item) {
    if (tr->n_work == tr->cap_work) {
        size_t cap = tr->cap_work ? 2 * tr->cap_work : 4096;
        uint64_t *grown = realloc(tr->work, cap * sizeof *grown);
        if (!grown) {
            gw_fatal(tr->w, "out of memory for the traversal");
            return;
        }
        tr->work = grown;
        tr->cap_work = cap;
    }
    tr->work[tr->n_work++] = item;
}

static void push_closure(tracer *tr, uint64_t p) { push(tr, UNTAG(p)); }
static void push_ccs(tracer *tr, uint64_t p) { push(tr, UNTAG(p) | CCS_ITEM); }

static bool heap_alloced(uint64_t p) { return p >= HEAP_LO && p <= HEAP_HI; }

/* BlockCache.hs: addBlock, keyed by the RawBlock's start. */
static void add_blocks(tracer *tr, const uint8_t *b, size_t n) {
    for (size_t at = 0; at + 14 <= n;) {
        blk k = {.start = UNTAG(hs_load_le64(b + at + 2)), .len = hs_load_be32(b + at + 10)};
        k.data = b + at + 14;
        at += 14 + (size_t)k.len;
        if (tr->n_blks == tr->cap_blks) {
            size_t cap = tr->cap_blks ? 2 * tr->cap_blks : 1024;
            blk *grown = realloc(tr->blks, cap * sizeof *grown);
            if (!grown) {
                gw_fatal(tr->w, "out of memory for the block cache");
                return;
            }
            tr->blks = grown;
            tr->cap_blks = cap;
        }
        tr->blks[tr->n_blks] = k;
        tab_put(tr, &tr->blocks, k.start, tr->n_blks++);
    }
}

/* handleBlockReq (LookupClosure): the tail of the cached block that has
 * the key cp & ~0xfff, else BLOCK(cp) added under its start;
 * extractFromBlock's drop. */
static bool block_tail(tracer *tr, uint64_t cp, const uint8_t **raw, size_t *len) {
    uint64_t *idx = tab_find(&tr->blocks, cp & ~UINT64_C(0xfff));
    size_t i;
    if (idx) {
        i = (size_t)*idx;
    } else {
        gw_answer a;
        if (!gw_request(tr->w, SYNTH_CMD_BLOCK, cp, 0, &a))
            return false;
        i = tr->n_blks;
        add_blocks(tr, a.body, a.len);
        if (tr->n_blks == i)
            return false;
    }
    const blk *b = &tr->blks[i];
    uint64_t off = cp - b->start; /* a negative offset drops nothing */
    if (cp < b->start)
        off = 0;
    *raw = b->data + (off < b->len ? off : b->len);
    *len = off < b->len ? b->len - (size_t)off : 0;
    return true;
}

/* A CLOSURES or INFO_TABLES answer: u32 BE len + bytes. */
static bool blob(tracer *tr, uint32_t cmd, uint64_t p, const uint8_t **bytes, size_t *len) {
    gw_answer a;
    if (!gw_request(tr->w, cmd, p, 0, &a) || a.len < 4)
        return false;
    *bytes = a.body + 4;
    *len = a.len - 4;
    return true;
}

/* INFO_TABLES and Decode.hs: decodeInfoTable. */
static bool info_table(tracer *tr, uint64_t info, gw_itbl *out) {
    const uint8_t *b;
    size_t n, off = (tr->tntc ? 0 : 8) + (tr->layout.prof ? 16 : 0);
    if (!blob(tr, SYNTH_CMD_INFO_TABLES, info, &b, &n) || n < off + 16)
        return false;
    *out = (gw_itbl){.info = info, .ptrs = hs_load_le32(b + off),
                  .nptrs = hs_load_le32(b + off + 4), .type = hs_load_le32(b + off + 8)};
    return out->type < T_MAX;
}

/* Query.hs: dereferenceClosure, then the info table of the closure. */
static bool deref(tracer *tr, uint64_t cp, const uint8_t **raw, size_t *len, gw_itbl *it) {
    bool direct = !heap_alloced(cp);
    if (!direct) {
        if (!block_tail(tr, cp, raw, len))
            return false;
        direct = *len < 8; /* "block decoding failed": ask directly */
    }
    if (direct && (!blob(tr, SYNTH_CMD_CLOSURES, cp, raw, len) || *len < 8))
        return false;
    return info_table(tr, UNTAG(hs_load_le64(*raw)), it);
}

/* Decode/Stack.hs: decodeStack, then stackTrace and the frames' SRTs and
 * pointer fields. Frames are split by the bitmaps the stub sends; the last
 * frame is dropped; any failure loses the whole stack. */
static void walk_stack(tracer *tr, uint64_t sp, const uint8_t *raw, size_t len) {
    typedef struct frame { uint64_t info; size_t at, n; const uint8_t *bits; } frame;
    frame *fr = NULL;
    size_t n_fr = 0, cap_fr = 0, off = 0;
    for (;;) {
        gw_itbl it;
        gw_answer bm;
        if (len - off < 8 || !info_table(tr, UNTAG(hs_load_le64(raw + off)), &it) ||
            !gw_request(tr->w, SYNTH_CMD_STACK_BITMAP, sp, (uint32_t)off, &bm) || bm.len < 4 ||
            it.type == T_RET_BCO)
            goto lost;
        size_t hdr = it.type == T_RET_FUN ? 3 : 1, nbits = hs_load_be32(bm.body);
        if (nbits > (len - off) / 8 || 8 * (hdr + nbits) > len - off)
            goto lost; /* "Not enough input" */
        size_t size = 8 * (hdr + nbits);
        if (size == len - off)
            break; /* the last frame */
        if (n_fr == cap_fr) {
            cap_fr = cap_fr ? 2 * cap_fr : 16;
            frame *grown = realloc(fr, cap_fr * sizeof *grown);
            if (!grown) {
                gw_fatal(tr->w, "out of memory for stack frames");
                goto lost;
            }
            fr = grown;
        }
        fr[n_fr++] = (frame){it.info, off + 8 * hdr, nbits, bm.body + 4};
        off += size;
    }
    gw_answer a;
    for (size_t i = 0; i < n_fr; i++)
        if (!gw_request(tr->w, SYNTH_CMD_SOURCE_INFO, fr[i].info, 0, &a))
            goto lost;
    for (size_t i = 0; i < n_fr; i++) {
        if (!gw_request(tr->w, SYNTH_CMD_SRT, fr[i].info, 0, &a) || a.len < 8)
            goto lost;
        if (UNTAG(hs_load_le64(a.body)))
            push_closure(tr, hs_load_le64(a.body));
        for (size_t k = 0; k < fr[i].n; k++)
            if (fr[i].bits[k] == 1)
                push_closure(tr, hs_load_le64(raw + fr[i].at + 8 * k));
    }
lost:
    free(fr);
}

/* tracePar's worker for one closure (deref in ParTrace.hs). Its pointer
 * fields are queued before the requests that may fail (ghc-debug follows
 * them as it meets them). */
static void visit_closure(tracer *tr, uint64_t cp, gw_todo *t) {
    const uint8_t *raw;
    size_t len;
    gw_itbl it;
    uint64_t *ptrs = t->ptrs;
    size_t cap = t->cap_ptrs;
    *t = (gw_todo){.ptrs = ptrs, .cap_ptrs = cap};
    bool ok = deref(tr, cp, &raw, &len, &it) && gw_decode(&tr->layout, cp, raw, len, &it, t);
    if (t->overflow)
        gw_fatal(tr->w, "out of memory for the fields of a closure");
    if (!ok)
        return;
    gw_answer a;
    if (!gw_request(tr->w, SYNTH_CMD_SOURCE_INFO, it.info, 0, &a))
        return;
    if (t->has_ccs)
        push_ccs(tr, t->ccs);
    for (size_t i = 0; i < t->n_ptrs; i++)
        push_closure(tr, t->ptrs[i]);
    if (t->srt) {
        if (!gw_request(tr->w, SYNTH_CMD_SRT, it.info, 0, &a) || a.len < 8)
            return;
        if (UNTAG(hs_load_le64(a.body)))
            push_closure(tr, hs_load_le64(a.body));
    }
    if (t->payload) { /* Query.hs: dereferencePapPayload */
        if (!gw_request(tr->w, SYNTH_CMD_FUN_BITMAP, UNTAG(t->fun), (uint16_t)t->n_args, &a) ||
            a.len < 4 || hs_load_be32(a.body) > t->n_args)
            return; /* a longer map runs out of payload words: an error */
        for (uint32_t k = 0; k < hs_load_be32(a.body); k++)
            if (a.body[4 + k] == 1)
                push_closure(tr, hs_load_le64(t->args + 8 * k));
    }
    if (t->con_desc && !gw_request(tr->w, SYNTH_CMD_CON_DESC, it.info, 0, &a))
        return;
    if (t->stack)
        walk_stack(tr, t->sp, t->frames, t->frames_len);
}

/* The tail of the block holding p (inside the heap range), or, when that
 * is under 8 bytes ("block decoding failed"), the answer to cmd. */
static bool rts_struct(tracer *tr, uint64_t p, uint32_t cmd, const uint8_t **w, size_t *len) {
    if (heap_alloced(p)) {
        if (!block_tail(tr, p, w, len))
            return false;
        if (*len >= 8)
            return true;
    }
    gw_answer a;
    if (!gw_request(tr->w, cmd, p, 0, &a))
        return false;
    *w = a.body;
    *len = a.len;
    return true;
}

/* Query.hs: dereferenceCCS; 96 bytes or a decoding error. */
static bool ccs_payload(tracer *tr, uint64_t ccs, const uint8_t **w) {
    size_t len;
    return rts_struct(tr, ccs, SYNTH_CMD_CCS, w, &len) && len >= 96;
}

/* tracePar's worker for a cost-centre stack: its parent and its CC. */
static void visit_ccs(tracer *tr, uint64_t ccs) {
    const uint8_t *w;
    gw_answer a;
    if (!ccs_payload(tr, ccs, &w))
        return;
    uint64_t prev = UNTAG(hs_load_le64(w + 16));
    if (prev)
        push_ccs(tr, prev);
    gw_request(tr->w, SYNTH_CMD_CC, UNTAG(hs_load_le64(w + 8)), 0, &a);
}

/* CostCentres.hs: findAllChildrenOfCC (const False): every CCS under
 * CCS_MAIN with its CC, through the index tables' non-back edges. */
static void cost_centre_tree(tracer *tr) {
    gw_answer a;
    if (!gw_request(tr->w, SYNTH_CMD_CCS_MAIN, 0, 0, &a) || a.len != 8)
        return;
    size_t base = tr->n_work;
    push(tr, UNTAG(hs_load_le64(a.body)));
    for (size_t steps = 0; tr->n_work > base && steps < MAX_CCS_WALK; steps++) {
        uint64_t ccs = tr->work[--tr->n_work];
        const uint8_t *w;
        if (!ccs_payload(tr, ccs, &w))
            continue;
        gw_request(tr->w, SYNTH_CMD_CC, UNTAG(hs_load_le64(w + 8)), 0, &a);
        for (uint64_t it = UNTAG(hs_load_le64(w + 24)); it && steps < MAX_CCS_WALK; steps++) {
            const uint8_t *e; /* Query.hs: dereferenceIndexTable */
            size_t len;
            if (!rts_struct(tr, it, SYNTH_CMD_INDEX_TABLE, &e, &len) || len < 25)
                break;
            if (!e[24])
                push(tr, UNTAG(hs_load_le64(e + 8)));
            it = UNTAG(hs_load_le64(e + 16));
        }
    }
    tr->n_work = base;
}

void gw_trace_snapshot(gw *w) {
    tracer tr = {.w = w};
    gw_answer a;
    gw_todo *t = calloc(1, sizeof *t);
    if (!t) {
        gw_fatal(w, "out of memory for the traversal");
        return;
    }
    if (gw_request(w, SYNTH_CMD_ALL_BLOCKS, 0, 0, &a))
        add_blocks(&tr, a.body, a.len);
    if (gw_request(w, SYNTH_CMD_VERSION, 0, 0, &a) && a.len == 10) {
        tr.layout.prof = a.body[8] != 0;
        tr.tntc = a.body[9] != 0;
        uint32_t major = hs_load_be32(a.body), patch = hs_load_be32(a.body + 4);
        tr.layout.tso_label = major > 905 || (major == 905 && patch >= 20220925);
        tr.layout.tso_why_32 = major > 909 || (major == 909 && patch >= 20240201);
    } else {
        gw_fatal(w, "the server did not answer VERSION");
    }
    gw_answer roots = {0};
    gw_request(w, SYNTH_CMD_ROOTS, 0, 0, &roots);
    gw_request(w, SYNTH_CMD_SAVED_OBJECTS, 0, 0, &a);
    if (tr.layout.prof)
        cost_centre_tree(&tr);
    for (size_t i = 0; i + 8 <= roots.len; i += 8)
        push_closure(&tr, hs_load_le64(roots.body + i));
    while (tr.n_work > 0 && !gw_failed(w)) {
        uint64_t item = tr.work[--tr.n_work];
        uint64_t addr = item & ~(uint64_t)CCS_ITEM;
        if (tab_find(&tr.visited, addr)) /* ParTrace.hs: checkVisit */
            continue;
        if (!tab_put(&tr, &tr.visited, addr, 1))
            break;
        if (item & CCS_ITEM)
            visit_ccs(&tr, addr);
        else
            visit_closure(&tr, addr, t);
    }
    free(t->ptrs);
    free(t);
    free(tr.blocks.keys);
    free(tr.blocks.vals);
    free(tr.blks);
    free(tr.visited.keys);
    free(tr.visited.vals);
    free(tr.work);
}
