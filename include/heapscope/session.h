/* What heapscope looks at: one TARGET, for a command or the explorer.
 *
 * A TARGET is a live debuggee (a Unix socket path, unix:PATH or
 * tcp:HOST:PORT) or a file holding one pause: a heapscope snapshot or a
 * ghc-debug snapshot. A debuggee is paused, its heap read (through the
 * cache when one is given) and given back as it was found; a file's pause
 * is there as soon as it is open, and pausing or resuming it is
 * unavailable, with the reason (session_caps_of). The CLI and the TUI reach
 * debuggees and snapshot files only through this module.
 *
 * The calls are steps the callers compose, so each can say what it is
 * doing between them (the explorer's progress line, the CLI's messages):
 * open, [probe], pause, read the heap, ..., resume or give back, close;
 * a batch command completes the pause and lets the debuggee go before it
 * works on the heap offline (session_complete, session_let_go).
 * A cancelled request (the wait function said stop) reads its answer to
 * the end first (the debuggee's stub must never write to a closed
 * connection; opts.drain hears about a long one): the connection stays
 * usable. Only a debuggee silent for the timeout, or one that sent no
 * answer at all, leaves the stream unusable: then session_revive connects
 * again in place and learns whether the debuggee is still paused, since a
 * pause survives disconnects. */
#ifndef HEAPSCOPE_SESSION_H
#define HEAPSCOPE_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "heapscope/cache.h"
#include "heapscope/heap.h"
#include "heapscope/status.h"
#include "heapscope/store.h"
#include "heapscope/wire.h"

typedef struct session session;

typedef struct session_options {
    int timeout_ms;            /* connect wait and longest silence; <= 0: the wire defaults */
    uint64_t max_answer;       /* cap on one answer in bytes; 0: the wire default */
    const char *max_answer_option; /* the option that raises it, named in the error */
    wire_progress_fn progress; /* long answers arriving (the heap's blocks); optional */
    void *progress_ctx;
    wire_wait_fn wait;         /* every wait on the debuggee; false cancels; optional */
    void *wait_ctx;
    wire_drain_fn drain;       /* a cancelled answer being finished; optional */
    void *drain_ctx;
    cache *cache;              /* optional, the caller's: a debuggee's heap reads its
                                  immutable answers through it (and session_record),
                                  and a ghc-debug file is kept converted in it */
    store_progress_fn record_progress; /* converting a ghc-debug file; optional */
    void *record_progress_ctx;
    void (*warn)(void *ctx, const char *message); /* what went wrong but did not stop
                                                     the session; optional */
    void *warn_ctx;
} session_options;

/* What a session can do. */
typedef struct session_caps {
    bool live;                 /* a running debuggee; false: a file holding one pause */
    bool can_pause;            /* a new pause of the program can be taken */
    bool can_resume;
    const char *why_no_pause;  /* NULL when can_pause, else the reason */
    const char *why_no_resume; /* NULL when can_resume, else the reason */
} session_caps;

/* True when target names a file (a snapshot), not a socket or tcp:. */
bool session_target_is_file(const char *target);
/* True when target is a file that looks like a ghc-debug snapshot (and not
 * a heapscope one): one that session_open converts into the cache. */
bool session_target_is_ghcdebug_file(const char *target);

/* Opens target: connects to a debuggee and asks VERSION with a short wait
 * (wire_hello: a debuggee busy with another client says so at once), or
 * opens a snapshot file (checked, its heap not read yet). A ghc-debug
 * snapshot is read whole the first time and kept converted as a recorded
 * pause in the cache (when opts has one), which later opens of the same
 * unchanged file use instead. opts may be NULL. */
hs_status session_open(const char *target, const session_options *opts, session **out,
                       hs_error *err);
/* A session over a pause any heap_source holds (in memory, converted from
 * another format): its heap is read here, and like a file it cannot be
 * paused or resumed. name stands for the target; src must outlive it. */
hs_status session_open_source(const char *name, heap_source src, session **out, hs_error *err);
/* Gives nothing back: heap, connection and file are closed. Callers leave
 * the debuggee as they mean to first (session_give_back). NULL is fine. */
void session_close(session *s);

session_caps session_caps_of(const session *s);
const char *session_target(const session *s);
/* The store snapshot's meta table; NULL for anything else. */
const store_meta *session_snapshot_meta(const session *s);
/* The cache link of a debuggee's heap (pid, program), once the heap was
 * read; NULL before and for files. */
const cache_link *session_cache_link(const session *s);

/* The GHC version and profiling mode (known from the open). */
hs_status session_version(session *s, const wire_version **out, hs_error *err);
/* The version if known (NULL else), without asking. */
const wire_version *session_known_version(const session *s);
/* The VERSION profiling mode; 0 when not known (or s is NULL). */
int session_prof_mode(const session *s);

/* A debuggee: asks whether it is paused already (by another session),
 * without changing anything. A file: nothing to ask. */
hs_status session_probe(session *s, hs_error *err);
/* Pauses the debuggee unless it is paused already; a file is its pause.
 * On an ALREADY_PAUSED answer the debuggee is not ours to resume. */
hs_status session_pause(session *s, hs_error *err);
/* Reads the heap of the pause (heap_open the first time, heap_refresh
 * after: immutable answers are kept across pauses); the result is
 * session_heap. On failure there is no heap. */
hs_status session_read_heap(session *s, hs_error *err);
/* The heap of the current pause, or NULL (running, not read, s NULL);
 * after session_let_go, the completed copy of the pause. */
heap *session_heap(const session *s);
/* The current pause's heap is no longer shown (what is immutable is kept
 * for the next pause); the debuggee stays as it is. */
void session_drop_heap(session *s);
/* Resumes the debuggee (the heap is dropped; what is immutable is kept
 * for the next pause). A file: HS_ERR_USAGE with the reason. */
hs_status session_resume(session *s, hs_error *err);
/* Completes the pause of a paused debuggee (store_complete_pause): asks
 * every answer the reachable heap can need (without whole: only what the
 * caller read already needs), so that session_let_go can resume it and
 * the heap still answers everything asked of it. progress may cancel it.
 * A file, or a heap already let go: nothing to do. */
hs_status session_complete(session *s, bool whole, store_progress_fn progress,
                           void *progress_ctx, hs_error *err);
/* Lets a debuggee heapscope paused run again while its pause stays
 * readable (complete it first: session_complete): resumes it, keeping
 * session_heap, which answers offline from then on. Nothing more is sent
 * to the debuggee for it: a request it did not make during the pause
 * fails (HEAP_UNAVAILABLE, "... was not fetched during the pause"), since
 * addresses are not valid once the program runs; an answer it got
 * unavailable during the pause stays so. The gate shuts also when the
 * RESUME fails (session_ours then stays true: session_give_back tries
 * again). A file, or a debuggee found paused (not ours to resume):
 * nothing is done. */
hs_status session_let_go(session *s, hs_error *err);
/* Connects again after the connection was lost (a timeout, a broken
 * answer) and asks whether the debuggee is still paused (if not, the heap
 * is dropped). A connection still open (a cancelled call drained its
 * answer) is kept: only the pause state is asked. */
hs_status session_revive(session *s, hs_error *err);
/* Resumes a debuggee heapscope paused, on the way out: on the same
 * connection (a cancel left it in step), over a new one if the stream
 * died, not cancelled by the wait function (a
 * signal may have brought us here), at most a few seconds. Notes what
 * became of it (hs_interrupt_note). */
hs_status session_give_back(session *s, hs_error *err);

/* The debuggee is paused, by us or found so (a file: once session_pause
 * turned to its pause). */
bool session_paused(const session *s);
/* Our PAUSE may have taken effect and no RESUME of ours has: leaving
 * should resume it. */
bool session_ours(const session *s);
/* The connection is gone (a file never is). */
bool session_lost(const session *s);

/* Records the pause in the cache (session_options.cache): the whole heap,
 * with what is known of the program. HS_ERR_USAGE without a cache. */
hs_status session_record(session *s, const store_write_options *opts, hs_error *err);
/* Starts recording the current pause of a debuggee into the cache on a
 * thread, beside the caller (cache_recorder): the caller answers its
 * requests between keypresses with cache_recorder_serve on
 * session_recorder(s), and waits for it or abandons it with
 * session_record_finish. Reading a new pause, resuming, a debuggee found
 * no longer paused, and closing abandon one still under way (no file is
 * left). HS_ERR_USAGE without a cache or a debuggee's pause. */
hs_status session_record_beside(session *s, hs_error *err);
/* The recording under way, or NULL. */
cache_recorder *session_recorder(const session *s);
/* Waits for the recording to end (answering its requests meanwhile), or
 * with abandon cancels it (HS_ERR_CANCELLED); HS_OK when none runs. */
hs_status session_record_finish(session *s, bool abandon, hs_error *err);
/* Writes the cache's new answers (before leaving; also done by close). */
hs_status session_flush_cache(session *s, hs_error *err);

#endif
