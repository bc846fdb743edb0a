/* A thread as people tell threads apart: its id and the label
 * labelThread gave it (an ARR_WORDS the TSO points to since GHC 9.6,
 * heap-layout.md §7), e.g. `TSO 7 "tier-worker-2": BlockedOnMVar`. */
#include <inttypes.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "label_internal.h"

hs_status heap_thread_label(heap *h, const heap_closure *tso, uint8_t *buf, size_t cap,
                            size_t *len, uint64_t *total, hs_error *err) {
    *len = 0;
    *total = 0;
    uint64_t at = 0;
    for (size_t i = 0; i < tso->n_edges && !at; i++)
        if (tso->edges[i].kind == HEAP_EDGE_THREAD_LABEL)
            at = tso->edges[i].addr;
    if (!h || !at || tso->type != HS_TSO)
        return HS_OK;
    /* a pointer read from a TSO of this pause: a closure of this pause */
    heap_closure arr = {0};
    hs_status st = heap_decode(h, at, &arr, err);
    if (st == HS_OK && arr.type != HS_ARR_WORDS)
        st = hs_fail(err, HS_ERR_PROTOCOL, "the label of thread %" PRIu64 " at 0x%" PRIx64
                     " is a %s, not a byte array", tso->thread_id, at,
                     hs_closure_type_name(arr.type));
    if (st == HS_OK) {
        *total = arr.count;
        *len = arr.count < cap ? (size_t)arr.count : cap;
        if (*len > 0)
            memcpy(buf, arr.bytes, *len);
    }
    heap_closure_free(&arr);
    return st;
}

void heap_lbuf_tso(heap_lbuf *b, heap *h, const heap_closure *c) {
    heap_lbuf_printf(b, "TSO %" PRIu64, c->thread_id);
    uint8_t label[HEAP_THREAD_LABEL_MAX + 3]; /* room to see where a cut character ends */
    size_t n;
    uint64_t total;
    hs_error why;
    if (heap_thread_label(h, c, label, sizeof label, &n, &total, &why) != HS_OK) {
        heap_lbuf_puts(b, " (label unreadable)");
    } else if (total > 0) {
        if (n > HEAP_THREAD_LABEL_MAX) { /* cut before a character, not inside one */
            n = HEAP_THREAD_LABEL_MAX;
            while (n > 0 && (label[n] & 0xC0) == 0x80)
                n--;
        }
        heap_lbuf_puts(b, " ");
        heap_lbuf_utf8_literal(b, label, n);
        if (total > n)
            heap_lbuf_puts(b, "...");
    }
    heap_lbuf_puts(b, ": ");
    heap_lbuf_why_blocked(b, c->why_blocked);
}
