/* --fragile (synth_fragile.h): which requests the official stub could
 * serve without reading a wild pointer, judged from the fake memory alone.
 *
 * The judgement is the stub's, approximated:
 *  - an info pointer is real when it is 8-aligned, lies below the data
 *    region (where the generator lays info tables and code) and the
 *    standard info table before it is mapped;
 *  - a closure is real when its first word is a real info pointer (what
 *    the stub dereferences first) and its size can be computed from it as
 *    the RTS does, and it lies in a block group or, outside the blocks, in
 *    the data region (static closures). A walk of the block groups would
 *    be stricter but cannot cross the slop an indirection leaves behind;
 *    a pointer into a closure is caught when its first word is no info
 *    pointer, which is when the stub would crash;
 *  - a cost-centre structure is real when it is mapped below the heap
 *    (the generator puts them in the data region, --hostile bad-ccs next
 *    to its info tables); a stack frame when its first word is a real info
 *    pointer.
 * Requests that name no address (VERSION, ROOTS, ALL_BLOCKS, ...) are
 * always safe; a malformed payload is left to the server, which refuses
 * it as the stub would not read it either. */
#include <stdio.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "synth_fragile.h"
#include "synth_server_cli.h"
#include "synth_server_int.h"

#define UNTAG(a) ((a) & ~(uint64_t)7)

static bool in_data(uint64_t a, uint64_t len) {
    return a >= SYNTH_DATA_BASE && a < SYNTH_HEAP_BASE && len <= SYNTH_HEAP_BASE - a;
}

static bool real_info(const synth_process *p, uint64_t info) {
    synth_itbl it;
    return info != 0 && (info & 7) == 0 && info < SYNTH_DATA_BASE && synth_read_itbl(p, info, &it);
}

static bool real_closure(const synth_process *p, uint64_t c) {
    c = UNTAG(c);
    uint64_t info, size;
    if ((c & 7) != 0 || !synth_rd_u64(p, c, &info) || !real_info(p, info) ||
        !synth_closure_size(p, c, &size))
        return false;
    /* outside the blocks only static closures, in the data region */
    return synth_find_group(p, c) >= 0 || in_data(c, size);
}

static uint64_t le64_at(const uint8_t *b, size_t n, size_t off) {
    return off + 8 <= n ? hs_load_le64(b + off) : 0;
}

bool synth_fragile_safe(const synth_process *p, uint32_t cmd, const uint8_t *payload,
                        size_t plen, char *why, size_t cap) {
    const char *name = synth_command_name(cmd);
    switch (cmd) {
    case SYNTH_CMD_CLOSURES:
    case SYNTH_CMD_INFO_TABLES:
    case SYNTH_CMD_SRT: {
        if (plen < 2)
            return true;
        size_t n = hs_load_be16(payload);
        for (size_t i = 0; i < n && 2 + 8 * i + 8 <= plen; i++) {
            uint64_t a = hs_load_le64(payload + 2 + 8 * i);
            bool closure = cmd == SYNTH_CMD_CLOSURES;
            if (closure ? real_closure(p, a) : real_info(p, a))
                continue;
            snprintf(why, cap, "%s for 0x%llx, not %s", name, (unsigned long long)a,
                     closure ? "a closure" : "an info table");
            return false;
        }
        return true;
    }
    case SYNTH_CMD_CON_DESC:
    case SYNTH_CMD_SOURCE_INFO: {
        uint64_t a = le64_at(payload, plen, 0);
        if (plen < 8 || real_info(p, a))
            return true;
        snprintf(why, cap, "%s for 0x%llx, not an info table", name, (unsigned long long)a);
        return false;
    }
    case SYNTH_CMD_FUN_BITMAP: {
        uint64_t a = le64_at(payload, plen, 0);
        if (plen < 8 || real_closure(p, a))
            return true;
        snprintf(why, cap, "%s for 0x%llx, not a closure", name, (unsigned long long)a);
        return false;
    }
    case SYNTH_CMD_STACK_BITMAP: {
        uint64_t sp = le64_at(payload, plen, 0), frame, info;
        if (plen < 12)
            return true;
        uint32_t off = hs_load_be32(payload + 8);
        if (synth_addr_add(sp, off, &frame) && synth_rd_u64(p, frame, &info) &&
            real_info(p, info))
            return true;
        snprintf(why, cap, "%s for 0x%llx + %u, not a stack frame", name,
                 (unsigned long long)sp, off);
        return false;
    }
    case SYNTH_CMD_CCS:
    case SYNTH_CMD_CC:
    case SYNTH_CMD_INDEX_TABLE: {
        uint64_t a = le64_at(payload, plen, 0);
        uint64_t len = cmd == SYNTH_CMD_CCS ? 96 : cmd == SYNTH_CMD_CC ? 64 : 25;
        if (plen < 8 || (a < SYNTH_HEAP_BASE && synth_mem(p, a, len)))
            return true;
        snprintf(why, cap, "%s for 0x%llx, not a cost-centre structure", name,
                 (unsigned long long)a);
        return false;
    }
    default:
        return true;
    }
}

void synth_fragile_gate(const synth_process *p, uint32_t cmd, const uint8_t *payload,
                        size_t plen) {
    char why[160];
    if (synth_fragile_safe(p, cmd, payload, plen, why, sizeof why))
        return;
    fprintf(stderr, "fragile: %s: the official stub would have crashed\n", why);
    fflush(stderr);
    _exit(SYNTH_FRAGILE_EXIT); /* at once, as the stub's program dies */
}
