/* --hostile: the synthetic debuggee as a hostile peer (issue 13 §2).
 *
 * Heap kinds (synth_hostile_heap.c) add hand-laid closures to the generated
 * heap, reachable from one more GC root (a stable pointer to a constructor
 * main:Main.Hostile whose fields lead to them); the server then reads them
 * as honestly as the rest, as the real stub would read a corrupt process.
 * Transport kinds (synth_hostile_wire.c) change how answers are sent. */
#ifndef SYNTH_HOSTILE_H
#define SYNTH_HOSTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"

/* Heap kinds, as bits of synth_hostile.heap. */
enum {
    SYNTH_HOSTILE_CYCLES = 1u << 0,      /* self-loops and cycles, through indirections too */
    SYNTH_HOSTILE_DANGLING = 1u << 1,    /* pointers (and roots) to unmapped memory, stale blocks, null */
    SYNTH_HOSTILE_INTERIOR = 1u << 2,    /* pointers into the middle of closures, into code */
    SYNTH_HOSTILE_HUGE_SIZE = 1u << 3,   /* arrays, PAPs, stacks, BCOs claiming huge sizes */
    SYNTH_HOSTILE_ABSURD_INFO = 1u << 4, /* info tables with absurd counts, types, names */
    SYNTH_HOSTILE_BAD_SP = 1u << 5,      /* stacks whose sp lies outside the stack */
    SYNTH_HOSTILE_LONG_BITMAP = 1u << 6, /* frame bitmaps longer than the frame or stack */
    SYNTH_HOSTILE_BAD_CCS = 1u << 7,     /* cost-centre stacks that loop or lead nowhere */
};

/* Transport kinds: how the answer to one request is sent. */
typedef enum synth_wire_kind {
    SYNTH_WIRE_PLAIN = 0,
    SYNTH_WIRE_STALL,   /* half the answer, then silence (requests are read, not served) */
    SYNTH_WIRE_HANGUP,  /* half the answer, then the connection is closed */
    SYNTH_WIRE_TRICKLE, /* one byte per write, the first bytes a millisecond apart */
    SYNTH_WIRE_HUGE,    /* the first frame claims 4 GiB - 1 bytes; then silence */
    SYNTH_WIRE_HOLD,    /* --hold: half, a wait for the test, the rest (synth_fragile.c) */
} synth_wire_kind;

typedef struct synth_hostile {
    uint32_t heap;        /* SYNTH_HOSTILE_* bits */
    uint8_t wire[32];     /* per command id: the synth_wire_kind of its answers */
    bool busy;            /* never accept: clients queue as behind another debugger */
} synth_hostile;

/* Adds "KIND[@COMMAND],..." to h. A transport kind without @COMMAND strikes
 * the answers to every command but VERSION, PAUSE, RESUME and POLL (so the
 * failure comes during the work, and a new connection can still resume).
 * Returns 0, or -1 with a message in err. */
int synth_hostile_parse(const char *list, synth_hostile *h, char *err, size_t errlen);

/* The kinds' names and meanings, for --help. */
extern const char synth_hostile_help[];

/* Adds the closures of the heap kinds in `kinds` to a generated process:
 * new regions, one block group, one more root, and a "hostile" section in
 * the plan naming each planted closure. 0, or -1 with a message in err. */
int synth_hostile_heap(synth_process *p, uint32_t kinds, char *err, size_t errlen);

#endif
