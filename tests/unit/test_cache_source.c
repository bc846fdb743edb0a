/* The cache database and the caching source over a counting fake source:
 * a second source for the same program answers immutable requests without
 * asking, another program asks everything again, bad rows are not trusted,
 * and a busy or foreign database is a clear error. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_source.h"
#include "heapscope/cache.h"
#include "heapscope/closure_type.h"

#define BLK UINT64_C(0x4200100000)
#define I_CON UINT64_C(0x401000)
#define I_FUN UINT64_C(0x402000)
#define I_BIG UINT64_C(0x403000)
#define I_THUNK UINT64_C(0x404000)
#define I_NODESC UINT64_C(0x405000)
#define SRT_CLOSURE UINT64_C(0x4c7000)

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/hs-cache-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(cache_source, .init = make_dir, .fini = remove_dir);

/* The same program every time: what a process of one binary answers. */
static fake_source *program(void) {
    fake_source *f = fake_new(910, 0, WIRE_PROF_NONE);
    fake_add_block(f, BLK, 0x1000);
    fake_con(f, I_CON, HS_CONSTR_1_0, 1, 0, "main:Main.Leak");
    fake_info(f, I_FUN, HS_FUN, 1, 0);
    fake_fun_map(f, I_FUN, "PNP");
    fake_info_layout(f, I_BIG, HS_RET_BIG, 0);
    fake_ret_big(f, I_BIG, "PNNP");
    fake_info(f, I_THUNK, HS_THUNK, 0, 1);
    fake_srt(f, I_THUNK, SRT_CLOSURE);
    fake_info(f, I_NODESC, HS_CONSTR_0_1, 0, 1); /* a constructor without description */
    return f;
}

static cache *open_cache(void) {
    cache_options o = {.dir = dir};
    cache *c = NULL;
    hs_error err = {0};
    cr_assert_eq(cache_open(&o, &c, &err), HS_OK, "%s", err.message);
    return c;
}

static int64_t program_id(cache *c, const char *text) {
    cache_fingerprint fp = {.text = (char *)text};
    snprintf(fp.exe, sizeof fp.exe, "/bin/prog");
    int64_t id = 0;
    hs_error err = {0};
    cr_assert_eq(cache_program(c, &fp, &id, &err), HS_OK, "%s", err.message);
    return id;
}

/* Asks every immutable question once through the caching source and
 * checks the answers. */
static void ask_all(heap_source s) {
    hs_error err = {0};
    uint64_t infos[] = {I_CON, I_FUN, I_BIG, I_THUNK, I_CON};
    heap_blobs b = {0};
    cr_assert_eq(s.ops->info_tables(s.self, infos, 5, &b, &err), HS_OK, "%s", err.message);
    cr_assert_eq(b.count, 5);
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(b.items[i].len, 16);
    cr_assert_eq(b.items[0].data[8], HS_CONSTR_1_0, "the constructor's type word");
    cr_assert_eq(b.items[2].data[8], HS_RET_BIG);
    cr_assert_eq(memcmp(b.items[0].data, b.items[4].data, 16), 0);
    heap_blobs_free(&b);

    uint64_t srt = 0;
    cr_assert_eq(s.ops->srts(s.self, (uint64_t[]){I_THUNK}, 1, &srt, &err), HS_OK);
    cr_assert_eq(srt, SRT_CLOSURE);

    char *text = NULL;
    cr_assert_eq(s.ops->con_desc(s.self, I_CON, &text, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(text, "main:Main.Leak");
    free(text);
    cr_assert_eq(s.ops->con_desc(s.self, I_NODESC, &text, &err), HEAP_UNAVAILABLE);
    cr_assert_null(text);

    heap_info big = {.ptr = I_BIG, .type = HS_RET_BIG}, fun = {.ptr = I_FUN, .type = HS_FUN};
    heap_bitmap bm = {0};
    cr_assert_eq(s.ops->frame_bitmap(s.self, BLK, 0, &big, &bm, &err), HS_OK, "%s", err.message);
    cr_assert_eq(bm.count, 4);
    cr_assert_eq(memcmp(bm.bits, "\1\0\0\1", 4), 0);
    free(bm.bits);
    cr_assert_eq(s.ops->fun_bitmap(s.self, BLK, &fun, 3, &bm, &err), HS_OK, "%s", err.message);
    cr_assert_eq(bm.count, 3);
    cr_assert_eq(memcmp(bm.bits, "\1\0\1", 3), 0);
    free(bm.bits);

    wire_source_info si = {0};
    cr_assert_eq(s.ops->source_info(s.self, I_CON, &si, &err), HEAP_UNAVAILABLE);
    wire_source_info_free(&si);
}

static fake_counts first_pass(cache *c, int64_t prog) {
    fake_source *f = program();
    cache_source *cs = NULL;
    hs_error err = {0};
    cr_assert_eq(cache_source_new(c, prog, fake_heap_source(f), &cs, &err), HS_OK, "%s",
                 err.message);
    ask_all(cache_source_heap(cs));
    cache_source_stats st = cache_source_get_stats(cs);
    cr_assert_eq(cache_source_flush(cs, &err), HS_OK, "%s", err.message);
    cr_assert_eq(cache_source_get_stats(cs).pending, 0);
    cr_assert_eq(cache_source_get_stats(cs).recorded, st.pending);
    fake_counts counts = *fake_counts_of(f);
    cache_source_free(cs);
    fake_free(f);
    return counts;
}

Test(cache_source, second_process_of_same_program_asks_nothing_immutable) {
    cache *c = open_cache();
    int64_t prog = program_id(c, "program A");
    fake_counts one = first_pass(c, prog);
    cr_assert_eq(one.info_tables, 1, "one batched request for the misses");
    cr_assert_eq(one.srts + one.stack_bitmap + one.fun_bitmap, 3);
    cr_assert_eq(one.con_desc, 2);
    cache_close(c);

    /* another connection, another process: the cache file is reopened */
    c = open_cache();
    cr_assert_eq(program_id(c, "program A"), prog);
    fake_counts two = first_pass(c, prog);
    cr_assert_eq(two.info_tables + two.srts + two.con_desc + two.stack_bitmap + two.fun_bitmap +
                     two.source_info,
                 0, "all immutable answers came from the cache");
    cache_close(c);
}

Test(cache_source, another_program_is_asked_again) {
    cache *c = open_cache();
    int64_t a = program_id(c, "program A"), b = program_id(c, "program B");
    cr_assert_neq(a, b);
    first_pass(c, a);
    fake_counts other = first_pass(c, b);
    cr_assert_eq(other.info_tables, 1);
    cr_assert_eq(other.con_desc, 2);
    cache_close(c);
}

Test(cache_source, answers_equal_what_the_program_said) {
    cache *c = open_cache();
    int64_t prog = program_id(c, "program A");
    first_pass(c, prog);
    /* the second pass checks every answer in ask_all: the same values */
    fake_source *f = program();
    cache_source *cs = NULL;
    hs_error err = {0};
    cr_assert_eq(cache_source_new(c, prog, fake_heap_source(f), &cs, &err), HS_OK);
    ask_all(cache_source_heap(cs));
    cache_source_stats st = cache_source_get_stats(cs);
    cr_assert_eq(st.misses, 0);
    cr_assert_gt(st.hits, 8);
    cache_source_free(cs);
    fake_free(f);
    cache_close(c);
}

/* Only RET_BIG maps are the info table's: a RET_FUN frame is asked each time. */
Test(cache_source, per_frame_bitmaps_are_not_cached) {
    cache *c = open_cache();
    fake_source *f = program();
    fake_info_layout(f, UINT64_C(0x406000), HS_RET_FUN, 0);
    cache_source *cs = NULL;
    hs_error err = {0};
    cr_assert_eq(cache_source_new(c, program_id(c, "A"), fake_heap_source(f), &cs, &err), HS_OK);
    heap_source s = cache_source_heap(cs);
    heap_info ret_fun = {.ptr = UINT64_C(0x406000), .type = HS_RET_FUN};
    heap_bitmap bm = {0};
    for (int i = 0; i < 2; i++) {
        s.ops->frame_bitmap(s.self, BLK, 0, &ret_fun, &bm, &err);
        free(bm.bits);
    }
    cr_assert_eq(fake_counts_of(f)->stack_bitmap, 2);
    cr_assert_eq(cache_source_get_stats(cs).pending, 0);
    cache_source_free(cs);
    fake_free(f);
    cache_close(c);
}

static void sql(const char *fmt, const char *arg) {
    char path[128], q[512];
    snprintf(path, sizeof path, "%s/cache.db", dir);
    snprintf(q, sizeof q, fmt, arg);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(db, q, NULL, NULL, &msg), SQLITE_OK, "%s: %s", q, msg);
    sqlite3_close(db);
}

Test(cache_source, bad_rows_are_not_trusted) {
    cache *c = open_cache();
    int64_t prog = program_id(c, "program A");
    first_pass(c, prog);
    cache_close(c);
    /* an info table too long, a bitmap with a 2, a description with a NUL */
    sql("UPDATE info_tables SET bytes = zeroblob(1000) WHERE info = %s", "4198400");
    sql("UPDATE frame_bitmaps SET bits = x'01020001'%s", "");
    sql("UPDATE con_descs SET text = CAST(x'6100620063' AS TEXT) WHERE text IS NOT NULL%s", "");
    c = open_cache();
    fake_counts again = first_pass(c, prog); /* ask_all checks the answers are right */
    cr_assert_eq(again.info_tables, 1, "the bad info table was asked again");
    cr_assert_eq(again.stack_bitmap, 1);
    cr_assert_eq(again.con_desc, 1, "only the bad description, not the unavailable one");
    cr_assert_eq(again.srts + again.fun_bitmap, 0);
    cache_close(c);
}

Test(cache_source, database_is_wal_and_private) {
    cache *c = open_cache();
    char path[128];
    snprintf(path, sizeof path, "%s/cache.db", dir);
    cr_assert_str_eq(cache_db_path(c), path);
    cr_assert_eq(cache_max_bytes(c), CACHE_DEFAULT_MAX_BYTES);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
    cache_close(c);
    /* the directory is made private when heapscope creates it */
    char sub[128];
    snprintf(sub, sizeof sub, "%s/x/heapscope", dir);
    cache_options o = {.dir = sub};
    hs_error err = {0};
    cr_assert_eq(cache_open(&o, &c, &err), HS_OK, "%s", err.message);
    struct stat s;
    cr_assert_eq(stat(sub, &s), 0);
    cr_assert_eq(s.st_mode & 0777, 0700);
    cache_close(c);
}

Test(cache_source, default_directory_follows_xdg) {
    char buf[256];
    hs_error err = {0};
    setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
    cr_assert_eq(cache_default_dir(buf, sizeof buf, &err), HS_OK);
    cr_assert_str_eq(buf, "/somewhere/cache/heapscope");
    setenv("XDG_CACHE_HOME", "relative/ignored", 1);
    setenv("HOME", "/home/someone", 1);
    cr_assert_eq(cache_default_dir(buf, sizeof buf, &err), HS_OK);
    cr_assert_str_eq(buf, "/home/someone/.cache/heapscope");
    unsetenv("XDG_CACHE_HOME");
    cr_assert_eq(cache_default_dir(buf, sizeof buf, &err), HS_OK);
    cr_assert_str_eq(buf, "/home/someone/.cache/heapscope");
}

static void expect_open_error(const char *want) {
    cache_options o = {.dir = dir};
    cache *c = NULL;
    hs_error err = {0};
    cr_assert_neq(cache_open(&o, &c, &err), HS_OK);
    cr_assert_null(c);
    cr_assert(strstr(err.message, want), "%s", err.message);
    cr_assert(strstr(err.message, "cache.db"), "names the file: %s", err.message);
}

Test(cache_source, foreign_damaged_and_newer_files_are_refused) {
    char path[128];
    snprintf(path, sizeof path, "%s/cache.db", dir);
    FILE *f = fopen(path, "w");
    fputs("this is not a database, just some text that is long enough to matter..........."
          "...............................................................................",
          f);
    fclose(f);
    expect_open_error("damaged");
    remove(path);
    sql("CREATE TABLE notes(x); PRAGMA application_id = 1234%s", "");
    expect_open_error("not a heapscope cache");
    remove(path);
    cache_close(open_cache());
    sql("PRAGMA user_version = 99%s", "");
    expect_open_error("newer heapscope (schema 99");
}

/* Another process holding the write lock past the busy timeout: the flush
 * fails with a clear message and keeps its answers for the next try. */
Test(cache_source, busy_database_keeps_answers_pending) {
    cache_options o = {.dir = dir, .busy_timeout_ms = 50};
    cache *c = NULL;
    hs_error err = {0};
    cr_assert_eq(cache_open(&o, &c, &err), HS_OK, "%s", err.message);
    int64_t prog = program_id(c, "A");
    fake_source *f = program();
    cache_source *cs = NULL;
    cr_assert_eq(cache_source_new(c, prog, fake_heap_source(f), &cs, &err), HS_OK);
    ask_all(cache_source_heap(cs));
    char path[128];
    snprintf(path, sizeof path, "%s/cache.db", dir);
    sqlite3 *other;
    cr_assert_eq(sqlite3_open(path, &other), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    uint64_t pending = cache_source_get_stats(cs).pending;
    cr_assert_eq(cache_source_flush(cs, &err), HS_ERR_TIMEOUT);
    cr_assert(strstr(err.message, "busy"), "%s", err.message);
    cr_assert_eq(cache_source_get_stats(cs).pending, pending);
    cr_assert_eq(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(other);
    cr_assert_eq(cache_source_flush(cs, &err), HS_OK, "%s", err.message);
    cr_assert_eq(cache_source_get_stats(cs).recorded, pending);
    cache_source_free(cs);
    fake_free(f);
    cache_close(c);
}

/* Addresses in a library's memory (mapped elsewhere at the next run) are
 * asked every time and never kept; the others of the same batch are. */
Test(cache_source, moving_addresses_are_never_cached) {
    cache *c = open_cache();
    int64_t prog = program_id(c, "program A");
    cache_range lib = {I_FUN, I_BIG + 1}; /* I_FUN and I_BIG live in a library */
    for (int pass = 0; pass < 2; pass++) {
        fake_source *f = program();
        cache_source *cs = NULL;
        hs_error err = {0};
        cr_assert_eq(cache_source_new(c, prog, fake_heap_source(f), &cs, &err), HS_OK);
        cr_assert(cache_source_set_moving(cs, &lib, 1));
        ask_all(cache_source_heap(cs)); /* the answers stay right */
        fake_counts *n = fake_counts_of(f);
        cr_assert_eq(n->info_tables, 1, "pass %d: the library's info tables are asked", pass);
        cr_assert_eq(n->stack_bitmap + n->fun_bitmap, 2, "pass %d: and their bitmaps", pass);
        cr_assert_eq(n->con_desc + n->srts, pass == 0 ? 3 : 0, "pass %d", pass);
        cr_assert_eq(cache_source_flush(cs, &err), HS_OK, "%s", err.message);
        cache_source_free(cs);
        fake_free(f);
    }
    cache_close(c);
}
