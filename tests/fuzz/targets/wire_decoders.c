/* Every response decoder of the wire module on an arbitrary body: the
 * first byte picks the decoder (and the count it expects), the rest is
 * the body. What a decoder accepts must keep its promises: slices inside
 * the body, bitmap entries 0 or 1, whole strings. */
#include <string.h>

#include "fuzz_check.h"
#include "heapscope/wire.h"

static wire_buf body_of(const uint8_t *p, size_t n) {
    wire_buf b = {malloc(n ? n : 1), n, n ? n : 1};
    if (b.data && n)
        memcpy(b.data, p, n);
    return b;
}

static bool inside(const uint8_t *p, size_t len, const wire_buf *body) {
    return len == 0 || (p >= body->data && p + len <= body->data + body->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    uint8_t pick = data[0];
    const uint8_t *in = data + 1;
    size_t n = size - 1;
    hs_error err = {0};
    switch (pick % 13) {
    case 0: {
        wire_version v;
        if (wire_decode_version(in, n, &v, &err) == HS_OK)
            FUZZ_CHECK(n == 10 && v.prof_mode <= WIRE_PROF_OTHER);
        break;
    }
    case 1: {
        wire_ptr_list l = {0};
        if (wire_decode_ptrs(in, n, &l, &err) == HS_OK) {
            FUZZ_CHECK(n % 8 == 0 && l.count == n / 8);
            for (size_t i = 0; i < l.count; i++)
                FUZZ_CHECK((l.items[i] & WIRE_PTR_TAG_MASK) == 0);
        }
        wire_ptr_list_free(&l);
        break;
    }
    case 2: {
        wire_buf body = body_of(in, n);
        wire_blobs b = {0};
        size_t expected = pick >> 4;
        if (body.data && wire_decode_blobs(&body, expected, &b, &err) == HS_OK) {
            FUZZ_CHECK(b.count == expected);
            for (size_t i = 0; i < b.count; i++)
                FUZZ_CHECK(inside(b.items[i].data, b.items[i].len, &b.body));
        }
        wire_blobs_free(&b);
        wire_buf_free(&body);
        break;
    }
    case 3: {
        uint64_t srts[16];
        size_t want = pick >> 4;
        if (wire_decode_srts(in, n, want, srts, &err) == HS_OK)
            for (size_t i = 0; i < want; i++)
                FUZZ_CHECK((srts[i] & WIRE_PTR_TAG_MASK) == 0);
        break;
    }
    case 4: {
        wire_bitmap bm = {0};
        if (wire_decode_bitmap(in, n, &bm, &err) == HS_OK)
            for (size_t i = 0; i < bm.count; i++)
                FUZZ_CHECK(bm.bits[i] <= 1);
        wire_bitmap_free(&bm);
        break;
    }
    case 5: {
        wire_con_desc d = {0};
        if (wire_decode_con_desc(in, n, &d, &err) == HS_OK)
            FUZZ_CHECK(d.raw && d.package && d.module && d.name &&
                       strlen(d.name) <= strlen(d.raw));
        wire_con_desc_free(&d);
        break;
    }
    case 6: {
        wire_con_desc d = {0};
        if (wire_parse_con_desc((const char *)in, n, &d, &err) == HS_OK)
            FUZZ_CHECK(d.raw && d.package && d.module && d.name);
        wire_con_desc_free(&d);
        break;
    }
    case 7: {
        wire_source_info si = {0};
        if (wire_decode_source_info(in, n, &si, &err) == HS_OK && si.found)
            FUZZ_CHECK(si.name && si.closure_type_text && si.type && si.label && si.module &&
                       si.position);
        wire_source_info_free(&si);
        break;
    }
    case 8: {
        wire_buf body = body_of(in, n);
        wire_block_list l = {0};
        if (body.data && wire_decode_blocks(&body, &l, &err) == HS_OK)
            for (size_t i = 0; i < l.count; i++)
                FUZZ_CHECK(inside(l.items[i].data, l.items[i].len, &l.body));
        wire_block_list_free(&l);
        wire_buf_free(&body);
        break;
    }
    case 9: {
        wire_ccs ccs;
        wire_decode_ccs(in, n, &ccs, &err);
        break;
    }
    case 10: {
        wire_cc cc = {0};
        if (wire_decode_cc(in, n, &cc, &err) == HS_OK)
            FUZZ_CHECK(cc.label && cc.module && cc.srcloc);
        wire_cc_free(&cc);
        break;
    }
    case 11: {
        wire_index_entry e;
        wire_decode_index_entry(in, n, &e, &err);
        break;
    }
    default: {
        uint64_t p;
        if (wire_decode_one_ptr(in, n, &p, &err) == HS_OK)
            FUZZ_CHECK(n == 8);
        break;
    }
    }
    if (err.status != HS_OK)
        FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
    return 0;
}
