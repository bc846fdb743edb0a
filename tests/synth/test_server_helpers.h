/* Helpers for the server tests: fake processes built by hand, a server
 * thread on a socketpair, raw request/response bytes. Each test file
 * includes test_server_helpers.c directly (one source per test executable,
 * as tests/synth/meson.build builds them). */
#ifndef TEST_SERVER_HELPERS_H
#define TEST_SERVER_HELPERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"
#include "synth_server.h"

/* Address space of the hand-built processes. */
#define T_TEXT SYNTH_TEXT_BASE                  /* 0x400000, info tables and strings */
#define T_TEXT_SIZE (SYNTH_DATA_BASE - SYNTH_TEXT_BASE)
#define T_DATA SYNTH_DATA_BASE                  /* 0x4c0000, static closures, CCS */
#define T_DATA_SIZE UINT64_C(0x40000)
#define T_MB1 UINT64_C(0x4200100000)            /* heap megablocks */
#define T_MB2 UINT64_C(0x4200200000)

/* ---- byte buffers ---- */
typedef struct tbuf {
    uint8_t *b;
    size_t n, cap;
} tbuf;

void tb_free(tbuf *t);
void tb_bytes(tbuf *t, const void *p, size_t n);
void tb_u8(tbuf *t, uint8_t v);
void tb_be16(tbuf *t, uint16_t v);
void tb_be32(tbuf *t, uint32_t v);
void tb_le64(tbuf *t, uint64_t v);
/* Hex digits; spaces and '|' are ignored. */
void tb_hex(tbuf *t, const char *hex);

/* ---- a hand-built fake process ---- */
/* Regions: text, data, and two heap megablocks (zeroed), no groups, roots
 * or IPEs; GHC 9.10.1, prof mode 4 when profiled else 0. */
void tp_init(synth_process *p, bool profiled);
uint8_t *tp_at(synth_process *p, uint64_t addr, uint64_t len);
void tp_put64(synth_process *p, uint64_t addr, uint64_t v);
void tp_put32(synth_process *p, uint64_t addr, uint32_t v);
void tp_put16(synth_process *p, uint64_t addr, uint16_t v);
void tp_puts(synth_process *p, uint64_t addr, const char *s); /* with NUL */
/* The standard info table before info pointer P (ptrs/nptrs form). */
void tp_itbl(synth_process *p, uint64_t info, uint32_t ptrs, uint32_t nptrs, uint32_t type,
             int32_t srt);
/* Same with a whole layout word (bitmaps, large-bitmap offsets). */
void tp_itbl_layout(synth_process *p, uint64_t info, uint64_t layout, uint32_t type, int32_t srt);
/* The 24 function extras before a function's standard table. */
void tp_fun_extra(synth_process *p, uint64_t info, uint64_t bitmap, uint32_t fun_type,
                  uint32_t arity);
/* A constructor description at str_addr, its offset stored at P - S - 8. */
void tp_con_desc(synth_process *p, uint64_t info, uint64_t str_addr, const char *desc);
/* A StgLargeBitmap at addr from wire entries (1 = pointer). */
void tp_large_bitmap(synth_process *p, uint64_t addr, const uint8_t *entries, size_t n);
/* A block group: its descriptor, and its start added to group_starts. */
void tp_group(synth_process *p, uint64_t start, uint32_t blocks, uint16_t flags);
void tp_roots(synth_process *p, const uint64_t *roots, size_t n);
/* An IPE entry (strings must outlive the process: literals). */
void tp_ipe(synth_process *p, uint64_t info, const char *name, const char *type_no,
            const char *type, const char *label, const char *module, const char *pos);
void tp_free(synth_process *p);

/* ---- a server thread on one end of a socketpair ---- */
typedef struct tconn {
    int fd; /* the client end */
    int srv;
    pthread_t th;
    const synth_process *p;
    synth_state *st;
    synth_serve_result res;
    uint32_t silent_on; /* the server's --silent-on mask (tc_start_silent) */
} tconn;

void tc_start(tconn *c, const synth_process *p, synth_state *st);
/* The same, with commands that are carried out but never answered. */
void tc_start_silent(tconn *c, const synth_process *p, synth_state *st, uint32_t silent_on);
/* Closes the client end and waits for the server to finish. */
synth_serve_result tc_stop(tconn *c);
void tc_send(tconn *c, const void *bytes, size_t n);
void tc_send_hex(tconn *c, const char *hex);
/* Sends u32 LEN, u32 cmd, payload. */
void tc_request(tconn *c, uint32_t cmd, const tbuf *payload);

/* One response: its raw bytes (all frames), frame count and sizes. */
typedef struct tresp {
    tbuf raw;
    tbuf body; /* the reassembled body (§5.3) */
    uint16_t status;
    size_t frames;
    size_t frame_len[4096];
    uint16_t frame_status[4096];
} tresp;

/* Reads one whole response (frames up to the final one); fails the test
 * after a few seconds without bytes. */
void tc_read_response(tconn *c, tresp *r);
void tresp_free(tresp *r);
/* Reads one response and asserts its raw bytes equal hex. */
void tc_expect_hex(tconn *c, const char *hex);
/* Asserts that no byte arrives within ms milliseconds. */
void tc_expect_silence(tconn *c, int ms);
/* Asserts the server closed the connection (EOF) within a few seconds. */
void tc_expect_eof(tconn *c);

/* ---- the process of wire-protocol.md §12 ---- */
#define V_CLOSURE UINT64_C(0x4200105a38)
#define V_BLOCK UINT64_C(0x4200105000)
#define V_INFO UINT64_C(0x4f8e28)
/* CONSTR_2_0 closure at V_CLOSURE in the block at V_BLOCK, its info table,
 * the constructor description "main:Main.Leak", the IPE entry of §12.2,
 * roots 0x4200105a38 and 0x4200107f10 (a second closure in the block). */
void tp_vectors(synth_process *p, bool profiled);

#endif
