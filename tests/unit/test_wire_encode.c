/* Request encoders: exact bytes of wire-protocol.md §4 / §12.1. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"
#include "vectors.h"

static void assert_bytes(const wire_buf *b, const char *hex, const char *what) {
    uint8_t *want;
    size_t n = hex_decode(hex, &want);
    cr_assert_neq(n, (size_t)-1, "bad hex for %s", what);
    cr_assert_eq(b->len, n, "%s: %zu bytes, expected %zu", what, b->len, n);
    cr_assert(memcmp(b->data, want, n) == 0, "%s: bytes differ", what);
    free(want);
}

/* Encodes the request a vectors.json key names; false for unknown keys. */
static bool encode_named(const char *key, wire_buf *out, hs_error *err) {
    uint64_t p = 0;
    hs_status st;
    if (strcmp(key, "VERSION") == 0)
        st = wire_encode_simple(out, WIRE_CMD_VERSION, err);
    else if (strcmp(key, "PAUSE (pause)") == 0)
        st = wire_encode_pause(out, false, err);
    else if (strcmp(key, "PAUSE (fork)") == 0)
        st = wire_encode_pause(out, true, err);
    else if (strcmp(key, "RESUME") == 0)
        st = wire_encode_simple(out, WIRE_CMD_RESUME, err);
    else if (strcmp(key, "ROOTS") == 0)
        st = wire_encode_simple(out, WIRE_CMD_ROOTS, err);
    else if (strcmp(key, "CLOSURES for 0x4200105a38") == 0)
        p = 0x4200105a38, st = wire_encode_ptr_list(out, WIRE_CMD_CLOSURES, &p, 1, err);
    else if (strcmp(key, "INFO_TABLES for 0x4f8e28") == 0)
        p = 0x4f8e28, st = wire_encode_ptr_list(out, WIRE_CMD_INFO_TABLES, &p, 1, err);
    else if (strcmp(key, "SOURCE_INFO for 0x4f8e28") == 0)
        st = wire_encode_one_ptr(out, WIRE_CMD_SOURCE_INFO, 0x4f8e28, err);
    else if (strcmp(key, "CON_DESC for 0x4f8e28") == 0)
        st = wire_encode_one_ptr(out, WIRE_CMD_CON_DESC, 0x4f8e28, err);
    else if (strcmp(key, "SRT for 0x4f8e28") == 0)
        p = 0x4f8e28, st = wire_encode_ptr_list(out, WIRE_CMD_SRT, &p, 1, err);
    else if (strcmp(key, "BLOCK for 0x4200105a38") == 0)
        st = wire_encode_one_ptr(out, WIRE_CMD_BLOCK, 0x4200105a38, err);
    else if (strcmp(key, "STACK_BITMAP sp=0x4200207f00 off=0x18") == 0)
        st = wire_encode_stack_bitmap(out, 0x4200207f00, 0x18, err);
    else if (strcmp(key, "FUN_BITMAP fun=0x4200105a38 n=3") == 0)
        st = wire_encode_fun_bitmap(out, 0x4200105a38, 3, err);
    else if (strcmp(key, "POLL") == 0)
        st = wire_encode_simple(out, WIRE_CMD_POLL, err);
    else if (strcmp(key, "SAVED_OBJECTS") == 0)
        st = wire_encode_simple(out, WIRE_CMD_SAVED_OBJECTS, err);
    else if (strcmp(key, "ALL_BLOCKS") == 0)
        st = wire_encode_simple(out, WIRE_CMD_ALL_BLOCKS, err);
    else if (strcmp(key, "CCS_MAIN") == 0)
        st = wire_encode_simple(out, WIRE_CMD_CCS_MAIN, err);
    else
        return false;
    cr_assert_eq(st, HS_OK, "%s: %s", key, err->message);
    return true;
}

Test(wire_encode, every_request_vector) {
    vector_set v;
    cr_assert_eq(vectors_load(HEAPSCOPE_VECTORS, &v), 0);
    size_t seen = 0;
    for (size_t i = 0; i < v.count; i++) {
        if (strcmp(v.items[i].section, "requests") != 0)
            continue;
        wire_buf out = {0};
        hs_error err = {0};
        cr_assert(encode_named(v.items[i].key, &out, &err),
                  "request vector '%s' has no encoder in this test", v.items[i].key);
        assert_bytes(&out, v.items[i].value, v.items[i].key);
        wire_buf_free(&out);
        seen++;
    }
    cr_assert_eq(seen, 17, "expected the 17 request vectors of §12.1, saw %zu", seen);
    vectors_free(&v);
}

Test(wire_encode, appends_to_existing_bytes) {
    wire_buf out = {0};
    cr_assert_eq(wire_encode_simple(&out, WIRE_CMD_VERSION, NULL), HS_OK);
    cr_assert_eq(wire_encode_pause(&out, false, NULL), HS_OK);
    assert_bytes(&out, "0000000400000001000000050000000200", "VERSION then PAUSE");
    wire_buf_free(&out);
}

Test(wire_encode, generic_request_counts_cmd_in_len) {
    wire_buf out = {0};
    const uint8_t payload[3] = {0xaa, 0xbb, 0xcc};
    cr_assert_eq(wire_encode_request(&out, 0x0d, payload, 3, NULL), HS_OK);
    assert_bytes(&out, "000000070000000daabbcc", "raw request");
    out.len = 0;
    cr_assert_eq(wire_encode_request(&out, 0x0a, NULL, 0, NULL), HS_OK);
    assert_bytes(&out, "000000040000000a", "raw empty request");
    wire_buf_free(&out);
}

Test(wire_encode, closure_pointers_are_untagged) {
    wire_buf out = {0};
    uint64_t ptrs[2] = {0x4200105a51, 0x4200105a6f};
    cr_assert_eq(wire_encode_ptr_list(&out, WIRE_CMD_CLOSURES, ptrs, 2, NULL), HS_OK);
    assert_bytes(&out,
                 "00000016000000050002"
                 "505a100042000000"
                 "685a100042000000",
                 "CLOSURES of two tagged pointers");
    out.len = 0;
    cr_assert_eq(wire_encode_fun_bitmap(&out, 0x4200105a3a, 2, NULL), HS_OK);
    assert_bytes(&out, "0000000e00000010385a1000420000000002", "FUN_BITMAP of a tagged FUN");
    wire_buf_free(&out);
}

Test(wire_encode, pointer_count_must_be_1_to_65535) {
    wire_buf out = {0};
    hs_error err = {0};
    uint64_t one = 0x4f8e28;
    cr_assert_eq(wire_encode_ptr_list(&out, WIRE_CMD_CLOSURES, &one, 0, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "1..65535"), "message: %s", err.message);
    cr_assert_eq(out.len, 0, "nothing is written on error");

    uint64_t *many = calloc(65536, sizeof *many);
    cr_assert_not_null(many);
    for (size_t i = 0; i < 65536; i++)
        many[i] = 0x4200000000 + 16 * i;
    cr_assert_eq(wire_encode_ptr_list(&out, WIRE_CMD_INFO_TABLES, many, 65536, &err),
                 HS_ERR_USAGE);
    cr_assert_eq(out.len, 0);

    cr_assert_eq(wire_encode_ptr_list(&out, WIRE_CMD_SRT, many, 65535, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(out.len, 4 + 4 + 2 + 8 * 65535);
    cr_assert_eq(hs_load_be32(out.data), 4 + 2 + 8 * 65535);
    cr_assert_eq(hs_load_be32(out.data + 4), WIRE_CMD_SRT);
    cr_assert_eq(hs_load_be16(out.data + 8), 65535);
    cr_assert_eq(hs_load_le64(out.data + 10), 0x4200000000);
    cr_assert_eq(hs_load_le64(out.data + 10 + 8 * 65534), 0x4200000000 + 16 * 65534);
    free(many);
    wire_buf_free(&out);
}

Test(wire_encode, wrong_command_for_encoder_is_usage) {
    wire_buf out = {0};
    uint64_t p = 8;
    cr_assert_eq(wire_encode_simple(&out, WIRE_CMD_CLOSURES, NULL), HS_ERR_USAGE);
    cr_assert_eq(wire_encode_simple(&out, WIRE_CMD_PAUSE, NULL), HS_ERR_USAGE);
    cr_assert_eq(wire_encode_one_ptr(&out, WIRE_CMD_ROOTS, p, NULL), HS_ERR_USAGE);
    cr_assert_eq(wire_encode_ptr_list(&out, WIRE_CMD_BLOCK, &p, 1, NULL), HS_ERR_USAGE);
    cr_assert_eq(wire_encode_ptr_list(&out, WIRE_CMD_CLOSURES, NULL, 1, NULL), HS_ERR_USAGE);
    cr_assert_eq(out.len, 0);
    wire_buf_free(&out);
}

Test(wire_encode, one_ptr_commands_have_their_ids) {
    const uint32_t cmds[] = {WIRE_CMD_CON_DESC, WIRE_CMD_SOURCE_INFO, WIRE_CMD_BLOCK,
                             WIRE_CMD_CCS,      WIRE_CMD_CC,          WIRE_CMD_INDEX_TABLE};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        wire_buf out = {0};
        cr_assert_eq(wire_encode_one_ptr(&out, cmds[i], 0x1122334455667788, NULL), HS_OK);
        cr_assert_eq(out.len, 16);
        cr_assert_eq(hs_load_be32(out.data), 12);
        cr_assert_eq(hs_load_be32(out.data + 4), cmds[i]);
        cr_assert_eq(out.data[8], 0x88, "PTR is little-endian");
        cr_assert_eq(hs_load_le64(out.data + 8), 0x1122334455667788);
        wire_buf_free(&out);
    }
}

Test(wire_encode, status_codes_and_names) {
    cr_assert_eq(wire_status_to_hs(0x0000), HS_OK);
    cr_assert_eq(wire_status_to_hs(0x0001), HS_OK);
    cr_assert_eq(wire_status_to_hs(0x0100), HS_ERR_BAD_COMMAND);
    cr_assert_eq(wire_status_to_hs(0x0101), HS_ERR_ALREADY_PAUSED);
    cr_assert_eq(wire_status_to_hs(0x0102), HS_ERR_NOT_PAUSED);
    cr_assert_eq(wire_status_to_hs(0x0103), HS_ERR_NO_RESUME);
    cr_assert_eq(wire_status_to_hs(0x0104), HS_ERR_BAD_STACK);
    cr_assert_eq(wire_status_to_hs(0x0105), HS_ERR_PROTOCOL);
    cr_assert_eq(wire_status_to_hs(0x1234), HS_ERR_PROTOCOL);
    cr_assert_str_eq(wire_command_name(WIRE_CMD_ROOTS), "ROOTS");
    cr_assert_str_eq(wire_command_name(WIRE_CMD_CCS_MAIN), "CCS_MAIN");
    cr_assert_str_eq(wire_command_name(WIRE_CMD_STACK_BITMAP), "STACK_BITMAP");
    cr_assert_str_eq(wire_command_name(13), "unknown command");
}
