/* Heap generator of the synthetic debuggee.
 *
 * Builds a synth_process whose heap is laid out exactly as GHC 9.10 (or
 * 9.12, 9.14: synth_options.ghc_version) on x86_64 lays it out, with a
 * planted leak: `leak_count` closures of the constructor
 * `main:Main.<leak_constructor>` allocated in era `leak_era`,
 * retained from a GC root through a chain that passes through a thunk of a
 * newer era that has a source location.
 *
 * The plan (synth_process.plan_json) is a JSON object:
 * {
 *   "profiled": bool, "eras": K, "seed": S,
 *   "reachable": {"count": n, "bytes": b},   closures reachable from ROOTS
 *   "garbage":   {"count": n, "bytes": b},   closures in blocks, unreachable
 *   "static":    {"count": n, "bytes": b},   reachable closures outside the heap
 *   "blocks":    {"groups": g, "bytes": b},  block groups ALL_BLOCKS serves
 *   "by_constructor": {"main:Main:Leak": {"count": n, "bytes": b}, ...},
 *   "by_type": {"THUNK_1_0": {"count": n, "bytes": b}, ...},   (non-constructors)
 *   "by_thunk": {"app/Main.hs:12:5-20": {"count": n, "bytes": b}, ...},
 *                thunks (THUNK*, THUNK_SELECTOR, AP, AP_STACK) by the IPE position of
 *                their info table, else "<info 0x...>" [+ " " IPE name]
 *   "by_era": {"3": {"count": n, "bytes": b}, ...},       (profiled only; static: "0";
 *                with grow_per_pause, the growth's eras K+1.. too)
 *   "by_constructor_era": {"main:Main:Leak": {"1": {...}}}, (profiled only)
 *   "ghc_version": 914,                       (only when not 910)
 *   "annotation_frames": [{"thread": "0x...", "annotation": "0x..."}, ...], (9.14)
 *   "unknown_type": {"type": 70, "name": "UNKNOWN_TYPE_70", "address": "0x..."},
 *                (--unknown-type only)
 *   "leak": {
 *     "constructor": "Leak", "count": N, "era": E, "bytes": b,
 *     "root": "0x...", "first_match": "0x...",
 *     "path": [ {"address": "0x...", "type": "TSO", "name": "...", "era": e,
 *                "location": "app/Main.hs:41:9-30"}, ... ]   root first
 *   }
 * }
 * Counts and bytes cover the closures reachable from the GC roots
 * (following the children of heap-layout.md §13, with stacks walked as GHC
 * lays them out, per the spec README's policy: the last frame of a stack is
 * kept, a RET_FUN frame's function and every frame's SRT are children, and
 * a RET_BCO frame ends the walk), each counted once; bytes use the sizes of heap-layout.md §11.2 except AP_STACK
 * and BCO, whose real GHC sizes (8 * size words of payload; size words in
 * all) are used. Census keys: constructors as package:module:name,
 * everything else by closure-type name. */
#ifndef SYNTH_GEN_H
#define SYNTH_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"

typedef struct synth_options {
    uint64_t closures;            /* approximate heap closures; default 10000 */
    unsigned eras;                /* eras 1..K used by the heap; default 5 */
    bool profiled;                /* profiled flavour: prof byte prof_mode */
    uint8_t prof_mode;            /* SYNTH_PROF_*; 0 = era (4) when profiled */
    const char *leak_constructor; /* default "Leak" */
    uint64_t leak_count;          /* default 1000 */
    unsigned leak_era;            /* default 1; must be < eras */
    uint64_t seed;                /* default 1 */
    bool no_ipe;                  /* no info-table provenance (built without
                                     -finfo-table-map) */
    bool strings;                 /* plant duplicated strings and byte arrays (plan:
                                     "strings", see synth_gen_strings.c) */
    bool saved_shortcut;          /* save the leak list (a short path to the first Leak)
                                     and a Leak that only a saved object reaches */
    uint64_t grow_per_pause;      /* Span closures the program adds at each resume
                                     (synth_gen_grow.c); 0 = none */
    uint64_t grow_rounds;         /* resumes so far: rounds of growth in the heap */
    bool duplicate_pinned;        /* ALL_BLOCKS lists every pinned group twice, as the
                                     real RTS lists an empty pinned group once per
                                     capability (synth_process.duplicate_pinned) */
    unsigned ghc_version;         /* __GLASGOW_HASKELL__ of the fake program: 910
                                     (default), 912 or 914 (doc/ghc-versions.md);
                                     914 puts annotation frames (ANN_FRAME) on the
                                     main and worker threads' stacks (plan:
                                     "annotation_frames") */
    uint32_t unknown_type;        /* non-zero: one more GC root holds a closure whose
                                     info table has this closure type, a number that
                                     GHC does not have (plan: "unknown_type") */
} synth_options;

void synth_options_default(synth_options *o);

/* Returns 0 on success; otherwise -1 with a message in err. */
int synth_generate(const synth_options *o, synth_process *out, char *err, size_t errlen);

#endif
