/* Small helpers of the generator: failure exit, memory, PRNG, buffers and
 * little-endian stores. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"

_Noreturn void sg_fail(sg_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (c->err && c->errlen)
        vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    longjmp(c->fail, 1);
}

void *sg_alloc_mem(sg_ctx *c, size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p)
        sg_fail(c, "out of memory (%zu bytes)", n);
    return p;
}

void *sg_realloc_mem(sg_ctx *c, void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q)
        sg_fail(c, "out of memory (%zu bytes)", n);
    return q;
}

/* splitmix64: tiny, fast, and good enough for shapes and garbage bytes. */
uint64_t sg_mix64(uint64_t x) {
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

uint64_t sg_rand(sg_ctx *c) {
    c->rng += UINT64_C(0x9e3779b97f4a7c15);
    return sg_mix64(c->rng);
}

uint64_t sg_below(sg_ctx *c, uint64_t n) {
    return n ? sg_rand(c) % n : 0;
}

bool sg_chance(sg_ctx *c, unsigned percent) {
    return sg_below(c, 100) < percent;
}

static void buf_grow(sg_ctx *c, sg_buf *b, size_t extra) {
    if (b->len + extra <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra)
        cap *= 2;
    b->b = sg_realloc_mem(c, b->b, cap);
    b->cap = cap;
}

size_t sg_buf_put(sg_ctx *c, sg_buf *b, const void *src, size_t n) {
    if (!n)
        return b->len;
    buf_grow(c, b, n);
    size_t off = b->len;
    memcpy(b->b + off, src, n);
    b->len += n;
    return off;
}

size_t sg_buf_zero(sg_ctx *c, sg_buf *b, size_t n) {
    if (!n)
        return b->len;
    buf_grow(c, b, n);
    size_t off = b->len;
    memset(b->b + off, 0, n);
    b->len += n;
    return off;
}

void sg_buf_align(sg_ctx *c, sg_buf *b, size_t a, uint8_t fill) {
    size_t pad = (a - b->len % a) % a;
    if (!pad)
        return;
    buf_grow(c, b, pad);
    memset(b->b + b->len, fill, pad);
    b->len += pad;
}

size_t sg_ipe_str(sg_ctx *c, const char *s) {
    return sg_buf_put(c, &c->ipe_text, s, strlen(s) + 1);
}
