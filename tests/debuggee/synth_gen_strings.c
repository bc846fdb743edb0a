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
 * filter matches (each Text and ByteString and an array holding exactly
 * the value, each String's first cell). Plus a large byte array (its own
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
    *r = (sg_planted){.value = value, .len = strlen(value), .kinds = kinds};
    return r;
}

/* One copy of bytes, held by no Text or ByteString. */
static void copy_bytes(sg_ctx *c, sg_planted *r, uint64_t *min) {
    sg_bulk_root(c, sg_arr_words(c, r->value, r->len, sg_space_for_era(c)));
    uint64_t b = arr_bytes(c, r->len);
    r->count++, r->bytes += b, r->matches++;
    *min = b < *min ? b : *min;
}

/* A Text over a new array, or over `shared` (whose bytes are counted by
 * the first Text over it). */
static void copy_text(sg_ctx *c, sg_planted *r, uint64_t *min, uint64_t shared) {
    uint64_t arr = shared ? shared : sg_arr_words(c, r->value, r->len, sg_space_for_era(c));
    uint64_t w[2] = {0, r->len};
    sg_bulk_root(c, sg_con(c, SG_T_TEXT, &arr, w));
    uint64_t b = c->H + 24 + (shared && r->count ? 0 : arr_bytes(c, r->len));
    r->count++, r->bytes += b, r->matches += shared && r->count > 1 ? 1 : 2;
    *min = b < *min ? b : *min;
}

/* A BS over a PlainPtr over a pinned array. */
static void copy_bytestring(sg_ctx *c, sg_planted *r, uint64_t *min) {
    uint64_t arr = sg_arr_words(c, r->value, r->len, SG_SP_PINNED);
    uint64_t contents = sg_con(c, SG_T_PLAINPTR, &arr, NULL);
    uint64_t w[2] = {arr + c->H + 8, r->len};
    sg_bulk_root(c, sg_con(c, SG_T_BS, &contents, w));
    uint64_t b = (c->H + 24) + (c->H + 8) + arr_bytes(c, r->len);
    r->count++, r->bytes += b, r->matches += 2;
    *min = b < *min ? b : *min;
}

/* A String of new cells; ASCII heads are the static CHARLIKE closures (not
 * heap bytes), others new C# boxes. Values are UTF-8. */
static void copy_string(sg_ctx *c, sg_planted *r, uint64_t *min) {
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
    r->count++, r->bytes += b, r->matches++;
    *min = b < *min ? b : *min;
}

static void finish(sg_planted *r, uint64_t min) {
    r->wasted = r->bytes - min;
}

void sg_strings_build(sg_ctx *c) {
    uint64_t min;
    sg_planted *r = row(c, "planted bytes\x01\x7f\\", "ARR_WORDS");
    min = UINT64_MAX;
    for (int i = 0; i < 3; i++)
        copy_bytes(c, r, &min);
    finish(r, min);

    r = row(c, "planted text \xce\xbb", "Text");
    min = UINT64_MAX;
    for (int i = 0; i < 4; i++)
        copy_text(c, r, &min, 0);
    finish(r, min);

    r = row(c, "planted shared", "Text");
    min = UINT64_MAX;
    uint64_t shared = sg_arr_words(c, r->value, r->len, sg_space_for_era(c));
    for (int i = 0; i < 2; i++)
        copy_text(c, r, &min, shared);
    finish(r, min);

    r = row(c, "planted bytestring", "ByteString");
    min = UINT64_MAX;
    for (int i = 0; i < 2; i++)
        copy_bytestring(c, r, &min);
    finish(r, min);

    r = row(c, "planted string \xce\xbb", "String");
    min = UINT64_MAX;
    for (int i = 0; i < 3; i++)
        copy_string(c, r, &min);
    finish(r, min);

    r = row(c, "planted mixed", "ARR_WORDS,Text,ByteString,String");
    min = UINT64_MAX;
    copy_string(c, r, &min);
    copy_bytestring(c, r, &min);
    copy_text(c, r, &min, 0);
    copy_bytes(c, r, &min);
    finish(r, min);

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
                     i ? "," : "", hex, r->kinds, r->count, r->bytes, r->wasted, r->matches);
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
