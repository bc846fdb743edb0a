/* Decoders for the binary answers (wire-protocol.md §7): every length is
 * checked against what is left before it is used, and nothing is allocated
 * beyond what the received body can hold. Messages do not name the command;
 * the typed calls in requests.c prefix it. */
#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

/* Reads one PTR: 8 bytes little-endian, untagged like every address the
 * reference client decodes (§2). */
static uint64_t load_ptr(const uint8_t *p) { return wire_untag(hs_load_le64(p)); }

hs_status wire_decode_version(const uint8_t *body, size_t len, wire_version *out,
                              hs_error *err) {
    *out = (wire_version){0};
    if (len != 10)
        return hs_fail(err, HS_ERR_PROTOCOL, "version answer is %zu bytes, expected 10", len);
    uint8_t prof = body[8], tntc = body[9];
    if (prof > WIRE_PROF_OTHER)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "unknown profiling mode %u in the version answer (expected 0-5)", prof);
    if (tntc > 1)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "tables-next-to-code flag is %u in the version answer (expected 0 or 1)",
                       tntc);
    out->major = hs_load_be32(body);
    out->patch = hs_load_be32(body + 4);
    out->prof_mode = prof;
    out->tntc = tntc == 1;
    return HS_OK;
}

hs_status wire_decode_ptrs(const uint8_t *body, size_t len, wire_ptr_list *out, hs_error *err) {
    *out = (wire_ptr_list){0};
    if (len % 8 != 0)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "answer of %zu bytes is not a whole number of 8-byte pointers", len);
    size_t n = len / 8;
    if (n == 0)
        return HS_OK;
    uint64_t *items = malloc(n * sizeof *items);
    if (!items)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for %zu pointers", n);
    for (size_t i = 0; i < n; i++)
        items[i] = load_ptr(body + 8 * i);
    out->items = items;
    out->count = out->cap = n;
    return HS_OK;
}

hs_status wire_decode_blobs(wire_buf *body, size_t expected, wire_blobs *out, hs_error *err) {
    *out = (wire_blobs){0};
    wire_buf owned = *body;
    *body = (wire_buf){0};
    wire_reader r = {owned.data, owned.len};
    /* Each record needs at least its 4-byte length: this bounds the slice
     * array by the received bytes, whatever `expected` says. */
    if (expected > owned.len / 4) {
        wire_buf_free(&owned);
        return hs_fail(err, HS_ERR_PROTOCOL, "answer of %zu bytes cannot hold %zu records",
                       r.left, expected);
    }
    wire_slice *items = NULL;
    if (expected > 0 && !(items = malloc(expected * sizeof *items))) {
        wire_buf_free(&owned);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for %zu records", expected);
    }
    hs_status st = HS_OK;
    for (size_t i = 0; i < expected; i++) {
        if (!wire_rd_has(&r, 4)) {
            st = hs_fail(err, HS_ERR_PROTOCOL, "answer ends inside the length of record %zu of %zu",
                         i + 1, expected);
            break;
        }
        uint32_t n = hs_load_be32(wire_rd_take(&r, 4));
        if (!wire_rd_has(&r, n)) {
            st = hs_fail(err, HS_ERR_PROTOCOL,
                         "record %zu of %zu announces %u bytes but only %zu are left", i + 1,
                         expected, n, r.left);
            break;
        }
        items[i] = (wire_slice){wire_rd_take(&r, n), n};
    }
    if (st == HS_OK && r.left != 0)
        st = hs_fail(err, HS_ERR_PROTOCOL, "%zu unexpected bytes after %zu records", r.left,
                     expected);
    if (st != HS_OK) {
        free(items);
        wire_buf_free(&owned);
        return st;
    }
    out->body = owned;
    out->items = items;
    out->count = out->cap = expected;
    return HS_OK;
}

hs_status wire_decode_srts(const uint8_t *body, size_t len, size_t n, uint64_t *out,
                           hs_error *err) {
    if (n > SIZE_MAX / 8 || len != 8 * n)
        return hs_fail(err, HS_ERR_PROTOCOL, "SRT answer is %zu bytes, expected %zu pointers", len,
                       n);
    for (size_t i = 0; i < n; i++)
        out[i] = load_ptr(body + 8 * i);
    return HS_OK;
}

hs_status wire_decode_bitmap(const uint8_t *body, size_t len, wire_bitmap *out, hs_error *err) {
    *out = (wire_bitmap){0};
    if (len < 4)
        return hs_fail(err, HS_ERR_PROTOCOL, "bitmap answer of %zu bytes has no entry count", len);
    uint32_t n = hs_load_be32(body);
    if (n != len - 4)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "bitmap announces %u entries but the answer carries %zu", n, len - 4);
    for (uint32_t i = 0; i < n; i++)
        if (body[4 + i] > 1)
            return hs_fail(err, HS_ERR_PROTOCOL, "bitmap entry %u is %u (expected 0 or 1)", i,
                           body[4 + i]);
    if (n == 0)
        return HS_OK;
    uint8_t *bits = malloc(n);
    if (!bits)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for a bitmap of %u entries", n);
    memcpy(bits, body + 4, n);
    out->bits = bits;
    out->count = out->cap = n;
    return HS_OK;
}

/* Walks the RawBlocks of r (§7.13); with items == NULL it only validates
 * and counts them. */
static hs_status scan_blocks(wire_reader r, wire_raw_block *items, size_t *count,
                             hs_error *err) {
    size_t n = 0;
    while (r.left > 0) {
        if (!wire_rd_has(&r, 14))
            return hs_fail(err, HS_ERR_PROTOCOL,
                           "answer ends inside the header of block %zu (%zu of 14 bytes)", n + 1,
                           r.left);
        const uint8_t *h = wire_rd_take(&r, 14);
        uint32_t len = hs_load_be32(h + 10);
        if (!wire_rd_has(&r, len))
            return hs_fail(err, HS_ERR_PROTOCOL,
                           "block %zu at 0x%llx announces %u bytes but only %zu are left", n + 1,
                           (unsigned long long)hs_load_le64(h + 2), len, r.left);
        const uint8_t *data = wire_rd_take(&r, len);
        if (items)
            items[n] = (wire_raw_block){
                .flags = hs_load_le16(h), .start = load_ptr(h + 2), .len = len, .data = data};
        n++;
    }
    *count = n;
    return HS_OK;
}

hs_status wire_decode_blocks(wire_buf *body, wire_block_list *out, hs_error *err) {
    *out = (wire_block_list){0};
    wire_buf owned = *body;
    *body = (wire_buf){0};
    wire_reader r = {owned.data, owned.len};
    size_t n = 0;
    hs_status st = scan_blocks(r, NULL, &n, err);
    wire_raw_block *items = NULL;
    if (st == HS_OK && n > 0 && !(items = malloc(n * sizeof *items)))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory for %zu blocks", n);
    if (st == HS_OK && n > 0)
        st = scan_blocks(r, items, &n, err);
    if (st != HS_OK) {
        free(items);
        wire_buf_free(&owned);
        return st;
    }
    out->body = owned;
    out->items = items;
    out->count = out->cap = n;
    return HS_OK;
}

hs_status wire_decode_ccs(const uint8_t *body, size_t len, wire_ccs *out, hs_error *err) {
    *out = (wire_ccs){0};
    if (len != 96)
        return hs_fail(err, HS_ERR_PROTOCOL, "cost-centre stack answer is %zu bytes, expected 96",
                       len);
    uint64_t w[12];
    for (size_t i = 0; i < 12; i++)
        w[i] = hs_load_le64(body + 8 * i);
    *out = (wire_ccs){
        .id = (int64_t)w[0],
        .cc = wire_untag(w[1]),
        .prev = wire_untag(w[2]),
        .index_table = wire_untag(w[3]),
        .root = wire_untag(w[4]),
        .depth = w[5],
        .scc_count = w[6],
        .selected = w[7],
        .time_ticks = w[8],
        .mem_alloc = w[9],
        .inherited_alloc = w[10],
        .inherited_ticks = w[11],
    };
    return HS_OK;
}

hs_status wire_decode_index_entry(const uint8_t *body, size_t len, wire_index_entry *out,
                                  hs_error *err) {
    *out = (wire_index_entry){0};
    if (len != 25)
        return hs_fail(err, HS_ERR_PROTOCOL, "index-table answer is %zu bytes, expected 25", len);
    out->cc = load_ptr(body);
    out->ccs = load_ptr(body + 8);
    out->next = load_ptr(body + 16);
    out->back_edge = body[24] != 0;
    return HS_OK;
}

hs_status wire_decode_one_ptr(const uint8_t *body, size_t len, uint64_t *out, hs_error *err) {
    *out = 0;
    if (len != 8)
        return hs_fail(err, HS_ERR_PROTOCOL, "answer is %zu bytes, expected one 8-byte pointer",
                       len);
    *out = load_ptr(body);
    return HS_OK;
}
