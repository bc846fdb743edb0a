/* Request encoders (wire-protocol.md §4, §6): u32 BE LEN, u32 BE CMD,
 * payload, with LEN = 4 + payload length. Pure: no I/O. */
#include <string.h>

#include "wire_internal.h"

/* Reserves a whole request of payload_len bytes in out and writes its
 * 8-byte header. Returns where the payload goes, or NULL with *st set. */
static uint8_t *begin_request(wire_buf *out, uint32_t cmd, size_t payload_len, hs_status *st,
                              hs_error *err) {
    if (!out) {
        *st = hs_fail(err, HS_ERR_USAGE, "%s: no output buffer", wire_command_name(cmd));
        return NULL;
    }
    if (payload_len > UINT32_MAX - 4) {
        *st = hs_fail(err, HS_ERR_USAGE, "%s: a payload of %zu bytes does not fit the u32 length",
                      wire_command_name(cmd), payload_len);
        return NULL;
    }
    *st = wire_buf_reserve(out, 8 + payload_len, err);
    if (*st != HS_OK)
        return NULL;
    uint8_t *p = out->data + out->len;
    hs_store_be32(p, (uint32_t)(4 + payload_len));
    hs_store_be32(p + 4, cmd);
    out->len += 8 + payload_len;
    return p + 8;
}

hs_status wire_encode_request(wire_buf *out, uint32_t cmd, const uint8_t *payload,
                              size_t payload_len, hs_error *err) {
    if (payload_len > 0 && !payload)
        return hs_fail(err, HS_ERR_USAGE, "%s: payload of %zu bytes is NULL",
                       wire_command_name(cmd), payload_len);
    hs_status st;
    uint8_t *dst = begin_request(out, cmd, payload_len, &st, err);
    if (!dst)
        return st;
    if (payload_len > 0)
        memcpy(dst, payload, payload_len);
    return HS_OK;
}

hs_status wire_encode_simple(wire_buf *out, uint32_t cmd, hs_error *err) {
    switch (cmd) {
    case WIRE_CMD_VERSION:
    case WIRE_CMD_RESUME:
    case WIRE_CMD_ROOTS:
    case WIRE_CMD_POLL:
    case WIRE_CMD_SAVED_OBJECTS:
    case WIRE_CMD_ALL_BLOCKS:
    case WIRE_CMD_CCS_MAIN: break;
    default:
        return hs_fail(err, HS_ERR_USAGE, "%s (%u) is not a command without payload",
                       wire_command_name(cmd), cmd);
    }
    return wire_encode_request(out, cmd, NULL, 0, err);
}

hs_status wire_encode_pause(wire_buf *out, bool fork, hs_error *err) {
    const uint8_t mode = fork ? 1 : 0;
    return wire_encode_request(out, WIRE_CMD_PAUSE, &mode, 1, err);
}

hs_status wire_encode_ptr_list(wire_buf *out, uint32_t cmd, const uint64_t *ptrs, size_t n,
                               hs_error *err) {
    if (cmd != WIRE_CMD_CLOSURES && cmd != WIRE_CMD_INFO_TABLES && cmd != WIRE_CMD_SRT)
        return hs_fail(err, HS_ERR_USAGE, "%s (%u) does not take a pointer list",
                       wire_command_name(cmd), cmd);
    if (n < 1 || n > WIRE_MAX_PTRS_PER_REQUEST)
        return hs_fail(err, HS_ERR_USAGE, "%s: %zu pointers requested; the count must be 1..%u",
                       wire_command_name(cmd), n, WIRE_MAX_PTRS_PER_REQUEST);
    if (!ptrs)
        return hs_fail(err, HS_ERR_USAGE, "%s: pointer list is NULL", wire_command_name(cmd));
    hs_status st;
    uint8_t *p = begin_request(out, cmd, 2 + 8 * n, &st, err);
    if (!p)
        return st;
    hs_store_be16(p, (uint16_t)n);
    p += 2;
    /* Closure pointers may carry a pointer tag; the stub wants the address.
     * Info pointers are passed through as given. */
    const bool untag = cmd == WIRE_CMD_CLOSURES;
    for (size_t i = 0; i < n; i++, p += 8)
        hs_store_le64(p, untag ? wire_untag(ptrs[i]) : ptrs[i]);
    return HS_OK;
}

hs_status wire_encode_one_ptr(wire_buf *out, uint32_t cmd, uint64_t ptr, hs_error *err) {
    switch (cmd) {
    case WIRE_CMD_CON_DESC:
    case WIRE_CMD_SOURCE_INFO:
    case WIRE_CMD_BLOCK:
    case WIRE_CMD_CCS:
    case WIRE_CMD_CC:
    case WIRE_CMD_INDEX_TABLE: break;
    default:
        return hs_fail(err, HS_ERR_USAGE, "%s (%u) does not take a single pointer",
                       wire_command_name(cmd), cmd);
    }
    hs_status st;
    uint8_t *p = begin_request(out, cmd, 8, &st, err);
    if (!p)
        return st;
    hs_store_le64(p, ptr);
    return HS_OK;
}

hs_status wire_encode_stack_bitmap(wire_buf *out, uint64_t sp, uint32_t offset, hs_error *err) {
    hs_status st;
    uint8_t *p = begin_request(out, WIRE_CMD_STACK_BITMAP, 12, &st, err);
    if (!p)
        return st;
    hs_store_le64(p, sp); /* a stack pointer, never tagged */
    hs_store_be32(p + 8, offset);
    return HS_OK;
}

hs_status wire_encode_fun_bitmap(wire_buf *out, uint64_t fun, uint16_t n, hs_error *err) {
    hs_status st;
    uint8_t *p = begin_request(out, WIRE_CMD_FUN_BITMAP, 10, &st, err);
    if (!p)
        return st;
    /* fun is a closure pointer; a FUN's tag is its arity, not part of it. */
    hs_store_le64(p, wire_untag(fun));
    hs_store_be16(p + 8, n);
    return HS_OK;
}
