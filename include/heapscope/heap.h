/* The decoded heap of one paused debuggee (spec: heap-layout.md).
 *
 * A heap is read through a heap_source: a live debuggee (the wire module)
 * or, later, a snapshot (the store module); nothing above this layer knows
 * which. Per pause, heap_open fetches all blocks once and indexes them by
 * address; closures outside the blocks (static ones) are fetched in batches
 * and kept. Info tables, constructor descriptions, SRT answers and source
 * locations are immutable and fetched once per info pointer.
 *
 * Closure decoding never recurses over the heap and never trusts a length
 * it read: a closure that does not fit the bytes available decodes as an
 * error value, and closure types the reference rejects decode as opaque
 * leaves with their type and size. */
#ifndef HEAPSCOPE_HEAP_H
#define HEAPSCOPE_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/status.h"
#include "heapscope/wire.h"

/* ---- where the bytes come from --------------------------------------- */

/* A heap reads through a heap_source: a live, paused debuggee
 * (heap_source_live) or a snapshot (the store). The contract is the heap's,
 * not the wire's: answers are decoded values keyed by what identifies them,
 * and every call returns
 *   HS_OK             with the answer;
 *   HEAP_UNAVAILABLE  when the source has no answer for this key (a debuggee
 *                     without that data, a snapshot that did not record it),
 *                     err saying why: the heap shows the thing as unknown or
 *                     fails only the closure that needed it;
 *   any other status  when the source itself failed (I/O, timeout, a
 *                     corrupt file): the operation ends with it.
 * Memory an answer hands over is the heap's (freed with free()). */
#define HEAP_UNAVAILABLE HS_ERR_NOT_FOUND

/* One block group of the heap: len bytes of memory starting at start. */
typedef struct heap_block {
    uint64_t start;
    uint32_t len;
    uint16_t flags; /* the RTS block flags, as sent */
    const uint8_t *data; /* NULL until loaded (a lazy source) */
} heap_block;

/* Block groups, with the allocations their data points into. */
typedef struct heap_block_list {
    heap_block *items;
    size_t count;
    void **owned; /* freed with the list */
    size_t n_owned, owned_cap;
} heap_block_list;

/* Hands buf (from malloc) to the list, to be freed with it. On false (out
 * of memory) buf has been freed. */
bool heap_block_list_adopt(heap_block_list *l, void *buf);
void heap_block_list_free(heap_block_list *l);

/* n byte strings answering n requests, pointing into `storage`. */
typedef struct heap_blob {
    const uint8_t *data;
    size_t len;
} heap_blob;

typedef struct heap_blobs {
    heap_blob *items; /* count entries */
    size_t count;
    void *storage; /* freed with the blobs; may be NULL */
} heap_blobs;
void heap_blobs_free(heap_blobs *b);

/* A pointer map: bits[i] is 1 when word i is a pointer. */
typedef struct heap_bitmap {
    uint8_t *bits; /* count bytes, from malloc */
    size_t count;
} heap_bitmap;

struct heap_info;

#define HEAP_MAX_BATCH 65535u /* most keys in one closures / info_tables / srts call */

typedef struct heap_source_ops {
    hs_status (*version)(void *self, wire_version *out, hs_error *err);
    hs_status (*roots)(void *self, wire_ptr_list *out, hs_error *err);
    hs_status (*saved_objects)(void *self, wire_ptr_list *out, hs_error *err);
    /* Every block group of the pause. A lazy source may leave data NULL
     * and load groups when load_block is asked. */
    hs_status (*blocks)(void *self, heap_block_list *out, hs_error *err);
    /* Optional (NULL: blocks always come loaded). Sets out->items[i].data,
     * and may set others' too (adopting the memory into out). */
    hs_status (*load_block)(void *self, heap_block_list *out, size_t i, hs_error *err);
    /* Closures outside the blocks (static ones): for each untagged address
     * the bytes from it onwards (at least its whole closure). */
    hs_status (*closures)(void *self, const uint64_t *addrs, size_t n, heap_blobs *out,
                          hs_error *err);
    /* The raw bytes of each info table (heap-layout.md §3), as GHC has them. */
    hs_status (*info_tables)(void *self, const uint64_t *infos, size_t n, heap_blobs *out,
                             hs_error *err);
    /* out[i]: the SRT closure of info table infos[i], 0 = none. */
    hs_status (*srts)(void *self, const uint64_t *infos, size_t n, uint64_t *out, hs_error *err);
    /* The pointer map of the frame at sp + offset whose info table is
     * frame_info: a RET_BIG frame's belongs to its info table, a RET_FUN
     * frame's to the frame (its function and size). */
    hs_status (*frame_bitmap)(void *self, uint64_t sp, uint32_t offset,
                              const struct heap_info *frame_info, heap_bitmap *out,
                              hs_error *err);
    /* The argument map of n words for the function closure fun, whose info
     * table is fun_info (a FUN type): it belongs to (fun_info, n). */
    hs_status (*fun_bitmap)(void *self, uint64_t fun, const struct heap_info *fun_info,
                            uint16_t n, heap_bitmap *out, hs_error *err);
    /* The constructor description text, e.g. "ghc-prim:GHC.Types:I#"
     * (wire-protocol.md §7.10), NUL-terminated, from malloc. */
    hs_status (*con_desc)(void *self, uint64_t info, char **text, hs_error *err);
    hs_status (*source_info)(void *self, uint64_t info, wire_source_info *out, hs_error *err);
    /* Cost centres (profiled debuggees only; else HEAP_UNAVAILABLE). */
    hs_status (*ccs)(void *self, uint64_t ccs, wire_ccs *out, hs_error *err);
    hs_status (*cc)(void *self, uint64_t cc, wire_cc *out, hs_error *err);
    hs_status (*index_entry)(void *self, uint64_t entry, wire_index_entry *out, hs_error *err);
    hs_status (*ccs_main)(void *self, uint64_t *out, hs_error *err);
} heap_source_ops;

typedef struct heap_source {
    const heap_source_ops *ops;
    void *self;
} heap_source;

/* A source that forwards every request to a live, paused debuggee. */
heap_source heap_source_live(wire_conn *c);

/* ---- the heap -------------------------------------------------------- */

#define HEAP_RANGE_LO UINT64_C(0x4200000000)  /* heap-layout.md §1 */
#define HEAP_RANGE_HI UINT64_C(0x14200000000) /* inclusive */

typedef struct heap heap;

/* Fetches VERSION, ROOTS, SAVED_OBJECTS and ALL_BLOCKS and indexes the
 * blocks. A group listed again with the same start, length and bytes (the
 * RTS lists each empty pinned group once per capability) is kept once, the
 * copy listed first, as ghc-debug does; groups that overlap otherwise (or
 * share a start with other bytes or another length) are an HS_ERR_PROTOCOL
 * error. The source must stay valid until heap_free. */
hs_status heap_open(heap_source src, heap **out, hs_error *err);
/* After a resume and a new pause: drops everything read from the heap
 * (roots, saved objects, blocks, static closures) and fetches it again,
 * keeping what is immutable for the life of the process (info tables, SRT
 * answers, constructor descriptions, source locations, RET_BIG and function
 * bitmaps). On failure the heap is empty but still valid for another try. */
hs_status heap_refresh(heap *h, hs_error *err);
void heap_free(heap *h);

const wire_version *heap_version(const heap *h);
/* Bytes of closure header: 8, or 24 on a profiled RTS. */
unsigned heap_header_bytes(const heap *h);
const wire_ptr_list *heap_roots(const heap *h);
const wire_ptr_list *heap_saved_objects(const heap *h);
/* Block groups and their bytes, each group counted once (heap_open). */
size_t heap_block_count(const heap *h);
uint64_t heap_block_bytes(const heap *h);
/* The VERSION profiling mode (enum wire_prof_mode). */
uint8_t heap_prof_mode(const heap *h);

/* Bytes of memory at addr: inside a fetched block (the tail of its group),
 * or a static closure's image (fetched with CLOSURES and kept). *len says
 * how many bytes are available: always at least 8 (the info pointer); a
 * closure the debuggee sent fewer bytes for is an HS_ERR_PROTOCOL error. */
hs_status heap_memory(heap *h, uint64_t addr, const uint8_t **bytes, size_t *len,
                      hs_error *err);
/* The bytes at addr if they are already here (a loaded block or a kept
 * static image), else NULL; never asks the source. *len >= 8 as above. */
const uint8_t *heap_memory_cached(const heap *h, uint64_t addr, size_t *len);
/* Makes the bytes of many closures available: loads the block groups of a
 * lazy source that hold them, and fetches the images of static closures in
 * batched requests (addresses already here are skipped). */
hs_status heap_prefetch_statics(heap *h, const uint64_t *addrs, size_t n, hs_error *err);
/* heap_prefetch_statics, then the info tables of all of those closures:
 * what showing many closures at once needs, in few requests. */
hs_status heap_prefetch(heap *h, const uint64_t *addrs, size_t n, hs_error *err);
/* Loads every block group a lazy source left unloaded (a no-op when all are
 * here): what a snapshot writer needs. */
hs_status heap_load_all_blocks(heap *h, hs_error *err);
/* True when addr lies inside a fetched block group. */
bool heap_in_blocks(const heap *h, uint64_t addr);
/* The fetched block groups as disjoint address ranges [lo, hi), sorted,
 * which number the 8-byte words inside them densely: the word at addr in
 * range r is number r.first_word + (addr - r.lo) / 8, below
 * heap_block_words. The largest range is numbered first (first_word 0),
 * the others after it in address order. Gaps between groups stay inside a range only while it
 * is at least half full, so the numbering (and what is sized by it: visited
 * sets, the block index) grows with the bytes received, not with the span
 * of addresses a peer chose. */
typedef struct heap_block_range {
    uint64_t lo, hi, first_word;
} heap_block_range;
const heap_block_range *heap_block_ranges(const heap *h, size_t *n);
uint64_t heap_block_words(const heap *h);
/* The dense number of the word at addr; false when addr is in no range. */
bool heap_dense_word(const heap *h, uint64_t addr, uint64_t *word);
/* The address of dense word number word (< heap_block_words). */
uint64_t heap_dense_addr(const heap *h, uint64_t word);

/* ---- info tables ----------------------------------------------------- */

typedef struct heap_info {
    uint64_t ptr;      /* the info pointer (entry code address) */
    uint32_t type;     /* closure type, heap-layout.md §2 */
    uint32_t ptrs;     /* layout word, low half */
    uint32_t nptrs;    /* layout word, high half */
    uint64_t layout;   /* the whole layout word (frame bitmap, selector index) */
    int32_t srt_field; /* srt field; the constructor tag for constructors */
    uint64_t srt;      /* SRT closure from the SRT request; 0 = none */
    /* constructors only: the parsed description, else NULL */
    const char *con_package;
    const char *con_module;
    const char *con_name;
    /* source location; NULL until heap_info_source is asked, NULL if none */
    const wire_source_info *ipe;
    bool ipe_fetched;
} heap_info;

/* The decoded info table of an info pointer (fetched once, with its SRT and
 * constructor description). */
hs_status heap_info_get(heap *h, uint64_t info_ptr, const heap_info **out, hs_error *err);
/* True when the info table of info_ptr is already fetched (or known to be
 * unreadable: heap_info_get then says why, and nothing is asked again). */
bool heap_info_cached(const heap *h, uint64_t info_ptr);
/* The info table of info_ptr if already fetched, else NULL (no request). */
const heap_info *heap_info_lookup(const heap *h, uint64_t info_ptr);
/* Batched: fetches all unknown info tables of ptrs in few requests. */
hs_status heap_info_prefetch(heap *h, const uint64_t *ptrs, size_t n, hs_error *err);
/* The source location of an info table (SOURCE_INFO, once); *out is NULL
 * when the debuggee has none. */
hs_status heap_info_source(heap *h, const heap_info *info, const wire_source_info **out,
                           hs_error *err);

/* ---- closures -------------------------------------------------------- */

/* What a pointer field is, for labels (retainers-and-eras.md §6.3). */
typedef enum heap_edge_kind {
    HEAP_EDGE_FIELD,       /* constructor field i */
    HEAP_EDGE_SRT,         /* SRT of a function, thunk or frame */
    HEAP_EDGE_ARG,         /* pointer field i of a function, thunk, PRIM */
    HEAP_EDGE_SELECTEE,
    HEAP_EDGE_INDIRECTEE,
    HEAP_EDGE_FUNCTION,    /* PAP, AP, AP_STACK function */
    HEAP_EDGE_PAYLOAD,     /* PAP / AP payload pointer i */
    HEAP_EDGE_ELEMENT,     /* array element i */
    HEAP_EDGE_VALUE,       /* MUT_VAR, MVAR value, WEAK value */
    HEAP_EDGE_QUEUE_HEAD,
    HEAP_EDGE_QUEUE_TAIL,
    HEAP_EDGE_WATCH_QUEUE,
    HEAP_EDGE_KEY,
    HEAP_EDGE_C_FINALIZERS,
    HEAP_EDGE_FINALIZER,
    HEAP_EDGE_LINK,
    HEAP_EDGE_BLACKHOLE,
    HEAP_EDGE_OWNER,
    HEAP_EDGE_QUEUE,
    HEAP_EDGE_INSTRUCTIONS,
    HEAP_EDGE_LITERALS,
    HEAP_EDGE_BCO_PTRS,
    HEAP_EDGE_GLOBAL_LINK,
    HEAP_EDGE_STACK,
    HEAP_EDGE_TREC,
    HEAP_EDGE_BLOCKED_EXCEPTIONS,
    HEAP_EDGE_BLOCKING_QUEUE,
    HEAP_EDGE_THREAD_LABEL,
    HEAP_EDGE_FRAME_FIELD, /* pointer field of stack frame `frame` */
    HEAP_EDGE_PREV_CHUNK,  /* TREC_CHUNK previous chunk */
    HEAP_EDGE_TREC_ENTRY,  /* TREC_CHUNK entry tvar / expected / new value */
    HEAP_EDGE_TVAR_VALUE,  /* TVAR current value (labelled "val", not "Value") */
    HEAP_EDGE_KIND_COUNT
} heap_edge_kind;

typedef struct heap_edge {
    uint64_t addr;   /* untagged target */
    uint16_t kind;   /* heap_edge_kind */
    uint16_t frame;  /* stack frame number for HEAP_EDGE_FRAME_FIELD, and for the
                        SRT / FUNCTION edges of frames; HEAP_EDGE_NO_FRAME otherwise */
    uint32_t index;  /* field / argument / element number */
} heap_edge;

/* heap_edge.frame of an edge that belongs to no stack frame. Frame numbers
 * beyond it saturate at HEAP_EDGE_NO_FRAME - 1. */
#define HEAP_EDGE_NO_FRAME UINT16_MAX

/* One stack frame (heap-layout.md §8.2). */
typedef struct heap_frame {
    uint64_t info_ptr;
    const heap_info *info;
    uint32_t offset;      /* byte offset from sp */
    uint32_t size;        /* bytes */
    uint32_t first_word;  /* index of its payload words in heap_closure.words */
    uint32_t n_words;
    uint32_t first_edge;  /* index of its pointer fields in heap_closure.edges */
    uint32_t n_edges;
} heap_frame;

typedef struct heap_prof_header {
    bool present;
    uint64_t ccs;
    uint64_t word; /* era (mode 4), LDV word (3), retainer word (2), raw */
} heap_prof_header;

typedef struct heap_closure {
    uint64_t addr;
    uint64_t info_ptr;
    const heap_info *info;
    uint32_t type;
    uint32_t size; /* bytes: heap-layout.md §11.2; real GHC size for AP_STACK, BCO */
    bool opaque;   /* a type the decoder shows as a leaf (frames, WHITEHOLE, ...) */
    heap_prof_header prof;

    heap_edge *edges; /* children in traversal order (heap-layout.md §13) */
    size_t n_edges;
    uint64_t *words;  /* non-pointer words, in layout order */
    size_t n_words;
    heap_frame *frames; /* STACK and AP_STACK */
    size_t n_frames;

    /* type-specific fields */
    uint64_t count;        /* ARR_WORDS bytes; array element count; PAP/AP n_args;
                              STACK stack_size; AP_STACK size words; TREC entries;
                              BCO bitmap bits (its bitmap words are in `words`) */
    uint32_t arity;        /* PAP / AP / BCO arity */
    uint64_t sp;           /* STACK: address of the top frame */
    const uint8_t *bytes;  /* ARR_WORDS payload (count bytes), valid until the heap changes */
    uint16_t what_next;    /* TSO */
    uint32_t why_blocked;  /* TSO */
    uint32_t flags;        /* TSO */
    uint64_t thread_id;    /* TSO */

    size_t edges_cap, words_cap, frames_cap; /* storage, reused across decodes */
} heap_closure;

/* Decodes the closure at addr (untagged) into out, reusing out's storage.
 * Call heap_closure_free once when done with a reused value.
 * addr must be a closure of this pause: a GC root, a saved object, or a
 * pointer read from a closure decoded in this pause (never an address a
 * person gave: heap_decode_named). Such a closure is remembered as one of
 * this pause (heap_reached). */
hs_status heap_decode(heap *h, uint64_t addr, heap_closure *out, hs_error *err);
void heap_closure_free(heap_closure *c);
/* heap_decode for an address a person typed, which may be stale or made
 * up. The official stub crashes the program when asked about an address
 * that is no closure, so nothing is asked about addr unless it is known to
 * be a closure of this pause (heap_reached: query_closure_of_pause decides
 * the rest with a traversal from the roots); else, and when what is there
 * cannot be read, fails with HS_ERR_NOT_FOUND (heap_no_closure's message). */
hs_status heap_decode_named(heap *h, uint64_t addr, heap_closure *out, hs_error *err);

/* ---- closures of this pause ------------------------------------------ */

/* True when addr (tagged or not) is known to be a closure of this pause:
 * a GC root or saved object, or a closure decoded since the pause began
 * (every decode is of a closure reached from those). False says nothing
 * more unless heap_reached_complete. */
bool heap_reached(const heap *h, uint64_t addr);
/* A traversal from every root and saved object has decoded all it could
 * reach: a closure not heap_reached is none of this pause. */
void heap_reached_set_complete(heap *h);
bool heap_reached_complete(const heap *h);
/* Fails with HS_ERR_NOT_FOUND and the one-line message for an address
 * that is no closure of this pause: "no closure at 0x... in this pause",
 * saying too, for an address in the heap's address range, that closures
 * move whenever the program runs (an address from an earlier pause), or
 * naming the closure it lies inside (inside != 0, of type inside_type). */
hs_status heap_no_closure(const heap *h, uint64_t addr, uint64_t inside, uint32_t inside_type,
                          hs_error *err);
/* heap_decode for callers that already hold the closure's bytes (from
 * heap_memory_cached, len >= 8) and its info table: the traversal's path. */
hs_status heap_decode_known(heap *h, uint64_t addr, const uint8_t *bytes, size_t len,
                            const heap_info *info, heap_closure *out, hs_error *err);

/* A byte array's payload (ARR_WORDS, of any size), a page at a time:
 * copies up to cap bytes from byte `offset` of the payload of the closure
 * at addr into buf, *got of them (0 at or past the end), and sets *total
 * to the payload's length. An address that is no closure of this pause
 * (heap_reached; a person's: query_closure_of_pause first) fails as
 * heap_decode_named does; a closure that is no ARR_WORDS is an
 * HS_ERR_USAGE error naming its type. */
hs_status heap_payload_read(heap *h, uint64_t addr, uint64_t offset, uint8_t *buf, size_t cap,
                            size_t *got, uint64_t *total, hs_error *err);
/* The byte offset inside arr's payload (arr a decoded ARR_WORDS) that
 * the address ptr points at (an Addr# into a pinned array, as a
 * ByteString holds); false when ptr is not inside it (its end included). */
bool heap_payload_index(const heap *h, const heap_closure *arr, uint64_t ptr, uint64_t *off);

/* The era of a closure's profiling header (retainers-and-eras.md §5):
 * true with *era set when the heap is era-profiled (+RTS -he) and the
 * closure has a header, else false. */
bool heap_closure_era(const heap *h, const heap_closure *c, uint64_t *era);

/* ---- cost centres (profiled debuggees) ------------------------------- */

/* Each asked once per pause; the answers stay valid until heap_refresh or
 * heap_free. HEAP_UNAVAILABLE when the debuggee has no cost centres. */
hs_status heap_ccs(heap *h, uint64_t ccs, const wire_ccs **out, hs_error *err);
hs_status heap_cc(heap *h, uint64_t cc, const wire_cc **out, hs_error *err);
hs_status heap_index_entry(heap *h, uint64_t entry, const wire_index_entry **out,
                           hs_error *err);
/* CCS_MAIN, the root cost-centre stack (0 when none). */
hs_status heap_ccs_main(heap *h, uint64_t *out, hs_error *err);

/* Walking an index table (a linked list of entries): next is the entry to
 * read, 0 at the end. A list that loops back on itself (a corrupt or
 * hostile process) ends soon after every entry of the loop was read (some
 * may come twice, which the callers' sets of seen stacks absorb): the walk
 * keeps a second cursor going half as fast (Floyd's), which meets the
 * first only inside a loop. */
typedef struct heap_index_walk {
    uint64_t next;  /* set to the table's first entry before the first step */
    uint64_t at;    /* the entry the last step read (for messages) */
    uint64_t slow;  /* the half-speed cursor; 0 before the walk starts */
    uint64_t steps;
} heap_index_walk;
/* Reads the next entry into *out; *out = NULL at the end of the table. */
hs_status heap_index_walk_step(heap *h, heap_index_walk *w, const wire_index_entry **out,
                               hs_error *err);

/* ---- a closure's profiling header, decoded (retainers-and-eras.md §5) -- */

/* What the header word means, by the VERSION profiling mode. */
typedef enum heap_prof_kind {
    HEAP_PROF_ABSENT,   /* a non-profiled debuggee: no header */
    HEAP_PROF_ERA,      /* mode 4 (-he): the word is the era */
    HEAP_PROF_LDV,      /* mode 3 (-hb): lag, drag, void state */
    HEAP_PROF_RETAINER, /* mode 2 (-hr): retainer set and traversal flag */
    HEAP_PROF_RAW,      /* modes 1 and 5: a word with no meaning to show */
} heap_prof_kind;

typedef struct heap_prof_info {
    heap_prof_kind kind;
    uint64_t word;          /* the header word as read */
    uint64_t era;           /* ERA */
    uint64_t ldv_created;   /* LDV: era the closure was created in */
    bool ldv_used;          /* LDV: used since it was created */
    uint64_t ldv_last_use;  /* LDV: era of its last use (0 while unused) */
    uint64_t retainer_set;  /* RETAINER: address of its RetainerSet, 0 = none */
    bool retainer_flag;     /* RETAINER: bit 0, the retainer traversal's flip bit */
    uint64_t ccs;           /* the cost-centre stack, 0 = none */
    const wire_ccs *stack;  /* heap_prof_describe: that stack (NULL if not read) */
    const wire_cc *cc;      /* heap_prof_describe: its cost centre (NULL if not read) */
    char problem[HS_ERROR_MESSAGE_MAX]; /* why stack or cc is NULL while ccs is not, else "" */
} heap_prof_info;

/* Decodes a header read in profiling mode `mode` (no cost-centre lookup). */
void heap_prof_decode(uint8_t mode, const heap_prof_header *p, heap_prof_info *out);
/* heap_prof_decode for h's mode, with the stack and its cost centre looked
 * up through heap_ccs/heap_cc (kept per pause: closures sharing a stack ask
 * once). A lookup that fails is not an error of the closure: its message
 * goes to out->problem and the rest is still described. */
void heap_prof_describe(heap *h, const heap_prof_header *p, heap_prof_info *out);

/* The one text of a header for both the TUI and the CLI, so they agree. */
typedef enum heap_prof_style {
    HEAP_PROF_PANE,       /* a details-pane row: "✓ created: 2 last used: 4" */
    HEAP_PROF_PANE_ASCII, /* the same without UTF-8: "used created: 2 last used: 4" */
    HEAP_PROF_LINE,       /* one item of a closure line: "ldv created 2 used 4" */
} heap_prof_style;
/* The details-pane key of the header word: "Era", "LDV info",
 * "Retainer info", "Other"; NULL when there is no header. */
const char *heap_prof_state_key(const heap_prof_info *p);
/* The header word's state in style; "" when there is none to show (no
 * header; a RAW word in HEAP_PROF_LINE). */
void heap_prof_state_text(const heap_prof_info *p, heap_prof_style style, char *buf, size_t cap);
/* The cost centre of the stack: "leaky   Main   app/Main.hs:30:1-40" in a
 * pane, "cc Main:leaky (app/Main.hs:30:1-40)" in a line, the problem when
 * it could not be read; "" without a stack. */
void heap_prof_cc_text(const heap_prof_info *p, heap_prof_style style, char *buf, size_t cap);
/* A cost centre as the TUI's CCS and CC rows show it (§6.1):
 * "<label>   <module>   <srcloc>". */
void heap_cc_text(const wire_cc *cc, char *buf, size_t cap);

/* Splits an IPE position "<file>:<span>" at the colon before the span
 * ("app/Main.hs:12:5-20" -> "app/Main.hs", "12:5-20"); a position without
 * one is all file. */
void heap_position_split(const char *position, char *file, size_t file_cap, char *span,
                         size_t span_cap);
/* ---- names and locations of info tables, for a person (location.c) -- */

/* An RTS static reference table: a constructor SRT_<n> of no package and
 * no module (the RTS describes its SRT closures so; ghc-debug's census
 * shows them as "::SRT_2"). */
bool heap_info_is_srt(const heap_info *info);
/* The same test on a constructor description's three parts. */
bool heap_con_is_srt(const char *package, const char *module, const char *name);
/* Where an IPE entry says its info table comes from, never ":" (an entry of
 * a compiler-made closure may have an empty file and span): its position
 * "Tier.hs:49:13-21" when it has a file, else "Data.Map.Internal
 * (insertWith)" from its module and label, or its module and name without
 * "_info" ("Main (sat_s8Xb)": an optimised program's closures of code
 * specialised from a library have neither file nor label), else "" (no entry or
 * nothing in it). True when the text is a real source position. */
bool heap_ipe_location(const wire_source_info *ipe, char *buf, size_t cap);
/* The best display name of an info table, asking SOURCE_INFO once per
 * table: "SRT_2 (static reference table)"; a constructor's description
 * "containers:Data.Map.Internal:Bin"; the IPE name without its "_info"
 * ("sat_s36E", "Main.main_go"); the IPE module and label
 * ("Data.Map.Internal.insertWith"); else "<info 0x4f5348>". Fails only when
 * the source fails. */
hs_status heap_info_display_name(heap *h, const heap_info *info, char *buf, size_t cap,
                                 hs_error *err);
/* The IPE name of an info table without its "_info", or "" (no request:
 * only what heap_info_source already fetched). */
void heap_ipe_short_name(const heap_info *info, char *buf, size_t cap);

/* Whether the program has info-table provenance at all. */
typedef enum heap_ipe_presence {
    HEAP_IPE_UNKNOWN, /* not found out (too many tables to ask) */
    HEAP_IPE_SOME,    /* at least one info table has an IPE entry */
    HEAP_IPE_NONE,    /* none of the info tables of this pause has one */
} heap_ipe_presence;
/* Finds out from the info tables fetched so far, then from those of the
 * closures reachable from the roots, asking SOURCE_INFO of a bounded number
 * of tables and decoding a bounded number of closures (UNKNOWN past
 * either). SOME is kept for the life of the heap (IPE data does not change
 * while a process lives), NONE and UNKNOWN until the next pause. */
hs_status heap_program_ipe(heap *h, heap_ipe_presence *out, hs_error *err);
/* What to say about an info table without a source location: when the
 * program has no IPE at all, heap_provenance_advice; when it has some,
 * that this one (of the RTS or a library) was built without it; "" when
 * that is not known. */
hs_status heap_location_advice(heap *h, char *buf, size_t cap, hs_error *err);
/* How to get era profiling, for the program's GHC and profiling mode:
 * "build the program with -prof and run it with +RTS -he" (not profiled),
 * "run the program with +RTS -he" (profiled without eras), or "GHC 9.6 has
 * none: it came with GHC 9.10"; "" when it has eras. */
void heap_era_advice(const wire_version *v, char *buf, size_t cap);
/* HS_OK when the program has eras; else a usage error "WHAT needs a
 * debuggee with era profiling; this one has profiling mode '...' (advice)". */
hs_status heap_eras_needed(const wire_version *v, const char *what, hs_error *err);

/* Whether the debuggee's GHC can have info-table provenance (IPE: GHC 9.2
 * and later, built with -finfo-table-map). */
bool heap_version_has_provenance(const wire_version *v);
/* What to tell a person whose debuggee lacks provenance, for its GHC:
 * "build the program with -finfo-table-map", or that its GHC has none. */
void heap_provenance_advice(const wire_version *v, char *buf, size_t cap);

/* The one-line text ghc-debug-brick shows for a closure
 * (retainers-and-eras.md §6.2), e.g. "Leak 0x4200105a50 42", "_thunk()". */
void heap_closure_label(heap *h, const heap_closure *c, char *buf, size_t cap);
/* The label of an edge in its parent: "Field 0", "SRT", "Frame 2 Pointer"... */
void heap_edge_label(const heap_edge *e, char *buf, size_t cap);
/* The label of edge number `edge` of c as people read it: heap_edge_label,
 * but an edge of a stack frame says what the frame is (heap_frame_text):
 * "Frame 3 (case continuation in Main.worker at Tier.hs:41:9) Pointer". */
void heap_closure_edge_label(heap *h, const heap_closure *c, size_t edge, char *buf, size_t cap);
/* Room for any edge label (a longer location is cut). */
#define HEAP_EDGE_LABEL_MAX 320

/* ---- threads and stack frames, for people ----------------------------- */

/* The kind of frame a closure type is ("update frame", "case continuation",
 * "catch frame", ...); NULL for a type that is no frame. */
const char *heap_frame_kind(uint32_t type);
/* The frame of c that edge number `edge` belongs to; NULL for an edge of
 * no frame. */
const heap_frame *heap_frame_of_edge(const heap_closure *c, size_t edge);
/* The source location of a frame's return address, whose info table is
 * info (IPE, heap_info_source: asked once per info table); NULL when there
 * is none, h is NULL, or it could not be asked (the kind still says what
 * the frame is). */
const wire_source_info *heap_frame_source(heap *h, const heap_info *info);
/* A frame's kind, then its code's name and location when IPE has them:
 * "update frame", "case continuation in Main.worker at Tier.hs:41:9". */
void heap_frame_text(heap *h, const heap_info *info, char *buf, size_t cap);

/* Longest thread label read from a debuggee, in bytes; longer ones are cut. */
#define HEAP_THREAD_LABEL_MAX 128
/* The label of a TSO (labelThread, GHC >= 9.6): up to cap bytes of it,
 * as the debuggee holds them (UTF-8, unchecked), into buf; *len is how
 * many, *total its whole length. Without a label (or h NULL) *len and
 * *total are 0 and the call succeeds. */
hs_status heap_thread_label(heap *h, const heap_closure *tso, uint8_t *buf, size_t cap,
                            size_t *len, uint64_t *total, hs_error *err);
/* Census key: package:module:name for constructors, else the type name. */
void heap_census_key(const heap_closure *c, char *buf, size_t cap);

#endif
