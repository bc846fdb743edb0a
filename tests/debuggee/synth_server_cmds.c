/* The commands of the synthetic debuggee (wire-protocol.md §6, §7, §8).
 * Each handler parses its payload, checks the pause state, validates every
 * address it will read, and only then writes: like the stub, an error
 * answer is always an empty frame with the error status. The write calls
 * per command are those of §7, so the frame split matches the stub's. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "synth_server_int.h"

#define MAX_STRING (1u << 20) /* longer "strings" are corrupt memory */
#define UNTAG(a) ((a) & ~(uint64_t)7)

/* A cursor over the request payload; running short marks it bad. */
typedef struct rq {
    const uint8_t *p;
    size_t n;
    bool bad;
} rq;

static const uint8_t *take(rq *r, size_t k) {
    if (r->bad || r->n < k) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *at = r->p;
    r->p += k;
    r->n -= k;
    return at;
}
static uint8_t rq_u8(rq *r) {
    const uint8_t *b = take(r, 1);
    return b ? b[0] : 0;
}
static uint16_t rq_u16(rq *r) {
    const uint8_t *b = take(r, 2);
    return b ? hs_load_be16(b) : 0;
}
static uint32_t rq_u32(rq *r) {
    const uint8_t *b = take(r, 4);
    return b ? hs_load_be32(b) : 0;
}
static uint64_t rq_ptr(rq *r) { /* PTR = the address little-endian (§2) */
    const uint8_t *b = take(r, 8);
    return b ? hs_load_le64(b) : 0;
}
/* n PTRs after a u16 count: the CLOSURES / INFO_TABLES / SRT payload. */
static const uint8_t *rq_ptrs(rq *r, uint16_t *n) {
    *n = rq_u16(r);
    return take(r, (size_t)*n * 8);
}

/* ---- state machine (§8.2) ---- */

static void cmd_pause(synth_state *st, synth_out *o, rq *r) {
    (void)rq_u8(r); /* fork mode is served as a pause in place */
    if (r->bad) {
        synth_finish(o, SYNTH_BAD_COMMAND);
    } else if (st->paused) {
        synth_finish(o, SYNTH_ALREADY_PAUSED);
    } else {
        st->paused = true;
        synth_finish(o, SYNTH_OKAY);
    }
}

static void cmd_resume(synth_state *st, synth_out *o) {
    if (!st->paused)
        synth_finish(o, SYNTH_NOT_PAUSED);
    else if (st->poll_pending)
        synth_finish(o, SYNTH_NO_RESUME);
    else {
        st->paused = false;
        st->self_paused = false;
        st->resumes++;
        synth_finish(o, SYNTH_OKAY);
    }
}

static void cmd_poll(synth_state *st, synth_out *o) {
    st->poll_pending = true;
    if (st->self_paused)
        synth_finish(o, SYNTH_OKAY); /* the program sits in its own pause */
    else
        st->reply_owed = true;
}

void synth_self_pause(synth_state *st, synth_out *o) {
    st->paused = true;
    st->self_paused = true;
    st->self_pause_done = true;
    if (st->reply_owed && o)
        synth_finish(o, SYNTH_OKAY);
    st->reply_owed = false;
}

/* ---- heap reads ---- */

static void cmd_version(const synth_process *p, synth_out *o) {
    synth_w_u32be(o, p->ghc_major);
    synth_w_u32be(o, p->ghc_patch);
    synth_w_u8(o, p->prof_mode);
    synth_w_u8(o, 1); /* tables next to code */
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_roots(const synth_process *p, const synth_state *st, synth_out *o) {
    if (!st->paused) {
        synth_finish(o, SYNTH_NOT_PAUSED);
        return;
    }
    for (size_t i = 0; i < p->n_roots; i++)
        synth_w_u64le(o, p->roots[i]); /* as stored: may be tagged */
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_saved(const synth_process *p, synth_out *o) {
    size_t n = p->n_saved < SYNTH_MAX_SAVED ? p->n_saved : SYNTH_MAX_SAVED;
    for (size_t i = 0; i < n; i++)
        synth_w_u64le(o, UNTAG(p->saved[i]));
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_closures(const synth_process *p, const synth_state *st, synth_out *o, rq *r) {
    uint16_t n;
    const uint8_t *ptrs = rq_ptrs(r, &n);
    if (r->bad) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    if (!st->paused) {
        synth_finish(o, SYNTH_NOT_PAUSED);
        return;
    }
    uint64_t *size = malloc(((size_t)n + 1) * sizeof *size);
    for (uint16_t i = 0; size && i < n; i++) {
        if (!synth_closure_size(p, UNTAG(hs_load_le64(ptrs + 8 * i)), &size[i])) {
            free(size);
            size = NULL;
        }
    }
    if (!size) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    for (uint16_t i = 0; i < n; i++) {
        uint64_t a = UNTAG(hs_load_le64(ptrs + 8 * i));
        synth_w_u32be(o, (uint32_t)size[i]);
        synth_w(o, synth_mem(p, a, size[i]), (size_t)size[i]);
    }
    free(size);
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_info_tables(const synth_process *p, const synth_state *st, synth_out *o,
                            rq *r) {
    uint16_t n;
    const uint8_t *ptrs = rq_ptrs(r, &n);
    uint64_t s = synth_itbl_size(p);
    if (r->bad) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    if (!st->paused) {
        synth_finish(o, SYNTH_NOT_PAUSED);
        return;
    }
    for (uint16_t i = 0; i < n; i++) {
        uint64_t info = hs_load_le64(ptrs + 8 * i);
        if (info < s || !synth_mem(p, info - s, s)) {
            synth_finish(o, SYNTH_BAD_COMMAND);
            return;
        }
    }
    for (uint16_t i = 0; i < n; i++) {
        uint64_t info = hs_load_le64(ptrs + 8 * i);
        synth_w_u32be(o, (uint32_t)s);
        synth_w(o, synth_mem(p, info - s, s), (size_t)s);
    }
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_srt(const synth_process *p, const synth_state *st, synth_out *o, rq *r) {
    uint16_t n;
    const uint8_t *ptrs = rq_ptrs(r, &n);
    if (r->bad) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    if (!st->paused) {
        synth_finish(o, SYNTH_NOT_PAUSED);
        return;
    }
    uint64_t *srt = malloc(((size_t)n + 1) * sizeof *srt);
    for (uint16_t i = 0; srt && i < n; i++) {
        synth_itbl it;
        bool ok = synth_read_itbl(p, hs_load_le64(ptrs + 8 * i), &it);
        /* functions, thunks and return frames carry an SRT offset */
        bool may = ok && ((it.type >= 8 && it.type <= 21) || (it.type >= 29 && it.type <= 36) ||
                          (it.type >= 55 && it.type <= 57));
        srt[i] = 0;
        if (!ok || (may && it.srt != 0 && !synth_addr_add(it.info, it.srt, &srt[i]))) {
            free(srt);
            srt = NULL;
        }
    }
    if (!srt) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    for (uint16_t i = 0; i < n; i++)
        synth_w_u64le(o, srt[i]);
    free(srt);
    synth_finish(o, SYNTH_OKAY);
}

/* n single-byte writes, as the stub emits bitmap entries. */
static void write_bits(synth_out *o, uint16_t status, synth_bits *b) {
    if (status == SYNTH_OKAY) {
        synth_w_u32be(o, (uint32_t)b->n);
        for (size_t i = 0; i < b->n; i++)
            synth_w_u8(o, b->e[i]);
    }
    synth_bits_free(b);
    synth_finish(o, status);
}

static void cmd_stack_bitmap(const synth_process *p, synth_out *o, rq *r) {
    uint64_t sp = rq_ptr(r), c;
    uint32_t off = rq_u32(r);
    synth_bits b = {0};
    if (r->bad || !synth_addr_add(sp, off, &c)) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    write_bits(o, synth_stack_bitmap(p, c, &b), &b);
}

static void cmd_fun_bitmap(const synth_process *p, synth_out *o, rq *r) {
    uint64_t fun = UNTAG(rq_ptr(r));
    uint16_t n = rq_u16(r);
    synth_bits b = {0};
    if (r->bad) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    write_bits(o, synth_fun_bitmap(p, fun, n, &b), &b);
}

static void cmd_con_desc(const synth_process *p, synth_out *o, rq *r) {
    uint64_t info = rq_ptr(r), s = synth_itbl_size(p), at;
    uint32_t off;
    synth_itbl it;
    size_t len = 0;
    const char *str = NULL;
    /* the description offset sits just before the standard table */
    if (!r->bad && synth_read_itbl(p, info, &it) && it.type >= 1 && it.type <= 7 &&
        info >= s + 8 && synth_rd_u32(p, info - s - 8, &off) &&
        synth_addr_add(info, (int32_t)off, &at))
        str = synth_rd_cstr(p, at, MAX_STRING, &len);
    if (!str) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    synth_w_u32be(o, (uint32_t)len);
    synth_w(o, str, len);
    synth_finish(o, SYNTH_OKAY);
}

static void w_string(synth_out *o, const char *s) {
    size_t len = s ? strlen(s) : 0;
    synth_w_u32be(o, (uint32_t)len);
    synth_w(o, s ? s : "", len);
}

static void cmd_source_info(const synth_process *p, synth_out *o, rq *r) {
    uint64_t info = rq_ptr(r);
    if (r->bad) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    const synth_ipe *e = synth_find_ipe(p, info);
    if (!e) {
        synth_w_u32be(o, 0);
        synth_finish(o, SYNTH_OKAY);
        return;
    }
    synth_w_u32be(o, 6);
    for (int i = 0; i < 5; i++)
        w_string(o, e->strings[i]);
    /* the RTS keeps file and span apart; GHC >= 9.5 stubs join them with
     * a separate ":" write */
    const char *pos = e->strings[5] ? e->strings[5] : "";
    const char *colon = strchr(pos, ':');
    if (!colon || p->ghc_major < 905) {
        w_string(o, pos);
    } else {
        size_t flen = (size_t)(colon - pos), slen = strlen(colon + 1);
        synth_w_u32be(o, (uint32_t)(flen + 1 + slen));
        synth_w(o, pos, flen);
        synth_w(o, ":", 1);
        synth_w(o, colon + 1, slen);
    }
    synth_finish(o, SYNTH_OKAY);
}

/* ---- blocks (§7.12, §7.13) ---- */

typedef struct group {
    uint16_t flags;
    uint64_t start;
    uint32_t len;
    const uint8_t *data;
} group;

/* The block descriptor of the 4 KiB block containing addr. */
static const uint8_t *descriptor(const synth_process *p, uint64_t addr) {
    uint64_t mb = addr & ~(uint64_t)(SYNTH_MBLOCK_SIZE - 1);
    uint64_t d = mb + (((addr & (SYNTH_MBLOCK_SIZE - 1)) >> 12) << 6);
    return synth_mem(p, d, SYNTH_DESCR_SIZE);
}

static bool read_group(const synth_process *p, uint64_t start, group *g) {
    const uint8_t *d = descriptor(p, start);
    if (!d)
        return false;
    uint32_t blocks = hs_load_le32(d + 48);
    if (blocks == 0 || blocks > UINT32_MAX / SYNTH_BLOCK_SIZE)
        return false;
    g->flags = hs_load_le16(d + 46);
    g->start = start;
    g->len = blocks * SYNTH_BLOCK_SIZE;
    g->data = synth_mem(p, start, g->len);
    return g->data != NULL;
}

static void write_group(synth_out *o, const group *g) {
    synth_w_u16le(o, g->flags);
    synth_w_u64le(o, g->start);
    synth_w_u32be(o, g->len);
    synth_w(o, g->data, g->len);
}

static void cmd_all_blocks(const synth_process *p, synth_out *o) {
    group g;
    for (size_t i = 0; i < p->n_groups; i++) {
        if (!read_group(p, p->group_starts[i], &g)) {
            synth_finish(o, SYNTH_BAD_COMMAND); /* a broken fake heap */
            return;
        }
    }
    for (size_t i = 0; i < p->n_groups && !o->failed; i++) {
        read_group(p, p->group_starts[i], &g);
        write_group(o, &g);
    }
    for (size_t i = 0; p->duplicate_pinned && i < p->n_groups && !o->failed; i++) {
        read_group(p, p->group_starts[i], &g);
        if (g.flags & SYNTH_BF_PINNED) /* as another capability lists it */
            write_group(o, &g);
    }
    synth_finish(o, SYNTH_OKAY);
}

/* A compact group is reached through its head descriptor, as the RTS does
 * (objectGetCompactBlock): a non-first block's descriptor has blocks = 0
 * and link @16 = the head descriptor. Without such a link the group found
 * by address is already the head group. */
static long compact_head(const synth_process *p, uint64_t addr, long g) {
    const uint8_t *d = descriptor(p, addr);
    if (!d || hs_load_le32(d + 48) != 0)
        return g;
    uint64_t link = hs_load_le64(d + 16), start;
    if (link == 0 || !synth_rd_u64(p, link, &start))
        return g;
    long h = synth_find_group(p, start);
    return h >= 0 && p->group_starts[h] == start ? h : g;
}

static void cmd_block(const synth_process *p, synth_out *o, rq *r) {
    uint64_t addr = UNTAG(rq_ptr(r));
    long gi = r->bad ? -1 : synth_find_group(p, addr);
    group g;
    if (gi >= 0 && read_group(p, p->group_starts[gi], &g) && (g.flags & SYNTH_BF_COMPACT)) {
        gi = compact_head(p, addr, gi);
        if (!read_group(p, p->group_starts[gi], &g))
            gi = -1;
    }
    if (gi < 0 || !read_group(p, p->group_starts[gi], &g)) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    write_group(o, &g);
    synth_finish(o, SYNTH_OKAY);
}

/* ---- profiling structures (§7.16 - §7.19) ---- */

static void cmd_ccs(const synth_process *p, synth_out *o, rq *r) {
    uint64_t ccs = rq_ptr(r);
    const uint8_t *m = r->bad ? NULL : synth_mem(p, ccs, 96);
    if (!m) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    for (int i = 0; i < 12; i++)
        synth_w(o, m + 8 * i, 8); /* memory words are already LE */
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_cc(const synth_process *p, synth_out *o, rq *r) {
    uint64_t cc = rq_ptr(r);
    const uint8_t *m = r->bad ? NULL : synth_mem(p, cc, 64);
    const char *str[3] = {0};
    size_t len[3] = {0};
    for (int i = 0; m && i < 3; i++)
        if (!(str[i] = synth_rd_cstr(p, hs_load_le64(m + 8 + 8 * i), MAX_STRING, &len[i])))
            m = NULL;
    if (!m) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    synth_w(o, m, 8); /* ccID */
    for (int i = 0; i < 3; i++) { /* label, module, srcloc */
        synth_w_u32be(o, (uint32_t)len[i]);
        synth_w(o, str[i], len[i]);
    }
    for (int i = 4; i < 8; i++) /* mem_alloc, time_ticks, is_caf, link */
        synth_w(o, m + 8 * i, 8);
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_index_table(const synth_process *p, synth_out *o, rq *r) {
    uint64_t it = rq_ptr(r);
    const uint8_t *m = r->bad || !synth_profiled(p) ? NULL : synth_mem(p, it, 25);
    if (!m) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    synth_w(o, m, 8);      /* cc */
    synth_w(o, m + 8, 8);  /* ccs */
    synth_w(o, m + 16, 8); /* next */
    synth_w_u8(o, m[24]);  /* back_edge */
    synth_finish(o, SYNTH_OKAY);
}

static void cmd_ccs_main(const synth_process *p, synth_out *o) {
    if (!synth_profiled(p)) {
        synth_finish(o, SYNTH_BAD_COMMAND);
        return;
    }
    synth_w_u64le(o, p->ccs_main);
    synth_finish(o, SYNTH_OKAY);
}

void synth_handle_request(const synth_process *p, synth_state *st, synth_out *o, uint32_t cmd,
                          const uint8_t *payload, size_t plen) {
    rq r = {payload, plen, false};
    switch (cmd) {
    case SYNTH_CMD_VERSION: cmd_version(p, o); break;
    case SYNTH_CMD_PAUSE: cmd_pause(st, o, &r); break;
    case SYNTH_CMD_RESUME: cmd_resume(st, o); break;
    case SYNTH_CMD_ROOTS: cmd_roots(p, st, o); break;
    case SYNTH_CMD_CLOSURES: cmd_closures(p, st, o, &r); break;
    case SYNTH_CMD_INFO_TABLES: cmd_info_tables(p, st, o, &r); break;
    case SYNTH_CMD_STACK_BITMAP: cmd_stack_bitmap(p, o, &r); break;
    case SYNTH_CMD_POLL: cmd_poll(st, o); break;
    case SYNTH_CMD_SAVED_OBJECTS: cmd_saved(p, o); break;
    case SYNTH_CMD_CON_DESC: cmd_con_desc(p, o, &r); break;
    case SYNTH_CMD_SOURCE_INFO: cmd_source_info(p, o, &r); break;
    case SYNTH_CMD_ALL_BLOCKS: cmd_all_blocks(p, o); break;
    case SYNTH_CMD_BLOCK: cmd_block(p, o, &r); break;
    case SYNTH_CMD_FUN_BITMAP: cmd_fun_bitmap(p, o, &r); break;
    case SYNTH_CMD_SRT: cmd_srt(p, st, o, &r); break;
    case SYNTH_CMD_CCS: cmd_ccs(p, o, &r); break;
    case SYNTH_CMD_CC: cmd_cc(p, o, &r); break;
    case SYNTH_CMD_INDEX_TABLE: cmd_index_table(p, o, &r); break;
    case SYNTH_CMD_CCS_MAIN: cmd_ccs_main(p, o); break;
    default: /* the stub stays silent; a test server says so (§9) */
        synth_finish(o, SYNTH_BAD_COMMAND);
        break;
    }
}
