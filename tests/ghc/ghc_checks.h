/* The checks of the ghc test suite: heapscope's client library against a
 * real GHC 9.0.2 program (Shapes.hs) served by our stub. Each check runs
 * against one freshly started program and records failures; the runner
 * (test_ghc_heap.c) turns them into the exit status meson reads. */
#ifndef HEAPSCOPE_TESTS_GHC_CHECKS_H
#define HEAPSCOPE_TESTS_GHC_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ghc_program.h"
#include "heapscope/heap.h"
#include "heapscope/wire.h"

/* Shapes.hs's saved objects, in order. */
enum {
    SAVED_COUNTER,
    SAVED_HOLDER,
    SAVED_BIG_LIST,
    SAVED_SHAPES,
    SAVED_WAITS,
    SAVED_INTERRUPTED,
    SAVED_STUCK,
    SAVED_COMPACT,
    SAVED_COUNT
};

#define LEAK_COUNT 1000
#define BIG_LIST_CELLS 1000000

typedef struct ghc_ctx {
    ghc_program prog;
    wire_conn *conn;
    int failures;
} ghc_ctx;

void ghc_check_at(ghc_ctx *x, bool ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define CHECK(x, ok, ...) ghc_check_at((x), (ok), __FILE__, __LINE__, __VA_ARGS__)
/* A failed library call: reports err and returns false. */
bool ghc_ok(ghc_ctx *x, hs_status st, const hs_error *err, const char *what);
void ghc_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Pauses (it must not be paused yet) and opens the heap; NULL on failure. */
heap *ghc_pause_and_open(ghc_ctx *x);
/* Frees h and resumes. */
void ghc_close_and_resume(ghc_ctx *x, heap *h);
/* The first closure reached from addr through indirections (IND,
 * IND_STATIC, BLACKHOLE not owned by a thread), decoded into c. */
bool ghc_follow_indirections(ghc_ctx *x, heap *h, uint64_t addr, heap_closure *c);
/* The constructor name of a decoded closure, or "" for other types. */
const char *ghc_con_name(const heap_closure *c);

/* The checks (ghc_check_*.c). */
void check_pause(ghc_ctx *x);
void check_roots(ghc_ctx *x);
void check_blocks(ghc_ctx *x);
void check_list(ghc_ctx *x);
void check_malformed(ghc_ctx *x);
void check_frames(ghc_ctx *x);
void check_profiled(ghc_ctx *x);

/* ---- raw protocol, for what the client library hides ----------------- */

typedef struct raw_response {
    uint16_t status;     /* of the last frame */
    uint8_t *body;       /* all frame bodies, concatenated */
    size_t len;
    uint32_t *frame_len; /* each frame's body length */
    uint16_t *frame_status;
    size_t n_frames;
} raw_response;

int raw_connect(const char *path);
bool raw_send_bytes(int fd, const void *bytes, size_t n);
/* LEN, command id, payload. */
bool raw_request(int fd, uint32_t cmd, const void *payload, size_t n);
/* Reads frames up to the last one (10 s timeout per read). */
bool raw_read_response(int fd, raw_response *r);
void raw_response_free(raw_response *r);
/* Sends a request and reads its whole answer. */
bool raw_call(int fd, uint32_t cmd, const void *payload, size_t n, raw_response *r);

#endif
