/* A scripted fake debuggee for wire tests: the other end of a socketpair,
 * served by a thread that reads each request, records its bytes, and writes
 * the scripted reply (optionally in small pieces). */
#ifndef HEAPSCOPE_TEST_WIRE_PEER_H
#define HEAPSCOPE_TEST_WIRE_PEER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heapscope/wire.h"

#define PEER_MAX_STEPS 32

/* A growable byte string for building replies. */
typedef struct bytes {
    uint8_t *data;
    size_t len;
    size_t cap;
} bytes;

void bytes_put(bytes *b, const void *p, size_t n);
void bytes_hex(bytes *b, const char *hex); /* aborts on bad hex */
void bytes_be32(bytes *b, uint32_t v);
void bytes_le64(bytes *b, uint64_t v);
/* One frame: u32 BE length, u16 BE status, body. */
void bytes_frame(bytes *b, uint16_t status, const void *body, size_t n);
/* A whole answer carrying body: CONTINUES frames of at most piece bytes,
 * with an empty CONTINUES frame after each when `empties`, then an empty
 * OKAY frame. */
void bytes_answer_split(bytes *b, const void *body, size_t n, size_t piece, bool empties);
void bytes_free(bytes *b);

typedef struct peer_step {
    uint8_t *reply; /* NULL: read the request and send nothing */
    size_t len;
    size_t chunk; /* 0: one write; else writes of at most chunk bytes */
    int delay_ms; /* wait this long before replying */
} peer_step;

typedef struct wire_peer {
    int fd;
    pthread_t thread;
    bool started;
    peer_step steps[PEER_MAX_STEPS];
    size_t n_steps;
    bool close_after; /* close after the last step instead of waiting for EOF */
    bytes requests;   /* every request byte received, in order */
    size_t request_count;
    size_t request_end[PEER_MAX_STEPS * 4]; /* end offset of each request */
} wire_peer;

void peer_init(wire_peer *p);
/* Adds a step: read one request, then send a copy of reply (chunked). */
void peer_reply(wire_peer *p, const void *reply, size_t len, size_t chunk);
void peer_reply_hex(wire_peer *p, const char *hex);
void peer_no_reply(wire_peer *p);
/* Delays the reply of the step added last. */
void peer_delay_last(wire_peer *p, int ms);
/* Starts the thread and returns the client end as a wire_conn. */
wire_conn *peer_start(wire_peer *p, const wire_options *opts);
/* Waits for the thread (the client end must be closed unless close_after). */
void peer_join(wire_peer *p);
/* Request i as received (NULL if there is none). */
const uint8_t *peer_request(const wire_peer *p, size_t i, size_t *len);
void peer_free(wire_peer *p);

#endif
