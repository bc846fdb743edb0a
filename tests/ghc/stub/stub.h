/* Interfaces between the files of the stub: a small server of the ghc-debug
 * wire protocol (shared/spec/wire-protocol.md) running inside a GHC 9.0.2
 * program, on its own OS thread. Only that thread calls these functions. */
#ifndef HEAPSCOPE_STUB_H
#define HEAPSCOPE_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Response status codes (§5.2). */
enum stub_status {
    ST_OKAY = 0x0000,
    ST_CONTINUES = 0x0001,
    ST_BAD_COMMAND = 0x0100,
    ST_ALREADY_PAUSED = 0x0101,
    ST_NOT_PAUSED = 0x0102,
    ST_NO_RESUME = 0x0103,
    ST_BAD_STACK = 0x0104
};

/* ---- frames.c: a response, written through a 1024-byte buffer (§5.4) -- */

#define OUT_BUFFER 1024

typedef struct out {
    int fd;
    bool broken; /* a write failed: the connection is gone */
    size_t len;
    uint8_t buf[OUT_BUFFER];
} out;

void out_init(out *o, int fd);
/* One "write call" of §5.4. */
void out_write(out *o, const void *bytes, size_t n);
void out_u8(out *o, uint8_t v);
void out_u16le(out *o, uint16_t v);
void out_u32be(out *o, uint32_t v);
void out_ptr(out *o, uintptr_t v); /* 8 bytes little-endian */
/* Sends what is buffered as the last frame, with this status. */
void out_finish(out *o, uint16_t status);

/* ---- request.c: reading requests (§4) -------------------------------- */

typedef struct req {
    uint32_t cmd;
    bool malformed; /* LEN < 4: no command id */
    const uint8_t *payload;
    size_t len, pos;
} req;

typedef struct req_reader {
    uint8_t *buf;
    size_t cap;
} req_reader;

/* 1: a request was read; 0: the peer closed; -1: read error. */
int req_read(int fd, req_reader *rd, req *r);
void req_reader_free(req_reader *rd);
/* Payload cursor: each returns false when the payload is too short. */
bool req_u8(req *r, uint8_t *v);
bool req_u16be(req *r, uint16_t *v);
bool req_u32be(req *r, uint32_t *v);
bool req_ptr(req *r, uintptr_t *v);

/* ---- memmap.c: which addresses can be read without a fault ---------- */

/* Re-reads /proc/self/maps (at every pause). */
bool memmap_refresh(void);
bool mem_readable(uintptr_t addr, size_t len);
/* Bytes readable from addr to the end of its mapping; 0 when none. */
size_t mem_readable_span(uintptr_t addr);

/* ---- blocks.c: every block group the RTS holds closures in ----------- */

typedef struct group {
    uintptr_t start;
    uint32_t blocks; /* 4 KiB blocks in the group */
    uint16_t flags;  /* block descriptor flags */
} group;

typedef struct group_list {
    group *items; /* sorted by start, no duplicates */
    size_t count, cap;
    size_t rejected; /* descriptors that failed the sanity checks */
} group_list;

/* Walks the RTS's block lists (paused only). */
bool blocks_collect(group_list *out);
void group_list_free(group_list *l);
const group *blocks_find(const group_list *l, uintptr_t addr);

/* ---- layout.c: RTS struct layouts the headers do not give ----------- */

/* Offset of gens[] inside gc_thread, found by looking for the workspace of
 * generation 0; -1 when it cannot be found (paused only). */
long layout_gc_gens_offset(void);

/* ---- pause.c ---------------------------------------------------------- */

bool stub_paused(void);
void stub_pause(void);
void stub_resume(void);
/* The block groups of this pause (collected on first use). */
const group_list *stub_groups(void);

/* ---- heap.c: checked reads of closures and info tables --------------- */

/* The info table of info pointer p when its standard part (and `extra`
 * bytes before it) can be read, else NULL. */
const void *heap_info_at(uintptr_t p, size_t extra);
/* Size in bytes of the closure at p (untagged) when p looks like a closure
 * that can be read whole, else 0. */
size_t heap_closure_bytes(uintptr_t p);

/* ---- commands (cmd_*.c) ---------------------------------------------- */

/* A command handler: writes its answer to o and returns the final status.
 * On an error status it has written nothing. */
typedef uint16_t (*stub_handler)(req *r, out *o);

uint16_t cmd_version(req *r, out *o);
uint16_t cmd_pause(req *r, out *o);
uint16_t cmd_resume(req *r, out *o);
uint16_t cmd_roots(req *r, out *o);
uint16_t cmd_saved_objects(req *r, out *o);
uint16_t cmd_closures(req *r, out *o);
uint16_t cmd_info_tables(req *r, out *o);
uint16_t cmd_con_desc(req *r, out *o);
uint16_t cmd_source_info(req *r, out *o);
uint16_t cmd_srt(req *r, out *o);
uint16_t cmd_stack_bitmap(req *r, out *o);
uint16_t cmd_fun_bitmap(req *r, out *o);
uint16_t cmd_all_blocks(req *r, out *o);
uint16_t cmd_block(req *r, out *o);
uint16_t cmd_ccs(req *r, out *o);
uint16_t cmd_cc(req *r, out *o);
uint16_t cmd_index_table(req *r, out *o);
uint16_t cmd_ccs_main(req *r, out *o);

/* ---- the C functions the Haskell program calls (HeapscopeStub.hs) --- */

/* start.c: opens the socket and starts the server thread; 0 on success. */
int heapscope_stub_start(void);
/* start.c: removes the socket file (when main ends). */
void heapscope_stub_stop(void);
/* cmd_roots.c: replaces the saved objects (at most 20 stable pointers). */
void heapscope_stub_save(void **objects, long n);

/* dispatch.c: runs one request and sends its answer. */
void stub_dispatch(req *r, out *o);

/* log.c: diagnostics on stderr, prefixed "heapscope-stub: ". */
void stub_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
