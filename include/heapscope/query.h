/* Questions asked of a paused heap: traversal, census, retainer search,
 * filters and era ranges. Spec: retainers-and-eras.md. */
#ifndef HEAPSCOPE_QUERY_H
#define HEAPSCOPE_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/heap.h"
#include "heapscope/status.h"

/* ---- traversal ------------------------------------------------------- */

typedef enum query_action {
    QUERY_CONTINUE,       /* visit this closure's children */
    QUERY_SKIP_CHILDREN,  /* do not visit them (through this closure) */
    QUERY_STOP            /* end the traversal now (not an error) */
} query_action;

/* Called once per closure, in breadth-first order from the start set.
 * c is valid only during the call. */
typedef query_action (*query_visit_fn)(void *ctx, heap *h, const heap_closure *c,
                                       uint32_t depth);

/* Called between levels with the number of closures visited so far;
 * return false to cancel (the traversal then fails with "cancelled"). */
typedef bool (*query_progress_fn)(void *ctx, uint64_t visited);

/* How a parent-recording traversal reached the closure being visited:
 * valid only during the visit call. */
typedef struct query_trail query_trail;

/* The visitor of a parent-recording traversal. */
typedef query_action (*query_visit_trail_fn)(void *ctx, heap *h, const heap_closure *c,
                                             const query_trail *trail);

/* Whether the visitor wants to see closures of this info table at all;
 * asked about once per info table (the answer must not change). */
typedef bool (*query_wants_fn)(void *ctx, heap *h, const heap_info *info);

typedef struct query_traversal {
    query_visit_fn visit;
    void *ctx;
    query_progress_fn progress; /* optional */
    void *progress_ctx;
    /* Optional, replaces visit: the traversal then also records, for every
     * closure it queues, the closure it was first reached from (a 4-byte
     * id, and the queue of 4-byte codes is kept: 8 bytes per visited
     * closure), so the visitor can ask for a shortest path from the start
     * set. */
    query_visit_trail_fn visit_trail;
    /* Optional: closures whose info table it declines are not shown to
     * the visitor (their children are still visited), which spares a call
     * per closure when the visitor only cares about a few info tables. */
    query_wants_fn wants;
} query_traversal;

/* Edges from the start set to the closure being visited (0 at a start). */
uint32_t query_trail_depth(const query_trail *t);
/* The addresses of the path start -> ... -> the visited closure, start
 * first: query_trail_depth + 1 of them. Writes them when cap is enough
 * and returns how many there are (so a short buffer can be resized). */
size_t query_trail_path(const query_trail *t, uint64_t *out, size_t cap);

/* Closures a query skipped because they could not be read: their bytes
 * made no sense, or the debuggee (or snapshot) had no answer for them or
 * for their info table. */
typedef struct query_unreadable {
    uint64_t count;
    uint64_t first;                       /* the address of the first one */
    char problem[HS_ERROR_MESSAGE_MAX];   /* why it could not be read */
} query_unreadable;

/* Counts an unreadable closure (the first one's address and problem kept). */
void query_unreadable_add(query_unreadable *u, uint64_t addr, const char *problem);
/* True when st is the failure of one closure, which a query skips and
 * counts, rather than of the whole source (connection, memory, cancel). */
bool query_unreadable_status(hs_status st);

typedef struct query_traversal_stats {
    uint64_t visited;     /* closures visited */
    uint64_t bytes;       /* their sizes */
    uint32_t depth;       /* levels */
    query_unreadable unreadable; /* closures skipped (neither visited nor their children) */
} query_traversal_stats;

/* Visits every closure reachable from starts (tagged or not) once,
 * breadth first, with a visited set of one bit per heap word (plus a
 * hash set for closures outside the blocks). No recursion. Each level's
 * unknown static closures and info tables are fetched in batches before
 * the level is decoded. A closure that cannot be read (its bytes make no
 * sense, or the source has no answer for it: query_unreadable_status) is
 * counted in stats->unreadable and skipped; any other failure (the
 * connection, memory, a cancel) ends the traversal. */
hs_status query_traverse(heap *h, const uint64_t *starts, size_t n_starts,
                         const query_traversal *t, query_traversal_stats *stats,
                         hs_error *err);

/* One start set of a phased traversal. */
typedef struct query_starts {
    const uint64_t *items; /* tagged or not; 0 entries are ignored */
    size_t count;
} query_starts;

/* query_traverse with start sets in phases: everything reachable from the
 * first set is visited (breadth first, depths counted from that set)
 * before the next set's unvisited closures start a breadth-first phase
 * over what is still unvisited, and so on. Each closure is visited once,
 * in the first phase that reaches it, and with trails its path begins at
 * a start of that phase. Depths restart at 0 in each phase; stats->depth
 * is the deepest phase's level count. */
hs_status query_traverse_phases(heap *h, const query_starts *phases, size_t n_phases,
                                const query_traversal *t, query_traversal_stats *stats,
                                hs_error *err);

/* ---- addresses a person gives ------------------------------------------ */

/* HS_OK when addr (tagged or not) is a closure of this pause: a GC root, a
 * saved object, or a closure reached from them (closure_of_pause.c). Else
 * HS_ERR_NOT_FOUND with heap_no_closure's one-line message ("no closure at
 * 0x... in this pause", naming the closure it lies inside when the
 * traversal met one). Nothing is ever asked about addr itself: when the
 * closures decoded so far do not tell, a traversal from the roots decides
 * (progress as query_traversal's; a cancel fails HS_ERR_CANCELLED). Then
 * heap_decode_named reads it. */
hs_status query_closure_of_pause(heap *h, uint64_t addr, query_progress_fn progress,
                                 void *progress_ctx, hs_error *err);

/* ---- era ranges (retainers-and-eras.md §4.5) -------------------------- */

typedef struct query_era_range {
    uint64_t lo, hi; /* inclusive */
} query_era_range;

/* "N", "A-B", "A-", "-B" or "-" (spaces around a number allowed; decimal
 * or 0x hex). A malformed range, or one that starts after it ends, is an
 * HS_ERR_USAGE error saying what is wrong. */
hs_status query_era_range_parse(const char *text, query_era_range *out, hs_error *err);
/* "N" when lo = hi, "[A,B]", or "[A,∞)" when hi is the largest era. */
void query_era_range_format(query_era_range r, char *buf, size_t cap);

/* ---- filters (retainers-and-eras.md §4) -------------------------------- */

typedef enum query_filter_kind {
    QUERY_FILTER_CONSTRUCTOR,       /* constructor name matches a PCRE2 regex */
    QUERY_FILTER_EXACT,             /* constructor name equals the text */
    QUERY_FILTER_CLOSURE_NAME,      /* IPE info-table name equals the text */
    QUERY_FILTER_ADDRESS,           /* closure address, "0x…" (untagged) */
    QUERY_FILTER_INFO,              /* info-table pointer, "0x…" */
    QUERY_FILTER_TYPE,              /* closure type name, e.g. THUNK_2_0 */
    QUERY_FILTER_MIN_SIZE,          /* size in bytes at least N */
    QUERY_FILTER_ERA,               /* era in a range (era profiling only) */
    QUERY_FILTER_COST_CENTRE,       /* header CCS under the cost centre with id N (profiled) */
    QUERY_FILTER_BUCKET,            /* "BY=KEY": the closure's census key under BY
                                       (query_census_by_from_name) is exactly KEY; closures
                                       such a census does not count (non-thunks for
                                       "thunk") never match, inverted or not */
    QUERY_FILTER_VALUE,             /* string or byte array whose value is the text (\xNN
                                       escapes, as query_strings_escape writes): an
                                       ARR_WORDS, Text, BS/PS, or (:) cell of a String,
                                       read through indirections; not an ARR_WORDS under
                                       a Text or BS/PS it was shown before */
    QUERY_FILTER_KIND_COUNT
} query_filter_kind;

/* An ordered list of filters, ANDed front to back with short-circuit.
 * Each filter's result is its predicate XOR its invert flag, except that
 * constructor filters (regex and exact) are false for every closure that
 * is not a constructor, and closure-name filters false for every closure
 * without IPE data, inverted or not (the reference's rule, §4.1). */
typedef struct query_filters query_filters;

hs_status query_filters_new(query_filters **out, hs_error *err);
void query_filters_free(query_filters *f);
/* Parses text for kind (a regex is compiled here, once, with JIT when
 * available) and appends the filter. On error (HS_ERR_USAGE, with the
 * offset in the pattern for a bad regex) nothing is added. */
hs_status query_filters_add(query_filters *f, query_filter_kind kind, const char *text,
                            bool invert, hs_error *err);
size_t query_filters_count(const query_filters *f);
/* Filter i as the TUI's filter list shows it: "Exact constructor name Leak",
 * "!Era range [2,∞)", "Closure type THUNK". */
void query_filters_describe(const query_filters *f, size_t i, char *buf, size_t cap);
/* "constructor", "exact", "closure-name", "address", "info", "type",
 * "min-size", "era", "cost-centre", "bucket", "value": the option names of the kinds. */
const char *query_filter_kind_name(query_filter_kind kind);

/* Whether this debuggee can evaluate a filter of this kind: an era filter
 * wants era profiling (+RTS -he), a cost-centre filter a profiled RTS, a
 * closure-name filter a GHC with info-table provenance (9.2 and later);
 * else HS_ERR_USAGE saying why. */
hs_status query_filter_usable(query_filter_kind kind, heap *h, hs_error *err);
/* Checks every filter with query_filter_usable and computes what they
 * need: a cost-centre filter's set of cost-centre stacks (§4.6); results
 * cached per info table are forgotten. Before matching on a heap. */
hs_status query_filters_prepare(query_filters *f, heap *h, hs_error *err);
/* After a search: a closure-name filter was asked about info tables and
 * not one of them had provenance (IPE), so it could match nothing: the
 * program was most likely built without -finfo-table-map. */
bool query_filters_provenance_missing(const query_filters *f);
/* The AND of the filters for c (true when there are none). May send
 * SOURCE_INFO requests (closure-name filters; each info table once). */
hs_status query_filters_match(query_filters *f, heap *h, const heap_closure *c, bool *out,
                              hs_error *err);

/* ---- retainer search (retainers-and-eras.md §3) ------------------------ */

/* One closure on a path from the start set to a match. */
typedef struct query_step {
    uint64_t addr;
    uint64_t info_ptr;
    const heap_info *info;       /* its info table (constructor names), or NULL */
    uint32_t type;               /* closure type */
    uint32_t size;               /* bytes */
    const char *edge;            /* the field of the previous step that holds this one
                                    ("Field 0", "Frame 2 Pointer"); NULL on the first step */
    const char *label;           /* closure text (§6.2) */
    const wire_source_info *ipe; /* source location of its info table, or NULL */
    bool has_era;                /* era profiling: era is the header's era */
    uint64_t era;
    heap_prof_header prof;       /* its profiling header (heap_prof_describe tells it) */
    bool newer_retains_older;    /* the previous step is of a newer era than this one
                                    (era 0, static closures, is no era and never flagged) */
    uint64_t thread_id;          /* TSO: its thread id */
    const char *thread_label;    /* TSO: its label (query_thread_label), NULL without one */
    bool in_frame;               /* edge belongs to a stack frame of the previous step: */
    uint32_t frame_number;       /* its number (0 = the top frame) */
    const heap_info *frame_info; /* and its info table (its return address) */
} query_step;

/* A TSO's label as a step holds it: its first HEAP_THREAD_LABEL_MAX bytes
 * escaped as query_strings_escape does (valid UTF-8 kept, other bytes
 * \xNN), "..." after a cut; "" without a label. Not read: "<unreadable: why>". */
void query_thread_label(heap *h, const heap_closure *tso, char *buf, size_t cap);
/* Room for query_thread_label's text. */
#define QUERY_THREAD_LABEL_MAX (4 * HEAP_THREAD_LABEL_MAX + 64)

typedef struct query_match {
    uint64_t number;          /* 1, 2, ... in discovery (breadth-first) order */
    uint32_t depth;           /* edges from the start set: the shortest path's length */
    bool from_saved_object;   /* the path starts at a saved object, not a GC root
                                 (known with paths only) */
    const query_step *steps;  /* start first, the match last; just the match without paths */
    size_t n_steps;
    size_t n_newer_retains_older;
} query_match;

/* Gets each match as it is found; m is valid only during the call.
 * Return false to stop the search (not an error). */
typedef bool (*query_match_fn)(void *ctx, heap *h, const query_match *m);

typedef struct query_search {
    query_filters *filters;     /* NULL or empty: every closure matches */
    uint64_t limit;             /* stop after this many matches; 0 = no limit */
    bool paths;                 /* report each match's shortest path (retainers), else
                                   only the match (find) */
    bool prepared;              /* the caller already ran query_filters_prepare on this heap */
    query_match_fn on_match;
    void *ctx;
    query_progress_fn progress; /* optional: progress and cancel */
    void *progress_ctx;
} query_search;

typedef struct query_search_stats {
    uint64_t matches;
    bool limit_reached;         /* stopped at the limit: there may be more */
    query_traversal_stats traversal;
} query_search_stats;

/* Breadth-first from the GC roots, then (a second phase over what they
 * do not reach) from the saved objects: every match's path is a shortest
 * one from the GC roots, or from a saved object when no GC root reaches
 * it (ghc-debug reports the first path its depth-first walk meets).
 * WEAK closures never match and their children are not visited through
 * them (§3). Matches are reported in discovery
 * order; a match below another match is reported too. Prepares the
 * filters (query_filters_prepare) first unless s->prepared. */
hs_status query_search_run(heap *h, const query_search *s, query_search_stats *stats,
                           hs_error *err);

/* ---- dominators and retained sizes (issue 12 §1) ----------------------- */

/* The dominator tree of the reachable heap: the GC roots hang from one
 * virtual root; what only saved objects reach comes after them, as in
 * query_traverse_phases (edges from there back into what the GC roots
 * reach are ignored); WEAK closures retain nothing (as in the retainer
 * search). A closure's retained size is the bytes that would become
 * unreachable without it: its own and those of every closure it
 * dominates. */
typedef struct query_dominators query_dominators;

/* One closure of the tree. */
typedef struct query_dominated {
    uint64_t addr;
    uint64_t size;     /* its own bytes */
    uint64_t retained; /* bytes it keeps alive, its own included */
    uint64_t idom;     /* its immediate dominator; 0 = the virtual root */
} query_dominated;

/* Traverses the heap twice (to number the reachable closures, then depth
 * first) and computes the tree; progress reports closures done (several
 * passes count up again) and cancels. Extra memory: about 13 bytes per
 * closure kept, at most about 24 while computing (query_dominators_stats).
 * The result describes this pause of h: free it before h changes. */
hs_status query_dominators_run(heap *h, query_progress_fn progress, void *progress_ctx,
                               query_dominators **out, hs_error *err);
void query_dominators_free(query_dominators *d);

typedef struct query_dominators_info {
    uint64_t closures;   /* reachable closures */
    uint64_t bytes;      /* their bytes: the virtual root's retained size */
    size_t peak_bytes;   /* the most memory the computation held at once */
    size_t kept_bytes;   /* what the result keeps */
    query_unreadable unreadable; /* closures left out: they could not be read */
} query_dominators_info;

void query_dominators_stats(const query_dominators *d, query_dominators_info *out);
/* The closure at addr (tagged or not); false when it is not reachable. */
bool query_dominators_get(const query_dominators *d, uint64_t addr, query_dominated *out);

/* A closure with the closures it immediately dominates. */
typedef struct query_dominator_row {
    query_dominated closure;
    query_dominated *children; /* largest retained first, at most the asked number */
    size_t n_children;
    uint64_t more_children;    /* dominated children left out */
} query_dominator_row;

/* The `top` closures retaining most (largest retained size first; ties in
 * address order, the closures outside the blocks last), each with its `max_children` largest dominated children. */
hs_status query_dominators_top(const query_dominators *d, size_t top, size_t max_children,
                               query_dominator_row **rows, size_t *n_rows, hs_error *err);
/* The closures addr immediately dominates (addr 0: the virtual root's,
 * i.e. the tree's top level), largest first, at most max of them; free
 * out->children with free(). */
hs_status query_dominators_children(const query_dominators *d, uint64_t addr, size_t max,
                                    query_dominator_row *out, hs_error *err);
void query_dominator_rows_free(query_dominator_row *rows, size_t n_rows);

/* ---- era-boundary report (issue 12 §2) ---------------------------------- */

/* Every edge of the reachable heap (as the dominator tree sees it: WEAK
 * closures retain nothing) from a closure of a newer era to one of an
 * older era; era 0 is no era (static closures carry it), so edges from or
 * to it are not counted. Edges are grouped by the best names of the two
 * closures' info tables: a constructor's description (package:Module:Name,
 * as census --by constructor shows it), else the IPE label and source
 * location (either alone, or the info-table symbol when both are missing),
 * else the closure type and "<info 0xP>" (so a group without IPE is one
 * info table). A group is one (retainer name, retained
 * name, retainer kind): its edges are exactly the edges whose two info
 * tables have those names.
 *
 * The older closures retained only through a group: those c whose
 * immediate dominator is a newer closure p with an edge p -> c of the
 * group (every path from the roots to c passes through p, so removing the
 * group's edges frees c and all c dominates); each closure has one
 * immediate dominator, so it is one group's at most. The group's bytes:
 * those of the union of their dominator subtrees, i.e. the sum of their
 * retained sizes leaving out any c below another of the group (through a
 * newer closure), whose bytes that one's retained size holds already.
 * Subtrees of different groups can nest too, so the groups' bytes can add
 * up to more than the total, which is the union over all groups.
 *
 * Groups are also told apart by what their retainers are (query_leak_kind):
 * an unfinished computation (a thunk, a function or partial application, a
 * thread's stack) HOLDS the older closure as an input it has not consumed,
 * the usual shape of a space leak in a lazy heap; any other closure (a
 * constructor, an array, a mutable cell, an indirection) CONTAINS it as part
 * of a value built from it, which an immutable heap does all the time
 * (every closure was built from older ones). The ranking: groups that free
 * something (bytes > 0) first, among them holds before contents, each by
 * bytes; then the groups that free nothing. */
typedef enum query_leak_kind {
    QUERY_LEAK_THUNK,       /* THUNK*, THUNK_SELECTOR, AP, AP_STACK: holds */
    QUERY_LEAK_FUNCTION,    /* FUN*, PAP, BCO, CONTINUATION: holds */
    QUERY_LEAK_STACK,       /* STACK, TSO: holds */
    QUERY_LEAK_CONSTRUCTOR, /* CONSTR*: contains */
    QUERY_LEAK_ARRAY,       /* (SMALL_)MUT_ARR_PTRS_*, mutable or frozen: contains */
    QUERY_LEAK_MUTABLE,     /* MUT_VAR, MVAR, TVAR: contains */
    QUERY_LEAK_OTHER        /* indirections (an evaluated thunk's value) and the rest */
} query_leak_kind;

/* The kind of a closure type. */
query_leak_kind query_leak_kind_of(uint32_t closure_type);
/* "thunk", "function", "stack", "constructor", "array", "mutable", "other". */
const char *query_leak_kind_name(query_leak_kind k);
/* Whether retainers of kind k hold (rather than contain) what they point at. */
bool query_leak_kind_holds(query_leak_kind k);

typedef struct query_leak_group {
    char *retainer;        /* the retaining closures' name */
    char *retained;        /* the retained closures' name */
    query_leak_kind kind;  /* what the retainers are (part of the group's key) */
    bool named_by_ipe;     /* the retainer's name comes from IPE data */
    uint32_t id;           /* the group's number before ranking (query_leaks.pairs) */
    uint64_t edges;        /* newer -> older edges of the group */
    uint64_t older;        /* older closures retained only through them */
    uint64_t bytes;        /* their retained sizes */
    uint64_t from, to;     /* an example edge (the first met, breadth first) */
    uint64_t from_era, to_era;
} query_leak_group;

/* Which group the edges between two info tables are in. */
typedef struct query_leak_pair {
    uint64_t from_info, to_info;
    uint32_t group_id; /* query_leak_group.id */
} query_leak_pair;

typedef struct query_leaks {
    query_leak_group *groups; /* in the ranking above (ties: edges, then keys) */
    size_t n_groups;
    uint64_t edges;           /* all newer -> older edges */
    uint64_t closures;        /* reachable closures looked at */
    uint64_t bytes;           /* the union over all groups (see above) */
    query_leak_pair *pairs;   /* by from_info, then to_info */
    size_t n_pairs;
} query_leaks;

/* HS_OK when h is era-profiled (+RTS -he), else a usage error saying so. */
hs_status query_leaks_usable(heap *h, hs_error *err);
/* The report over the tree d of h's pause (query_dominators_run); two
 * traversals, progress as there. Extra memory: about 12 bytes per closure. */
hs_status query_leaks_run(heap *h, const query_dominators *d, query_progress_fn progress,
                          void *progress_ctx, query_leaks *out, hs_error *err);
void query_leaks_free(query_leaks *l);

/* One edge of a group: newer retainer -> older closure. */
typedef struct query_leak_edge {
    uint64_t from, to;
    uint64_t from_era, to_era;
    uint64_t bytes;  /* to's retained size when from is its immediate dominator (the
                        group's bytes count it), else 0 */
    uint32_t field;  /* the edge's index in from's heap_closure.edges */
} query_leak_edge;

typedef struct query_leak_edges {
    query_leak_edge *items; /* most bytes first, ties in the order met (breadth first) */
    size_t count;
    uint64_t total;         /* the group's edges; more than count when the limit cut */
} query_leak_edges;

/* The edges of l->groups[group], l being the report of d's pause: one walk
 * as query_leaks_run's, keeping at most limit edges (0: all; memory then
 * about 48 bytes an edge of the group, else twice the limit). */
hs_status query_leaks_group_edges(heap *h, const query_dominators *d, const query_leaks *l,
                                  size_t group, uint64_t limit, query_progress_fn progress,
                                  void *progress_ctx, query_leak_edges *out, hs_error *err);
void query_leak_edges_free(query_leak_edges *e);
/* The field of e's retainer that holds the older closure ("Field 2",
 * "Frame 1 Pointer"), or "field N" when the retainer cannot be read. */
void query_leak_edge_label(heap *h, const query_leak_edge *e, char *buf, size_t cap);

/* ---- merged root paths (issue 12 §3) ---------------------------------- */

/* The prefix tree of the paths of a retainer search's matches: every
 * closure on some match's path once, under the closure that holds it on
 * that path, with how many matches lie at or below it and their bytes:
 * why every match is alive, on one screen. */
typedef struct query_merged query_merged;

#define QUERY_MERGED_NONE SIZE_MAX

typedef struct query_merged_node {
    query_step step;         /* the closure (its strings owned by the tree) */
    uint64_t matches;        /* matches at or below it */
    uint64_t bytes;          /* their bytes */
    bool match;              /* it is a match itself */
    bool from_saved_object;  /* a start: a saved object rather than a GC root */
    size_t parent;           /* QUERY_MERGED_NONE for a path's start */
    const size_t *children;  /* after query_merged_finish: most bytes first */
    size_t n_children;
} query_merged_node;

hs_status query_merged_new(query_merged **out, hs_error *err);
void query_merged_free(query_merged *t);
/* Adds a match found with paths (query_search.paths), e.g. from on_match. */
hs_status query_merged_add(query_merged *t, const query_match *m, hs_error *err);
/* Orders every node's children (and the starts) by bytes, then matches,
 * then address; the nodes can be read after it. */
hs_status query_merged_finish(query_merged *t, hs_error *err);
size_t query_merged_count(const query_merged *t);
const query_merged_node *query_merged_node_at(const query_merged *t, size_t i);
/* The paths' starts (GC roots and saved objects), most bytes first. */
const size_t *query_merged_starts(const query_merged *t, size_t *n);

/* ---- census ---------------------------------------------------------- */

/* What a census groups closures by. Each closure's key under a kind is a
 * text (the row's key); the bucket filter (QUERY_FILTER_BUCKET, "BY=KEY")
 * matches the closures whose key under BY is exactly KEY. */
typedef enum query_census_by {
    QUERY_CENSUS_BY_TYPE,         /* "type": closure type name */
    QUERY_CENSUS_BY_CONSTRUCTOR,  /* "constructor": package:module:name, or type name
                                     (ghc-debug's census) */
    QUERY_CENSUS_BY_ERA,          /* "era": era of the profiling header (era profiling
                                     only; a closure without a header is era 0) */
    QUERY_CENSUS_BY_SOURCE,       /* "source": source location of the info table, or
                                     "<no location>" */
    QUERY_CENSUS_BY_CLOSURE_NAME, /* "closure-name": IPE name of the info table, or
                                     "<no name>" */
    QUERY_CENSUS_BY_COST_CENTRE,  /* "cost-centre": module:label of the header CCS's cost
                                     centre, "<no cost centre>" without one (profiled only) */
    QUERY_CENSUS_BY_THUNK,        /* "thunk": thunks only (query_census_is_thunk): the
                                     source location of the info table, else
                                     "<info 0x...>" plus " NAME" when IPE names it;
                                     other closures are not counted */
    QUERY_CENSUS_BY_COUNT
} query_census_by;

typedef struct query_census_row {
    char *key;
    uint64_t count;
    uint64_t bytes;
    uint64_t max;                       /* largest single closure; average = bytes / count */
    uint64_t retained;                  /* first level, after query_census_retained: the
                                           bytes its closures keep alive together */
    struct query_census_row *children;  /* two levels: the second level's rows of the
                                           closures of this row, else NULL */
    size_t n_children;
} query_census_row;

typedef struct query_census {
    query_census_row *rows; /* bytes descending, ties by key (see query_census_sort) */
    size_t n_rows;
    uint64_t total_count;   /* closures counted (passing the filters; thunks for THUNK) */
    uint64_t total_bytes;
    uint64_t visited;       /* closures the traversal went through */
    query_unreadable unreadable; /* closures left out: they could not be read */
} query_census;

#define QUERY_CENSUS_MAX_LEVELS 2

typedef struct query_census_spec {
    query_census_by by[QUERY_CENSUS_MAX_LEVELS];
    size_t levels;              /* 1 or 2 */
    query_filters *filters;     /* NULL or empty: every closure counts; otherwise only
                                   matching closures are counted (the traversal still
                                   goes through all) */
    bool prepared;              /* the caller already ran query_filters_prepare on this heap */
    query_progress_fn progress; /* optional: progress and cancel ("cancelled" error) */
    void *progress_ctx;
} query_census_spec;

/* Census of everything reachable from the GC roots, by spec. Closures are
 * grouped by a number (info pointer, era, CCS) while walking and named
 * once per group at the end. Era and cost-centre levels on a debuggee
 * without that profiling are an HS_ERR_USAGE error saying why. */
hs_status query_census_compute(heap *h, const query_census_spec *spec, query_census *out,
                               hs_error *err);
/* One level, no filters: query_census_compute with progress_only's
 * progress callback (may be NULL). */
hs_status query_census_run(heap *h, query_census_by by, const query_traversal *progress_only,
                           query_census *out, hs_error *err);
void query_census_free(query_census *c);
/* Sets each first-level row's retained: the bytes of the union of the
 * dominator subtrees of its closures (a closure inside another of the same
 * row counted once); d is h's dominator tree (query_dominators_run), c
 * the census computed with spec (filters prepared). Walks the GC roots
 * once more (spec's progress reports it and may cancel); closures outside
 * the tree (only a WEAK's fields reach them) add nothing. */
hs_status query_census_retained(heap *h, const query_dominators *d,
                                const query_census_spec *spec, query_census *c, hs_error *err);

typedef enum query_census_column {
    QUERY_CENSUS_COL_COUNT,
    QUERY_CENSUS_COL_BYTES,
    QUERY_CENSUS_COL_MAX,
    QUERY_CENSUS_COL_AVG,  /* bytes / count */
    QUERY_CENSUS_COL_KEY,  /* strcmp order */
    QUERY_CENSUS_COL_RETAINED, /* query_census_retained's */
    QUERY_CENSUS_COL_COUNT_
} query_census_column;

/* Sorts both levels by column (ties by key ascending, then stable); by
 * retained, the second level by bytes. */
void query_census_sort(query_census *c, query_census_column column, bool descending);
/* "count", "bytes", "max", "avg", "key" -> value; false when unknown. */
bool query_census_column_from_name(const char *name, query_census_column *out);
const char *query_census_column_name(query_census_column column);

/* "type", "constructor", "era", "source", "closure-name", "cost-centre",
 * "thunk" -> value; false when unknown. */
bool query_census_by_from_name(const char *name, query_census_by *out);
const char *query_census_by_name(query_census_by by);
/* Whether this debuggee can take a census (or bucket filter) by `by`:
 * era wants era profiling, cost-centre a profiled RTS; else HS_ERR_USAGE. */
hs_status query_census_by_usable(query_census_by by, heap *h, hs_error *err);
/* The closure types a thunk census counts: THUNK, THUNK_1_0 .. THUNK_0_2,
 * THUNK_STATIC, THUNK_SELECTOR, AP and AP_STACK (unevaluated closures). */
bool query_census_is_thunk(uint32_t type);
/* The key of closure c under by, as a census row shows it; *counted is
 * false (and buf empty) when a census by `by` does not count c (a
 * non-thunk under THUNK). May ask the source (info tables, IPE, CCS). */
hs_status query_census_key(heap *h, query_census_by by, const heap_closure *c, char *buf,
                           size_t cap, bool *counted, hs_error *err);

/* ---- census diff ----------------------------------------------------- */

/* One bucket as two censuses (A, then B) count it; a key one of them lacks
 * has count and bytes 0 there. */
typedef struct query_census_diff_row {
    char *key;
    uint64_t count_a, bytes_a;
    uint64_t count_b, bytes_b;
    int64_t count_delta, bytes_delta;        /* B - A */
    struct query_census_diff_row *children;  /* two levels: the second level's changed
                                                rows under this key, else NULL */
    size_t n_children;
} query_census_diff_row;

typedef struct query_census_diff {
    query_census_diff_row *rows; /* the buckets that changed: grown first (bytes delta
                                    descending, then count delta), then shrunk (most
                                    bytes lost first); ties by key */
    size_t n_rows;
    size_t unchanged;            /* first-level buckets in both with equal count and bytes */
} query_census_diff;

/* The buckets whose count or bytes differ between a and b (two censuses
 * taken with the same spec; keys matched exactly, at each level). The
 * result owns its keys: a and b may be freed after. */
hs_status query_census_diff_compute(const query_census *a, const query_census *b,
                                    query_census_diff *out, hs_error *err);
void query_census_diff_free(query_census_diff *d);
/* A two-level census taken once instead of two censuses (diff asks for
 * both the census by A and the one by era): c keeps its first level (the
 * children are dropped), *second gets the census by the second kind (the
 * children summed by key, ordered as query_census_compute orders rows),
 * with c's totals. On failure c is unchanged. */
hs_status query_census_split(query_census *c, query_census *second, hs_error *err);
/* A diff side's census of h by spec and, when h has eras, *eras: the
 * census by era of the same closures (a one-level census is taken with
 * era as its second level and split, so h is walked once). Without eras
 * *eras_ok is false, *eras untouched and why (one line) says why. On
 * failure nothing is left to free. */
hs_status query_census_and_eras(heap *h, const query_census_spec *spec, query_census *out,
                                query_census *eras, bool *eras_ok, char *why, size_t why_cap,
                                hs_error *err);
/* The rows of a diff by era (of two censuses by era) with closures in B
 * and none in A, era ascending: a new array of *n pointers into d (the
 * caller frees it), NULL when out of memory. */
const query_census_diff_row **query_census_diff_new_eras(const query_census_diff *d,
                                                         size_t *n);

/* ---- strings and byte arrays ------------------------------------------ */

/* What holds a value (bits: a row may group several). */
enum {
    QUERY_STRING_BYTES = 1u << 0,      /* an ARR_WORDS that no Text or ByteString holds */
    QUERY_STRING_TEXT = 1u << 1,       /* text's Text: array, offset, length (UTF-16 in
                                          text 1.x, whose value is shown as UTF-8) */
    QUERY_STRING_BYTESTRING = 1u << 2, /* bytestring's BS (0.11+) or PS (0.10) */
    QUERY_STRING_LIST = 1u << 3        /* String: (:) cells with C# heads ending in [] */
};

typedef struct query_strings_row {
    unsigned kinds;      /* QUERY_STRING_* bits of its copies */
    const uint8_t *value; /* value_len bytes (UTF-8 for Text and String), owned by the
                             result (query_strings_free) */
    uint64_t value_len;
    uint64_t count;      /* copies */
    uint64_t bytes;      /* heap bytes of the copies (see query_strings_run) */
    uint64_t wasted;     /* bytes of all copies but the smallest */
    uint64_t first;      /* a copy: the first Text or BS/PS found (breadth first), else
                            the first ARR_WORDS, else the first String's first (:) cell */
    uint64_t first_array; /* the ARR_WORDS holding that copy's bytes; 0 for a String */
} query_strings_row;

typedef struct query_strings {
    query_strings_row *rows; /* sorted by wasted bytes, then bytes, descending; then value */
    size_t n_rows;
    uint64_t total_count, total_bytes, total_wasted;
    uint64_t external;   /* ByteStrings whose bytes are outside the GHC heap (over a
                            PlainForeignPtr or FinalPtr: malloc'd or static memory):
                            their value cannot be read, they are not counted */
    uint64_t skipped;    /* Text/ByteString slices outside their array, ByteStrings
                            whose contents are not evaluated, and lists of C# not fully
                            evaluated (a thunk, or a BLACKHOLE under evaluation, on the
                            way), longer than QUERY_STRINGS_MAX_LIST, or beyond a budget
                            of characters (twice the cells) that Strings sharing long
                            tails would otherwise exceed */
    query_unreadable unreadable; /* closures left out: they could not be read */
    void *storage;       /* the rows' values */
} query_strings;

#define QUERY_STRINGS_MAX_LIST (UINT64_C(1) << 22) /* characters of one String */

typedef struct query_strings_spec {
    query_filters *filters;     /* NULL or empty: every copy counts; else only copies
                                   whose closure (Text, BS/PS, ARR_WORDS, first (:)
                                   cell) matches; the traversal still goes everywhere */
    bool prepared;              /* the caller already ran query_filters_prepare */
    query_progress_fn progress; /* optional: progress and cancel */
    void *progress_ctx;
} query_strings_spec;

/* Groups by value the strings and byte arrays reachable from the GC roots,
 * read through the indirections evaluated thunks leave (BLACKHOLE, IND,
 * IND_STATIC whose indirectee is the value; they are no part of a copy's
 * bytes). A copy's bytes are its own closures: a Text or ByteString counts its
 * constructor plus its array (and a ByteString its PlainPtr/MallocPtr)
 * when it is the first (breadth first) to hold that array, so an array
 * shared by slices is counted once; an array held by no Text or
 * ByteString is a copy of its own (kind QUERY_STRING_BYTES); a String
 * counts its (:) cells and heap C# boxes not already counted by an earlier
 * String (tails are shared). A String is counted once, at its first cell:
 * a cell that is the tail of another String's cell is part of that String,
 * not a String of its own. */
hs_status query_strings_run(heap *h, const query_strings_spec *spec, query_strings *out,
                            hs_error *err);
void query_strings_free(query_strings *s);
/* "ARR_WORDS", "Text", "ByteString", "String", comma-joined for several. */
void query_strings_kinds_text(unsigned kinds, char *buf, size_t cap);
/* A value as text: printable ASCII and valid UTF-8 above it as they are,
 * '\' as "\\", every other byte as \xNN (what a value filter takes).
 * Writes at most cap - 1 characters, never half an escape, and returns how
 * many value bytes that covered (n when all of it fitted). */
size_t query_strings_escape(const uint8_t *v, size_t n, char *buf, size_t cap);
/* The escaped text of a whole value, from malloc (NULL when out of memory). */
char *query_strings_escape_all(const uint8_t *v, size_t n);

/* A Haskell integer literal (retainers-and-eras.md §4.4): decimal or 0x hex,
 * spaces around it, a leading '-' allowed. False when malformed or out of
 * range. Used for sizes, limits and cost-centre ids typed by the user. */
bool query_parse_int(const char *text, int64_t *out);
/* "0x" followed by 1 to 16 hex digits, the whole text (an address filter
 * or a typed address). */
bool query_parse_hex_address(const char *text, uint64_t *out);

#endif
