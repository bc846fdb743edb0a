/* Pure decoders: every layout of wire-protocol.md §7 and every rejection. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"
#include "vectors.h"
#include "wire_peer.h"

/* The body of a single-frame vector (the bytes after its 6-byte header). */
static size_t vector_body(const char *key, uint8_t **body) {
    vector_set v;
    cr_assert_eq(vectors_load(HEAPSCOPE_VECTORS, &v), 0);
    const char *hex = vectors_get(&v, "responses", key);
    cr_assert_not_null(hex, "no response vector '%s'", key);
    uint8_t *raw;
    size_t n = hex_decode(hex, &raw);
    cr_assert(n != (size_t)-1 && n >= 6);
    cr_assert_eq(hs_load_be32(raw), n - 6, "%s: single frame", key);
    *body = malloc(n - 6 + 1);
    memcpy(*body, raw + 6, n - 6);
    free(raw);
    vectors_free(&v);
    return n - 6;
}

/* A body buffer holding a malloc'd copy of n bytes at p. */
static wire_buf buf_of(const void *p, size_t n) {
    wire_buf b = {malloc(n ? n : 1), n, n ? n : 1};
    cr_assert_not_null(b.data);
    if (n)
        memcpy(b.data, p, n);
    return b;
}

/* ---- CON_DESC --------------------------------------------------------- */

struct con_row {
    const char *in, *package, *module, *name;
};

/* Every row of the §7.10 table, plus edge cases of the same rules. */
static const struct con_row con_rows[] = {
    {"ghc-prim:GHC.Types.I#", "ghc-prim", "GHC.Types", "I#"},
    {"main:Main.Leak", "main", "Main", "Leak"},
    {"ghc-prim:GHC.Types.:", "ghc-prim", "GHC.Types", ":"},
    {"base:GHC.Base.:|", "base", "GHC.Base", ":|"},
    {"ghc-prim:GHC.Tuple.(,)", "ghc-prim", "GHC.Tuple", "(,)"},
    {"main:Main:Leak", "", "", "main:Main:Leak"},
    {"main:Leak", "", "", "main:Leak"},
    /* edge cases */
    {"", "", "", ""},
    {"noColon", "", "", "noColon"},
    {":Main.Leak", "", "", ":Main.Leak"},           /* empty package */
    {"pkg:Main.", "", "", "pkg:Main."},             /* empty name */
    {"pkg:main.Leak", "", "", "pkg:main.Leak"},     /* lower-case module */
    {"pkg:A.B.c.D", "pkg", "A.B", "c.D"},           /* stops at lower case */
    {"pkg:A..B", "pkg", "A", ".B"},                 /* empty component ends it */
    {"pkg:Data.Map.Internal.Bin", "pkg", "Data.Map.Internal", "Bin"},
    {"pkg:\xc9tude.Leak", "pkg", "\xc9tude", "Leak"}, /* Latin-1 upper É */
    {"pkg:\xde.X", "pkg", "\xde", "X"},             /* Þ is upper */
    {"pkg:\xd7.X", "", "", "pkg:\xd7.X"},           /* × is not */
    {"pkg:\xdf.X", "", "", "pkg:\xdf.X"},           /* ß is lower */
    {"pkg:\xe9tude.Leak", "", "", "pkg:\xe9tude.Leak"}, /* é is lower */
};

Test(wire_decode, con_desc_parse_table) {
    for (size_t i = 0; i < sizeof con_rows / sizeof con_rows[0]; i++) {
        const struct con_row *r = &con_rows[i];
        wire_con_desc d;
        hs_error err = {0};
        cr_assert_eq(wire_parse_con_desc(r->in, strlen(r->in), &d, &err), HS_OK, "%s: %s",
                     r->in, err.message);
        cr_assert_str_eq(d.raw, r->in);
        cr_assert_str_eq(d.package, r->package, "'%s' package", r->in);
        cr_assert_str_eq(d.module, r->module, "'%s' module", r->in);
        cr_assert_str_eq(d.name, r->name, "'%s' name", r->in);
        wire_con_desc_free(&d);
        cr_assert_null(d.raw);
    }
}

Test(wire_decode, control_characters_in_names_are_never_passed_on) {
    /* a hostile debuggee's name that would clear the screen, set the window
     * title and forge a line; C1 CSI (U+009B) too; other UTF-8 stays */
    const char in[] = "main:Main.Evil\x1b[2J\x1b]0;t\x07\r\nx\t\x7f\xc2\x9b" "1m\xc3\xa9";
    wire_con_desc d;
    cr_assert_eq(wire_parse_con_desc(in, sizeof in - 1, &d, NULL), HS_OK);
    cr_assert_str_eq(d.name, "Evil?[2J?]0;t?\?\?x\?\?\?\?1m\xc3\xa9");
    cr_assert_str_eq(d.raw, "main:Main.Evil?[2J?]0;t?\?\?x\?\?\?\?1m\xc3\xa9");
    cr_assert_str_eq(d.module, "Main");
    wire_con_desc_free(&d);
    /* source info and cost centres are scrubbed alike */
    uint8_t body[64] = {0, 0, 0, 6};
    size_t n = 4;
    for (int i = 0; i < 6; i++) {
        const char *f = i == 3 ? "a\x1b" "b" : "x";
        hs_store_be32(body + n, (uint32_t)strlen(f));
        memcpy(body + n + 4, f, strlen(f));
        n += 4 + strlen(f);
    }
    wire_source_info si;
    cr_assert_eq(wire_decode_source_info(body, n, &si, NULL), HS_OK);
    cr_assert_str_eq(si.label, "a?b");
    wire_source_info_free(&si);
}

Test(wire_decode, con_desc_rest_after_first_colon_only) {
    /* rest "b:C.D" starts lower case: the whole rest is the name, module
     * empty, so the fallback applies. */
    wire_con_desc d;
    cr_assert_eq(wire_parse_con_desc("a:b:C.D", 7, &d, NULL), HS_OK);
    cr_assert_str_eq(d.package, "");
    cr_assert_str_eq(d.module, "");
    cr_assert_str_eq(d.name, "a:b:C.D");
    wire_con_desc_free(&d);
    /* "B:C.D" starts upper case and contains '.': module "B:C", name "D". */
    cr_assert_eq(wire_parse_con_desc("a:B:C.D", 7, &d, NULL), HS_OK);
    cr_assert_str_eq(d.package, "a");
    cr_assert_str_eq(d.module, "B:C");
    cr_assert_str_eq(d.name, "D");
    wire_con_desc_free(&d);
}

Test(wire_decode, con_desc_rejects_nul) {
    wire_con_desc d;
    hs_error err = {0};
    cr_assert_eq(wire_parse_con_desc("main:Ma\0in.X", 12, &d, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "NUL"), "%s", err.message);
    cr_assert_null(d.name);
    const uint8_t body[] = {0, 0, 0, 3, 'A', 0, 'B'};
    cr_assert_eq(wire_decode_con_desc(body, sizeof body, &d, &err), HS_ERR_PROTOCOL);
}

Test(wire_decode, con_desc_vectors) {
    uint8_t *body;
    size_t n = vector_body("CON_DESC main:Main.Leak (parses to main / Main / Leak)", &body);
    wire_con_desc d;
    cr_assert_eq(wire_decode_con_desc(body, n, &d, NULL), HS_OK);
    cr_assert_str_eq(d.raw, "main:Main.Leak");
    cr_assert_str_eq(d.package, "main");
    cr_assert_str_eq(d.module, "Main");
    cr_assert_str_eq(d.name, "Leak");
    wire_con_desc_free(&d);
    free(body);
    n = vector_body(
        "CON_DESC main:Main:Leak (parses to package '', module '', name 'main:Main:Leak')",
        &body);
    cr_assert_eq(wire_decode_con_desc(body, n, &d, NULL), HS_OK);
    cr_assert_str_eq(d.package, "");
    cr_assert_str_eq(d.module, "");
    cr_assert_str_eq(d.name, "main:Main:Leak");
    wire_con_desc_free(&d);
    /* length disagreeing with the body, either way */
    hs_error err = {0};
    cr_assert_eq(wire_decode_con_desc(body, n - 1, &d, &err), HS_ERR_PROTOCOL);
    body[3] = 0x0d;
    cr_assert_eq(wire_decode_con_desc(body, n, &d, &err), HS_ERR_PROTOCOL);
    cr_assert_eq(wire_decode_con_desc(body, 3, &d, &err), HS_ERR_PROTOCOL);
    free(body);
}

/* ---- SOURCE_INFO ------------------------------------------------------ */

static void si_body(bytes *b, const char *const s[6]) {
    bytes_be32(b, 6);
    for (int i = 0; i < 6; i++) {
        bytes_be32(b, (uint32_t)strlen(s[i]));
        bytes_put(b, s[i], strlen(s[i]));
    }
}

Test(wire_decode, source_info_vectors) {
    uint8_t *body;
    size_t n = vector_body(
        "SOURCE_INFO found sat_s1Ab_info/15/[Int]/leaky/Main/app/Main.hs:12:5-20", &body);
    wire_source_info si;
    cr_assert_eq(wire_decode_source_info(body, n, &si, NULL), HS_OK);
    cr_assert(si.found);
    cr_assert_str_eq(si.name, "sat_s1Ab_info");
    cr_assert_str_eq(si.closure_type_text, "15");
    cr_assert_eq(si.closure_type, 15);
    cr_assert_str_eq(si.type, "[Int]");
    cr_assert_str_eq(si.label, "leaky");
    cr_assert_str_eq(si.module, "Main");
    cr_assert_str_eq(si.position, "app/Main.hs:12:5-20");
    wire_source_info_free(&si);
    hs_error err = {0};
    cr_assert_eq(wire_decode_source_info(body, n - 1, &si, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "position"), "%s", err.message);
    cr_assert_null(si.name, "nothing leaks out of a failed decode");
    free(body);

    n = vector_body("SOURCE_INFO not found", &body);
    cr_assert_eq(wire_decode_source_info(body, n, &si, NULL), HS_OK);
    cr_assert_not(si.found);
    cr_assert_null(si.name);
    cr_assert_null(si.position);
    free(body);
}

Test(wire_decode, source_info_closure_type_text) {
    const struct {
        const char *text;
        uint32_t want;
    } rows[] = {{"0", 1},  {"1", 1},   {"15", 15}, {"65", 65}, {"66", 0},
                {"", 0},   {"abc", 0}, {"-1", 0},  {"1x", 0},  {"99999999999999999999", 0},
                {"007", 7}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bytes b = {0};
        const char *s[6] = {"n_info", rows[i].text, "T", "", "M", ":"};
        si_body(&b, s);
        wire_source_info si;
        cr_assert_eq(wire_decode_source_info(b.data, b.len, &si, NULL), HS_OK);
        cr_assert_eq(si.closure_type, rows[i].want, "'%s'", rows[i].text);
        cr_assert_str_eq(si.closure_type_text, rows[i].text, "text is kept");
        cr_assert_str_eq(si.label, "");
        cr_assert_str_eq(si.position, ":");
        wire_source_info_free(&si);
        bytes_free(&b);
    }
}

Test(wire_decode, source_info_bad_counts_and_trailing) {
    wire_source_info si;
    hs_error err = {0};
    for (uint32_t count = 1; count <= 7; count++) {
        if (count == 6)
            continue;
        uint8_t body[4];
        hs_store_be32(body, count);
        cr_assert_eq(wire_decode_source_info(body, 4, &si, &err), HS_ERR_PROTOCOL, "count %u",
                     count);
    }
    const uint8_t trailing[] = {0, 0, 0, 0, 1};
    cr_assert_eq(wire_decode_source_info(trailing, 5, &si, &err), HS_ERR_PROTOCOL);
    cr_assert_eq(wire_decode_source_info(trailing, 3, &si, &err), HS_ERR_PROTOCOL);
    /* a string length pointing past the end */
    const uint8_t huge[] = {0, 0, 0, 6, 0xff, 0xff, 0xff, 0xff, 'x'};
    cr_assert_eq(wire_decode_source_info(huge, sizeof huge, &si, &err), HS_ERR_PROTOCOL);
    bytes b = {0};
    const char *s[6] = {"a", "1", "T", "l", "M", "p"};
    si_body(&b, s);
    bytes_put(&b, "!", 1);
    cr_assert_eq(wire_decode_source_info(b.data, b.len, &si, &err), HS_ERR_PROTOCOL);
    cr_assert_null(si.name);
    bytes_free(&b);
}

/* ---- VERSION, pointers, SRT, bitmaps ---------------------------------- */

Test(wire_decode, version) {
    uint8_t *body;
    size_t n = vector_body("VERSION 9.10.1 profiled eras TNTC", &body);
    wire_version v;
    cr_assert_eq(wire_decode_version(body, n, &v, NULL), HS_OK);
    cr_assert_eq(v.major, 910);
    cr_assert_eq(v.patch, 1);
    cr_assert_eq(v.prof_mode, WIRE_PROF_ERA);
    cr_assert(v.tntc);
    free(body);
    n = vector_body("VERSION 9.10.1 non-profiled TNTC", &body);
    cr_assert_eq(wire_decode_version(body, n, &v, NULL), HS_OK);
    cr_assert_eq(v.prof_mode, WIRE_PROF_NONE);
    cr_assert_eq(v.major, 910);

    hs_error err = {0};
    body[8] = 5;
    cr_assert_eq(wire_decode_version(body, n, &v, &err), HS_OK);
    body[8] = 6;
    cr_assert_eq(wire_decode_version(body, n, &v, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "profiling mode 6"), "%s", err.message);
    body[8] = 0;
    body[9] = 2;
    cr_assert_eq(wire_decode_version(body, n, &v, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "tables-next-to-code"), "%s", err.message);
    body[9] = 0;
    cr_assert_eq(wire_decode_version(body, n, &v, &err), HS_OK);
    cr_assert_not(v.tntc);
    cr_assert_eq(wire_decode_version(body, 9, &v, &err), HS_ERR_PROTOCOL);
    free(body);
}

Test(wire_decode, ptrs_are_untagged) {
    uint8_t *body;
    size_t n = vector_body("ROOTS 0x4200105a38 0x4200107f10", &body);
    wire_ptr_list l;
    cr_assert_eq(wire_decode_ptrs(body, n, &l, NULL), HS_OK);
    cr_assert_eq(l.count, 2);
    cr_assert_eq(l.items[0], 0x4200105a38);
    cr_assert_eq(l.items[1], 0x4200107f10);
    wire_ptr_list_free(&l);
    body[0] = 0x3b; /* tag 3 */
    cr_assert_eq(wire_decode_ptrs(body, n, &l, NULL), HS_OK);
    cr_assert_eq(l.items[0], 0x4200105a38);
    wire_ptr_list_free(&l);
    hs_error err = {0};
    cr_assert_eq(wire_decode_ptrs(body, n - 1, &l, &err), HS_ERR_PROTOCOL);
    cr_assert_eq(wire_decode_ptrs(body, 0, &l, &err), HS_OK);
    cr_assert_eq(l.count, 0);
    free(body);
}

Test(wire_decode, srts) {
    uint8_t *body;
    uint64_t out = 99;
    size_t n = vector_body("SRT none", &body);
    cr_assert_eq(wire_decode_srts(body, n, 1, &out, NULL), HS_OK);
    cr_assert_eq(out, 0);
    free(body);
    n = vector_body("SRT 0x4c7e60", &body);
    cr_assert_eq(wire_decode_srts(body, n, 1, &out, NULL), HS_OK);
    cr_assert_eq(out, 0x4c7e60);
    cr_assert_eq(wire_decode_srts(body, n, 2, &out, NULL), HS_ERR_PROTOCOL);
    cr_assert_eq(wire_decode_srts(body, n - 1, 1, &out, NULL), HS_ERR_PROTOCOL);
    free(body);
}

Test(wire_decode, bitmap) {
    uint8_t *body;
    size_t n = vector_body("STACK_BITMAP 3 entries non-ptr non-ptr ptr", &body);
    wire_bitmap b;
    cr_assert_eq(wire_decode_bitmap(body, n, &b, NULL), HS_OK);
    cr_assert_eq(b.count, 3);
    cr_assert_eq(b.bits[0], 0);
    cr_assert_eq(b.bits[1], 0);
    cr_assert_eq(b.bits[2], 1);
    wire_bitmap_free(&b);
    hs_error err = {0};
    cr_assert_eq(wire_decode_bitmap(body, n - 1, &b, &err), HS_ERR_PROTOCOL);
    body[6] = 2;
    cr_assert_eq(wire_decode_bitmap(body, n, &b, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "entry 2 is 2"), "%s", err.message);
    cr_assert_null(b.bits);
    cr_assert_eq(wire_decode_bitmap(body, 2, &b, &err), HS_ERR_PROTOCOL);
    const uint8_t empty[] = {0, 0, 0, 0};
    cr_assert_eq(wire_decode_bitmap(empty, 4, &b, &err), HS_OK);
    cr_assert_eq(b.count, 0);
    const uint8_t lie[] = {0xff, 0xff, 0xff, 0xff, 1};
    cr_assert_eq(wire_decode_bitmap(lie, 5, &b, &err), HS_ERR_PROTOCOL);
    free(body);
}

/* ---- CLOSURES / INFO_TABLES, blocks ----------------------------------- */

Test(wire_decode, blobs_closure_record) {
    uint8_t *raw;
    size_t n = vector_body(
        "CLOSURES 0x4200105a38 CONSTR_2_0 fields 0x4200105a51 (tag 1), 0x4200105a68", &raw);
    wire_buf body = {raw, n, n};
    wire_blobs bl;
    cr_assert_eq(wire_decode_blobs(&body, 1, &bl, NULL), HS_OK);
    cr_assert_null(body.data, "body moved into the result");
    cr_assert_eq(bl.count, 1);
    cr_assert_eq(bl.items[0].len, 24);
    cr_assert_eq(hs_load_le64(bl.items[0].data), 0x4f8e28);
    cr_assert_eq(wire_untag(hs_load_le64(bl.items[0].data + 8)), 0x4200105a50);
    cr_assert_eq(hs_load_le64(bl.items[0].data + 16), 0x4200105a68);
    wire_blobs_free(&bl);
}

Test(wire_decode, blobs_count_and_bounds) {
    bytes b = {0};
    bytes_be32(&b, 2);
    bytes_put(&b, "ab", 2);
    bytes_be32(&b, 0);
    wire_blobs bl;
    hs_error err = {0};
    wire_buf body = buf_of(b.data, b.len);
    cr_assert_eq(wire_decode_blobs(&body, 2, &bl, &err), HS_OK, "%s", err.message);
    cr_assert_eq(bl.count, 2);
    cr_assert_eq(bl.items[0].len, 2);
    cr_assert(memcmp(bl.items[0].data, "ab", 2) == 0);
    cr_assert_eq(bl.items[1].len, 0);
    wire_blobs_free(&bl);

    /* one record fewer than requested, one more, a length past the end,
     * and an absurd expected count */
    size_t cases[][2] = {{3, 0}, {1, 0}, {1, 1}, {1000000000, 0}};
    for (size_t i = 0; i < 4; i++) {
        body = buf_of(b.data, b.len);
        if (cases[i][1])
            body.data[3] = 9;
        cr_assert_eq(wire_decode_blobs(&body, cases[i][0], &bl, &err), HS_ERR_PROTOCOL,
                     "case %zu", i);
        cr_assert_null(body.data, "ownership taken even on failure");
        cr_assert_null(bl.items);
    }
    bytes_free(&b);
}

static void raw_block(bytes *b, uint16_t flags, uint64_t start, uint32_t len, uint8_t fill) {
    uint8_t h[14];
    hs_store_le16(h, flags);
    hs_store_le64(h + 2, start);
    hs_store_be32(h + 10, len);
    bytes_put(b, h, 14);
    uint8_t *data = malloc(len ? len : 1);
    memset(data, fill, len);
    bytes_put(b, data, len);
    free(data);
}

Test(wire_decode, blocks) {
    bytes b = {0};
    raw_block(&b, 0x0402, 0x4200105000, 4096, 0x11);
    raw_block(&b, 0x0001, 0x4200200000, 8192, 0x22);
    wire_buf body = buf_of(b.data, b.len);
    wire_block_list l;
    cr_assert_eq(wire_decode_blocks(&body, &l, NULL), HS_OK);
    cr_assert_eq(l.count, 2);
    cr_assert_eq(l.items[0].flags, 0x0402);
    cr_assert_eq(l.items[0].start, 0x4200105000);
    cr_assert_eq(l.items[0].len, 4096);
    cr_assert_eq(l.items[0].data[4095], 0x11);
    cr_assert_eq(l.items[1].flags, 1);
    cr_assert_eq(l.items[1].start, 0x4200200000);
    cr_assert_eq(l.items[1].len, 8192);
    cr_assert_eq(l.items[1].data[0], 0x22);
    cr_assert_eq(l.items[1].data + 8192, l.body.data + l.body.len);
    wire_block_list_free(&l);

    hs_error err = {0};
    body = buf_of(b.data, b.len - 1);
    cr_assert_eq(wire_decode_blocks(&body, &l, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "block 2"), "%s", err.message);
    body = buf_of(b.data, 4096 + 14 + 5);
    cr_assert_eq(wire_decode_blocks(&body, &l, &err), HS_ERR_PROTOCOL);
    body = (wire_buf){0};
    cr_assert_eq(wire_decode_blocks(&body, &l, &err), HS_OK);
    cr_assert_eq(l.count, 0);
    bytes_free(&b);
}

/* ---- profiling structures --------------------------------------------- */

Test(wire_decode, ccs) {
    bytes b = {0};
    for (uint64_t i = 0; i < 12; i++)
        bytes_le64(&b, i == 1 ? 0x4c0001 : i == 0 ? (uint64_t)-5 : 0x1000 * i + i);
    wire_ccs s;
    cr_assert_eq(wire_decode_ccs(b.data, b.len, &s, NULL), HS_OK);
    cr_assert_eq(s.id, -5);
    cr_assert_eq(s.cc, 0x4c0000, "untagged like every PTR");
    cr_assert_eq(s.prev, 0x2000);
    cr_assert_eq(s.index_table, 0x3000);
    cr_assert_eq(s.root, 0x4000);
    cr_assert_eq(s.depth, 0x5005);
    cr_assert_eq(s.scc_count, 0x6006);
    cr_assert_eq(s.selected, 0x7007);
    cr_assert_eq(s.time_ticks, 0x8008);
    cr_assert_eq(s.mem_alloc, 0x9009);
    cr_assert_eq(s.inherited_alloc, 0xa00a);
    cr_assert_eq(s.inherited_ticks, 0xb00b);
    cr_assert_eq(wire_decode_ccs(b.data, 95, &s, NULL), HS_ERR_PROTOCOL);
    bytes_free(&b);
}

static void cc_body(bytes *b, bool with_trailer) {
    bytes_le64(b, 42);
    const char *s[3] = {"leakyLoop", "Main", "app/Main.hs:10:1-30"};
    for (int i = 0; i < 3; i++) {
        bytes_be32(b, (uint32_t)strlen(s[i]));
        bytes_put(b, s[i], strlen(s[i]));
    }
    if (with_trailer) {
        bytes_le64(b, 0x0000000000123456); /* mem_alloc */
        bytes_le64(b, 0x0000000000000789); /* time_ticks */
        bytes_le64(b, 1);                  /* is_caf */
        bytes_le64(b, 0x4d0010);           /* link */
    }
}

Test(wire_decode, cc_reads_true_le_values) {
    bytes b = {0};
    cc_body(&b, true);
    wire_cc cc;
    cr_assert_eq(wire_decode_cc(b.data, b.len, &cc, NULL), HS_OK);
    cr_assert_eq(cc.id, 42);
    cr_assert_str_eq(cc.label, "leakyLoop");
    cr_assert_str_eq(cc.module, "Main");
    cr_assert_str_eq(cc.srcloc, "app/Main.hs:10:1-30");
    cr_assert_eq(cc.mem_alloc, 0x123456, "LE, not the 0.6 client's byte-swapped value");
    cr_assert_eq(cc.time_ticks, 0x789);
    cr_assert(cc.is_caf);
    cr_assert_eq(cc.link, 0x4d0010);
    wire_cc_free(&cc);
    cr_assert_null(cc.label);

    hs_error err = {0};
    cr_assert_eq(wire_decode_cc(b.data, b.len - 1, &cc, &err), HS_ERR_PROTOCOL);
    cr_assert_null(cc.label);
    bytes_put(&b, "x", 1);
    cr_assert_eq(wire_decode_cc(b.data, b.len, &cc, &err), HS_ERR_PROTOCOL);
    bytes_free(&b);
    cc_body(&b, false);
    cr_assert_eq(wire_decode_cc(b.data, b.len - 3, &cc, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "source location"), "%s", err.message);
    bytes_free(&b);
}

Test(wire_decode, index_entry_and_one_ptr) {
    bytes b = {0};
    bytes_le64(&b, 0x4c1000);
    bytes_le64(&b, 0x4c2000);
    bytes_le64(&b, 0);
    bytes_put(&b, "\x01", 1);
    wire_index_entry e;
    cr_assert_eq(wire_decode_index_entry(b.data, b.len, &e, NULL), HS_OK);
    cr_assert_eq(e.cc, 0x4c1000);
    cr_assert_eq(e.ccs, 0x4c2000);
    cr_assert_eq(e.next, 0);
    cr_assert(e.back_edge);
    b.data[24] = 0;
    cr_assert_eq(wire_decode_index_entry(b.data, b.len, &e, NULL), HS_OK);
    cr_assert_not(e.back_edge);
    cr_assert_eq(wire_decode_index_entry(b.data, 24, &e, NULL), HS_ERR_PROTOCOL);
    uint64_t p;
    cr_assert_eq(wire_decode_one_ptr(b.data, 8, &p, NULL), HS_OK);
    cr_assert_eq(p, 0x4c1000);
    cr_assert_eq(wire_decode_one_ptr(b.data, 9, &p, NULL), HS_ERR_PROTOCOL);
    bytes_free(&b);
}
