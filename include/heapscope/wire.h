/* The ghc-debug wire protocol, client side (spec: wire-protocol.md).
 *
 * Three layers, each usable on its own:
 *   - encoders: request bytes for every command (pure, no I/O);
 *   - decoders: typed values from a reassembled response body (pure);
 *   - a connection: sends a request, reassembles the frames of its answer,
 *     and turns stub error statuses into hs_status values.
 * The typed calls (wire_version, wire_roots, ...) join the three.
 *
 * Every length read from the peer is checked against what is left and
 * against a cap before anything is allocated; buffers grow only as bytes
 * actually arrive. */
#ifndef HEAPSCOPE_WIRE_H
#define HEAPSCOPE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include "heapscope/status.h"

/* Command ids (wire-protocol.md §6). */
enum wire_command {
    WIRE_CMD_VERSION = 1,
    WIRE_CMD_PAUSE = 2,
    WIRE_CMD_RESUME = 3,
    WIRE_CMD_ROOTS = 4,
    WIRE_CMD_CLOSURES = 5,
    WIRE_CMD_INFO_TABLES = 6,
    WIRE_CMD_STACK_BITMAP = 7,
    WIRE_CMD_POLL = 8,
    WIRE_CMD_SAVED_OBJECTS = 9,
    WIRE_CMD_CON_DESC = 11,
    WIRE_CMD_SOURCE_INFO = 12,
    WIRE_CMD_ALL_BLOCKS = 14,
    WIRE_CMD_BLOCK = 15,
    WIRE_CMD_FUN_BITMAP = 16,
    WIRE_CMD_SRT = 17,
    WIRE_CMD_CCS = 18,
    WIRE_CMD_CC = 19,
    WIRE_CMD_INDEX_TABLE = 20,
    WIRE_CMD_CCS_MAIN = 21
};

/* Response status codes (wire-protocol.md §5.2). */
enum wire_status_code {
    WIRE_STATUS_OKAY = 0x0000,
    WIRE_STATUS_OKAY_CONTINUES = 0x0001,
    WIRE_STATUS_BAD_COMMAND = 0x0100,
    WIRE_STATUS_ALREADY_PAUSED = 0x0101,
    WIRE_STATUS_NOT_PAUSED = 0x0102,
    WIRE_STATUS_NO_RESUME = 0x0103,
    WIRE_STATUS_BAD_STACK = 0x0104
};

/* Profiling mode byte of the VERSION reply (wire-protocol.md §7.1). */
enum wire_prof_mode {
    WIRE_PROF_NONE = 0,     /* non-profiled RTS: no profiling header */
    WIRE_PROF_PLAIN = 1,    /* profiled, no heap profiling */
    WIRE_PROF_RETAINER = 2, /* -hr */
    WIRE_PROF_LDV = 3,      /* -hb */
    WIRE_PROF_ERA = 4,      /* -he: header word is the era */
    WIRE_PROF_OTHER = 5     /* some other heap-profiling mode */
};

#define WIRE_MAX_PTRS_PER_REQUEST 65535u /* u16 count in CLOSURES etc. */
#define WIRE_UNIX_PATH_MAX 107u          /* sun_path is 108 bytes with NUL */
#define WIRE_PTR_TAG_MASK UINT64_C(7)

static inline uint64_t wire_untag(uint64_t p) { return p & ~WIRE_PTR_TAG_MASK; }

/* ---- values ---------------------------------------------------------- */

typedef struct wire_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} wire_buf;

typedef struct wire_ptr_list {
    uint64_t *items;
    size_t count;
    size_t cap;
} wire_ptr_list;

typedef struct wire_slice {
    const uint8_t *data;
    size_t len;
} wire_slice;

/* Answers of CLOSURES and INFO_TABLES: one slice per requested pointer,
 * each pointing into `body`. */
typedef struct wire_blobs {
    wire_buf body;
    wire_slice *items;
    size_t count;
    size_t cap;
} wire_blobs;

/* STACK_BITMAP / FUN_BITMAP answers: bits[i] is 1 when word i is a pointer. */
typedef struct wire_bitmap {
    uint8_t *bits;
    size_t count;
    size_t cap;
} wire_bitmap;

typedef struct wire_version {
    uint32_t major;    /* __GLASGOW_HASKELL__, e.g. 910 */
    uint32_t patch;    /* first patch-level component */
    uint8_t prof_mode; /* enum wire_prof_mode */
    bool tntc;         /* tables next to code */
} wire_version;

/* Constructor description, raw and parsed per wire-protocol.md §7.10. */
typedef struct wire_con_desc {
    char *raw;
    char *package;
    char *module;
    char *name;
} wire_con_desc;

/* SOURCE_INFO answer (wire-protocol.md §7.11). Strings are NULL when
 * found is false. */
typedef struct wire_source_info {
    bool found;
    char *name;              /* info-table symbol, e.g. sat_s1Ab_info */
    char *closure_type_text; /* string 2 as sent */
    uint32_t closure_type;   /* parsed; "0" maps to CONSTR (1); 0 if invalid */
    char *type;              /* Haskell type, e.g. [Int] */
    char *label;
    char *module;
    char *position;          /* <file>:<span>, e.g. app/Main.hs:12:5-20 */
} wire_source_info;

typedef struct wire_raw_block {
    uint16_t flags;
    uint64_t start;
    uint32_t len;
    const uint8_t *data; /* len bytes, inside the owning list's body */
} wire_raw_block;

typedef struct wire_block_list {
    wire_buf body;
    wire_raw_block *items;
    size_t count;
    size_t cap;
} wire_block_list;

typedef struct wire_ccs {
    int64_t id;
    uint64_t cc;
    uint64_t prev;        /* 0 = none */
    uint64_t index_table; /* 0 = none */
    uint64_t root;        /* 0 = none */
    uint64_t depth;
    uint64_t scc_count;
    uint64_t selected;
    uint64_t time_ticks;
    uint64_t mem_alloc;
    uint64_t inherited_alloc;
    uint64_t inherited_ticks;
} wire_ccs;

/* mem_alloc and time_ticks are read little-endian (their true values), not
 * byte-swapped as the 0.6 reference client shows them (§7.17). */
typedef struct wire_cc {
    int64_t id;
    char *label;
    char *module;
    char *srcloc;
    uint64_t mem_alloc;
    uint64_t time_ticks;
    bool is_caf;
    uint64_t link; /* 0 = none */
} wire_cc;

typedef struct wire_index_entry {
    uint64_t cc;
    uint64_t ccs;
    uint64_t next; /* 0 = end of list */
    bool back_edge;
} wire_index_entry;

void wire_buf_free(wire_buf *b);
void wire_ptr_list_free(wire_ptr_list *l);
void wire_blobs_free(wire_blobs *b);
void wire_bitmap_free(wire_bitmap *b);
void wire_con_desc_free(wire_con_desc *d);
void wire_source_info_free(wire_source_info *s);
void wire_block_list_free(wire_block_list *l);
void wire_cc_free(wire_cc *cc);

/* ---- encoders: whole request bytes (u32 LEN, u32 CMD, payload) -------- */

/* Appends the request to out (out->len grows). */
hs_status wire_encode_request(wire_buf *out, uint32_t cmd, const uint8_t *payload,
                              size_t payload_len, hs_error *err);
/* Commands without payload: VERSION, RESUME, ROOTS, POLL, SAVED_OBJECTS,
 * ALL_BLOCKS, CCS_MAIN. */
hs_status wire_encode_simple(wire_buf *out, uint32_t cmd, hs_error *err);
hs_status wire_encode_pause(wire_buf *out, bool fork, hs_error *err);
/* CLOSURES, INFO_TABLES, SRT: u16 count then PTRs (closure pointers are
 * untagged first). 1 <= n <= WIRE_MAX_PTRS_PER_REQUEST. */
hs_status wire_encode_ptr_list(wire_buf *out, uint32_t cmd, const uint64_t *ptrs, size_t n,
                               hs_error *err);
/* CON_DESC, SOURCE_INFO, BLOCK, CCS, CC, INDEX_TABLE: one PTR. */
hs_status wire_encode_one_ptr(wire_buf *out, uint32_t cmd, uint64_t ptr, hs_error *err);
hs_status wire_encode_stack_bitmap(wire_buf *out, uint64_t sp, uint32_t offset, hs_error *err);
hs_status wire_encode_fun_bitmap(wire_buf *out, uint64_t fun, uint16_t n, hs_error *err);

/* ---- decoders: typed values from a reassembled body ------------------ */

hs_status wire_decode_version(const uint8_t *body, size_t len, wire_version *out, hs_error *err);
/* ROOTS, SAVED_OBJECTS: PTRs until the body ends; each untagged. */
hs_status wire_decode_ptrs(const uint8_t *body, size_t len, wire_ptr_list *out, hs_error *err);
/* CLOSURES, INFO_TABLES: exactly `expected` (u32 len, bytes) records.
 * Takes ownership of *body (moved into out->body; *body is left empty). */
hs_status wire_decode_blobs(wire_buf *body, size_t expected, wire_blobs *out, hs_error *err);
/* SRT: exactly n PTRs, each untagged; 0 = none. */
hs_status wire_decode_srts(const uint8_t *body, size_t len, size_t n, uint64_t *out,
                           hs_error *err);
/* STACK_BITMAP, FUN_BITMAP: u32 n then n bytes, each 0 or 1. */
hs_status wire_decode_bitmap(const uint8_t *body, size_t len, wire_bitmap *out, hs_error *err);
hs_status wire_decode_con_desc(const uint8_t *body, size_t len, wire_con_desc *out,
                               hs_error *err);
/* Splits a constructor description into package / module / name (§7.10). */
hs_status wire_parse_con_desc(const char *raw, size_t len, wire_con_desc *out, hs_error *err);
hs_status wire_decode_source_info(const uint8_t *body, size_t len, wire_source_info *out,
                                  hs_error *err);
/* ALL_BLOCKS, BLOCK: RawBlocks until the body ends. Takes ownership of
 * *body like wire_decode_blobs. */
hs_status wire_decode_blocks(wire_buf *body, wire_block_list *out, hs_error *err);
hs_status wire_decode_ccs(const uint8_t *body, size_t len, wire_ccs *out, hs_error *err);
hs_status wire_decode_cc(const uint8_t *body, size_t len, wire_cc *out, hs_error *err);
hs_status wire_decode_index_entry(const uint8_t *body, size_t len, wire_index_entry *out,
                                  hs_error *err);
hs_status wire_decode_one_ptr(const uint8_t *body, size_t len, uint64_t *out, hs_error *err);

/* The hs_status for a stub status code; HS_ERR_PROTOCOL for unknown codes. */
hs_status wire_status_to_hs(uint16_t code);
const char *wire_command_name(uint32_t cmd);

/* ---- connection ------------------------------------------------------ */

typedef struct wire_conn wire_conn;

/* Called as response bytes arrive on long answers; return false to cancel:
 * the call reads the rest of the answer, discarding it (the debuggee's stub
 * must not be left writing to a closed connection), then fails with
 * HS_ERR_CANCELLED; the connection stays open and in step. */
typedef bool (*wire_progress_fn)(void *ctx, uint32_t cmd, uint64_t bytes_so_far);

/* How often a waiting call (or connect) calls its wait function. */
#define WIRE_WAIT_SLICE_MS 100

/* Called when a call starts waiting on the peer, then every
 * WIRE_WAIT_SLICE_MS while it waits (silence, or a long answer arriving),
 * and likewise while a connect waits; cmd is 0 for a connect. A UI moves its spinner and reads its keys here, a command
 * notices a signal. Return false to cancel, as for progress: the answer in
 * flight is read to its end (only an idle timeout cuts that short, and
 * then the connection is closed), and the call fails with
 * HS_ERR_CANCELLED on a connection that stays usable. */
typedef bool (*wire_wait_fn)(void *ctx, uint32_t cmd, int waited_ms);

/* A cancelled call (or an answer over its cap) is finishing the answer in
 * flight: called every WIRE_WAIT_SLICE_MS once that took WIRE_DRAIN_NOTE_MS,
 * with the bytes of the answer so far, what its current frame still
 * announces, and how long the drain has lasted. It cannot cancel. */
typedef void (*wire_drain_fn)(void *ctx, uint32_t cmd, uint64_t bytes_so_far,
                              uint64_t frame_left, int draining_ms);
#define WIRE_DRAIN_NOTE_MS 1000

typedef struct wire_options {
    int connect_timeout_ms;    /* default 5000 */
    int io_timeout_ms;         /* longest silence while waiting; default 30000 */
    uint64_t max_response;     /* cap on any one answer: wire_default_max_response() */
    /* The option that sets max_response (e.g. "--max-answer"): an answer over
     * the cap fails with a message naming its size, the cap and this. */
    const char *max_response_option;
    wire_progress_fn progress; /* optional */
    void *progress_ctx;
    wire_wait_fn wait;         /* optional: ticks and cancel while waiting */
    void *wait_ctx;
    wire_drain_fn drain;       /* optional: a cancelled answer is being finished */
    void *drain_ctx;
} wire_options;

void wire_options_default(wire_options *o);
/* The default cap on one answer: a quarter of the machine's physical
 * memory, at least 256 MiB and at most 16 GiB. */
uint64_t wire_default_max_response(void);
/* The defaults, with an idle timeout of timeout_ms (when > 0) and a connect
 * timeout no longer than that. */
void wire_options_with_timeout(wire_options *o, int timeout_ms);

/* A TARGET, parsed: a Unix socket path or a TCP host and port. */
typedef enum wire_target_kind { WIRE_TARGET_UNIX, WIRE_TARGET_TCP } wire_target_kind;

typedef struct wire_target {
    wire_target_kind kind;
    char path[WIRE_UNIX_PATH_MAX + 1]; /* UNIX: the socket path */
    char host[256];                    /* TCP: name or address (IPv6 without brackets) */
    char port[6];                      /* TCP: decimal, 1-65535 */
} wire_target;

/* Parses "PATH", "unix:PATH", "tcp:HOST:PORT" or "tcp:[V6ADDR]:PORT". A
 * malformed target (empty, a path too long for a Unix socket, no port, a
 * port out of range, ...) fails with HS_ERR_USAGE and a message saying
 * what is wrong; wire_connect parses through it. */
hs_status wire_target_parse(const char *text, wire_target *out, hs_error *err);

/* target: as wire_target_parse reads it. opts may be NULL for the defaults.
 * A Unix target is connected, then waited on (at most 2 s, or the connect
 * timeout) until the stub accepts the connection; one still queued (the
 * stub serves another client) is closed with nothing written, and the call
 * fails with HS_ERR_CONNECT, "the debuggee at PATH is busy: another
 * debugger is connected to it (process PID, NAME) ...". */
hs_status wire_connect(const char *target, const wire_options *opts, wire_conn **out,
                       hs_error *err);
/* Wraps an already connected socket (tests use socketpair). Takes the fd. */
hs_status wire_conn_from_fd(int fd, const char *name, const wire_options *opts,
                            wire_conn **out, hs_error *err);
void wire_close(wire_conn *c);
const char *wire_conn_target(const wire_conn *c);
bool wire_conn_is_open(const wire_conn *c); /* false after a fatal I/O error */
void wire_conn_set_io_timeout(wire_conn *c, int ms);
/* Connects again to the target the connection was opened with (after a
 * timeout or a broken answer closed it), keeping its options; the
 * debuggee's pause state survives disconnects. Only for connections of
 * wire_connect. An open connection is closed only at a request boundary
 * (a cancelled call read its answer to the end). */
hs_status wire_reconnect(wire_conn *c, hs_error *err);
/* Replaces the wait function (NULL: waits cannot be cancelled), e.g. so
 * that a clean-up request after a cancel is not cancelled in turn. */
void wire_conn_set_wait(wire_conn *c, wire_wait_fn fn, void *ctx);

typedef struct wire_stats {
    uint64_t requests;
    uint64_t bytes_sent;
    uint64_t bytes_received;
    uint64_t frames_received;
    uint64_t drained;  /* calls that finished an answer they no longer wanted */
    uint64_t drain_ms; /* time spent on that */
} wire_stats;
wire_stats wire_conn_stats(const wire_conn *c);
/* The process id of the program at the other end of a Unix-socket
 * connection (SO_PEERCRED), or 0 when there is none to trust: a TCP
 * connection, a closed one, a peer outside this pid namespace. */
pid_t wire_conn_peer_pid(const wire_conn *c);

/* Sends one request and reassembles its answer into body (reset first,
 * reused across calls). Fails with HS_ERR_TOO_LARGE when a frame length or
 * the whole answer exceeds max_body (and the connection's max_response).
 * A stub error status returns its HS_ERR_* with a message naming the
 * command. On I/O or protocol errors the connection is closed. */
hs_status wire_call(wire_conn *c, uint32_t cmd, const uint8_t *payload, size_t payload_len,
                    uint64_t max_body, wire_buf *body, hs_error *err);

/* ---- typed requests -------------------------------------------------- */

/* wire_get_* where the plain name is the type of the answer. */
hs_status wire_get_version(wire_conn *c, wire_version *out, hs_error *err);
/* How long the first request of a session waits (at most the I/O timeout). */
#define WIRE_HELLO_TIMEOUT_MS 2000
/* VERSION as the first request of a session. A Unix connection reaches
 * here only once the stub accepted it (wire_connect waits for that, and
 * says a debuggee that does not accept is busy, without writing
 * anything): then the usual wait. Where acceptance cannot be seen (tcp:,
 * no sock_diag) a short wait: a stub busy with another client answers
 * nothing, and silence here says so. */
hs_status wire_hello(wire_conn *c, wire_version *out, hs_error *err);
/* ALREADY_PAUSED is not a failure: *was_paused (may be NULL) says so. */
hs_status wire_pause(wire_conn *c, bool *was_paused, hs_error *err);
hs_status wire_fork_pause(wire_conn *c, hs_error *err);
hs_status wire_resume(wire_conn *c, hs_error *err);
/* RESUME for leaving: on c if it is open, else on a new connection
 * (wire_reconnect: a request cut short left the old stream unusable). A
 * debuggee that is not paused counts as resumed (our PAUSE may never have
 * reached it). */
hs_status wire_resume_anyway(wire_conn *c, hs_error *err);
/* Whether the debuggee is paused (by anyone), without changing anything:
 * an empty SRT request, which the stub answers NOT_PAUSED when running. */
hs_status wire_query_paused(wire_conn *c, bool *paused, hs_error *err);
/* Waits (up to timeout_ms, -1 = forever) for the program to pause itself.
 * Like every call, a cancelled POLL still awaits its answer (the stub
 * would write it to a closed connection): only timeout_ms ends that. */
hs_status wire_poll(wire_conn *c, int timeout_ms, hs_error *err);
hs_status wire_roots(wire_conn *c, wire_ptr_list *out, hs_error *err);
hs_status wire_saved_objects(wire_conn *c, wire_ptr_list *out, hs_error *err);
hs_status wire_closures(wire_conn *c, const uint64_t *ptrs, size_t n, wire_blobs *out,
                        hs_error *err);
hs_status wire_info_tables(wire_conn *c, const uint64_t *infos, size_t n, wire_blobs *out,
                           hs_error *err);
/* out has n entries: the SRT closure of each info pointer, 0 = none. */
hs_status wire_srts(wire_conn *c, const uint64_t *infos, size_t n, uint64_t *out,
                    hs_error *err);
hs_status wire_stack_bitmap(wire_conn *c, uint64_t sp, uint32_t offset, wire_bitmap *out,
                            hs_error *err);
hs_status wire_fun_bitmap(wire_conn *c, uint64_t fun, uint16_t n, wire_bitmap *out,
                          hs_error *err);
hs_status wire_get_con_desc(wire_conn *c, uint64_t info, wire_con_desc *out, hs_error *err);
hs_status wire_get_source_info(wire_conn *c, uint64_t info, wire_source_info *out,
                               hs_error *err);
hs_status wire_all_blocks(wire_conn *c, wire_block_list *out, hs_error *err);
hs_status wire_block(wire_conn *c, uint64_t addr, wire_block_list *out, hs_error *err);
hs_status wire_get_ccs(wire_conn *c, uint64_t ccs, wire_ccs *out, hs_error *err);
hs_status wire_get_cc(wire_conn *c, uint64_t cc, wire_cc *out, hs_error *err);
hs_status wire_index_table(wire_conn *c, uint64_t table, wire_index_entry *out, hs_error *err);
hs_status wire_ccs_main(wire_conn *c, uint64_t *out, hs_error *err);

#endif
