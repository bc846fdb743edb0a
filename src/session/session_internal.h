/* The state of a session, shared by the files of src/session. */
#ifndef HEAPSCOPE_SESSION_INTERNAL_H
#define HEAPSCOPE_SESSION_INTERNAL_H

#include "heapscope/ghcdebug_file.h"
#include "heapscope/session.h"
#include "heapscope/u64map.h"

/* gate.c: a pause's source that refuses every request once shut. */
typedef struct session_gate_refusal {
    int op;
    uint64_t key;
    char *message;
} session_gate_refusal;
typedef struct session_gate {
    heap_source inner;
    bool offline; /* shut: the debuggee runs again (session_let_go) */
    u64map refused; /* what the source had no answer for, while open: index + 1 */
    session_gate_refusal *items;
    size_t n, cap;
} session_gate;
heap_source session_gate_source(session_gate *g, heap_source inner);
void session_gate_free(session_gate *g);

struct session {
    char *target;
    session_options opts;

    /* exactly one of these four */
    wire_conn *conn;          /* a debuggee */
    store_snapshot *snapshot; /* a heapscope snapshot file */
    ghcdebug_file *ghcdebug;  /* a ghc-debug snapshot file */
    heap_source given;        /* session_open_source: the caller's */

    heap *heap; /* the current pause's, or NULL */
    heap *kept; /* the heap read first, refreshed by later pauses (owns it) */
    cache_link link;
    bool linked; /* link was made (with the first heap) */
    session_gate gate; /* between the heap and a debuggee's source (gate.c) */
    cache_recorder *rec; /* recording the current pause beside the caller (record.c) */

    wire_version version;
    bool have_version;
    bool paused; /* by us or found so */
    bool ours;   /* our PAUSE may have taken effect, and no RESUME of ours has */
    bool convert; /* a ghc-debug file's heap is kept converted in the cache once read */
};

/* ghcdebug.c: opening a ghc-debug file (or its converted copy), and
 * keeping it converted once its heap is read. */
hs_status session_ghcdebug_open(session *s, hs_error *err);
void session_ghcdebug_convert(session *s);

/* live.c: a debuggee's steps. */
hs_status session_live_open(session *s, hs_error *err);
hs_status session_live_probe(session *s, hs_error *err);
hs_status session_live_pause(session *s, hs_error *err);
heap_source session_live_source(session *s);

/* record.c: cancels a recording under way (the heap is about to change). */
void session_record_abandon(session *s);

#endif
