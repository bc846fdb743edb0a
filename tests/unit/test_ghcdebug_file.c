/* The reader of ghc-debug snapshot files: every answer kind decoded as
 * ghc-debug-client 0.6 encodes it, the block merge rule, and refusals with
 * one-line messages for every way a file can be bad (truncated at every
 * byte, corrupted fields, other format versions and older layouts). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ghcdebug_build.h"
#include "heapscope/bytes.h"
#include "heapscope/ghcdebug_file.h"

static ghcdebug_file *parse_ok(const gdb *g) {
    ghcdebug_file *f = NULL;
    hs_error err = {0};
    hs_status st = ghcdebug_file_parse(g->b, g->len, &f, &err);
    cr_assert_eq(st, HS_OK, "%s", err.message);
    return f;
}

/* Parsing fails with a one-line message containing `want` (if non-NULL). */
static void parse_bad(const uint8_t *b, size_t len, const char *want) {
    ghcdebug_file *f = NULL;
    hs_error err = {0};
    hs_status st = ghcdebug_file_parse(b, len, &f, &err);
    cr_assert_neq(st, HS_OK, "accepted a bad file (%zu bytes)", len);
    cr_assert_null(f);
    cr_assert(err.message[0] && !strchr(err.message, '\n'), "message: '%s'", err.message);
    if (want)
        cr_assert(strstr(err.message, want), "message '%s' lacks '%s'", err.message, want);
}

Test(ghcdebug_file, spec_vector_minimal) { /* wire-protocol.md §12.5 */
    static const uint8_t file[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0,
                                   0, 1, 0, 0, 3, 0x8e, 0, 0, 0, 1, 4, 1};
    ghcdebug_file *f = NULL;
    hs_error err;
    cr_assert_eq(ghcdebug_file_parse(file, sizeof file, &f, &err), HS_OK, "%s", err.message);
    const wire_version *v = ghcdebug_file_version(f);
    cr_assert(v->major == 910 && v->patch == 1 && v->prof_mode == 4 && v->tntc);
    const wire_ptr_list *roots;
    cr_assert_eq(ghcdebug_file_roots(f, &roots, &err), HS_ERR_NOT_FOUND);
    size_t nb;
    ghcdebug_file_blocks(f, &nb);
    cr_assert_eq(nb, 0);
    cr_assert_eq(ghcdebug_file_entry_count(f), 1);
    ghcdebug_file_free(f);
}

Test(ghcdebug_file, every_answer_kind) {
    gdb g;
    gdb_sample(&g);
    ghcdebug_file *f = parse_ok(&g);
    hs_error err;
    const wire_ptr_list *l;
    cr_assert_eq(ghcdebug_file_roots(f, &l, &err), HS_OK);
    cr_assert(l->count == 2 && l->items[0] == 0x4200001008 && l->items[1] == 0x4c0010);
    cr_assert_eq(ghcdebug_file_saved_objects(f, &l, &err), HS_OK);
    cr_assert_eq(l->count, 0);

    size_t nb;
    const ghcdebug_block *b = ghcdebug_file_blocks(f, &nb);
    cr_assert_eq(nb, 2);
    cr_assert(b[0].start == 0x4200000000 && b[0].len == 64 && b[0].flags == 4);
    cr_assert(b[1].start == 0x4200010000 && b[1].len == 32 && b[1].data[0] == 1);

    const uint8_t *bytes;
    size_t n;
    cr_assert_eq(ghcdebug_file_closure(f, 0x4c0013, &bytes, &n, &err), HS_OK); /* tagged */
    cr_assert(n == 16 && bytes[7] == 8);
    cr_assert_eq(ghcdebug_file_info_table(f, 0x401000, &bytes, &n, &err), HS_OK);
    cr_assert_eq(n, 32);
    cr_assert_eq(ghcdebug_file_info_table(f, 0x409000, &bytes, &n, &err), HS_ERR_NOT_FOUND);
    cr_assert_str_eq(err.message, "the snapshot did not record info table 0x409000");

    uint64_t srt = 1;
    cr_assert_eq(ghcdebug_file_srt(f, 0x401000, &srt, &err), HS_OK);
    cr_assert_eq(srt, 0x4c0100);
    cr_assert_eq(ghcdebug_file_srt(f, 0x402000, &srt, &err), HS_OK);
    cr_assert_eq(srt, 0);
    cr_assert_eq(ghcdebug_file_stack_bitmap(f, 0x4200003000, 16, &bytes, &n, &err), HS_OK);
    cr_assert(n == 3 && bytes[0] == 1 && bytes[1] == 0 && bytes[2] == 1);
    cr_assert_eq(ghcdebug_file_stack_bitmap(f, 0x4200003000, 24, &bytes, &n, &err),
                 HS_ERR_NOT_FOUND);
    cr_assert_eq(ghcdebug_file_fun_bitmap(f, 0x4c0200, 2, &bytes, &n, &err), HS_OK);
    cr_assert(n == 2 && bytes[1] == 1);
    cr_assert_eq(ghcdebug_file_fun_bitmap(f, 0x4c0200, 3, &bytes, &n, &err), HS_ERR_NOT_FOUND);

    wire_con_desc cd;
    cr_assert_eq(ghcdebug_file_con_desc(f, 0x401000, &cd, &err), HS_OK);
    cr_assert_str_eq(cd.raw, "main:Main.Leak");
    cr_assert_str_eq(cd.name, "Leak");
    wire_con_desc_free(&cd);
    cr_assert_eq(ghcdebug_file_con_desc(f, 0x403000, &cd, &err), HS_OK);
    cr_assert_str_eq(cd.raw, "pkg:Mod.\xc4h"); /* back to one byte */
    cr_assert_str_eq(cd.package, "pkg");
    wire_con_desc_free(&cd);

    wire_source_info si;
    cr_assert_eq(ghcdebug_file_source_info(f, 0x401000, &si, &err), HS_OK);
    cr_assert(si.found && si.closure_type == 1);
    cr_assert_str_eq(si.position, "app/Main.hs:18:17-34");
    wire_source_info_free(&si);
    cr_assert_eq(ghcdebug_file_source_info(f, 0x402000, &si, &err), HS_OK);
    cr_assert_not(si.found);

    wire_ccs ccs;
    cr_assert_eq(ghcdebug_file_ccs(f, 0x4c1000, &ccs, &err), HS_OK);
    cr_assert(ccs.id == 7 && ccs.cc == 0x4c2000 && ccs.prev == 0 && ccs.index_table == 0x4c3000);
    wire_cc cc;
    cr_assert_eq(ghcdebug_file_cc(f, 0x4c2000, &cc, &err), HS_OK);
    cr_assert(cc.id == 3 && cc.mem_alloc == 5 && cc.time_ticks == 9 && cc.is_caf);
    cr_assert_str_eq(cc.srcloc, "app/Main.hs:1:1");
    wire_cc_free(&cc);
    wire_index_entry ie;
    cr_assert_eq(ghcdebug_file_index_entry(f, 0x4c3000, &ie, &err), HS_OK);
    cr_assert(ie.cc == 0x4c2000 && ie.ccs == 0x4c1000 && ie.next == 0 && ie.back_edge);
    uint64_t main_ccs;
    cr_assert_eq(ghcdebug_file_ccs_main(f, &main_ccs, &err), HS_OK);
    cr_assert_eq(main_ccs, 0x4c1000);
    cr_assert_eq(ghcdebug_file_count(f, WIRE_CMD_BLOCK), 2);
    ghcdebug_file_free(f);
    gdb_free(&g);
}

Test(ghcdebug_file, write_requests_are_ignored) {
    gdb g;
    gdb_init(&g, 0);
    gdb_request(&g, WIRE_CMD_PAUSE, 0, 0); /* answer (): no bytes */
    gdb_version(&g, 906, 2, 0, 1);
    gdb_request(&g, WIRE_CMD_RESUME, 0, 0);
    gdb_finish(&g);
    ghcdebug_file *f = parse_ok(&g);
    cr_assert_eq(ghcdebug_file_entry_count(f), 3);
    cr_assert_eq(ghcdebug_file_version(f)->major, 906);
    ghcdebug_file_free(f);
    gdb_free(&g);
}

Test(ghcdebug_file, every_truncation_is_refused) {
    gdb g;
    gdb_sample(&g);
    for (size_t n = 0; n < g.len; n++)
        parse_bad(g.b, n, NULL);
    gdb_free(&g);
}

Test(ghcdebug_file, other_format_versions) {
    gdb g;
    gdb_sample(&g);
    hs_store_be32(g.b, 1);
    parse_bad(g.b, g.len, "ghc-debug snapshot format version 1 is not supported "
                          "(this heapscope reads 0)");
    hs_store_be32(g.b, 0xffffffff);
    parse_bad(g.b, g.len, "format version 4294967295 is not supported");
    gdb_free(&g);
}

/* The sample with one byte at `at` (counted from the end when negative)
 * replaced. */
static void corrupt(long at, uint8_t v, const char *want) {
    gdb g;
    gdb_sample(&g);
    g.b[at < 0 ? (long)g.len + at : at] = v;
    parse_bad(g.b, g.len, want);
    gdb_free(&g);
}

/* Offset of the first occurrence of needle in the sample. */
static long find(const void *needle, size_t n) {
    gdb g;
    gdb_sample(&g);
    uint8_t *p = memmem(g.b, g.len, needle, n);
    long at = p ? (long)(p - g.b) : -1;
    gdb_free(&g);
    cr_assert_geq(at, 0);
    return at;
}

Test(ghcdebug_file, corrupted_fields) {
    gdb g;
    gdb_sample(&g);
    corrupt(11, 200, "announces"); /* entry count beyond the file */
    corrupt(11, (uint8_t)(g.entries - 1), "bytes after the last");
    gdb_free(&g);
    corrupt(19, 2, "PAUSE"); /* VERSION -> PAUSE: its request lacks the mode byte */
    corrupt(19, 10, "unknown request command 10");
    corrupt(15, 5, "length 5");    /* VERSION's LEN */
    corrupt(28, 6, NULL);          /* profiling mode 6 */
    corrupt(29, 2, NULL);          /* TNTC 2 */
    /* a bitmap entry 2, an SRT tag 2, a CAF flag 2, a back-edge flag 2 */
    corrupt(find((const uint8_t[]){0, 0, 0, 3, 1, 0, 1}, 7) + 5, 2, "bitmap entry");
    corrupt(find((const uint8_t[]){0, 0, 0, 0x11, 0, 1, 0, 0x10, 0x40, 0, 0, 0, 0, 0, 1}, 15) +
                14,
            2, "tag 2");
    corrupt(-(8 + 8 + 41 + 16), 2, "CAF flag is 2"); /* is_caf, link, INDEX_TABLE, CCS_MAIN */
    corrupt(-(8 + 8 + 1), 2, "back-edge flag is 2");
    /* a source-info string with a negative length, a count of 3 */
    long ipe = find("\x00\x00\x00\x06\x00\x00\x00\x12Main_Leak", 17);
    corrupt(ipe + 4, 0xff, "negative length");
    corrupt(ipe + 3, 3, "3 fields");
    /* a constructor-description character beyond one byte; a NUL */
    long cd = find("\xc3\x84h", 3);
    corrupt(cd, 0xc4, "not one byte");
    corrupt(cd, 0xe2, "not one byte");
    corrupt(cd + 2, 0, "NUL");
}

Test(ghcdebug_file, structural_errors) {
    gdb g;
    gdb_init(&g, 0); /* no VERSION */
    const uint64_t r = 0x4200000010;
    gdb_ptr_list(&g, WIRE_CMD_ROOTS, &r, 1);
    gdb_finish(&g);
    parse_bad(g.b, g.len, "no VERSION entry");
    gdb_free(&g);

    gdb_init(&g, 0); /* the same request twice */
    gdb_version(&g, 910, 1, 0, 1);
    gdb_sized(&g, WIRE_CMD_INFO_TABLES, 0x401000, 0, "0123456789abcdef", 16);
    gdb_sized(&g, WIRE_CMD_INFO_TABLES, 0x401003, 0, "0123456789abcdef", 16); /* untagged */
    gdb_finish(&g);
    parse_bad(g.b, g.len, "recorded twice");
    gdb_free(&g);

    static const uint8_t data[16];
    gdb_init(&g, 0); /* a block longer than the file */
    gdb_version(&g, 910, 1, 0, 1);
    gdb_request(&g, WIRE_CMD_BLOCK, 0x4200000000, 0);
    gdb_block(&g, 0, 0x4200000000, data, 16);
    hs_store_be32(g.b + g.len - 20, 0x7fffffff);
    gdb_finish(&g);
    parse_bad(g.b, g.len, "announces 2147483647 bytes");
    gdb_free(&g);

    gdb_init(&g, 0); /* a pointer list with an absurd count */
    gdb_version(&g, 910, 1, 0, 1);
    gdb_request(&g, WIRE_CMD_ROOTS, 0, 0);
    gdb_be64(&g, UINT64_C(1) << 62);
    gdb_finish(&g);
    parse_bad(g.b, g.len, "elements");
    gdb_free(&g);
}

/* A file whose ALL_BLOCKS holds the groups `starts` (lengths `lens`, the
 * bytes of group i all `fill[i]`), with ROOTS and SAVED_OBJECTS so that a
 * heap opens on it. */
static void blocks_file(gdb *g, size_t n, const uint64_t *starts, const uint32_t *lens,
                        const uint8_t *fill) {
    static uint8_t data[8192];
    gdb_init(g, 0);
    gdb_version(g, 906, 6, 0, 1);
    gdb_ptr_list(g, WIRE_CMD_ROOTS, NULL, 0);
    gdb_ptr_list(g, WIRE_CMD_SAVED_OBJECTS, NULL, 0);
    gdb_request(g, WIRE_CMD_ALL_BLOCKS, 0, 0);
    gdb_be64(g, n);
    for (size_t i = 0; i < n; i++) {
        memset(data, fill[i], sizeof data);
        gdb_block(g, 0, starts[i], data, lens[i]);
    }
    gdb_finish(g);
}

/* heap_open on the file's source: HS_OK with the heap in *h, or the error. */
static hs_status open_heap(ghcdebug_file *f, heap **h, hs_error *err) {
    *h = NULL;
    return heap_open(ghcdebug_file_source(f), h, err);
}

/* ghc-debug 0.6 writes each empty pinned group twice (the RTS lists it once
 * per capability, byte for byte): the file keeps both, in file order, and
 * the heap keeps the first copy and counts the group once. */
Test(ghcdebug_file, all_blocks_with_a_group_twice) {
    const uint64_t starts[] = {0x4200414000, 0x4200000000, 0x4200414000};
    const uint32_t lens[] = {4096, 8192, 4096};
    const uint8_t fill[] = {7, 1, 7};
    gdb g;
    blocks_file(&g, 3, starts, lens, fill);
    ghcdebug_file *f = parse_ok(&g);
    size_t nb;
    const ghcdebug_block *b = ghcdebug_file_blocks(f, &nb);
    cr_assert_eq(nb, 3);
    cr_assert(b[0].start == 0x4200000000 && b[1].start == 0x4200414000 &&
              b[2].start == 0x4200414000);
    cr_assert_lt(b[1].data, b[2].data, "file order among copies");
    heap *h;
    hs_error err = {0};
    cr_assert_eq(open_heap(f, &h, &err), HS_OK, "%s", err.message);
    cr_assert_eq(heap_block_count(h), 2);
    cr_assert_eq(heap_block_bytes(h), 8192 + 4096);
    size_t len = 0;
    const uint8_t *at = heap_memory_cached(h, 0x4200414000, &len);
    cr_assert(at == b[1].data && len == 4096, "the first copy is kept");
    heap_free(h);
    ghcdebug_file_free(f);
    gdb_free(&g);
}

/* Groups that overlap otherwise are read from the file but refused by the
 * heap, naming them. */
Test(ghcdebug_file, all_blocks_that_overlap_are_refused) {
    static const struct {
        uint64_t starts[2];
        uint32_t lens[2];
        uint8_t fill[2];
        const char *want;
    } cases[] = {
        {{0x4200000000, 0x4200001000}, {8192, 4096}, {0, 0},
         "the block groups at 0x4200000000 (8192 bytes) and 0x4200001000 (4096 bytes) overlap"},
        {{0x4200414000, 0x4200414000}, {4096, 4096}, {0, 1},
         "the block group at 0x4200414000 (4096 bytes) is listed twice with different bytes"},
        {{0x4200414000, 0x4200414000}, {4096, 8192}, {0, 0},
         "the block group at 0x4200414000 is listed twice with different lengths (4096 and "
         "8192 bytes)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gdb g;
        blocks_file(&g, 2, cases[i].starts, cases[i].lens, cases[i].fill);
        ghcdebug_file *f = parse_ok(&g);
        heap *h;
        hs_error err = {0};
        cr_assert_neq(open_heap(f, &h, &err), HS_OK, "case %zu accepted", i);
        cr_assert_null(h);
        cr_assert_str_eq(err.message, cases[i].want);
        ghcdebug_file_free(f);
        gdb_free(&g);
    }
}

/* Files of older ghc-debug: VERSION answers of 8 bytes (two u32) or 4. */
Test(ghcdebug_file, older_layouts_are_named) {
    for (int old = 8; old >= 4; old -= 4) {
        for (int last = 0; last < 2; last++) {
            gdb g;
            gdb_init(&g, 0);
            if (last)
                gdb_sized(&g, WIRE_CMD_INFO_TABLES, 0x401000, 0, "0123456789abcdef", 16);
            gdb_request(&g, WIRE_CMD_VERSION, 0, 0);
            gdb_be32(&g, old == 8 ? 902 : 3);
            if (old == 8)
                gdb_be32(&g, 4);
            if (!last)
                gdb_sized(&g, WIRE_CMD_INFO_TABLES, 0x401000, 0, "0123456789abcdef", 16);
            gdb_finish(&g);
            parse_bad(g.b, g.len, old == 8 ? "ghc-debug 0.3 to 0.5" : "ghc-debug 0.2 or older");
            gdb_free(&g);
        }
    }
}

Test(ghcdebug_file, sniffing) {
    gdb g;
    gdb_sample(&g);
    cr_assert(ghcdebug_file_sniff(g.b, g.len));
    cr_assert(ghcdebug_file_sniff(g.b, 20));
    cr_assert_not(ghcdebug_file_sniff(g.b, 11));
    hs_store_be32(g.b, 1); /* another version still looks like one, to be refused */
    cr_assert(ghcdebug_file_sniff(g.b, g.len));
    hs_store_be32(g.b, 0);
    g.b[19] = 99; /* first request: an unknown command */
    cr_assert_not(ghcdebug_file_sniff(g.b, g.len));
    gdb_free(&g);
    cr_assert_not(ghcdebug_file_sniff((const uint8_t *)"SQLite format 3\0\x10\0", 18));
    cr_assert_not(ghcdebug_file_sniff((const uint8_t *)"hello, this is text\n", 20));
}

Test(ghcdebug_file, open_from_disk) {
    char path[] = "/tmp/ghcdebug-test-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    gdb g;
    gdb_sample(&g);
    cr_assert_eq(write(fd, g.b, g.len), (ssize_t)g.len);
    close(fd);
    cr_assert(ghcdebug_file_sniff_path(path));
    ghcdebug_file *f = NULL;
    hs_error err;
    cr_assert_eq(ghcdebug_file_open(path, &f, &err), HS_OK, "%s", err.message);
    cr_assert_eq(ghcdebug_file_entry_count(f), g.entries);
    ghcdebug_file_free(f);

    cr_assert_eq(truncate(path, (off_t)g.len - 3), 0);
    cr_assert_neq(ghcdebug_file_open(path, &f, &err), HS_OK);
    cr_assert(strncmp(err.message, path, strlen(path)) == 0, "%s", err.message);
    unlink(path);
    cr_assert_eq(ghcdebug_file_open(path, &f, &err), HS_ERR_IO);
    cr_assert_not(ghcdebug_file_sniff_path(path));
    cr_assert_neq(ghcdebug_file_open("/tmp", &f, &err), HS_OK);
    cr_assert(strstr(err.message, "/tmp is a directory, not a ghc-debug snapshot file"), "%s",
              err.message);
    gdb_free(&g);
}
