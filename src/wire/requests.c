/* Typed requests: encode, call with a cap fitted to the command, decode.
 * A malformed answer closes the connection like any protocol error: a peer
 * that sends garbage cannot be trusted with the next request either. */
#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

/* Answer caps (bytes). The exact sizes come from §7; the others are far
 * above anything a real debuggee sends for that command. */
#define CAP_EMPTY 64u
#define CAP_VERSION 64u
#define CAP_STRINGS ((uint64_t)1024 * 1024)
#define CAP_BITMAP ((uint64_t)64 * 1024 * 1024)
#define CAP_ANY UINT64_MAX /* bounded by the connection's max_response */

/* Starts a request: the connection must exist; c->req is emptied. */
static hs_status begin(wire_conn *c, uint32_t cmd, hs_error *err) {
    if (!c)
        return hs_fail(err, HS_ERR_USAGE, "%s: no connection", wire_command_name(cmd));
    c->req.len = 0;
    return HS_OK;
}

/* Large scratch bodies (big root lists) are not kept between calls. */
static void trim_scratch(wire_conn *c) {
    if (c->scratch.cap > (size_t)16 * 1024 * 1024)
        wire_buf_free(&c->scratch);
}

/* Finishes a typed call whose decoding failed: names the command and
 * closes the connection on a protocol error. */
static hs_status decode_failed(wire_conn *c, uint32_t cmd, hs_status st, hs_error *err) {
    if (err)
        hs_fail_context(err, "%s", wire_command_name(cmd));
    if (st == HS_ERR_PROTOCOL)
        wire_conn_kill(c, err ? err->message : "malformed answer");
    return st;
}

/* Sends c->req and reads the answer into c->scratch. */
static hs_status call_scratch(wire_conn *c, uint32_t cmd, uint64_t cap, hs_error *err) {
    return wire_call_encoded(c, cmd, cap, &c->scratch, c->opts.io_timeout_ms, err);
}

/* For commands whose answer is empty (PAUSE, RESUME, POLL). */
static hs_status expect_empty(wire_conn *c, uint32_t cmd, hs_error *err) {
    if (c->scratch.len == 0)
        return HS_OK;
    hs_status st = hs_fail(err, HS_ERR_PROTOCOL, "expected an empty answer, got %zu bytes",
                           c->scratch.len);
    return decode_failed(c, cmd, st, err);
}

static hs_status version_call(wire_conn *c, int timeout_ms, wire_version *out, hs_error *err) {
    hs_status st = begin(c, WIRE_CMD_VERSION, err);
    if (st == HS_OK)
        st = wire_encode_simple(&c->req, WIRE_CMD_VERSION, err);
    if (st == HS_OK)
        st = wire_call_encoded(c, WIRE_CMD_VERSION, CAP_VERSION, &c->scratch, timeout_ms, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_version(c->scratch.data, c->scratch.len, out, err);
    if (st != HS_OK)
        return decode_failed(c, WIRE_CMD_VERSION, st, err);
    c->have_version = true; /* for the reason of a later refusal (frame.c) */
    c->prof_mode = out->prof_mode;
    return HS_OK;
}

hs_status wire_get_version(wire_conn *c, wire_version *out, hs_error *err) {
    return version_call(c, c ? c->opts.io_timeout_ms : 0, out, err);
}

hs_status wire_hello(wire_conn *c, wire_version *out, hs_error *err) {
    int quick = c ? c->opts.io_timeout_ms : 0;
    /* A connection the stub accepted (seen with sock_diag) is served: wait
     * as for any answer. Elsewhere (tcp:, no sock_diag) the connection may
     * still be queued behind another client: silence says so quickly. */
    if (c) {
        hs_status st = wire_await_accept(c, err);
        if (st != HS_OK)
            return st;
    }
    if (c && c->accepted)
        return version_call(c, quick, out, err);
    if (quick < 0 || quick > WIRE_HELLO_TIMEOUT_MS)
        quick = WIRE_HELLO_TIMEOUT_MS;
    hs_status st = version_call(c, quick, out, err);
    if (st == HS_ERR_TIMEOUT)
        hs_fail(err, HS_ERR_TIMEOUT,
                "%s does not answer: another debugger may be connected to it (no answer to "
                "VERSION within %d ms; a debuggee serves one client at a time, and the "
                "request left queued may kill the program when the other debugger leaves)",
                c->target, quick);
    return st;
}

static hs_status pause_mode(wire_conn *c, bool fork, bool *was_paused, hs_error *err) {
    if (was_paused)
        *was_paused = false;
    hs_status st = begin(c, WIRE_CMD_PAUSE, err);
    if (st == HS_OK)
        st = wire_encode_pause(&c->req, fork, err);
    if (st == HS_OK)
        st = call_scratch(c, WIRE_CMD_PAUSE, CAP_EMPTY, err);
    if (st == HS_ERR_ALREADY_PAUSED && was_paused) {
        *was_paused = true;
        return HS_OK;
    }
    return st == HS_OK ? expect_empty(c, WIRE_CMD_PAUSE, err) : st;
}

hs_status wire_pause(wire_conn *c, bool *was_paused, hs_error *err) {
    bool local;
    return pause_mode(c, false, was_paused ? was_paused : &local, err);
}

hs_status wire_fork_pause(wire_conn *c, hs_error *err) { return pause_mode(c, true, NULL, err); }

hs_status wire_resume(wire_conn *c, hs_error *err) {
    hs_status st = begin(c, WIRE_CMD_RESUME, err);
    if (st == HS_OK)
        st = wire_encode_simple(&c->req, WIRE_CMD_RESUME, err);
    if (st == HS_OK)
        st = call_scratch(c, WIRE_CMD_RESUME, CAP_EMPTY, err);
    return st == HS_OK ? expect_empty(c, WIRE_CMD_RESUME, err) : st;
}

hs_status wire_query_paused(wire_conn *c, bool *paused, hs_error *err) {
    *paused = false;
    /* SRT of no info tables: the stub checks the pause before anything
     * else (§8.3) and answers an empty body when paused, NOT_PAUSED when
     * running; it changes nothing either way. */
    static const uint8_t no_tables[2] = {0, 0};
    hs_status st = begin(c, WIRE_CMD_SRT, err);
    if (st == HS_OK)
        st = wire_encode_request(&c->req, WIRE_CMD_SRT, no_tables, sizeof no_tables, err);
    if (st == HS_OK)
        st = call_scratch(c, WIRE_CMD_SRT, CAP_EMPTY, err);
    if (st == HS_ERR_NOT_PAUSED)
        return HS_OK;
    if (st != HS_OK)
        return st;
    *paused = true;
    return expect_empty(c, WIRE_CMD_SRT, err);
}

hs_status wire_resume_anyway(wire_conn *c, hs_error *err) {
    if (!c)
        return hs_fail(err, HS_ERR_USAGE, "RESUME: no connection");
    if (!wire_conn_is_open(c)) {
        hs_status st = wire_reconnect(c, err);
        if (st != HS_OK)
            return hs_fail_context(err, "cannot resume the debuggee");
    }
    hs_status st = wire_resume(c, err);
    return st == HS_ERR_NOT_PAUSED ? HS_OK : st;
}

hs_status wire_poll(wire_conn *c, int timeout_ms, hs_error *err) {
    hs_status st = begin(c, WIRE_CMD_POLL, err);
    if (st == HS_OK)
        st = wire_encode_simple(&c->req, WIRE_CMD_POLL, err);
    /* The reply comes when the program pauses itself: wait as long as the
     * caller says, not the idle timeout. */
    if (st == HS_OK)
        st = wire_call_encoded(c, WIRE_CMD_POLL, CAP_EMPTY, &c->scratch,
                               timeout_ms < 0 ? -1 : timeout_ms, err);
    return st == HS_OK ? expect_empty(c, WIRE_CMD_POLL, err) : st;
}

static hs_status ptr_list_call(wire_conn *c, uint32_t cmd, wire_ptr_list *out, hs_error *err) {
    *out = (wire_ptr_list){0};
    hs_status st = begin(c, cmd, err);
    if (st == HS_OK)
        st = wire_encode_simple(&c->req, cmd, err);
    if (st == HS_OK)
        st = call_scratch(c, cmd, CAP_ANY, err);
    if (st == HS_OK)
        st = wire_decode_ptrs(c->scratch.data, c->scratch.len, out, err);
    else
        return st;
    trim_scratch(c);
    return st == HS_OK ? st : decode_failed(c, cmd, st, err);
}

hs_status wire_roots(wire_conn *c, wire_ptr_list *out, hs_error *err) {
    return ptr_list_call(c, WIRE_CMD_ROOTS, out, err);
}

hs_status wire_saved_objects(wire_conn *c, wire_ptr_list *out, hs_error *err) {
    return ptr_list_call(c, WIRE_CMD_SAVED_OBJECTS, out, err);
}

/* CLOSURES / INFO_TABLES: the answer buffer moves into out. */
static hs_status blobs_call(wire_conn *c, uint32_t cmd, const uint64_t *ptrs, size_t n,
                            wire_blobs *out, hs_error *err) {
    *out = (wire_blobs){0};
    hs_status st = begin(c, cmd, err);
    if (st == HS_OK)
        st = wire_encode_ptr_list(&c->req, cmd, ptrs, n, err);
    wire_buf body = {0};
    if (st == HS_OK)
        st = wire_call_encoded(c, cmd, CAP_ANY, &body, c->opts.io_timeout_ms, err);
    if (st != HS_OK) {
        wire_buf_free(&body);
        return st;
    }
    st = wire_decode_blobs(&body, n, out, err); /* takes body either way */
    return st == HS_OK ? st : decode_failed(c, cmd, st, err);
}

hs_status wire_closures(wire_conn *c, const uint64_t *ptrs, size_t n, wire_blobs *out,
                        hs_error *err) {
    return blobs_call(c, WIRE_CMD_CLOSURES, ptrs, n, out, err);
}

hs_status wire_info_tables(wire_conn *c, const uint64_t *infos, size_t n, wire_blobs *out,
                           hs_error *err) {
    return blobs_call(c, WIRE_CMD_INFO_TABLES, infos, n, out, err);
}

hs_status wire_srts(wire_conn *c, const uint64_t *infos, size_t n, uint64_t *out,
                    hs_error *err) {
    hs_status st = begin(c, WIRE_CMD_SRT, err);
    if (st == HS_OK)
        st = wire_encode_ptr_list(&c->req, WIRE_CMD_SRT, infos, n, err);
    if (st == HS_OK)
        st = call_scratch(c, WIRE_CMD_SRT, (uint64_t)n * 8, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_srts(c->scratch.data, c->scratch.len, n, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_SRT, st, err);
}

static hs_status bitmap_call(wire_conn *c, uint32_t cmd, wire_bitmap *out, hs_error *err) {
    hs_status st = call_scratch(c, cmd, CAP_BITMAP, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_bitmap(c->scratch.data, c->scratch.len, out, err);
    trim_scratch(c);
    return st == HS_OK ? st : decode_failed(c, cmd, st, err);
}

hs_status wire_stack_bitmap(wire_conn *c, uint64_t sp, uint32_t offset, wire_bitmap *out,
                            hs_error *err) {
    *out = (wire_bitmap){0};
    hs_status st = begin(c, WIRE_CMD_STACK_BITMAP, err);
    if (st == HS_OK)
        st = wire_encode_stack_bitmap(&c->req, sp, offset, err);
    return st == HS_OK ? bitmap_call(c, WIRE_CMD_STACK_BITMAP, out, err) : st;
}

hs_status wire_fun_bitmap(wire_conn *c, uint64_t fun, uint16_t n, wire_bitmap *out,
                          hs_error *err) {
    *out = (wire_bitmap){0};
    hs_status st = begin(c, WIRE_CMD_FUN_BITMAP, err);
    if (st == HS_OK)
        st = wire_encode_fun_bitmap(&c->req, fun, n, err);
    if (st == HS_OK)
        st = bitmap_call(c, WIRE_CMD_FUN_BITMAP, out, err);
    if (st != HS_OK || out->count == n)
        return st;
    size_t got = out->count;
    wire_bitmap_free(out);
    st = hs_fail(err, HS_ERR_PROTOCOL, "asked for %u entries, got %zu", n, got);
    return decode_failed(c, WIRE_CMD_FUN_BITMAP, st, err);
}

/* CON_DESC, SOURCE_INFO, CCS, CC, INDEX_TABLE, BLOCK requests share this:
 * one PTR in, the answer in c->scratch. */
static hs_status one_ptr_call(wire_conn *c, uint32_t cmd, uint64_t ptr, uint64_t cap,
                              hs_error *err) {
    hs_status st = begin(c, cmd, err);
    if (st == HS_OK)
        st = wire_encode_one_ptr(&c->req, cmd, ptr, err);
    return st == HS_OK ? call_scratch(c, cmd, cap, err) : st;
}

hs_status wire_get_con_desc(wire_conn *c, uint64_t info, wire_con_desc *out, hs_error *err) {
    *out = (wire_con_desc){0};
    hs_status st = one_ptr_call(c, WIRE_CMD_CON_DESC, info, CAP_STRINGS, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_con_desc(c->scratch.data, c->scratch.len, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_CON_DESC, st, err);
}

hs_status wire_get_source_info(wire_conn *c, uint64_t info, wire_source_info *out,
                               hs_error *err) {
    *out = (wire_source_info){0};
    hs_status st = one_ptr_call(c, WIRE_CMD_SOURCE_INFO, info, CAP_STRINGS, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_source_info(c->scratch.data, c->scratch.len, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_SOURCE_INFO, st, err);
}

hs_status wire_get_ccs(wire_conn *c, uint64_t ccs, wire_ccs *out, hs_error *err) {
    *out = (wire_ccs){0};
    hs_status st = one_ptr_call(c, WIRE_CMD_CCS, ccs, 96, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_ccs(c->scratch.data, c->scratch.len, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_CCS, st, err);
}

hs_status wire_get_cc(wire_conn *c, uint64_t cc, wire_cc *out, hs_error *err) {
    *out = (wire_cc){0};
    hs_status st = one_ptr_call(c, WIRE_CMD_CC, cc, CAP_STRINGS, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_cc(c->scratch.data, c->scratch.len, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_CC, st, err);
}

hs_status wire_index_table(wire_conn *c, uint64_t table, wire_index_entry *out, hs_error *err) {
    *out = (wire_index_entry){0};
    hs_status st = one_ptr_call(c, WIRE_CMD_INDEX_TABLE, table, 25, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_index_entry(c->scratch.data, c->scratch.len, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_INDEX_TABLE, st, err);
}

hs_status wire_ccs_main(wire_conn *c, uint64_t *out, hs_error *err) {
    *out = 0;
    hs_status st = begin(c, WIRE_CMD_CCS_MAIN, err);
    if (st == HS_OK)
        st = wire_encode_simple(&c->req, WIRE_CMD_CCS_MAIN, err);
    if (st == HS_OK)
        st = call_scratch(c, WIRE_CMD_CCS_MAIN, 8, err);
    if (st != HS_OK)
        return st;
    st = wire_decode_one_ptr(c->scratch.data, c->scratch.len, out, err);
    return st == HS_OK ? st : decode_failed(c, WIRE_CMD_CCS_MAIN, st, err);
}

/* ALL_BLOCKS / BLOCK: the answer buffer moves into out. */
static hs_status blocks_call(wire_conn *c, uint32_t cmd, wire_block_list *out, hs_error *err) {
    wire_buf body = {0};
    hs_status st = wire_call_encoded(c, cmd, CAP_ANY, &body, c->opts.io_timeout_ms, err);
    if (st != HS_OK) {
        wire_buf_free(&body);
        return st;
    }
    /* Give back the growth slack of a big answer before it is kept. */
    if (body.cap - body.len > WIRE_BODY_STEP && body.len > 0) {
        uint8_t *shrunk = realloc(body.data, body.len);
        if (shrunk) {
            body.data = shrunk;
            body.cap = body.len;
        }
    }
    st = wire_decode_blocks(&body, out, err); /* takes body either way */
    return st == HS_OK ? st : decode_failed(c, cmd, st, err);
}

hs_status wire_all_blocks(wire_conn *c, wire_block_list *out, hs_error *err) {
    *out = (wire_block_list){0};
    hs_status st = begin(c, WIRE_CMD_ALL_BLOCKS, err);
    if (st == HS_OK)
        st = wire_encode_simple(&c->req, WIRE_CMD_ALL_BLOCKS, err);
    return st == HS_OK ? blocks_call(c, WIRE_CMD_ALL_BLOCKS, out, err) : st;
}

hs_status wire_block(wire_conn *c, uint64_t addr, wire_block_list *out, hs_error *err) {
    *out = (wire_block_list){0};
    hs_status st = begin(c, WIRE_CMD_BLOCK, err);
    if (st == HS_OK)
        st = wire_encode_one_ptr(&c->req, WIRE_CMD_BLOCK, addr, err);
    if (st == HS_OK)
        st = blocks_call(c, WIRE_CMD_BLOCK, out, err);
    if (st != HS_OK || out->count == 1)
        return st;
    size_t got = out->count;
    wire_block_list_free(out);
    st = hs_fail(err, HS_ERR_PROTOCOL, "expected one block, got %zu", got);
    return decode_failed(c, WIRE_CMD_BLOCK, st, err);
}
