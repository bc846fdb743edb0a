/* A ghc-debug snapshot of the synthetic heap, written as ghc-debug-client
 * 0.6.0.0 writes one (GHC.Debug.Snapshot.snapshot, the TUI's "Take
 * snapshot"): the requests its client makes during a pause, each with the
 * answer this debuggee's server gives, in the client's cache encoding
 * (format: src/store/ghcdebug_file.c). The client is imitated from its
 * Haskell source: it precaches ALL_BLOCKS, asks VERSION, ROOTS and
 * SAVED_OBJECTS, walks the cost-centre tree of a profiled program, then
 * traverses the heap from the roots the way GHC.Debug.ParTrace does,
 * decoding closures and stacks with ghc-debug's own rules (including where
 * they differ from GHC's: the last frame of a stack is dropped, a RET_FUN
 * frame's function is not followed, an AP_STACK's payload is read as
 * `size` bytes).
 *
 * Where ghc-debug's traversal would stop with an error and write no file
 * (closure types it does not decode, RET_BCO frames, a stack it cannot
 * split into frames, a request the server refuses), the imitation keeps
 * the requests made up to that point, skips the rest of that closure and
 * goes on. */
#ifndef SYNTH_GHCDEBUG_H
#define SYNTH_GHCDEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "synth.h"

/* Writes the snapshot to path (a temporary file renamed over it). Returns
 * 0, or -1 with a message in err. */
int synth_write_ghcdebug_snapshot(const synth_process *p, const char *path, char *err,
                                  size_t errlen);

/* The same for another debuggee, over its Unix socket: it is paused (if
 * it is not already), snapshotted, and resumed if this paused it. */
int synth_write_ghcdebug_snapshot_of(const char *socket_path, const char *path, char *err,
                                     size_t errlen);

/* ---- shared by synth_ghcdebug*.c ---- */

/* A wire answer body the imitated client received. */
typedef struct gw_answer {
    const uint8_t *body;
    size_t len;
} gw_answer;

typedef struct gw gw; /* the client: server, request cache */

/* Sends (or finds in the cache) the request cmd with its address k1 and
 * second key k2 (STACK_BITMAP offset, FUN_BITMAP count), encoded as
 * ghc-debug's putRequest encodes it. false when the server answered with
 * an error status: the request is not recorded (ghc-debug caches only
 * answers). */
bool gw_request(gw *w, uint32_t cmd, uint64_t k1, uint32_t k2, gw_answer *out);
/* A message for a fatal failure (out of memory, I/O); the traversal stops. */
void gw_fatal(gw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool gw_failed(const gw *w);

/* The traversal of GHC.Debug.Snapshot.snapshot. */
void gw_trace_snapshot(gw *w);

#endif
