/* Pointer maps of stack frames and function arguments, derived from info
 * tables as the stub does (heap-layout.md §8.3, §9). The RTS marks
 * non-pointers with 1 bits; wire entries are the inverse (1 = pointer). */
#include <stdlib.h>

#include "heapscope/bytes.h"
#include "synth_server_int.h"

/* Entry counts beyond this are corrupt data, not a real frame or function. */
#define MAX_ENTRIES (UINT64_C(1) << 24)

/* The RTS table of standard argument patterns, by fun_type: bit i set =
 * argument i is not a pointer. Arguments past a pattern's end read 0 bits,
 * i.e. pointers. ARG_BCO (2) has no pattern in the RTS table (0): all
 * pointers, which is what the stub would answer (spec: UNCERTAIN). */
static const uint8_t canned_bits[29] = {
    [2] = 0x00,  [3] = 0x00, /* BCO, none */
    [4] = 0x01,  [5] = 0x00, [6] = 0x01, [7] = 0x01, [8] = 0x01, /* N P F D L */
    [9] = 0x03,  [10] = 0x0f, [11] = 0xff, /* V16 V32 V64 */
    [12] = 0x03, [13] = 0x01, [14] = 0x02, [15] = 0x00, /* NN NP PN PP */
    [16] = 0x07, [17] = 0x03, [18] = 0x05, [19] = 0x01, /* NNN NNP NPN NPP */
    [20] = 0x06, [21] = 0x02, [22] = 0x04, [23] = 0x00, /* PNN PNP PPN PPP */
    /* 24..28: PPPP .. PPPPPPPP, all zero */
};

void synth_bits_free(synth_bits *b) {
    free(b->e);
    b->e = NULL;
    b->n = 0;
}

static bool bits_alloc(synth_bits *b, uint64_t n) {
    b->n = (size_t)n;
    b->e = malloc(n ? (size_t)n : 1);
    return b->e != NULL;
}

/* n entries from a small bitmap word (bits already shifted into place). */
static uint16_t from_small(uint64_t bits, uint64_t n, synth_bits *out) {
    if (!bits_alloc(out, n))
        return SYNTH_BAD_COMMAND;
    for (uint64_t i = 0; i < n; i++)
        out->e[i] = i < 64 && (bits >> i & 1) ? 0 : 1;
    return SYNTH_OKAY;
}

/* n entries (n = the bit count when n_wanted is UINT64_MAX) from the
 * StgLargeBitmap at addr: u64 bit count, then words LSB first. Bits past
 * the stored words read as 0 (pointers). */
static uint16_t from_large(const synth_process *p, uint64_t addr, uint64_t n_wanted,
                           synth_bits *out) {
    uint64_t count;
    if (!synth_rd_u64(p, addr, &count) || count > MAX_ENTRIES)
        return SYNTH_BAD_COMMAND;
    uint64_t nwords = (count + 63) / 64;
    const uint8_t *w = synth_mem(p, addr + 8, nwords * 8);
    if (!w)
        return SYNTH_BAD_COMMAND;
    uint64_t n = n_wanted == UINT64_MAX ? count : n_wanted;
    if (!bits_alloc(out, n))
        return SYNTH_BAD_COMMAND;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t word = i / 64 < nwords ? hs_load_le64(w + 8 * (i / 64)) : 0;
        out->e[i] = (word >> (i % 64) & 1) ? 0 : 1;
    }
    return SYNTH_OKAY;
}

/* P + the signed 32-bit offset in the low half of a layout or bitmap word
 * (TNTC offset fields are half-words). */
static bool large_bitmap_addr(uint64_t info, uint64_t field, uint64_t *addr) {
    return synth_addr_add(info, (int32_t)(uint32_t)field, addr);
}

uint16_t synth_fun_bitmap(const synth_process *p, uint64_t fun, uint64_t n, synth_bits *out) {
    uint64_t info, extra;
    synth_itbl it;
    *out = (synth_bits){0};
    if (n > MAX_ENTRIES || !synth_rd_u64(p, fun, &info) || !synth_read_itbl(p, info, &it))
        return SYNTH_BAD_COMMAND;
    if (it.type < 8 || it.type > 14)
        return SYNTH_BAD_COMMAND; /* not a function: no argument map */
    /* slow-apply offset, bitmap, fun_type, arity: 24 bytes before the table */
    uint64_t s = synth_itbl_size(p);
    if (info < s + 24)
        return SYNTH_BAD_COMMAND;
    extra = info - s - 24;
    const uint8_t *m = synth_mem(p, extra, 24);
    if (!m)
        return SYNTH_BAD_COMMAND;
    uint64_t bitmap = hs_load_le64(m + 8);
    uint32_t fun_type = hs_load_le32(m + 16);
    if (fun_type == 0)
        return from_small(bitmap >> 6, n, out);
    if (fun_type == 1) {
        uint64_t addr;
        if (!large_bitmap_addr(info, bitmap, &addr))
            return SYNTH_BAD_COMMAND;
        return from_large(p, addr, n, out);
    }
    if (fun_type < sizeof canned_bits)
        return from_small(canned_bits[fun_type], n, out);
    return SYNTH_BAD_COMMAND; /* no such argument pattern */
}

uint16_t synth_stack_bitmap(const synth_process *p, uint64_t c, synth_bits *out) {
    uint64_t info;
    synth_itbl it;
    *out = (synth_bits){0};
    if (!synth_rd_u64(p, c, &info) || !synth_read_itbl(p, info, &it))
        return SYNTH_BAD_COMMAND;
    uint32_t type = it.type;
    if (type == 65 && p->ghc_major >= 914)
        type = 30; /* ANN_FRAME (GHC 9.14): a small bitmap, as RET_SMALL */
    switch (type) {
    case 30: /* RET_SMALL */
    case 33: case 34: case 35: case 36: /* UPDATE, CATCH, UNDERFLOW, STOP */
    case 55: case 56: case 57:          /* ATOMICALLY, CATCH_RETRY, CATCH_STM */
        return from_small(it.layout >> 6, it.layout & 0x3f, out);
    case 31: { /* RET_BIG: the layout word is the large bitmap's offset */
        uint64_t addr;
        if (!large_bitmap_addr(info, it.layout, &addr))
            return SYNTH_BAD_COMMAND;
        return from_large(p, addr, UINT64_MAX, out);
    }
    case 32: { /* RET_FUN: size word, then the function whose map applies */
        uint64_t size, fun;
        if (!synth_rd_u64(p, c + 8, &size) || !synth_rd_u64(p, c + 16, &fun))
            return SYNTH_BAD_COMMAND;
        return synth_fun_bitmap(p, fun & ~(uint64_t)7, size, out);
    }
    default: /* RET_BCO (the stub would crash) and non-frames */
        return SYNTH_BAD_STACK;
    }
}
