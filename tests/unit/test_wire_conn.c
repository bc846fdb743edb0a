/* Typed calls over a real socket (socketpair + a scripted peer thread):
 * every response vector of §12 decoded by the typed calls, and the request
 * bytes the client writes. Framing variations are in test_wire_frames.c. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"
#include "vectors.h"
#include "wire_peer.h"

static vector_set vec;

static void load_vectors(void) { cr_assert_eq(vectors_load(HEAPSCOPE_VECTORS, &vec), 0); }
static void free_vectors(void) { vectors_free(&vec); }

TestSuite(wire_conn, .init = load_vectors, .fini = free_vectors);

static const char *resp(const char *key) {
    const char *hex = vectors_get(&vec, "responses", key);
    cr_assert_not_null(hex, "no response vector '%s'", key);
    return hex;
}

/* Asserts request i the peer received equals the request vector `key`. */
static void assert_request(const wire_peer *p, size_t i, const char *key) {
    const char *hex = vectors_get(&vec, "requests", key);
    cr_assert_not_null(hex, "no request vector '%s'", key);
    uint8_t *want;
    size_t n = hex_decode(hex, &want);
    size_t got_len = 0;
    const uint8_t *got = peer_request(p, i, &got_len);
    cr_assert_not_null(got, "request %zu (%s) never reached the peer", i, key);
    cr_assert_eq(got_len, n, "%s: %zu bytes on the wire, expected %zu", key, got_len, n);
    cr_assert(memcmp(got, want, n) == 0, "%s: request bytes differ", key);
    free(want);
}

/* Runs a one-request exchange: the peer answers `hex`. */
static wire_conn *one_reply(wire_peer *p, const char *hex) {
    peer_init(p);
    peer_reply_hex(p, hex);
    return peer_start(p, NULL);
}

static void finish(wire_peer *p, wire_conn *c) {
    wire_close(c);
    peer_free(p);
}

/* Every response key must be exercised by some test of this file. */
Test(wire_conn, every_response_vector_is_covered) {
    static const char *const used[] = {
        "VERSION 9.10.1 profiled eras TNTC",
        "ROOTS 0x4200105a38 0x4200107f10",
        "CON_DESC main:Main:Leak (parses to package '', module '', name 'main:Main:Leak')",
        "CON_DESC main:Main.Leak (parses to main / Main / Leak)",
        "SOURCE_INFO found sat_s1Ab_info/15/[Int]/leaky/Main/app/Main.hs:12:5-20",
        "CLOSURES 0x4200105a38 CONSTR_2_0 fields 0x4200105a51 (tag 1), 0x4200105a68",
        "INFO_TABLES ptrs 2 nptrs 0 type 4 (CONSTR_2_0) srt/tag 0",
        "VERSION 9.10.1 non-profiled TNTC",
        "PAUSE/RESUME OKAY",
        "error NOT_PAUSED",
        "SOURCE_INFO not found",
        "SRT none",
        "SRT 0x4c7e60",
        "STACK_BITMAP 3 entries non-ptr non-ptr ptr",
    };
    size_t n = 0;
    for (size_t i = 0; i < vec.count; i++) {
        if (strcmp(vec.items[i].section, "responses") != 0)
            continue;
        bool found = false;
        for (size_t j = 0; j < sizeof used / sizeof used[0]; j++)
            found = found || strcmp(used[j], vec.items[i].key) == 0;
        cr_assert(found, "response vector '%s' is not tested", vec.items[i].key);
        n++;
    }
    cr_assert_eq(n, sizeof used / sizeof used[0]);
}

Test(wire_conn, version_profiled) {
    wire_peer p;
    wire_conn *c = one_reply(&p, resp("VERSION 9.10.1 profiled eras TNTC"));
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_OK, "%s", err.message);
    cr_assert_eq(v.major, 910);
    cr_assert_eq(v.patch, 1);
    cr_assert_eq(v.prof_mode, WIRE_PROF_ERA);
    cr_assert(v.tntc);
    wire_stats s = wire_conn_stats(c);
    cr_assert_eq(s.requests, 1);
    cr_assert_eq(s.bytes_sent, 8);
    cr_assert_eq(s.bytes_received, 16);
    cr_assert_eq(s.frames_received, 1);
    cr_assert_str_eq(wire_conn_target(c), "test peer");
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "VERSION");
    peer_free(&p);
}

Test(wire_conn, version_non_profiled) {
    wire_peer p;
    wire_conn *c = one_reply(&p, resp("VERSION 9.10.1 non-profiled TNTC"));
    wire_version v;
    cr_assert_eq(wire_get_version(c, &v, NULL), HS_OK);
    cr_assert_eq(v.prof_mode, WIRE_PROF_NONE);
    cr_assert_eq(v.major, 910);
    cr_assert(v.tntc);
    finish(&p, c);
}

Test(wire_conn, pause_resume_and_not_paused) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, resp("PAUSE/RESUME OKAY"));
    peer_reply_hex(&p, resp("PAUSE/RESUME OKAY"));
    peer_reply_hex(&p, resp("error NOT_PAUSED"));
    peer_reply_hex(&p, resp("PAUSE/RESUME OKAY"));
    wire_conn *c = peer_start(&p, NULL);
    hs_error err = {0};
    bool was = true;
    cr_assert_eq(wire_pause(c, &was, &err), HS_OK, "%s", err.message);
    cr_assert_not(was);
    cr_assert_eq(wire_resume(c, &err), HS_OK, "%s", err.message);
    wire_ptr_list roots;
    cr_assert_eq(wire_roots(c, &roots, &err), HS_ERR_NOT_PAUSED);
    cr_assert_str_eq(err.message, "ROOTS: the debuggee is not paused");
    cr_assert_eq(roots.count, 0);
    cr_assert(wire_conn_is_open(c), "a stub error leaves the connection usable");
    cr_assert_eq(wire_fork_pause(c, &err), HS_OK, "%s", err.message);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "PAUSE (pause)");
    assert_request(&p, 1, "RESUME");
    assert_request(&p, 2, "ROOTS");
    assert_request(&p, 3, "PAUSE (fork)");
    peer_free(&p);
}

Test(wire_conn, roots_untagged) {
    wire_peer p;
    wire_conn *c = one_reply(&p, resp("ROOTS 0x4200105a38 0x4200107f10"));
    wire_ptr_list l;
    cr_assert_eq(wire_roots(c, &l, NULL), HS_OK);
    cr_assert_eq(l.count, 2);
    cr_assert_eq(l.items[0], 0x4200105a38);
    cr_assert_eq(l.items[1], 0x4200107f10);
    wire_ptr_list_free(&l);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "ROOTS");
    peer_free(&p);
}

Test(wire_conn, saved_objects_tagged_and_empty) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000080000395a100042000000");
    peer_reply_hex(&p, "000000000000");
    wire_conn *c = peer_start(&p, NULL);
    wire_ptr_list l;
    cr_assert_eq(wire_saved_objects(c, &l, NULL), HS_OK);
    cr_assert_eq(l.count, 1);
    cr_assert_eq(l.items[0], 0x4200105a38);
    wire_ptr_list_free(&l);
    cr_assert_eq(wire_saved_objects(c, &l, NULL), HS_OK);
    cr_assert_eq(l.count, 0);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "SAVED_OBJECTS");
    peer_free(&p);
}

Test(wire_conn, con_desc_both_forms) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, resp("CON_DESC main:Main.Leak (parses to main / Main / Leak)"));
    peer_reply_hex(&p, resp("CON_DESC main:Main:Leak (parses to package '', module '', name "
                            "'main:Main:Leak')"));
    wire_conn *c = peer_start(&p, NULL);
    wire_con_desc d;
    hs_error err = {0};
    cr_assert_eq(wire_get_con_desc(c, 0x4f8e28, &d, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(d.package, "main");
    cr_assert_str_eq(d.module, "Main");
    cr_assert_str_eq(d.name, "Leak");
    wire_con_desc_free(&d);
    cr_assert_eq(wire_get_con_desc(c, 0x4f8e28, &d, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(d.package, "");
    cr_assert_str_eq(d.module, "");
    cr_assert_str_eq(d.name, "main:Main:Leak");
    cr_assert_str_eq(d.raw, "main:Main:Leak");
    wire_con_desc_free(&d);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "CON_DESC for 0x4f8e28");
    assert_request(&p, 1, "CON_DESC for 0x4f8e28");
    peer_free(&p);
}

Test(wire_conn, source_info_found_and_not) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p,
                   resp("SOURCE_INFO found sat_s1Ab_info/15/[Int]/leaky/Main/app/Main.hs:12:5-20"));
    peer_reply_hex(&p, resp("SOURCE_INFO not found"));
    wire_conn *c = peer_start(&p, NULL);
    wire_source_info si;
    hs_error err = {0};
    cr_assert_eq(wire_get_source_info(c, 0x4f8e28, &si, &err), HS_OK, "%s", err.message);
    cr_assert(si.found);
    cr_assert_str_eq(si.name, "sat_s1Ab_info");
    cr_assert_eq(si.closure_type, 15);
    cr_assert_str_eq(si.type, "[Int]");
    cr_assert_str_eq(si.label, "leaky");
    cr_assert_str_eq(si.module, "Main");
    cr_assert_str_eq(si.position, "app/Main.hs:12:5-20");
    wire_source_info_free(&si);
    cr_assert_eq(wire_get_source_info(c, 0x4f8e28, &si, &err), HS_OK, "%s", err.message);
    cr_assert_not(si.found);
    cr_assert_null(si.name);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "SOURCE_INFO for 0x4f8e28");
    assert_request(&p, 1, "SOURCE_INFO for 0x4f8e28");
    peer_free(&p);
}

Test(wire_conn, closure_and_info_table) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(
        &p, resp("CLOSURES 0x4200105a38 CONSTR_2_0 fields 0x4200105a51 (tag 1), 0x4200105a68"));
    peer_reply_hex(&p, resp("INFO_TABLES ptrs 2 nptrs 0 type 4 (CONSTR_2_0) srt/tag 0"));
    wire_conn *c = peer_start(&p, NULL);
    hs_error err = {0};
    wire_blobs bl;
    uint64_t ptr = 0x4200105a38;
    cr_assert_eq(wire_closures(c, &ptr, 1, &bl, &err), HS_OK, "%s", err.message);
    cr_assert_eq(bl.count, 1);
    cr_assert_eq(bl.items[0].len, 24);
    uint64_t info = hs_load_le64(bl.items[0].data);
    cr_assert_eq(info, 0x4f8e28);
    cr_assert_eq(wire_untag(hs_load_le64(bl.items[0].data + 8)), 0x4200105a50);
    cr_assert_eq(hs_load_le64(bl.items[0].data + 16), 0x4200105a68);
    wire_blobs_free(&bl);

    cr_assert_eq(wire_info_tables(c, &info, 1, &bl, &err), HS_OK, "%s", err.message);
    cr_assert_eq(bl.count, 1);
    cr_assert_eq(bl.items[0].len, 16);
    const uint8_t *it = bl.items[0].data;
    cr_assert_eq(hs_load_le32(it), 2, "ptrs");
    cr_assert_eq(hs_load_le32(it + 4), 0, "nptrs");
    cr_assert_eq(hs_load_le32(it + 8), 4, "type CONSTR_2_0");
    cr_assert_eq(hs_load_le32(it + 12), 0, "srt / constructor tag");
    wire_blobs_free(&bl);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "CLOSURES for 0x4200105a38");
    assert_request(&p, 1, "INFO_TABLES for 0x4f8e28");
    peer_free(&p);
}

Test(wire_conn, srt_none_and_some) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, resp("SRT none"));
    peer_reply_hex(&p, resp("SRT 0x4c7e60"));
    wire_conn *c = peer_start(&p, NULL);
    uint64_t info = 0x4f8e28, srt = 1;
    cr_assert_eq(wire_srts(c, &info, 1, &srt, NULL), HS_OK);
    cr_assert_eq(srt, 0);
    cr_assert_eq(wire_srts(c, &info, 1, &srt, NULL), HS_OK);
    cr_assert_eq(srt, 0x4c7e60);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "SRT for 0x4f8e28");
    assert_request(&p, 1, "SRT for 0x4f8e28");
    peer_free(&p);
}

Test(wire_conn, stack_and_fun_bitmaps) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, resp("STACK_BITMAP 3 entries non-ptr non-ptr ptr"));
    peer_reply_hex(&p, "0000000700000000000301" "0100");
    wire_conn *c = peer_start(&p, NULL);
    wire_bitmap b;
    hs_error err = {0};
    cr_assert_eq(wire_stack_bitmap(c, 0x4200207f00, 0x18, &b, &err), HS_OK, "%s", err.message);
    cr_assert_eq(b.count, 3);
    cr_assert_eq(b.bits[0], 0);
    cr_assert_eq(b.bits[1], 0);
    cr_assert_eq(b.bits[2], 1);
    wire_bitmap_free(&b);
    cr_assert_eq(wire_fun_bitmap(c, 0x4200105a38, 3, &b, &err), HS_OK, "%s", err.message);
    cr_assert_eq(b.count, 3);
    cr_assert_eq(b.bits[0], 1);
    cr_assert_eq(b.bits[1], 1);
    cr_assert_eq(b.bits[2], 0);
    wire_bitmap_free(&b);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "STACK_BITMAP sp=0x4200207f00 off=0x18");
    assert_request(&p, 1, "FUN_BITMAP fun=0x4200105a38 n=3");
    peer_free(&p);
}

/* ---- remaining typed calls ------------------------------------------- */

Test(wire_conn, profiling_requests) {
    bytes ccs = {0}, cc = {0}, idx = {0}, body = {0};
    for (uint64_t i = 0; i < 12; i++)
        bytes_le64(&body, i == 0 ? 7 : 0x100 * i);
    bytes_frame(&ccs, WIRE_STATUS_OKAY, body.data, body.len);
    bytes_free(&body);
    bytes_le64(&body, 3);
    bytes_be32(&body, 4);
    bytes_put(&body, "MAIN", 4);
    bytes_be32(&body, 4);
    bytes_put(&body, "MAIN", 4);
    bytes_be32(&body, 10);
    bytes_put(&body, "<built-in>", 10);
    bytes_le64(&body, 1000);
    bytes_le64(&body, 20);
    bytes_le64(&body, 0);
    bytes_le64(&body, 0);
    bytes_answer_split(&cc, body.data, body.len, 1023, false);
    bytes_free(&body);
    bytes_le64(&body, 0x4c1000);
    bytes_le64(&body, 0x4c2000);
    bytes_le64(&body, 0x4c3000);
    bytes_put(&body, "\0", 1);
    bytes_frame(&idx, WIRE_STATUS_OKAY, body.data, body.len);
    bytes_free(&body);

    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000080000" "a0e14c0000000000");
    peer_reply(&p, ccs.data, ccs.len, 0);
    peer_reply(&p, cc.data, cc.len, 0);
    peer_reply(&p, idx.data, idx.len, 0);
    wire_conn *c = peer_start(&p, NULL);
    hs_error err = {0};
    uint64_t main_ccs;
    cr_assert_eq(wire_ccs_main(c, &main_ccs, &err), HS_OK, "%s", err.message);
    cr_assert_eq(main_ccs, 0x4ce1a0);
    wire_ccs s;
    cr_assert_eq(wire_get_ccs(c, main_ccs, &s, &err), HS_OK, "%s", err.message);
    cr_assert_eq(s.id, 7);
    cr_assert_eq(s.cc, 0x100);
    cr_assert_eq(s.inherited_ticks, 0xb00);
    wire_cc centre;
    cr_assert_eq(wire_get_cc(c, s.cc, &centre, &err), HS_OK, "%s", err.message);
    cr_assert_eq(centre.id, 3);
    cr_assert_str_eq(centre.label, "MAIN");
    cr_assert_str_eq(centre.srcloc, "<built-in>");
    cr_assert_eq(centre.mem_alloc, 1000);
    cr_assert_eq(centre.time_ticks, 20);
    cr_assert_not(centre.is_caf);
    cr_assert_eq(centre.link, 0);
    wire_cc_free(&centre);
    wire_index_entry e;
    cr_assert_eq(wire_index_table(c, 0x4c5000, &e, &err), HS_OK, "%s", err.message);
    cr_assert_eq(e.cc, 0x4c1000);
    cr_assert_eq(e.next, 0x4c3000);
    cr_assert_not(e.back_edge);
    wire_close(c);
    peer_join(&p);
    assert_request(&p, 0, "CCS_MAIN");
    size_t n;
    const uint8_t *r = peer_request(&p, 1, &n);
    cr_assert_eq(n, 16);
    cr_assert_eq(hs_load_be32(r + 4), WIRE_CMD_CCS);
    cr_assert_eq(hs_load_le64(r + 8), 0x4ce1a0);
    r = peer_request(&p, 2, &n);
    cr_assert_eq(hs_load_be32(r + 4), WIRE_CMD_CC);
    cr_assert_eq(hs_load_le64(r + 8), 0x100);
    r = peer_request(&p, 3, &n);
    cr_assert_eq(hs_load_be32(r + 4), WIRE_CMD_INDEX_TABLE);
    cr_assert_eq(hs_load_le64(r + 8), 0x4c5000);
    peer_free(&p);
    bytes_free(&ccs);
    bytes_free(&cc);
    bytes_free(&idx);
}

Test(wire_conn, closures_several_in_request_order) {
    bytes ans = {0}, body = {0};
    for (uint32_t i = 1; i <= 3; i++) {
        bytes_be32(&body, 8 * i);
        for (uint32_t w = 0; w < i; w++)
            bytes_le64(&body, 0x1000 * i + w);
    }
    bytes_answer_split(&ans, body.data, body.len, 1023, false);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, ans.data, ans.len, 0);
    wire_conn *c = peer_start(&p, NULL);
    const uint64_t ptrs[3] = {0x4200000011, 0x4200000020, 0x4200000033};
    wire_blobs bl;
    hs_error err = {0};
    cr_assert_eq(wire_closures(c, ptrs, 3, &bl, &err), HS_OK, "%s", err.message);
    cr_assert_eq(bl.count, 3);
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_eq(bl.items[i].len, 8 * (i + 1));
        cr_assert_eq(hs_load_le64(bl.items[i].data), 0x1000 * (i + 1));
    }
    wire_blobs_free(&bl);
    wire_close(c);
    peer_join(&p);
    size_t n;
    const uint8_t *r = peer_request(&p, 0, &n);
    cr_assert_eq(n, 8 + 2 + 24);
    cr_assert_eq(hs_load_be16(r + 8), 3);
    cr_assert_eq(hs_load_le64(r + 10), 0x4200000010, "tagged pointers are sent untagged");
    cr_assert_eq(hs_load_le64(r + 18), 0x4200000020);
    cr_assert_eq(hs_load_le64(r + 26), 0x4200000030);
    peer_free(&p);
    bytes_free(&ans);
    bytes_free(&body);
}
