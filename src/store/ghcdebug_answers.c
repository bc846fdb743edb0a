/* The answers of a ghc-debug snapshot: checked once when the file is
 * opened (gd_scan_answer), decoded when asked. Encodings: the table at the
 * top of ghcdebug_file.c. Where the cache encoding equals the wire's, the
 * wire decoders do the work, so a snapshot answer means what the same
 * answer means live. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghcdebug_internal.h"
#include "heapscope/bytes.h"

#define MAX_STRING_BYTES (UINT32_C(1) << 24) /* one string of an answer */

static hs_status ends(const char *what, hs_error *err) {
    return hs_fail(err, HS_ERR_PROTOCOL, "the file ends inside %s", what);
}

/* An i64 BE count of elements taking at least `each` bytes. */
static hs_status scan_count(gd_reader *r, size_t each, const char *what, uint64_t *n,
                            hs_error *err) {
    if (!gd_has(r, 8))
        return ends(what, err);
    uint64_t v = hs_load_be64(gd_take(r, 8));
    if (v > (uint64_t)INT64_MAX || v > r->left / each)
        return hs_fail(err, HS_ERR_PROTOCOL, "%s announces %lld elements, %zu bytes are left",
                       what, (long long)(int64_t)v, r->left);
    *n = v;
    return HS_OK;
}

/* A u32 / i32 BE length then that many bytes. */
static hs_status scan_sized(gd_reader *r, bool is_signed, uint32_t cap, const char *what,
                            hs_error *err) {
    if (!gd_has(r, 4))
        return ends(what, err);
    uint32_t n = hs_load_be32(gd_take(r, 4));
    if (is_signed && n > INT32_MAX)
        return hs_fail(err, HS_ERR_PROTOCOL, "%s has a negative length", what);
    if (n > cap || !gd_has(r, n))
        return hs_fail(err, HS_ERR_PROTOCOL, "%s announces %u bytes, %zu are left", what, n,
                       r->left);
    gd_take(r, n);
    return HS_OK;
}

/* A Data.Binary String whose characters are bytes (C8.unpack): each is
 * one UTF-8 byte below 0x80 or two bytes C2/C3 + continuation. Appends the
 * bytes to out when out is non-NULL (room for the count is enough). */
static hs_status scan_byte_string(gd_reader *r, char *out, size_t *out_len, hs_error *err) {
    uint64_t n;
    hs_status st = scan_count(r, 1, "a constructor description", &n, err);
    for (uint64_t i = 0; st == HS_OK && i < n; i++) {
        if (!gd_has(r, 1))
            return ends("a constructor description", err);
        uint8_t b = *gd_take(r, 1), ch = b;
        if (b >= 0x80) {
            if ((b != 0xc2 && b != 0xc3) || !gd_has(r, 1) || (r->p[0] & 0xc0) != 0x80)
                return hs_fail(err, HS_ERR_PROTOCOL,
                               "a constructor description has a character that is not one "
                               "byte");
            ch = (uint8_t)((b & 0x03) << 6 | (*gd_take(r, 1) & 0x3f));
        }
        if (ch == 0)
            return hs_fail(err, HS_ERR_PROTOCOL, "a constructor description contains NUL");
        if (out)
            out[(*out_len)++] = (char)ch;
    }
    return st;
}

static hs_status scan_blocks(gd_reader *r, uint64_t n, hs_error *err) {
    for (uint64_t i = 0; i < n; i++) {
        if (!gd_has(r, 10))
            return ends("a block header", err);
        gd_take(r, 10); /* flags, start */
        hs_status st = scan_sized(r, true, UINT32_MAX, "a block", err);
        if (st != HS_OK)
            return st;
    }
    return HS_OK;
}

/* Fixed-size answers; 0 = not fixed. */
static size_t fixed_size(uint8_t cmd) {
    switch (cmd) {
    case WIRE_CMD_VERSION: return 10;
    case WIRE_CMD_CCS: return 96;
    case WIRE_CMD_INDEX_TABLE: return 25;
    case WIRE_CMD_CCS_MAIN: return 8;
    default: return 0;
    }
}

/* Decodes a scanned answer once to check what the wire decoders check. */
static hs_status check_decoded(uint8_t cmd, const uint8_t *p, size_t len, hs_error *err) {
    hs_status st = HS_OK;
    switch (cmd) {
    case WIRE_CMD_VERSION: {
        wire_version v;
        st = wire_decode_version(p, len, &v, err);
        break;
    }
    case WIRE_CMD_SOURCE_INFO: {
        wire_source_info si;
        st = wire_decode_source_info(p, len, &si, err);
        wire_source_info_free(&si);
        break;
    }
    case WIRE_CMD_STACK_BITMAP:
    case WIRE_CMD_FUN_BITMAP: {
        wire_bitmap b = {0};
        st = wire_decode_bitmap(p, len, &b, err);
        wire_bitmap_free(&b);
        break;
    }
    case WIRE_CMD_CC: {
        uint64_t caf = hs_load_le64(p + len - 16);
        if (caf > 1)
            return hs_fail(err, HS_ERR_PROTOCOL, "a cost centre's CAF flag is %llu",
                           (unsigned long long)caf);
        wire_cc cc;
        st = wire_decode_cc(p, len, &cc, err);
        wire_cc_free(&cc);
        break;
    }
    case WIRE_CMD_INDEX_TABLE:
        if (p[24] > 1)
            return hs_fail(err, HS_ERR_PROTOCOL, "an index entry's back-edge flag is %u", p[24]);
        break;
    default:
        break;
    }
    return st;
}

hs_status gd_scan_answer(uint8_t cmd, gd_reader *r, hs_error *err) {
    const uint8_t *start = r->p;
    size_t fixed = fixed_size(cmd);
    uint64_t n = 0;
    hs_status st = HS_OK;
    if (fixed) {
        if (!gd_has(r, fixed))
            return ends("a fixed-size answer", err);
        gd_take(r, fixed);
    } else {
        switch (cmd) {
        case WIRE_CMD_PAUSE: case WIRE_CMD_RESUME: case WIRE_CMD_POLL:
            break; /* () */
        case WIRE_CMD_ROOTS: case WIRE_CMD_SAVED_OBJECTS:
            st = scan_count(r, 8, "a pointer list", &n, err);
            if (st == HS_OK)
                gd_take(r, (size_t)n * 8);
            break;
        case WIRE_CMD_CLOSURES:
            st = scan_sized(r, false, UINT32_MAX, "a closure", err);
            break;
        case WIRE_CMD_INFO_TABLES:
            st = scan_sized(r, true, UINT32_MAX, "an info table", err);
            break;
        case WIRE_CMD_SRT:
            if (!gd_has(r, 1))
                return ends("an SRT answer", err);
            uint8_t tag = *gd_take(r, 1);
            if (tag > 1)
                return hs_fail(err, HS_ERR_PROTOCOL, "an SRT answer with tag %u", tag);
            if (tag == 1 && !gd_has(r, 8))
                return ends("an SRT answer", err);
            if (tag == 1 && wire_untag(hs_load_le64(gd_take(r, 8))) == 0)
                return hs_fail(err, HS_ERR_PROTOCOL, "an SRT answer names address 0");
            break;
        case WIRE_CMD_STACK_BITMAP: case WIRE_CMD_FUN_BITMAP:
            st = scan_sized(r, false, UINT32_MAX, "a bitmap", err);
            break;
        case WIRE_CMD_CON_DESC:
            for (int i = 0; i < 3 && st == HS_OK; i++)
                st = scan_byte_string(r, NULL, NULL, err);
            break;
        case WIRE_CMD_SOURCE_INFO:
            if (!gd_has(r, 4))
                return ends("a source-info answer", err);
            n = hs_load_be32(gd_take(r, 4));
            if (n != 0 && n != 6)
                return hs_fail(err, HS_ERR_PROTOCOL, "a source-info answer with %llu fields",
                               (unsigned long long)n);
            for (uint64_t i = 0; i < n && st == HS_OK; i++)
                st = scan_sized(r, true, MAX_STRING_BYTES, "a source-info string", err);
            break;
        case WIRE_CMD_ALL_BLOCKS:
            st = scan_count(r, 14, "the block list", &n, err);
            if (st == HS_OK)
                st = scan_blocks(r, n, err);
            break;
        case WIRE_CMD_BLOCK:
            st = scan_blocks(r, 1, err);
            break;
        case WIRE_CMD_CC:
            if (!gd_has(r, 8))
                return ends("a cost-centre answer", err);
            gd_take(r, 8);
            for (int i = 0; i < 3 && st == HS_OK; i++)
                st = scan_sized(r, true, MAX_STRING_BYTES, "a cost-centre string", err);
            if (st == HS_OK && !gd_has(r, 32))
                return ends("a cost-centre answer", err);
            if (st == HS_OK)
                gd_take(r, 32);
            break;
        default:
            return hs_fail(err, HS_ERR_INTERNAL, "no answer layout for command %u", cmd);
        }
    }
    if (st != HS_OK)
        return st;
    return check_decoded(cmd, start, (size_t)(r->p - start), err);
}

hs_status gd_decode_ptr_list(const uint8_t *p, size_t len, wire_ptr_list *out, hs_error *err) {
    return wire_decode_ptrs(p + 8, len - 8, out, err); /* after the i64 count */
}

hs_status gd_decode_con_desc(const uint8_t *p, size_t len, wire_con_desc *out, hs_error *err) {
    *out = (wire_con_desc){0};
    char *parts[3] = {NULL, NULL, NULL};
    size_t lens[3] = {0, 0, 0};
    gd_reader r = {p, len};
    hs_status st = HS_OK;
    for (int i = 0; i < 3 && st == HS_OK; i++) {
        /* at most one byte out per character, and fewer characters than bytes */
        if (!(parts[i] = malloc(len + 1)))
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory for a constructor description");
        else
            st = scan_byte_string(&r, parts[i], &lens[i], err);
    }
    if (st == HS_OK) {
        for (int i = 0; i < 3; i++)
            parts[i][lens[i]] = '\0';
        /* ghc-debug keeps the three parts; its parser puts the whole text in
         * the name when any part is empty, so the text is one or the other */
        bool split = lens[0] > 0 && lens[1] > 0 && lens[2] > 0;
        size_t raw_len = split ? lens[0] + 1 + lens[1] + 1 + lens[2] : lens[2];
        char *raw = malloc(raw_len + 1);
        if (!raw) {
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory for a constructor description");
        } else {
            if (split)
                snprintf(raw, raw_len + 1, "%s:%s.%s", parts[0], parts[1], parts[2]);
            else
                memcpy(raw, parts[2], raw_len + 1);
            *out = (wire_con_desc){.raw = raw, .package = parts[0], .module = parts[1],
                                   .name = parts[2]};
            return HS_OK;
        }
    }
    for (int i = 0; i < 3; i++)
        free(parts[i]);
    return st;
}

/* ---- lookups --------------------------------------------------------- */

/* What a request asks for, in the words heapscope's own snapshots use when
 * they lack it (a converted copy then says the same). */
static const char *asked_for(uint8_t cmd) {
    switch (cmd) {
    case WIRE_CMD_CLOSURES: return "closure";
    case WIRE_CMD_INFO_TABLES: return "info table";
    case WIRE_CMD_SRT: return "the SRT of info table";
    case WIRE_CMD_STACK_BITMAP: case WIRE_CMD_FUN_BITMAP: return "the pointer map of";
    case WIRE_CMD_CON_DESC: return "a constructor description for";
    case WIRE_CMD_SOURCE_INFO: return "a source location for";
    case WIRE_CMD_CCS: return "cost-centre stack";
    case WIRE_CMD_CC: return "cost centre";
    case WIRE_CMD_INDEX_TABLE: return "index-table entry";
    default: return wire_command_name(cmd);
    }
}

static hs_status missing(uint8_t cmd, uint64_t key, hs_error *err) {
    if (key == 0)
        return hs_fail(err, HS_ERR_NOT_FOUND, "the ghc-debug snapshot did not record %s",
                       wire_command_name(cmd));
    return hs_fail(err, HS_ERR_NOT_FOUND, "the snapshot did not record %s 0x%llx",
                   asked_for(cmd), (unsigned long long)key);
}

static const gd_entry *find(const ghcdebug_file *f, uint8_t cmd, uint64_t k1, uint32_t k2,
                            hs_error *err) {
    const gd_entry *e = gd_find(f, cmd, wire_untag(k1), k2);
    if (!e) /* a frame's map is named by the frame's address */
        missing(cmd, cmd == WIRE_CMD_STACK_BITMAP ? k1 + k2 : k1, err);
    return e;
}

hs_status ghcdebug_file_roots(const ghcdebug_file *f, const wire_ptr_list **out,
                              hs_error *err) {
    if (!f->has_roots)
        return hs_fail(err, HS_ERR_NOT_FOUND, "the ghc-debug snapshot did not record ROOTS");
    *out = &f->roots;
    return HS_OK;
}

hs_status ghcdebug_file_saved_objects(const ghcdebug_file *f, const wire_ptr_list **out,
                                      hs_error *err) {
    if (!f->has_saved)
        return hs_fail(err, HS_ERR_NOT_FOUND,
                       "the ghc-debug snapshot did not record SAVED_OBJECTS");
    *out = &f->saved;
    return HS_OK;
}

/* A u32 BE length + bytes answer. */
static hs_status sized(const ghcdebug_file *f, uint8_t cmd, uint64_t key, uint32_t k2,
                       const uint8_t **bytes, size_t *len, hs_error *err) {
    const gd_entry *e = find(f, cmd, key, k2, err);
    if (!e)
        return HS_ERR_NOT_FOUND;
    *bytes = f->bytes + e->off + 4;
    *len = e->len - 4;
    return HS_OK;
}

hs_status ghcdebug_file_closure(const ghcdebug_file *f, uint64_t addr, const uint8_t **bytes,
                                size_t *len, hs_error *err) {
    return sized(f, WIRE_CMD_CLOSURES, addr, 0, bytes, len, err);
}

hs_status ghcdebug_file_info_table(const ghcdebug_file *f, uint64_t info,
                                   const uint8_t **bytes, size_t *len, hs_error *err) {
    return sized(f, WIRE_CMD_INFO_TABLES, info, 0, bytes, len, err);
}

hs_status ghcdebug_file_stack_bitmap(const ghcdebug_file *f, uint64_t sp, uint32_t offset,
                                     const uint8_t **bits, size_t *n, hs_error *err) {
    return sized(f, WIRE_CMD_STACK_BITMAP, sp, offset, bits, n, err);
}

hs_status ghcdebug_file_fun_bitmap(const ghcdebug_file *f, uint64_t fun, uint16_t n_args,
                                   const uint8_t **bits, size_t *n, hs_error *err) {
    return sized(f, WIRE_CMD_FUN_BITMAP, fun, n_args, bits, n, err);
}

hs_status ghcdebug_file_srt(const ghcdebug_file *f, uint64_t info, uint64_t *srt,
                            hs_error *err) {
    const gd_entry *e = find(f, WIRE_CMD_SRT, info, 0, err);
    if (!e)
        return HS_ERR_NOT_FOUND;
    const uint8_t *p = f->bytes + e->off;
    *srt = p[0] ? wire_untag(hs_load_le64(p + 1)) : 0;
    return HS_OK;
}

hs_status ghcdebug_file_con_desc(const ghcdebug_file *f, uint64_t info, wire_con_desc *out,
                                 hs_error *err) {
    *out = (wire_con_desc){0};
    const gd_entry *e = find(f, WIRE_CMD_CON_DESC, info, 0, err);
    return e ? gd_decode_con_desc(f->bytes + e->off, e->len, out, err) : HS_ERR_NOT_FOUND;
}

hs_status ghcdebug_file_source_info(const ghcdebug_file *f, uint64_t info,
                                    wire_source_info *out, hs_error *err) {
    *out = (wire_source_info){0};
    const gd_entry *e = find(f, WIRE_CMD_SOURCE_INFO, info, 0, err);
    return e ? wire_decode_source_info(f->bytes + e->off, e->len, out, err) : HS_ERR_NOT_FOUND;
}

hs_status ghcdebug_file_ccs(const ghcdebug_file *f, uint64_t ccs, wire_ccs *out,
                            hs_error *err) {
    const gd_entry *e = find(f, WIRE_CMD_CCS, ccs, 0, err);
    return e ? wire_decode_ccs(f->bytes + e->off, e->len, out, err) : HS_ERR_NOT_FOUND;
}

hs_status ghcdebug_file_cc(const ghcdebug_file *f, uint64_t cc, wire_cc *out, hs_error *err) {
    *out = (wire_cc){0};
    const gd_entry *e = find(f, WIRE_CMD_CC, cc, 0, err);
    if (!e)
        return HS_ERR_NOT_FOUND;
    hs_status st = wire_decode_cc(f->bytes + e->off, e->len, out, err);
    out->is_caf = !out->is_caf; /* putCC writes 0 for a CAF */
    return st;
}

hs_status ghcdebug_file_index_entry(const ghcdebug_file *f, uint64_t entry,
                                    wire_index_entry *out, hs_error *err) {
    const gd_entry *e = find(f, WIRE_CMD_INDEX_TABLE, entry, 0, err);
    if (!e)
        return HS_ERR_NOT_FOUND;
    hs_status st = wire_decode_index_entry(f->bytes + e->off, e->len, out, err);
    out->back_edge = !out->back_edge; /* putIndexTable writes 0 for a back edge */
    return st;
}

hs_status ghcdebug_file_ccs_main(const ghcdebug_file *f, uint64_t *out, hs_error *err) {
    const gd_entry *e = find(f, WIRE_CMD_CCS_MAIN, 0, 0, err);
    if (!e)
        return HS_ERR_NOT_FOUND;
    return wire_decode_one_ptr(f->bytes + e->off, e->len, out, err);
}
