/* Test builder of ghc-debug snapshot files (see ghcdebug_build.h). */
#include "ghcdebug_build.h"

#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"

void gdb_bytes(gdb *g, const void *p, size_t n) {
    if (g->len + n > g->cap) {
        g->cap = (g->len + n) * 2 + 64;
        g->b = realloc(g->b, g->cap);
        if (!g->b)
            abort();
    }
    if (n)
        memcpy(g->b + g->len, p, n);
    g->len += n;
}

void gdb_u8(gdb *g, uint8_t v) { gdb_bytes(g, &v, 1); }
void gdb_be16(gdb *g, uint16_t v) {
    uint8_t b[2];
    hs_store_be16(b, v);
    gdb_bytes(g, b, 2);
}
void gdb_be32(gdb *g, uint32_t v) {
    uint8_t b[4];
    hs_store_be32(b, v);
    gdb_bytes(g, b, 4);
}
void gdb_be64(gdb *g, uint64_t v) {
    uint8_t b[8];
    hs_store_be64(b, v);
    gdb_bytes(g, b, 8);
}
void gdb_le64(gdb *g, uint64_t v) {
    uint8_t b[8];
    hs_store_le64(b, v);
    gdb_bytes(g, b, 8);
}

void gdb_string(gdb *g, const char *s) {
    size_t n = strlen(s);
    gdb_be64(g, n);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        if (c < 0x80) {
            gdb_u8(g, c);
        } else {
            gdb_u8(g, (uint8_t)(0xc0 | c >> 6));
            gdb_u8(g, (uint8_t)(0x80 | (c & 0x3f)));
        }
    }
}

void gdb_init(gdb *g, uint32_t version) {
    *g = (gdb){0};
    gdb_be32(g, version);
    gdb_be64(g, 0);
}

void gdb_finish(gdb *g) { hs_store_be64(g->b + 4, g->entries); }

void gdb_free(gdb *g) {
    free(g->b);
    *g = (gdb){0};
}

void gdb_request(gdb *g, uint32_t cmd, uint64_t k1, uint32_t k2) {
    uint8_t p[12];
    size_t n = 0;
    switch (cmd) {
    case WIRE_CMD_CLOSURES: case WIRE_CMD_INFO_TABLES: case WIRE_CMD_SRT:
        hs_store_be16(p, 1);
        hs_store_le64(p + 2, k1);
        n = 10;
        break;
    case WIRE_CMD_STACK_BITMAP:
        hs_store_le64(p, k1);
        hs_store_be32(p + 8, k2);
        n = 12;
        break;
    case WIRE_CMD_FUN_BITMAP:
        hs_store_le64(p, k1);
        hs_store_be16(p + 8, (uint16_t)k2);
        n = 10;
        break;
    case WIRE_CMD_CON_DESC: case WIRE_CMD_SOURCE_INFO: case WIRE_CMD_BLOCK: case WIRE_CMD_CCS:
    case WIRE_CMD_CC: case WIRE_CMD_INDEX_TABLE:
        hs_store_le64(p, k1);
        n = 8;
        break;
    case WIRE_CMD_PAUSE:
        p[0] = 0;
        n = 1;
        break;
    default:
        break;
    }
    gdb_be32(g, (uint32_t)(4 + n));
    gdb_be32(g, cmd);
    gdb_bytes(g, p, n);
    g->entries++;
}

void gdb_version(gdb *g, uint32_t major, uint32_t patch, uint8_t prof, uint8_t tntc) {
    gdb_request(g, WIRE_CMD_VERSION, 0, 0);
    gdb_be32(g, major);
    gdb_be32(g, patch);
    gdb_u8(g, prof);
    gdb_u8(g, tntc);
}

void gdb_ptr_list(gdb *g, uint32_t cmd, const uint64_t *ptrs, size_t n) {
    gdb_request(g, cmd, 0, 0);
    gdb_be64(g, n);
    for (size_t i = 0; i < n; i++)
        gdb_le64(g, ptrs[i]);
}

void gdb_sized(gdb *g, uint32_t cmd, uint64_t key, uint32_t k2, const void *p, uint32_t n) {
    gdb_request(g, cmd, key, k2);
    gdb_be32(g, n);
    gdb_bytes(g, p, n);
}

void gdb_block(gdb *g, uint16_t flags, uint64_t start, const void *data, uint32_t n) {
    uint8_t h[2];
    hs_store_le16(h, flags);
    gdb_bytes(g, h, 2);
    gdb_le64(g, start);
    gdb_be32(g, n);
    gdb_bytes(g, data, n);
}

static void ipe_string(gdb *g, const char *s) {
    gdb_be32(g, (uint32_t)strlen(s));
    gdb_bytes(g, s, strlen(s));
}

void gdb_sample(gdb *g) {
    static const uint8_t data[64] = {1, 2, 3, 4, 5, 6, 7, 8};
    gdb_init(g, 0);
    gdb_version(g, 910, 1, 4, 1);
    const uint64_t roots[2] = {0x420000100a, 0x4c0010}; /* the first one tagged */
    gdb_ptr_list(g, WIRE_CMD_ROOTS, roots, 2);
    gdb_ptr_list(g, WIRE_CMD_SAVED_OBJECTS, NULL, 0);
    gdb_request(g, WIRE_CMD_ALL_BLOCKS, 0, 0);
    gdb_be64(g, 1);
    gdb_block(g, 0x0004, 0x4200000000, data, 64);
    gdb_request(g, WIRE_CMD_BLOCK, 0x4200010008, 0); /* a group of its own: kept */
    gdb_block(g, 0, 0x4200010000, data, 32);
    gdb_request(g, WIRE_CMD_BLOCK, 0x4200000010, 0); /* inside ALL_BLOCKS': dropped */
    gdb_block(g, 0, 0x4200000000, data, 64);
    gdb_sized(g, WIRE_CMD_CLOSURES, 0x4c0010, 0, data, 16);
    gdb_sized(g, WIRE_CMD_INFO_TABLES, 0x401000, 0, data, 32);
    gdb_request(g, WIRE_CMD_SRT, 0x401000, 0);
    gdb_u8(g, 1);
    gdb_le64(g, 0x4c0100);
    gdb_request(g, WIRE_CMD_SRT, 0x402000, 0);
    gdb_u8(g, 0);
    gdb_sized(g, WIRE_CMD_STACK_BITMAP, 0x4200003000, 16, (const uint8_t[]){1, 0, 1}, 3);
    gdb_sized(g, WIRE_CMD_FUN_BITMAP, 0x4c0200, 2, (const uint8_t[]){0, 1}, 2);
    gdb_request(g, WIRE_CMD_CON_DESC, 0x401000, 0);
    gdb_string(g, "main");
    gdb_string(g, "Main");
    gdb_string(g, "Leak");
    gdb_request(g, WIRE_CMD_CON_DESC, 0x403000, 0);
    gdb_string(g, "pkg");
    gdb_string(g, "Mod");
    gdb_string(g, "\xc4h"); /* Latin-1 A-umlaut: two bytes in the file */
    gdb_request(g, WIRE_CMD_SOURCE_INFO, 0x401000, 0);
    gdb_be32(g, 6);
    ipe_string(g, "Main_Leak_con_info");
    ipe_string(g, "1");
    ipe_string(g, "Leak");
    ipe_string(g, "");
    ipe_string(g, "Main");
    ipe_string(g, "app/Main.hs:18:17-34");
    gdb_request(g, WIRE_CMD_SOURCE_INFO, 0x402000, 0);
    gdb_be32(g, 0);
    gdb_request(g, WIRE_CMD_CCS, 0x4c1000, 0);
    const uint64_t ccs[12] = {7, 0x4c2000, 0, 0x4c3000, 0x4c1000, 1, 2, 0, 11, 12, 13, 14};
    for (int i = 0; i < 12; i++)
        gdb_le64(g, ccs[i]);
    gdb_request(g, WIRE_CMD_CC, 0x4c2000, 0);
    gdb_le64(g, 3);
    ipe_string(g, "main");
    ipe_string(g, "Main");
    ipe_string(g, "app/Main.hs:1:1");
    gdb_le64(g, 5); /* mem_alloc: the wire's LE bytes */
    gdb_le64(g, 9); /* time_ticks */
    gdb_le64(g, 0); /* putCC: 0 = a CAF */
    gdb_le64(g, 0);
    gdb_request(g, WIRE_CMD_INDEX_TABLE, 0x4c3000, 0);
    gdb_le64(g, 0x4c2000);
    gdb_le64(g, 0x4c1000);
    gdb_le64(g, 0);
    gdb_u8(g, 0); /* putIndexTable: 0 = a back edge */
    gdb_request(g, WIRE_CMD_CCS_MAIN, 0, 0);
    gdb_le64(g, 0x4c1000);
    gdb_finish(g);
}
