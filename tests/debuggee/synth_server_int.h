/* Internals shared by the synth_server*.c files: response framing, memory
 * helpers, info-table access, closure sizes and bitmap derivation. */
#ifndef SYNTH_SERVER_INT_H
#define SYNTH_SERVER_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"
#include "synth_server.h"

/* Response status codes (wire-protocol.md §5.2). */
enum {
    SYNTH_OKAY = 0x0000,
    SYNTH_OKAY_CONTINUES = 0x0001,
    SYNTH_BAD_COMMAND = 0x0100,
    SYNTH_ALREADY_PAUSED = 0x0101,
    SYNTH_NOT_PAUSED = 0x0102,
    SYNTH_NO_RESUME = 0x0103,
    SYNTH_BAD_STACK = 0x0104,
};

/* Command ids (§6). */
enum {
    SYNTH_CMD_VERSION = 1,
    SYNTH_CMD_PAUSE = 2,
    SYNTH_CMD_RESUME = 3,
    SYNTH_CMD_ROOTS = 4,
    SYNTH_CMD_CLOSURES = 5,
    SYNTH_CMD_INFO_TABLES = 6,
    SYNTH_CMD_STACK_BITMAP = 7,
    SYNTH_CMD_POLL = 8,
    SYNTH_CMD_SAVED_OBJECTS = 9,
    SYNTH_CMD_CON_DESC = 11,
    SYNTH_CMD_SOURCE_INFO = 12,
    SYNTH_CMD_ALL_BLOCKS = 14,
    SYNTH_CMD_BLOCK = 15,
    SYNTH_CMD_FUN_BITMAP = 16,
    SYNTH_CMD_SRT = 17,
    SYNTH_CMD_CCS = 18,
    SYNTH_CMD_CC = 19,
    SYNTH_CMD_INDEX_TABLE = 20,
    SYNTH_CMD_CCS_MAIN = 21,
};

/* ---- response writer (synth_server_out.c) ----
 * Implements the stub's frame splitting (§5.4): write calls go through a
 * 1024-byte frame buffer B. Finished frames accumulate in a large output
 * buffer that is sent with one system call when full or when a response
 * finishes, so small frames cost no syscall each. B lives inside that
 * buffer, behind a reserved 6-byte header, so nothing is copied twice. */
#define SYNTH_FRAME_BUF 1024u

typedef struct synth_out {
    int fd;
    volatile sig_atomic_t *stop;
    uint8_t *buf;
    size_t len;      /* bytes in buf, including the open frame */
    size_t cap;
    size_t frame_at; /* offset of the open frame's header in buf */
    size_t blen;     /* bytes in B (the open frame's body) */
    bool open;       /* a response is in progress (B exists) */
    bool failed;     /* the socket failed: later writes are dropped */
    bool silent;     /* this response is dropped, not sent (--silent-on) */
    uint8_t hostile; /* synth_wire_kind of this response (--hostile): captured, then
                        sent by synth_hostile_deliver */
    bool stalled;    /* --hostile stall/huge struck: nothing more is served */
    int fail_errno;     /* why a send failed (failed is set) */
    bool fail_fragile;  /* the client went away mid-answer (a failed write or read) */
    const char *hold_dir; /* --hold: where the held answer's files are */
    uint8_t *held;   /* the captured response */
    size_t held_len, held_cap;
} synth_out;

int synth_out_init(synth_out *o, int fd, volatile sig_atomic_t *stop);
void synth_out_free(synth_out *o);
/* One write call of the stub. */
void synth_w(synth_out *o, const void *bytes, size_t len);
void synth_w_u8(synth_out *o, uint8_t v);
void synth_w_u16le(synth_out *o, uint16_t v);
void synth_w_u32be(synth_out *o, uint32_t v);
void synth_w_u64le(synth_out *o, uint64_t v); /* also PTR */
/* Sends B with the final status and pushes everything to the socket.
 * Returns false when the socket failed. */
bool synth_finish(synth_out *o, uint16_t status);
/* Sends a captured response the hostile way (synth_hostile_wire.c). */
void synth_hostile_deliver(synth_out *o);
/* One request's bytes to the socket, all of them; false when it failed. */
bool synth_out_send(synth_out *o, const uint8_t *bytes, size_t len);

/* ---- memory helpers (synth_server_sizes.c) ---- */

/* Little-endian loads from the fake memory; false when unmapped. */
bool synth_rd_u64(const synth_process *p, uint64_t addr, uint64_t *v);
bool synth_rd_u32(const synth_process *p, uint64_t addr, uint32_t *v);
/* A NUL-terminated string at addr (at most max bytes before the NUL). */
const char *synth_rd_cstr(const synth_process *p, uint64_t addr, size_t max, size_t *len);

/* Address arithmetic that refuses to wrap. */
bool synth_addr_add(uint64_t a, int64_t off, uint64_t *out);

static inline bool synth_profiled(const synth_process *p) { return p->prof_mode != 0; }
/* S: size of the standard info table (heap-layout.md §3). */
static inline uint64_t synth_itbl_size(const synth_process *p) {
    return synth_profiled(p) ? 32 : 16;
}
/* H: closure header size (heap-layout.md §4). */
static inline uint64_t synth_hdr_size(const synth_process *p) {
    return synth_profiled(p) ? 24 : 8;
}

/* The standard info table before info pointer P: the fields at P-16 .. P
 * are the same in both flavours. */
typedef struct synth_itbl {
    uint64_t info;   /* P */
    uint64_t layout; /* the whole layout word (ptrs | nptrs << 32, or a bitmap) */
    uint32_t ptrs, nptrs, type;
    int32_t srt;
} synth_itbl;

/* Reads the S bytes before P; false when any of them is unmapped. */
bool synth_read_itbl(const synth_process *p, uint64_t info, synth_itbl *it);

/* Closure size in bytes by the RTS rules of heap-layout.md §11.1; false when
 * the closure, its info table or a size field is unmapped or absurd. */
bool synth_closure_size(const synth_process *p, uint64_t addr, uint64_t *bytes);

/* ---- bitmaps (synth_server_bitmaps.c) ----
 * Results are wire entries: 1 = pointer, 0 = non-pointer. */
typedef struct synth_bits {
    uint8_t *e;
    size_t n;
} synth_bits;

void synth_bits_free(synth_bits *b);
/* STACK_BITMAP for the frame at c: SYNTH_OKAY, SYNTH_BAD_STACK (frame type
 * not described) or SYNTH_BAD_COMMAND (memory unmapped or absurd). */
uint16_t synth_stack_bitmap(const synth_process *p, uint64_t c, synth_bits *out);
/* FUN_BITMAP: n entries for the function closure fun (untagged). */
uint16_t synth_fun_bitmap(const synth_process *p, uint64_t fun, uint64_t n, synth_bits *out);

/* ---- commands (synth_server_cmds.c) ---- */

/* Answers one request (cmd + payload). A POLL may leave the answer owed. */
void synth_handle_request(const synth_process *p, synth_state *st, synth_out *o, uint32_t cmd,
                          const uint8_t *payload, size_t plen);

/* The fake program pauses itself: become paused and pay an owed POLL reply. */
void synth_self_pause(synth_state *st, synth_out *o);

#endif
