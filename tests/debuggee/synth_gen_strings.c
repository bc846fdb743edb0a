/* --strings: duplicated strings and byte arrays with known values, for the
 * strings analysis and dump. Every value starts with "planted" (nothing
 * else in the heap does), and each copy is a root of the bulk of the heap
 * (sg_bulk_root), so the copies are reachable and never share closures
 * except where a row says so. The plan's "strings" section gives, per
 * value, its kinds, count, bytes and wasted bytes by the rules of the
 * analysis (a Text or ByteString counts its constructor, its PlainPtr and
 * its array when it is the first to hold them; a byte array that none
 * holds counts itself; a String its cells and heap C# boxes), worked out
 * here from the sizes of what was built, and how many closures a value
 * filter matches (each Text and ByteString, an array held by neither and
 * holding exactly the value, each String's first cell: an array under a
 * Text or ByteString is part of that value, which a search meets first). Plus a large byte array (its own
 * block group), twice, whose bytes are (i * 7 + 3) mod 256, for dump. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "synth_gen_internal.h"

#define LARGE_LEN 100000u

static uint64_t arr_bytes(sg_ctx *c, size_t n) {
    return c->H + 8 + (n + 7) / 8 * 8;
}

static sg_planted *row(sg_ctx *c, const char *value, const char *kinds) {
    if (c->n_planted == SG_MAX_PLANTED)
        sg_fail(c, "internal: too many planted strings");
    sg_planted *r = &c->planted[c->n_planted++];
    *r = (sg_planted){.value = value, .len = strlen(value), .kinds = kinds, .min = UINT64_MAX};
    return r;
}

/* Counts a copy of b bytes matching a value filter `matches` times. */
static void counted(sg_planted *r, uint64_t b, uint64_t matches) {
    r->count++;
    r->bytes += b;
    r->matches += matches;
    r->min = b < r->min ? b : r->min;
}

/* One copy of bytes, held by no Text or ByteString. */
static void copy_bytes(sg_ctx *c, sg_planted *r) {
    sg_bulk_root(c, sg_arr_words(c, r->value, r->len, sg_space_for_era(c)));
    counted(r, arr_bytes(c, r->len), 1);
}

/* A Text over a new array, or over the row's shared array (whose bytes
 * the first Text over it counts); the Text matches, its array does not. */
static void copy_text(sg_ctx *c, sg_planted *r) {
    bool first_on_shared = r->shared && r->count == 0;
    uint64_t arr = r->shared ? r->shared : sg_arr_words(c, r->value, r->len, sg_space_for_era(c));
    uint64_t w[2] = {0, r->len};
    sg_bulk_root(c, sg_con(c, SG_T_TEXT, &arr, w));
    bool with_array = !r->shared || first_on_shared;
    counted(r, c->H + 24 + (with_array ? arr_bytes(c, r->len) : 0), 1);
}

static void copy_shared_text(sg_ctx *c, sg_planted *r) {
    if (!r->shared)
        r->shared = sg_arr_words(c, r->value, r->len, sg_space_for_era(c));
    copy_text(c, r);
}

/* A BS over a PlainPtr over a pinned array. */
static void copy_bytestring(sg_ctx *c, sg_planted *r) {
    uint64_t arr = sg_arr_words(c, r->value, r->len, SG_SP_PINNED);
    uint64_t contents = sg_con(c, SG_T_PLAINPTR, &arr, NULL);
    uint64_t w[2] = {arr + c->H + 8, r->len};
    sg_bulk_root(c, sg_con(c, SG_T_BS, &contents, w));
    counted(r, (c->H + 24) + (c->H + 8) + arr_bytes(c, r->len), 1);
}

/* A String of new cells; ASCII heads are the static CHARLIKE closures (not
 * heap bytes), others new C# boxes. Values are UTF-8. */
static void copy_string(sg_ctx *c, sg_planted *r) {
    uint32_t cps[64];
    size_t n = 0;
    for (size_t i = 0; i < r->len; n++) {
        uint8_t b0 = (uint8_t)r->value[i];
        size_t k = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
        uint32_t cp = k == 1 ? b0 : (uint32_t)(b0 & (0x7F >> k));
        for (size_t j = 1; j < k; j++)
            cp = cp << 6 | ((uint8_t)r->value[i + j] & 0x3F);
        if (n == 64)
            sg_fail(c, "internal: planted string too long");
        cps[n] = cp;
        i += k;
    }
    uint64_t list = sg_static_tagged(c, SG_S_NIL), b = 0;
    for (size_t i = n; i-- > 0;) {
        list = sg_cons(c, sg_char(c, cps[i]), list);
        b += (c->H + 16) + (cps[i] > SG_CHARLIKE_MAX ? c->H + 8 : 0);
    }
    sg_bulk_root(c, list);
    counted(r, b, 1);
}

/* An ASCII String as evaluated thunks leave it until a GC removes their
 * indirections: each tail behind a BLACKHOLE or an IND (in turn), the
 * String itself reached through a BLACKHOLE. The indirections are no part
 * of its bytes; its heads are the static CHARLIKE closures. */
static void copy_lazy_string(sg_ctx *c, sg_planted *r) {
    uint64_t list = sg_static_tagged(c, SG_S_NIL), b = 0;
    for (size_t i = r->len; i-- > 0;) {
        uint64_t tail = sg_ind(c, i % 2 ? SG_T_IND : SG_T_BLACKHOLE, list, 0);
        list = sg_cons(c, sg_char(c, (uint8_t)r->value[i]), tail);
        b += c->H + 16;
    }
    sg_bulk_root(c, sg_ind(c, SG_T_BLACKHOLE, list, 1));
    counted(r, b, 1);
}

/* A BS whose contents field (lazy in ForeignPtr) is an evaluated thunk's
 * BLACKHOLE over its PlainPtr. */
static void copy_lazy_bytestring(sg_ctx *c, sg_planted *r) {
    uint64_t arr = sg_arr_words(c, r->value, r->len, SG_SP_PINNED);
    uint64_t contents = sg_ind(c, SG_T_BLACKHOLE, sg_con(c, SG_T_PLAINPTR, &arr, NULL), 1);
    uint64_t w[2] = {arr + c->H + 8, r->len};
    sg_bulk_root(c, sg_con(c, SG_T_BS, &contents, w));
    counted(r, (c->H + 24) + (c->H + 8) + arr_bytes(c, r->len), 1);
}

typedef void (*copy_fn)(sg_ctx *c, sg_planted *r);

/* A value and how its copies are made, in order. */
static const struct {
    const char *value, *kinds;
    copy_fn copies[4];
    int n;
} values[] = {
    {"planted bytes\x01\x7f\\", "ARR_WORDS", {copy_bytes, copy_bytes, copy_bytes}, 3},
    {"planted text \xce\xbb", "Text", {copy_text, copy_text, copy_text, copy_text}, 4},
    {"planted shared", "Text", {copy_shared_text, copy_shared_text}, 2},
    {"planted bytestring", "ByteString", {copy_bytestring, copy_bytestring}, 2},
    {"planted string \xce\xbb", "String", {copy_string, copy_string, copy_string}, 3},
    {"planted mixed", "ARR_WORDS,Text,ByteString,String",
     {copy_string, copy_bytestring, copy_text, copy_bytes}, 4},
    {"planted lazy", "ByteString,String",
     {copy_lazy_string, copy_lazy_bytestring, copy_lazy_string}, 3},
};

void sg_strings_build(sg_ctx *c) {
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        sg_planted *r = row(c, values[v].value, values[v].kinds);
        for (int i = 0; i < values[v].n; i++)
            values[v].copies[i](c, r);
    }
    for (int i = 0; i < 2; i++) {
        uint64_t a = sg_new(c, SG_T_ARR_WORDS, 1 + (LARGE_LEN + 7) / 8);
        uint8_t *p = sg_at(c, a) + c->H;
        sg_wset(p, 0, LARGE_LEN);
        for (size_t k = 0; k < LARGE_LEN; k++)
            p[8 + k] = (uint8_t)(k * 7 + 3);
        sg_bulk_root(c, a);
        c->planted_large[i] = a;
    }
}

void sg_strings_json(sg_ctx *c, sg_buf *b) {
    char tmp[512];
    int n = snprintf(tmp, sizeof tmp, ",\n  \"strings\": {\"rows\": [");
    sg_buf_put(c, b, tmp, (size_t)n);
    for (size_t i = 0; i < c->n_planted; i++) {
        const sg_planted *r = &c->planted[i];
        char hex[2 * 64 + 1] = "";
        for (size_t k = 0; k < r->len && k < 64; k++)
            snprintf(hex + 2 * k, 3, "%02x", (uint8_t)r->value[k]);
        n = snprintf(tmp, sizeof tmp,
                     "%s\n    {\"value_hex\": \"%s\", \"kinds\": \"%s\", \"count\": %" PRIu64
                     ", \"bytes\": %" PRIu64 ", \"wasted\": %" PRIu64 ", \"matches\": %" PRIu64
                     "}",
                     i ? "," : "", hex, r->kinds, r->count, r->bytes, r->bytes - r->min, r->matches);
        sg_buf_put(c, b, tmp, (size_t)n);
    }
    uint64_t large = arr_bytes(c, LARGE_LEN);
    n = snprintf(tmp, sizeof tmp,
                 "],\n    \"large\": {\"addresses\": [\"0x%" PRIx64 "\", \"0x%" PRIx64
                 "\"], \"length\": %u, \"bytes\": %" PRIu64 ", \"wasted\": %" PRIu64
                 ", \"pattern\": \"(i * 7 + 3) mod 256\"}}",
                 c->planted_large[0], c->planted_large[1], LARGE_LEN, 2 * large, large);
    sg_buf_put(c, b, tmp, (size_t)n);
}
