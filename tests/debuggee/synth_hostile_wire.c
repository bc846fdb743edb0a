/* --hostile: parsing the list of kinds, and the transport kinds, which
 * send a held-back answer (synth_server_out.c) the hostile way. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "heapscope/bytes.h"
#include "synth_fragile_wire.h"
#include "synth_hostile.h"
#include "synth_server_cli.h"
#include "synth_server_int.h"

const char synth_hostile_help[] =
    "  --hostile KIND[,KIND]    play a hostile debuggee (may be given several times).\n"
    "                           In the heap, under one more GC root (a stable pointer\n"
    "                           to main:Main.Hostile; the plan's \"hostile\" section\n"
    "                           names each closure):\n"
    "                             cycles       self-loops and cycles, through IND,\n"
    "                                          BLACKHOLE, MUT_VAR and selector thunks\n"
    "                             dangling     pointers into unmapped memory, stale\n"
    "                                          block bytes, descriptors, near null;\n"
    "                                          GC roots that are null or unmapped\n"
    "                             interior     pointers into the middle of closures\n"
    "                                          and into code\n"
    "                             huge-size    arrays, PAP, AP_STACK, STACK, BCO and\n"
    "                                          TREC_CHUNK claiming huge sizes\n"
    "                             absurd-info  info tables with absurd pointer counts,\n"
    "                                          types and constructor names\n"
    "                             bad-sp       stacks whose sp lies outside the stack\n"
    "                             long-bitmap  frame bitmaps longer than the frame\n"
    "                             bad-ccs      cost-centre stacks that loop, lead\n"
    "                                          nowhere, or have hostile labels\n"
    "                                          (profiled heaps only)\n"
    "                             heap         all of the above\n"
    "                           On the wire, for the answers to COMMAND (default: all\n"
    "                           but VERSION, PAUSE, RESUME and POLL):\n"
    "                             stall[@COMMAND]    half the answer, then silence\n"
    "                             hangup[@COMMAND]   half the answer, then close\n"
    "                             trickle[@COMMAND]  one byte per write\n"
    "                             huge[@COMMAND]     a frame claiming 4 GiB, then silence\n"
    "                             busy               never accept a connection, as a\n"
    "                                                stub serving another client\n";

static const struct {
    const char *name;
    uint32_t heap;
} heap_kinds[] = {
    {"cycles", SYNTH_HOSTILE_CYCLES},
    {"dangling", SYNTH_HOSTILE_DANGLING},
    {"interior", SYNTH_HOSTILE_INTERIOR},
    {"huge-size", SYNTH_HOSTILE_HUGE_SIZE},
    {"absurd-info", SYNTH_HOSTILE_ABSURD_INFO},
    {"bad-sp", SYNTH_HOSTILE_BAD_SP},
    {"long-bitmap", SYNTH_HOSTILE_LONG_BITMAP},
    {"bad-ccs", SYNTH_HOSTILE_BAD_CCS},
    {"heap", 0xff},
};

static const struct {
    const char *name;
    synth_wire_kind kind;
} wire_kinds[] = {
    {"stall", SYNTH_WIRE_STALL},
    {"hangup", SYNTH_WIRE_HANGUP},
    {"trickle", SYNTH_WIRE_TRICKLE},
    {"huge", SYNTH_WIRE_HUGE},
};

/* Commands a transport kind leaves alone unless named. */
static bool spared(uint32_t cmd) {
    return cmd == SYNTH_CMD_VERSION || cmd == SYNTH_CMD_PAUSE || cmd == SYNTH_CMD_RESUME ||
           cmd == SYNTH_CMD_POLL;
}

static int one_kind(const char *s, size_t n, synth_hostile *h, char *err, size_t errlen) {
    char item[64];
    if (n == 0 || n >= sizeof item) {
        snprintf(err, errlen, "--hostile: '%.*s' is not a kind (see --help)", (int)n, s);
        return -1;
    }
    memcpy(item, s, n);
    item[n] = '\0';
    char *at = strchr(item, '@');
    if (at)
        *at++ = '\0';
    uint32_t heap = strcmp(item, "busy") == 0 ? 0 : UINT32_MAX;
    for (size_t i = 0; i < sizeof heap_kinds / sizeof *heap_kinds; i++)
        if (strcmp(item, heap_kinds[i].name) == 0)
            heap = heap_kinds[i].heap;
    if (heap != UINT32_MAX && at) {
        snprintf(err, errlen, "--hostile: %s takes no @COMMAND (only stall, hangup, trickle "
                 "and huge do)", item);
        return -1;
    }
    if (heap != UINT32_MAX) {
        h->heap |= heap;
        h->busy |= heap == 0;
        return 0;
    }
    for (size_t i = 0; i < sizeof wire_kinds / sizeof *wire_kinds; i++) {
        if (strcmp(item, wire_kinds[i].name) != 0)
            continue;
        uint32_t only = 0;
        if (at && synth_command_id("--hostile", at, &only, err, errlen) != 0)
            return -1;
        for (uint32_t c = 0; c < 32; c++)
            if (at ? c == only : !spared(c))
                h->wire[c] = (uint8_t)wire_kinds[i].kind;
        return 0;
    }
    snprintf(err, errlen,
             "--hostile: '%s' is not a kind (cycles, dangling, interior, huge-size, "
             "absurd-info, bad-sp, long-bitmap, bad-ccs, heap, stall, hangup, trickle, huge, "
             "busy)",
             item);
    return -1;
}

int synth_hostile_parse(const char *list, synth_hostile *h, char *err, size_t errlen) {
    const char *s = list;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (one_kind(s, n, h, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

static void pause_ms(long ms) {
    nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
}

void synth_hostile_deliver(synth_out *o) {
    uint8_t *b = o->held;
    size_t n = o->held_len, half = n / 2 ? n / 2 : n;
    o->held_len = 0;
    switch ((synth_wire_kind)o->hostile) {
    case SYNTH_WIRE_STALL:
        synth_out_send(o, b, half);
        o->stalled = true;
        break;
    case SYNTH_WIRE_HANGUP:
        synth_out_send(o, b, half);
        o->failed = true; /* the connection loop closes the socket */
        break;
    case SYNTH_WIRE_TRICKLE:
        /* the first bytes slowly enough that the client sees a frame
         * header arrive in pieces; the rest one write per byte */
        for (size_t i = 0; i < n && synth_out_send(o, b + i, 1); i++)
            if (i < 8)
                pause_ms(1);
        break;
    case SYNTH_WIRE_HUGE:
        if (n >= 4)
            hs_store_be32(b, UINT32_MAX);
        synth_out_send(o, b, n);
        o->stalled = true;
        break;
    case SYNTH_WIRE_HOLD:
        synth_hold_deliver(o, b, n);
        break;
    case SYNTH_WIRE_PLAIN:
        synth_out_send(o, b, n);
        break;
    }
}
