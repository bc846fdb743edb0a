/* A snapshot in miniature: a heap_source built only from what another heap
 * exports (heap_export.h, heap_version, heap_roots, heap_saved_objects),
 * answering by the contract's keys. Anything it was not given is answered
 * HEAP_UNAVAILABLE and counted as a miss, so a test can prove the export
 * holds everything a second look at the same pause needs. */
#ifndef HEAPSCOPE_TEST_REPLAY_SOURCE_H
#define HEAPSCOPE_TEST_REPLAY_SOURCE_H

#include <stdbool.h>

#include "heapscope/heap.h"

typedef struct replay replay;

/* Copies everything h read (loading all of its blocks first). lazy: the
 * replay hands out block groups without bytes and loads them when asked. */
replay *replay_from_heap(heap *h, bool lazy);
void replay_free(replay *r);
heap_source replay_source(replay *r);
/* Requests the replay could not answer from the export. */
unsigned replay_misses(const replay *r);
/* Block groups loaded on demand (lazy replays). */
unsigned replay_loads(const replay *r);

#endif
