/* A peer that lies, stalls, hangs up or sends garbage: every case is an
 * error value, nothing is allocated on the strength of a claimed length,
 * and a connection left out of step is closed for good. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"
#include "wire_peer.h"

static wire_conn *start_hex(wire_peer *p, const char *hex, bool close_after,
                            const wire_options *o) {
    peer_init(p);
    peer_reply_hex(p, hex);
    p->close_after = close_after;
    return peer_start(p, o);
}

static void finish(wire_peer *p, wire_conn *c) {
    wire_close(c);
    peer_free(p);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Test(wire_hostile, truncated_frame_then_close) {
    wire_peer p;
    /* announces 10 bytes, sends 4, hangs up */
    wire_conn *c = start_hex(&p, "0000000a0000" "0000038e", true, NULL);
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_CLOSED);
    cr_assert(strstr(err.message, "VERSION: the debuggee closed the connection mid-answer"), "%s",
              err.message);
    cr_assert_not(wire_conn_is_open(c));
    finish(&p, c);
}

Test(wire_hostile, truncated_header_then_close) {
    wire_peer p;
    wire_conn *c = start_hex(&p, "000000", true, NULL);
    wire_ptr_list l;
    hs_error err = {0};
    cr_assert_eq(wire_roots(c, &l, &err), HS_ERR_CLOSED);
    cr_assert(strstr(err.message, "mid-answer"), "%s", err.message);
    finish(&p, c);
}

Test(wire_hostile, close_without_answer) {
    wire_peer p;
    peer_init(&p);
    peer_no_reply(&p);
    p.close_after = true;
    wire_conn *c = peer_start(&p, NULL);
    hs_error err = {0};
    cr_assert_eq(wire_resume(c, &err), HS_ERR_CLOSED);
    cr_assert(strstr(err.message, "RESUME: the debuggee closed the connection without answering"),
              "%s", err.message);
    finish(&p, c);
}

Test(wire_hostile, peer_gone_before_request) {
    wire_peer p;
    peer_init(&p);
    p.close_after = true; /* no steps: hangs up at once */
    wire_conn *c = peer_start(&p, NULL);
    peer_join(&p); /* make sure it is gone */
    wire_version v;
    hs_error err = {0};
    hs_status st = wire_get_version(c, &v, &err);
    cr_assert_eq(st, HS_ERR_CLOSED, "%s: %s", hs_status_name(st), err.message);
    cr_assert_not(wire_conn_is_open(c));
    finish(&p, c);
}

Test(wire_hostile, huge_version_length_is_too_large) {
    wire_peer p;
    wire_conn *c = start_hex(&p, "ffffffff0000", false, NULL);
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_TOO_LARGE);
    cr_assert(strstr(err.message, "VERSION"), "%s", err.message);
    cr_assert(strstr(err.message, "4294967295"), "%s", err.message);
    cr_assert_not(wire_conn_is_open(c));
    finish(&p, c);
}

Test(wire_hostile, running_total_over_the_cap) {
    /* two CONTINUES frames of 40 bytes: each fits VERSION's cap, the sum
     * does not */
    bytes b = {0};
    uint8_t junk[40] = {0};
    bytes_frame(&b, WIRE_STATUS_OKAY_CONTINUES, junk, 40);
    bytes_frame(&b, WIRE_STATUS_OKAY_CONTINUES, junk, 40);
    bytes_frame(&b, WIRE_STATUS_OKAY, NULL, 0);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, b.data, b.len, 0);
    wire_conn *c = peer_start(&p, NULL);
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_TOO_LARGE, "%s", err.message);
    cr_assert(strstr(err.message, "after 40"), "%s", err.message);
    finish(&p, c);
    bytes_free(&b);
}

/* ALL_BLOCKS answered with two CONTINUES frames of 600 bytes under the
 * options o (a cap below 1200): the error it fails with. */
static hs_error all_blocks_of_1200_bytes(const wire_options *o) {
    bytes b = {0};
    uint8_t junk[600] = {0};
    bytes_frame(&b, WIRE_STATUS_OKAY_CONTINUES, junk, 600);
    bytes_frame(&b, WIRE_STATUS_OKAY_CONTINUES, junk, 600);
    bytes_frame(&b, WIRE_STATUS_OKAY, NULL, 0);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, b.data, b.len, 0);
    wire_conn *c = peer_start(&p, o);
    wire_block_list l;
    hs_error err = {0};
    cr_assert_eq(wire_all_blocks(c, &l, &err), HS_ERR_TOO_LARGE);
    finish(&p, c);
    bytes_free(&b);
    return err;
}

Test(wire_hostile, max_body_of_wire_call_and_max_response) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000100000" "00000000000000000000000000000000");
    wire_conn *c = peer_start(&p, NULL);
    wire_buf body = {0};
    hs_error err = {0};
    cr_assert_eq(wire_call(c, WIRE_CMD_ROOTS, NULL, 0, 15, &body, &err), HS_ERR_TOO_LARGE);
    cr_assert_eq(body.len, 0);
    finish(&p, c);
    wire_buf_free(&body);

    err = all_blocks_of_1200_bytes(&(wire_options){.max_response = 1000});
    cr_assert(strstr(err.message, "1000"), "%s", err.message);
}

/* Over the connection's cap, the message says how big the answer got, the
 * cap, and the option that raises it. */
Test(wire_hostile, max_response_names_size_cap_and_option) {
    hs_error err = all_blocks_of_1200_bytes(
        &(wire_options){.max_response = 1000, .max_response_option = "--max-answer"});
    cr_assert_str_eq(err.message, "ALL_BLOCKS: the answer is at least 1.2 KiB, over the "
                                  "1000 bytes cap on one answer (--max-answer SIZE raises it)");
}

Test(wire_hostile, bogus_4gib_block_costs_little) {
    /* ALL_BLOCKS: a 4 GiB frame announced, a few bytes sent, hang-up. The
     * body buffer must stay small: the claim alone allocates nothing. */
    wire_peer p;
    wire_conn *c = start_hex(&p, "ffffffff0001" "0000005010004200", true, NULL);
    wire_buf body = {0};
    hs_error err = {0};
    cr_assert_eq(wire_call(c, WIRE_CMD_ALL_BLOCKS, NULL, 0, UINT64_MAX, &body, &err),
                 HS_ERR_CLOSED, "%s", err.message);
    cr_assert(strstr(err.message, "mid-answer"), "%s", err.message);
    cr_assert_lt(body.cap, 4u << 20, "body grew to %zu bytes", body.cap);
    cr_assert_eq(body.len, 0, "nothing is handed back after an error");
    wire_buf_free(&body);
    finish(&p, c);

    /* the same through the typed call, with a slow trickle after the header
     * so the body is read straight from the socket */
    bytes b = {0};
    bytes_hex(&b, "ffffffff0001");
    uint8_t some[200 * 1024];
    memset(some, 0x5a, sizeof some);
    bytes_put(&b, some, sizeof some);
    peer_init(&p);
    peer_reply(&p, b.data, b.len, 4096);
    p.close_after = true;
    c = peer_start(&p, NULL);
    body = (wire_buf){0};
    cr_assert_eq(wire_call(c, WIRE_CMD_ALL_BLOCKS, NULL, 0, UINT64_MAX, &body, &err),
                 HS_ERR_CLOSED, "%s", err.message);
    cr_assert_lt(body.cap, 4u << 20, "body grew to %zu bytes", body.cap);
    wire_buf_free(&body);
    finish(&p, c);
    bytes_free(&b);
}

Test(wire_hostile, unknown_status) {
    wire_peer p;
    wire_conn *c = start_hex(&p, "000000001234", false, NULL);
    wire_ptr_list l;
    hs_error err = {0};
    cr_assert_eq(wire_roots(c, &l, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "unknown status 0x1234"), "%s", err.message);
    cr_assert_not(wire_conn_is_open(c));
    finish(&p, c);
}

Test(wire_hostile, silence_times_out) {
    wire_peer p;
    peer_init(&p);
    peer_no_reply(&p);
    wire_options o = {.io_timeout_ms = 200};
    wire_conn *c = peer_start(&p, &o);
    wire_version v;
    hs_error err = {0};
    int64_t t0 = now_ms();
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_TIMEOUT);
    int64_t took = now_ms() - t0;
    cr_assert_geq(took, 180, "gave up after %lld ms", (long long)took);
    cr_assert_lt(took, 3000, "took %lld ms", (long long)took);
    cr_assert(strstr(err.message, "VERSION: no answer"), "%s", err.message);
    cr_assert(strstr(err.message, "200 ms"), "%s", err.message);
    cr_assert_not(wire_conn_is_open(c));
    finish(&p, c);
}

Test(wire_hostile, stall_mid_answer_times_out) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000100001" "385a1000");
    wire_options o = {.io_timeout_ms = 200};
    wire_conn *c = peer_start(&p, &o);
    wire_conn_set_io_timeout(c, 150);
    wire_ptr_list l;
    hs_error err = {0};
    cr_assert_eq(wire_roots(c, &l, &err), HS_ERR_TIMEOUT);
    cr_assert(strstr(err.message, "150 ms"), "%s", err.message);
    /* not "no answer": 10 bytes came, and the frame announced 12 more */
    cr_assert(strstr(err.message, "ROOTS: the answer stopped after 10 bytes, 12 short of its "
                                  "frame: nothing more from "), "%s", err.message);
    finish(&p, c);
}

Test(wire_hostile, stall_inside_a_frame_header_times_out) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000");
    wire_options o = {.io_timeout_ms = 150};
    wire_conn *c = peer_start(&p, &o);
    wire_ptr_list l;
    hs_error err = {0};
    cr_assert_eq(wire_roots(c, &l, &err), HS_ERR_TIMEOUT);
    cr_assert(strstr(err.message, "ROOTS: the answer stopped after 3 bytes: nothing more from "),
              "%s", err.message);
    finish(&p, c);
}

struct stub_case {
    const char *frame;
    hs_status status;
    const char *message;
};

Test(wire_hostile, stub_error_statuses_name_the_command) {
    const struct stub_case cases[] = {
        {"000000000100", HS_ERR_BAD_COMMAND, "CCS_MAIN: the debuggee has no cost centres"},
        {"000000000101", HS_ERR_ALREADY_PAUSED, "PAUSE: the debuggee is already paused"},
        {"000000000102", HS_ERR_NOT_PAUSED, "SRT: the debuggee is not paused"},
        {"000000000103", HS_ERR_NO_RESUME, "RESUME: the debuggee refuses to resume"},
        {"000000000104", HS_ERR_BAD_STACK, "STACK_BITMAP: the debuggee cannot describe"},
    };
    wire_peer p;
    peer_init(&p);
    for (size_t i = 0; i < 5; i++)
        peer_reply_hex(&p, cases[i].frame);
    peer_reply_hex(&p, "0000000a0000" "0000038e000000010001");
    wire_conn *c = peer_start(&p, NULL);
    hs_error err[5] = {{0}};
    hs_status got[5];
    uint64_t u = 0x4f8e28, srt;
    wire_bitmap b;
    got[0] = wire_ccs_main(c, &u, &err[0]);
    got[1] = wire_fork_pause(c, &err[1]);
    got[2] = wire_srts(c, &u, 1, &srt, &err[2]);
    got[3] = wire_resume(c, &err[3]);
    got[4] = wire_stack_bitmap(c, 0x4200207f00, 8, &b, &err[4]);
    for (size_t i = 0; i < 5; i++) {
        cr_assert_eq(got[i], cases[i].status, "case %zu: %s", i, hs_status_name(got[i]));
        cr_assert_eq(err[i].status, cases[i].status);
        cr_assert(strstr(err[i].message, cases[i].message), "case %zu: %s", i,
                  err[i].message);
    }
    cr_assert(wire_conn_is_open(c));
    wire_version v;
    cr_assert_eq(wire_get_version(c, &v, NULL), HS_OK, "still in step after five errors");
    cr_assert_eq(v.major, 910);
    finish(&p, c);
}

/* BAD_COMMAND on a cost-centre request means "not a profiled program" only
 * when VERSION did not say the program is profiled; otherwise the stub is
 * one that does not answer cost-centre requests, and the message says so. */
Test(wire_hostile, cost_centre_refusal_depends_on_version) {
    static const char *const versions[] = {
        "0000000a0000" "0000038e000000010001", /* not profiled */
        "0000000a0000" "0000038e000000010401", /* era profiling */
    };
    for (size_t profiled = 0; profiled < 2; profiled++) {
        wire_peer p;
        peer_init(&p);
        peer_reply_hex(&p, "000000000100"); /* CCS_MAIN before VERSION */
        peer_reply_hex(&p, versions[profiled]);
        peer_reply_hex(&p, "000000000100"); /* CCS_MAIN */
        peer_reply_hex(&p, "000000000100"); /* CCS */
        wire_conn *c = peer_start(&p, NULL);
        hs_error err = {0};
        uint64_t main_ccs;
        wire_version v;
        wire_ccs ccs;
        cr_assert_eq(wire_ccs_main(c, &main_ccs, &err), HS_ERR_BAD_COMMAND);
        cr_assert(strstr(err.message, "not a profiled program, or a stub that does not answer "
                                      "cost-centre requests"),
                  "%s", err.message);
        cr_assert_eq(wire_get_version(c, &v, NULL), HS_OK);
        cr_assert_eq(wire_ccs_main(c, &main_ccs, &err), HS_ERR_BAD_COMMAND);
        const char *want = profiled ? "CCS_MAIN: the debuggee's stub does not answer cost-centre "
                                      "requests (though the program is profiled"
                                    : "CCS_MAIN: the debuggee has no cost centres (not a "
                                      "profiled program)";
        cr_assert(strstr(err.message, want), "%s", err.message);
        cr_assert_eq(wire_get_ccs(c, 0x4d1230, &ccs, &err), HS_ERR_BAD_COMMAND);
        cr_assert(strstr(err.message, profiled ? "does not answer cost-centre requests"
                                               : "refused the request"),
                  "%s", err.message);
        finish(&p, c);
    }
}

Test(wire_hostile, error_frame_body_is_discarded) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000030001" "aabbcc" "000000050102" "0102030405");
    peer_reply_hex(&p, "000000080000" "385a100042000000");
    wire_conn *c = peer_start(&p, NULL);
    wire_ptr_list l;
    hs_error err = {0};
    cr_assert_eq(wire_roots(c, &l, &err), HS_ERR_NOT_PAUSED);
    cr_assert_eq(wire_roots(c, &l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 1);
    cr_assert_eq(l.items[0], 0x4200105a38);
    wire_ptr_list_free(&l);
    finish(&p, c);
}

Test(wire_hostile, already_paused_is_ok_for_pause) {
    wire_peer p;
    wire_conn *c = start_hex(&p, "000000000101", false, NULL);
    bool was = false;
    hs_error err = {0};
    cr_assert_eq(wire_pause(c, &was, &err), HS_OK, "%s", err.message);
    cr_assert(was);
    cr_assert(wire_conn_is_open(c));
    finish(&p, c);
    c = start_hex(&p, "000000000101", false, NULL);
    cr_assert_eq(wire_pause(c, NULL, &err), HS_OK, "was_paused may be NULL");
    finish(&p, c);
}

Test(wire_hostile, raw_block_longer_than_body) {
    /* header says 4096 data bytes, 100 follow */
    bytes b = {0}, body = {0};
    bytes_hex(&body, "0000" "0050100042000000" "00001000");
    uint8_t data[100] = {0};
    bytes_put(&body, data, 100);
    bytes_answer_split(&b, body.data, body.len, 1023, false);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, b.data, b.len, 0);
    wire_conn *c = peer_start(&p, NULL);
    wire_block_list l;
    hs_error err = {0};
    cr_assert_eq(wire_block(c, 0x4200105000, &l, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "BLOCK"), "%s", err.message);
    cr_assert(strstr(err.message, "4096"), "%s", err.message);
    cr_assert_eq(l.count, 0);
    cr_assert_null(l.items);
    finish(&p, c);
    bytes_free(&b);
    bytes_free(&body);
}

Test(wire_hostile, garbage_version_then_fail_fast) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "0000000a0000" "0000038e000000010901");
    peer_reply_hex(&p, "000000000000");
    wire_conn *c = peer_start(&p, NULL);
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "VERSION"), "%s", err.message);
    cr_assert(strstr(err.message, "profiling mode 9"), "%s", err.message);
    cr_assert_not(wire_conn_is_open(c));

    hs_error later = {0};
    cr_assert_eq(wire_resume(c, &later), HS_ERR_CLOSED);
    cr_assert(strstr(later.message, "RESUME: the connection to test peer is closed"), "%s",
              later.message);
    cr_assert(strstr(later.message, "profiling mode 9"), "the first error is quoted: %s",
              later.message);
    wire_close(c);
    peer_join(&p);
    cr_assert_eq(p.request_count, 1, "nothing was sent after the failure");
    peer_free(&p);
}

Test(wire_hostile, bad_tntc_and_wrong_version_length) {
    wire_peer p;
    wire_conn *c = start_hex(&p, "0000000a0000" "0000038e000000010002", false, NULL);
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "tables-next-to-code flag is 2"), "%s", err.message);
    finish(&p, c);
    c = start_hex(&p, "0000000b0000" "0000038e00000001000100", false, NULL);
    cr_assert_eq(wire_get_version(c, &v, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "11 bytes"), "%s", err.message);
    finish(&p, c);
}

Test(wire_hostile, bitmaps_and_counts_checked) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000060000" "000000020002");       /* entry 2 */
    wire_conn *c = peer_start(&p, NULL);
    wire_bitmap b;
    hs_error err = {0};
    cr_assert_eq(wire_stack_bitmap(c, 0x4200207f00, 0, &b, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "expected 0 or 1"), "%s", err.message);
    finish(&p, c);

    c = start_hex(&p, "000000060000" "000000020100", false, NULL); /* 2 of 3 */
    cr_assert_eq(wire_fun_bitmap(c, 0x4200105a38, 3, &b, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "FUN_BITMAP: asked for 3 entries, got 2"), "%s",
              err.message);
    cr_assert_null(b.bits);
    finish(&p, c);

    /* INFO_TABLES answering one record for two pointers */
    c = start_hex(&p, "000000080000" "00000004deadbeef", false, NULL);
    uint64_t infos[2] = {0x4f8e28, 0x4f8e50};
    wire_blobs bl;
    cr_assert_eq(wire_info_tables(c, infos, 2, &bl, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "INFO_TABLES"), "%s", err.message);
    cr_assert_eq(bl.count, 0);
    finish(&p, c);

    /* SRT: a second pointer for one info pointer exceeds the n*8 cap */
    c = start_hex(&p, "000000100000" "00000000000000000000000000000000", false, NULL);
    uint64_t srt;
    cr_assert_eq(wire_srts(c, infos, 1, &srt, &err), HS_ERR_TOO_LARGE);
    finish(&p, c);

    /* PAUSE must answer with an empty body */
    c = start_hex(&p, "000000010000" "00", false, NULL);
    cr_assert_eq(wire_pause(c, NULL, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "PAUSE: expected an empty answer"), "%s", err.message);
    finish(&p, c);

    /* a ROOTS body that is not whole pointers */
    c = start_hex(&p, "000000050000" "0102030405", false, NULL);
    wire_ptr_list l;
    cr_assert_eq(wire_roots(c, &l, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "ROOTS"), "%s", err.message);
    finish(&p, c);
}

Test(wire_hostile, usage_errors_leave_the_connection_alone) {
    wire_peer p;
    wire_conn *c = start_hex(&p, "000000000000", false, NULL);
    wire_blobs bl;
    hs_error err = {0};
    cr_assert_eq(wire_closures(c, NULL, 0, &bl, &err), HS_ERR_USAGE);
    cr_assert(wire_conn_is_open(c));
    cr_assert_eq(wire_resume(c, &err), HS_OK, "%s", err.message);
    finish(&p, c);
}

/* Issue 19: an answer over the connection's cap is a real answer the stub
 * is still writing: it is read to its end and dropped, and the connection
 * stays in step for the next request (the official stub aborts when it
 * writes to a closed connection). A command's own cap (15 bytes of ROOTS
 * above) is no answer a stub sends: that one closes the connection. */
Test(wire_hostile, an_answer_over_the_cap_is_finished_and_the_connection_kept) {
    bytes b = {0};
    uint8_t block[1200];
    memset(block, 0xab, sizeof block);
    bytes_answer_split(&b, block, sizeof block, 100, false);
    wire_peer p;
    peer_init(&p);
    peer_reply(&p, b.data, b.len, 0);
    peer_reply_hex(&p, "000000000000"); /* the RESUME after it */
    wire_conn *c = peer_start(&p, &(wire_options){.max_response = 1000});
    wire_buf body = {0};
    hs_error err = {0};
    cr_assert_eq(wire_call(c, WIRE_CMD_ALL_BLOCKS, NULL, 0, UINT64_MAX, &body, &err),
                 HS_ERR_TOO_LARGE, "%s", err.message);
    cr_assert(strstr(err.message, "would exceed 1000 bytes"), "%s", err.message);
    cr_assert(wire_conn_is_open(c), "the answer was finished: the stream is in step");
    cr_assert_eq(wire_conn_stats(c).bytes_received, b.len, "all of it was read");
    cr_assert_eq(wire_conn_stats(c).drained, 1);
    cr_assert_lt(body.cap, 2048u, "nothing past the cap was kept");
    cr_assert_eq(wire_resume(c, &err), HS_OK, "the next request: %s", err.message);
    wire_buf_free(&body);
    finish(&p, c);
    bytes_free(&b);
}
