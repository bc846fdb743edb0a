/* The store's codec, header sniffing, schema and atomic writing. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ghcdebug_build.h"
#include "store_internal.h"

/* ---- checksum and chunk directories ---- */

Test(store_codec, checksum_sees_every_single_bit_flip) {
    uint8_t buf[77];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    uint64_t sum = store_checksum(buf, sizeof buf);
    for (size_t i = 0; i < sizeof buf; i++) {
        for (int b = 0; b < 8; b++) {
            buf[i] ^= (uint8_t)(1 << b);
            cr_assert_neq(store_checksum(buf, sizeof buf), sum, "byte %zu bit %d", i, b);
            buf[i] ^= (uint8_t)(1 << b);
        }
    }
    cr_assert_eq(store_checksum(buf, sizeof buf), sum);
    cr_assert_neq(store_checksum(buf, sizeof buf - 1), sum, "length counts");
}

static void make_dir(uint8_t *dir, const store_dir_entry *e, size_t n) {
    for (size_t i = 0; i < n; i++)
        store_dir_put(dir + i * STORE_DIR_ENTRY_BYTES, &e[i]);
}

Test(store_codec, directory_round_trips_and_checks) {
    store_dir_entry e[2] = {{UINT64_C(0x4200001000), 4096, 0x22}, {UINT64_C(0x4200100000), 8192, 1}};
    uint8_t dir[32];
    make_dir(dir, e, 2);
    store_dir_entry back = store_dir_get(dir + 16);
    cr_assert_eq(back.start, e[1].start);
    cr_assert_eq(back.len, 8192);
    cr_assert_eq(back.flags, 1);
    hs_error err = {0};
    uint64_t sum = store_checksum(dir, sizeof dir);
    cr_assert_eq(store_dir_check(dir, sizeof dir, sum, 12288, &err), HS_OK, "%s", err.message);
    cr_assert_eq(store_dir_check(dir, sizeof dir, sum, 12287, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "directory says 12288"), "%s", err.message);
    cr_assert_eq(store_dir_check(dir, sizeof dir, sum ^ 1, 12288, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "checksum"), "%s", err.message);
    cr_assert_eq(store_dir_check(dir, 15, store_checksum(dir, 15), 4096, &err), HS_ERR_PROTOCOL);
    cr_assert_eq(store_dir_check(dir, 0, store_checksum(dir, 0), 0, &err), HS_ERR_PROTOCOL);
}

Test(store_codec, directory_refuses_wrapping_and_huge_groups) {
    hs_error err = {0};
    uint8_t dir[16];
    store_dir_entry wrap = {UINT64_MAX - 100, 4096, 0};
    make_dir(dir, &wrap, 1);
    cr_assert_eq(store_dir_check(dir, 16, store_checksum(dir, 16), 4096, &err), HS_ERR_PROTOCOL);
    store_dir_entry huge = {UINT64_C(0x4200000000), STORE_MAX_GROUP_BYTES + 1u, 0};
    make_dir(dir, &huge, 1);
    cr_assert_eq(store_dir_check(dir, 16, store_checksum(dir, 16), huge.len, &err),
                 HS_ERR_PROTOCOL);
    store_dir_entry ok = {UINT64_C(0x4200000000), 4096, 0};
    make_dir(dir, &ok, 1);
    dir[15] = 1; /* padding must be zero */
    cr_assert_eq(store_dir_check(dir, 16, store_checksum(dir, 16), 4096, &err), HS_ERR_PROTOCOL);
}

Test(store_codec, bitmaps_are_bytes_of_zero_or_one) {
    hs_error err = {0};
    uint8_t good[] = {0, 1, 1, 0}, bad[] = {0, 2};
    cr_assert_eq(store_bitmap_check(good, 4, 4, &err), HS_OK);
    cr_assert_eq(store_bitmap_check(good, 4, 3, &err), HS_ERR_PROTOCOL);
    cr_assert_eq(store_bitmap_check(bad, 2, 8, &err), HS_ERR_PROTOCOL);
}

/* ---- files ---- */

static char dir_path[64];

static void make_dir_fixture(void) {
    snprintf(dir_path, sizeof dir_path, "/tmp/store-codec-XXXXXX");
    cr_assert_not_null(mkdtemp(dir_path));
}

static void remove_dir_fixture(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir_path);
    cr_assert_eq(system(cmd), 0);
}

static void path_in(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir_path, name);
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* An empty heapscope-schema database made by the store itself. */
static void make_db(const char *path, int app_id, int version) {
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    hs_error err = {0};
    cr_assert_eq(store_schema_create(db, &err), HS_OK, "%s", err.message);
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d;", app_id,
             version);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* A fresh store database in the fixture directory, opened. */
static sqlite3 *open_new_db(const char *name) {
    char p[128];
    path_in(p, sizeof p, name);
    make_db(p, STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    return db;
}

static size_t dir_entries(void) {
    size_t n = 0;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir_path);
    FILE *p = popen(cmd, "r");
    cr_assert(fscanf(p, "%zu", &n) == 1);
    pclose(p);
    return n;
}

Test(store_files, header_names_what_is_wrong, .init = make_dir_fixture,
     .fini = remove_dir_fixture) {
    char p[128];
    hs_error err = {0};
    path_in(p, sizeof p, "text");
    write_bytes(p, "hello, world\n", 13);
    cr_assert_eq(store_header_check(p, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "not an SQLite database"), "%s", err.message);
    cr_assert_not(store_is_snapshot_file(p));

    path_in(p, sizeof p, "ours.db");
    make_db(p, STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
    cr_assert_eq(store_header_check(p, &err), HS_OK, "%s", err.message);
    cr_assert(store_is_snapshot_file(p));

    path_in(p, sizeof p, "other.db");
    make_db(p, 0x1234, 1);
    cr_assert_eq(store_header_check(p, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "another application"), "%s", err.message);
    cr_assert_not(store_is_snapshot_file(p));

    path_in(p, sizeof p, "newer.db");
    make_db(p, STORE_APPLICATION_ID, STORE_SCHEMA_VERSION + 1);
    cr_assert_eq(store_header_check(p, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "newer heapscope (schema 2, this one reads up to 1)"), "%s",
              err.message);

    /* cut short: the header says how long the file is */
    char ours[128];
    path_in(ours, sizeof ours, "ours.db");
    struct stat sb;
    cr_assert_eq(stat(ours, &sb), 0);
    cr_assert_eq(truncate(ours, sb.st_size / 2), 0);
    cr_assert_eq(store_header_check(ours, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "truncated"), "%s", err.message);
    cr_assert_eq(truncate(ours, 50), 0);
    cr_assert_eq(store_header_check(ours, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "truncated"), "%s", err.message);

    path_in(p, sizeof p, "missing");
    cr_assert_eq(store_header_check(p, &err), HS_ERR_IO);
    cr_assert_eq(store_header_check(dir_path, &err), HS_ERR_USAGE, "a directory");
    cr_assert(strstr(err.message, "is a directory, not a snapshot file"), "%s", err.message);
    /* a FIFO without a writer: opening it must not wait */
    path_in(p, sizeof p, "fifo");
    cr_assert_eq(mkfifo(p, 0600), 0);
    cr_assert_eq(store_header_check(p, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "is a FIFO, not a snapshot file"), "%s", err.message);
    cr_assert_not(store_is_snapshot_file(p));
}

Test(store_files, schema_check_wants_every_table, .init = make_dir_fixture,
     .fini = remove_dir_fixture) {
    sqlite3 *db = open_new_db("s.db");
    hs_error err = {0};
    cr_assert_eq(store_schema_check(db, &err), HS_OK, "%s", err.message);
    cr_assert_eq(sqlite3_exec(db, "DROP TABLE fun_bitmaps", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(store_schema_check(db, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "fun_bitmaps"), "%s", err.message);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 0", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(store_schema_check(db, &err), HS_ERR_PROTOCOL);
    sqlite3_close(db);
}

Test(store_files, meta_round_trips, .init = make_dir_fixture, .fini = remove_dir_fixture) {
    sqlite3 *db = open_new_db("m.db");
    hs_error err = {0};
    store_meta m = {.pid = 4242, .paused_at = 1700000000, .closures = 123456789012,
                    .version = {.major = 910, .patch = 1, .prof_mode = WIRE_PROF_ERA, .tntc = true}};
    snprintf(m.program, sizeof m.program, "leaky");
    snprintf(m.target, sizeof m.target, "/run/x/4242-leaky");
    cr_assert_eq(store_meta_write(db, &m, &err), HS_OK, "%s", err.message);
    store_meta back;
    cr_assert_eq(store_meta_read(db, &back, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(back.program, "leaky");
    cr_assert_str_eq(back.target, "/run/x/4242-leaky");
    cr_assert_eq(back.pid, 4242);
    cr_assert_eq(back.paused_at, 1700000000);
    cr_assert_eq(back.closures, 123456789012);
    cr_assert_eq(back.version.major, 910);
    cr_assert_eq(back.version.prof_mode, WIRE_PROF_ERA);
    cr_assert(back.version.tntc);
    cr_assert_eq(sqlite3_exec(db, "UPDATE meta SET value = 9 WHERE key = 'profiling_mode'", NULL,
                              NULL, NULL),
                 SQLITE_OK);
    cr_assert_eq(store_meta_read(db, &back, &err), HS_ERR_PROTOCOL);
    sqlite3_close(db);
}

Test(store_files, tmpfile_commits_atomically, .init = make_dir_fixture,
     .fini = remove_dir_fixture) {
    char target[128];
    path_in(target, sizeof target, "snap.db");
    store_tmpfile t;
    hs_error err = {0};
    cr_assert_eq(store_tmpfile_create(target, false, &t, &err), HS_OK, "%s", err.message);
    cr_assert(strncmp(t.path, dir_path, strlen(dir_path)) == 0, "beside the target: %s", t.path);
    write_bytes(t.path, "one", 3);
    cr_assert_neq(access(target, F_OK), 0, "nothing at the target before commit");
    cr_assert_eq(store_tmpfile_commit(&t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(dir_entries(), 1, "only the target is left");

    /* an existing file is refused, and kept, unless replacing */
    cr_assert_eq(store_tmpfile_create(target, false, &t, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "already exists"), "%s", err.message);
    cr_assert_eq(store_tmpfile_create(target, true, &t, &err), HS_OK, "%s", err.message);
    write_bytes(t.path, "two!", 4);
    store_tmpfile_abort(&t);
    cr_assert_eq(dir_entries(), 1, "abort leaves no temporary file");
    struct stat sb;
    cr_assert_eq(stat(target, &sb), 0);
    cr_assert_eq(sb.st_size, 3, "the old file is intact");
    cr_assert_eq(store_tmpfile_create(target, true, &t, &err), HS_OK, "%s", err.message);
    write_bytes(t.path, "two!", 4);
    cr_assert_eq(store_tmpfile_commit(&t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(stat(target, &sb), 0);
    cr_assert_eq(sb.st_size, 4, "replaced");
    cr_assert_eq(dir_entries(), 1);

    /* a file that appears at the target meanwhile is not replaced */
    char other[128];
    path_in(other, sizeof other, "late.db");
    cr_assert_eq(store_tmpfile_create(other, false, &t, &err), HS_OK, "%s", err.message);
    write_bytes(other, "late", 4);
    cr_assert_eq(store_tmpfile_commit(&t, &err), HS_ERR_USAGE);
    cr_assert_eq(dir_entries(), 2, "no temporary file left behind");
}

/* ---- describing files for a listing (describe.c) ---- */

Test(store_files, describe_says_what_a_file_is, .init = make_dir_fixture,
     .fini = remove_dir_fixture) {
    char p[128];
    store_file_info info;
    path_in(p, sizeof p, "ours.db");
    make_db(p, STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
    sqlite3 *db;
    hs_error err = {0};
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    store_meta m = {.pid = 4242, .paused_at = 1700000000, .closures = 30123,
                    .version = {.major = 902, .patch = 2}};
    snprintf(m.program, sizeof m.program, "leaky");
    cr_assert_eq(store_meta_write(db, &m, &err), HS_OK, "%s", err.message);
    sqlite3_close(db);
    store_file_describe(p, &info);
    cr_assert_eq(info.kind, STORE_FILE_HEAPSCOPE);
    cr_assert(info.ok, "%s", info.why);
    cr_assert_str_eq(info.meta.program, "leaky");
    cr_assert_eq(info.meta.closures, 30123);
    cr_assert_eq(info.meta.paused_at, 1700000000);

    /* what is wrong, without the file's name (the listing shows it) */
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(truncate(p, sb.st_size / 2), 0);
    store_file_describe(p, &info);
    cr_assert_eq(info.kind, STORE_FILE_HEAPSCOPE);
    cr_assert_not(info.ok);
    cr_assert(strncmp(info.why, "truncated", 9) == 0, "%s", info.why);
    cr_assert_null(strstr(info.why, dir_path), "%s", info.why);

    path_in(p, sizeof p, "newer.db");
    make_db(p, STORE_APPLICATION_ID, STORE_SCHEMA_VERSION + 1);
    store_file_describe(p, &info);
    cr_assert_not(info.ok);
    cr_assert(strstr(info.why, "newer heapscope"), "%s", info.why);

    path_in(p, sizeof p, "notes.txt");
    write_bytes(p, "hello, world\n", 13);
    store_file_describe(p, &info);
    cr_assert_eq(info.kind, STORE_FILE_OTHER);
    cr_assert_not(info.ok);
    cr_assert(strncmp(info.why, "not a snapshot", 14) == 0, "%s", info.why);

    gdb g;
    gdb_sample(&g);
    path_in(p, sizeof p, "ghc-debug-snap");
    write_bytes(p, g.b, g.len);
    gdb_free(&g);
    store_file_describe(p, &info);
    cr_assert_eq(info.kind, STORE_FILE_GHCDEBUG);
    cr_assert(info.ok);

    path_in(p, sizeof p, "missing");
    store_file_describe(p, &info);
    cr_assert_not(info.ok);
    cr_assert(strstr(info.why, "No such file"), "%s", info.why);
}
