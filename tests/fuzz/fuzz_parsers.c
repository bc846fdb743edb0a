/* Deterministic fuzzing of every parser of outside bytes: answer bodies of
 * every command, ghc-debug snapshot files, constructor descriptions, theme
 * files, era ranges and integers typed by the user, /proc maps lines and ELF
 * notes. Inputs are random bytes and mutations of valid ones (the spec's
 * vectors); a fixed seed keeps runs repeatable. The sanitizer build turns
 * any overread, leak or undefined behaviour into a failure; the checks here
 * assert the invariants of what was accepted. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ghcdebug_build.h"
#include "heapscope/cache.h"
#include "heapscope/ghcdebug_file.h"
#include "heapscope/query.h"
#include "heapscope/tui.h"
#include "heapscope/wire.h"

#define ROUNDS 100000

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Valid bodies to start mutations from (wire-protocol.md §12). */
static const uint8_t version_body[] = {0, 0, 3, 0x8e, 0, 0, 0, 1, 4, 1};
static const uint8_t source_info_body[] = {
    0, 0, 0, 6, 0, 0, 0, 13, 's', 'a', 't', '_', 's', '1', 'A', 'b', '_', 'i', 'n', 'f', 'o',
    0, 0, 0, 2, '1', '5', 0, 0, 0, 5, '[', 'I', 'n', 't', ']', 0, 0, 0, 5, 'l', 'e', 'a', 'k',
    'y', 0, 0, 0, 4, 'M', 'a', 'i', 'n', 0, 0, 0, 4, 'a', '.', 'h', 's'};
static const uint8_t con_desc_body[] = {0, 0, 0, 14, 'm', 'a', 'i', 'n', ':', 'M', 'a',
                                        'i', 'n', '.', 'L', 'e', 'a', 'k'};
static const uint8_t block_body[14 + 64] = {0, 0, 0, 0x50, 0x10, 0, 0x42, 0, 0, 0, 0, 0, 0, 64};

/* A random input: pure noise, or a seed with bytes flipped, cut or extended. */
static size_t make_input(uint8_t *buf, size_t cap, const uint8_t *seed, size_t seed_len) {
    size_t len;
    if (rnd() % 3 == 0 || !seed) {
        len = rnd() % cap;
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)rnd();
        return len;
    }
    len = seed_len;
    memcpy(buf, seed, len);
    for (int k = (int)(rnd() % 4); k >= 0; k--) {
        switch (rnd() % 3) {
        case 0: if (len) buf[rnd() % len] = (uint8_t)rnd(); break;
        case 1: len = len ? rnd() % len : 0; break;
        default:
            while (len < cap && rnd() % 2)
                buf[len++] = (uint8_t)rnd();
        }
    }
    return len;
}

static wire_buf body_of(const uint8_t *bytes, size_t len) {
    wire_buf b = {malloc(len ? len : 1), len, len ? len : 1};
    memcpy(b.data, bytes, len);
    return b;
}

Test(fuzz, answer_bodies) {
    uint8_t in[512];
    for (int r = 0; r < ROUNDS; r++) {
        hs_error err;
        size_t n = make_input(in, sizeof in, version_body, sizeof version_body);
        wire_version v;
        if (wire_decode_version(in, n, &v, &err) == HS_OK)
            cr_assert(n == 10 && v.prof_mode <= 5);

        n = make_input(in, sizeof in, source_info_body, sizeof source_info_body);
        wire_source_info si = {0};
        if (wire_decode_source_info(in, n, &si, &err) == HS_OK && si.found)
            cr_assert(si.name && si.type && si.label && si.module && si.position);
        wire_source_info_free(&si);

        n = make_input(in, sizeof in, con_desc_body, sizeof con_desc_body);
        wire_con_desc cd = {0};
        if (wire_decode_con_desc(in, n, &cd, &err) == HS_OK)
            cr_assert(cd.raw && cd.package && cd.module && cd.name);
        wire_con_desc_free(&cd);

        n = make_input(in, sizeof in, block_body, sizeof block_body);
        wire_buf body = body_of(in, n);
        wire_block_list blocks = {0};
        if (wire_decode_blocks(&body, &blocks, &err) == HS_OK)
            for (size_t i = 0; i < blocks.count; i++)
                cr_assert(blocks.items[i].data + blocks.items[i].len <=
                          blocks.body.data + blocks.body.len);
        wire_block_list_free(&blocks);
        wire_buf_free(&body);

        n = make_input(in, sizeof in, NULL, 0);
        body = body_of(in, n);
        wire_blobs blobs = {0};
        if (wire_decode_blobs(&body, 1 + rnd() % 3, &blobs, &err) == HS_OK)
            for (size_t i = 0; i < blobs.count; i++)
                cr_assert(blobs.items[i].data + blobs.items[i].len <=
                          blobs.body.data + blobs.body.len);
        wire_blobs_free(&blobs);
        wire_buf_free(&body);

        n = make_input(in, sizeof in, NULL, 0);
        wire_ptr_list ptrs = {0};
        if (wire_decode_ptrs(in, n, &ptrs, &err) == HS_OK)
            cr_assert(ptrs.count == n / 8 && n % 8 == 0);
        wire_ptr_list_free(&ptrs);
        wire_bitmap bm = {0};
        if (wire_decode_bitmap(in, n, &bm, &err) == HS_OK)
            for (size_t i = 0; i < bm.count; i++)
                cr_assert(bm.bits[i] <= 1);
        wire_bitmap_free(&bm);
        wire_ccs ccs;
        wire_decode_ccs(in, n, &ccs, &err);
        wire_cc cc = {0};
        wire_decode_cc(in, n, &cc, &err);
        wire_cc_free(&cc);
        wire_index_entry ie;
        wire_decode_index_entry(in, n, &ie, &err);
        uint64_t srts[3], one;
        wire_decode_srts(in, n, 1 + rnd() % 3, srts, &err);
        wire_decode_one_ptr(in, n, &one, &err);
    }
}

/* ghc-debug snapshots: mutations of a file with one entry of every kind. */
Test(fuzz, ghcdebug_snapshots) {
    gdb seed;
    gdb_sample(&seed);
    uint8_t in[2048];
    cr_assert_lt(seed.len, sizeof in);
    int accepted = 0;
    for (int r = 0; r < ROUNDS / 4; r++) {
        size_t n = make_input(in, sizeof in, seed.b, seed.len);
        if (rnd() % 4 == 0) /* keep the header valid more often */
            memcpy(in, seed.b, n < 12 ? n : 12);
        ghcdebug_file *f = NULL;
        hs_error err = {0};
        if (ghcdebug_file_parse(in, n, &f, &err) != HS_OK) {
            cr_assert(err.message[0] && !strchr(err.message, '\n'));
            continue;
        }
        accepted++;
        cr_assert_leq(ghcdebug_file_version(f)->prof_mode, 5);
        size_t nb;
        const ghcdebug_block *b = ghcdebug_file_blocks(f, &nb);
        for (size_t i = 1; i < nb; i++)
            cr_assert_leq(b[i - 1].start, b[i].start); /* copies: the heap judges */
        wire_con_desc cd;
        if (ghcdebug_file_con_desc(f, 0x403000, &cd, &err) == HS_OK)
            cr_assert(cd.raw && cd.name && strlen(cd.raw) >= strlen(cd.name));
        wire_con_desc_free(&cd);
        wire_cc cc;
        if (ghcdebug_file_cc(f, 0x4c2000, &cc, &err) == HS_OK)
            cr_assert(cc.label && cc.module && cc.srcloc);
        wire_cc_free(&cc);
        ghcdebug_file_free(f);
    }
    cr_assert_gt(accepted, ROUNDS / 400, "mutations too rarely stay valid: %d", accepted);
    gdb_free(&seed);
}

/* Printable-ish text with the characters the text parsers care about. */
static void make_text(char *buf, size_t cap, const char *alphabet) {
    size_t len = rnd() % (cap - 1), k = strlen(alphabet);
    for (size_t i = 0; i < len; i++)
        buf[i] = rnd() % 8 ? alphabet[rnd() % k] : (char)(1 + rnd() % 255);
    buf[len] = '\0';
}

Test(fuzz, user_text) {
    char text[256];
    for (int r = 0; r < ROUNDS; r++) {
        hs_error err;
        make_text(text, sizeof text, "0123456789-x ");
        query_era_range range;
        if (query_era_range_parse(text, &range, &err) == HS_OK)
            cr_assert_leq(range.lo, range.hi);
        int64_t v;
        query_parse_int(text, &v);

        make_text(text, sizeof text, "abc:.ABCGHT#(),|");
        wire_con_desc cd = {0};
        if (wire_parse_con_desc(text, strlen(text), &cd, &err) == HS_OK)
            cr_assert(cd.name && strlen(cd.name) <= strlen(text));
        wire_con_desc_free(&cd);
    }
}

Test(fuzz, theme_files) {
    static const char *const words[] = {"normal", "selected", "era-palette", "=", "on", "bold",
                                        "red", "bright-blue", "default", "255", "256", "-1",
                                        "#", "\n", " ", "title", "reverse", "x"};
    char text[1024];
    for (int r = 0; r < ROUNDS / 4; r++) {
        size_t len = 0;
        for (int w = (int)(rnd() % 60); w > 0; w--) {
            const char *s = words[rnd() % (sizeof words / sizeof words[0])];
            size_t n = strlen(s);
            if (len + n + 2 >= sizeof text)
                break;
            memcpy(text + len, s, n);
            len += n;
            text[len++] = rnd() % 4 ? ' ' : '\n';
        }
        text[len] = '\0';
        tui_theme theme;
        hs_error err = {0};
        if (tui_theme_parse(text, "fuzz.theme", &theme, &err) != HS_OK)
            cr_assert(strncmp(err.message, "fuzz.theme:", 11) == 0, "%s", err.message);
        else
            cr_assert(theme.n_era >= 1 && theme.n_era <= TUI_ERA_PALETTE_MAX);
    }
}

/* The cache reads /proc/PID/maps lines and executables of the program it
 * fingerprints: both are outside bytes. */
Test(fuzz, maps_lines_and_elf_files) {
    static const char maps_seed[] = "7f06f7cf9000-7f06f7e4f000 r-xp 00026000 fe:00 332835 "
                                    "     /usr/lib/libc.so.6 (deleted)";
    char line[256];
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = make_input((uint8_t *)line, sizeof line - 1, (const uint8_t *)maps_seed,
                              sizeof maps_seed - 1);
        line[n] = '\0';
        cache_map_line m;
        if (cache_maps_parse_line(line, &m)) {
            cr_assert_lt(m.start, m.end);
            cr_assert_eq(strlen(m.perms), 4);
            cr_assert(m.path >= line && m.path <= line + n);
        }
    }
    /* the start of a real ELF file (headers and notes), mutated */
    static uint8_t elf[8192], in[8192];
    FILE *f = fopen("/bin/true", "rb");
    cr_assert_not_null(f);
    size_t elf_len = fread(elf, 1, sizeof elf, f);
    fclose(f);
    int fd = memfd_create("fuzz-elf", 0);
    cr_assert_geq(fd, 0);
    char hex[129];
    cr_assert_eq(pwrite(fd, elf, elf_len, 0), (ssize_t)elf_len);
    cr_assert(cache_elf_build_id(fd, hex, sizeof hex), "the seed has its build id");
    for (int r = 0; r < ROUNDS / 10; r++) {
        size_t n = make_input(in, sizeof in, elf, elf_len);
        cr_assert_eq(ftruncate(fd, 0), 0);
        cr_assert_eq(pwrite(fd, in, n, 0), (ssize_t)n);
        if (cache_elf_build_id(fd, hex, sizeof hex))
            cr_assert(strlen(hex) > 0 && strlen(hex) % 2 == 0 && strlen(hex) <= 128);
    }
    close(fd);
}
