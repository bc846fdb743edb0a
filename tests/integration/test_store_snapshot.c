/* A snapshot written from the synthetic debuggee and read back through
 * the store's heap source: every census, the roots, the closures table,
 * and what the file records, against the live heap and against sqlite. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/interrupt.h"
#include "heapscope/query.h"
#include "heapscope/store.h"

typedef struct fixture {
    cli_debuggee debuggee;
    wire_conn *conn;
    heap *live;
    char dir[64], path[128];
} fixture;

static void start(fixture *f, bool profiled) {
    memset(f, 0, sizeof *f);
    const char *args[] = {"--closures", "20000", "--eras", "5", "--leak-count", "300",
                          "--leak-era", "2", "--seed", "7", profiled ? "--profiled" : NULL,
                          NULL};
    hs_error err = {0};
    cr_assert_eq(cli_debuggee_start(args, &f->debuggee, &err), HS_OK, "%s", err.message);
    cr_assert_eq(wire_connect(f->debuggee.socket, NULL, &f->conn, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(wire_pause(f->conn, NULL, &err), HS_OK, "%s", err.message);
    cr_assert_eq(heap_open(heap_source_live(f->conn), &f->live, &err), HS_OK, "%s",
                 err.message);
    snprintf(f->dir, sizeof f->dir, "/tmp/store-snap-XXXXXX");
    cr_assert_not_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/pause.heapscope", f->dir);
}

static void stop(fixture *f) {
    heap_free(f->live);
    wire_close(f->conn);
    cli_debuggee_stop(&f->debuggee);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    cr_assert_eq(system(cmd), 0);
}

static void write_snapshot(fixture *f) {
    store_meta m = {.pid = 77, .paused_at = 1700000000};
    snprintf(m.program, sizeof m.program, "synthetic");
    snprintf(m.target, sizeof m.target, "%s", f->debuggee.socket);
    hs_error err = {0};
    cr_assert_eq(store_snapshot_write(f->live, f->path, &m, NULL, &err), HS_OK, "%s",
                 err.message);
}

static void assert_same_census(heap *a, heap *b, query_census_by by) {
    query_census x, y;
    hs_error err = {0};
    cr_assert_eq(query_census_run(a, by, NULL, &x, &err), HS_OK, "%s", err.message);
    cr_assert_eq(query_census_run(b, by, NULL, &y, &err), HS_OK, "%s", err.message);
    cr_assert_eq(x.n_rows, y.n_rows, "by %d", by);
    cr_assert_eq(x.total_count, y.total_count);
    cr_assert_eq(x.total_bytes, y.total_bytes);
    for (size_t i = 0; i < x.n_rows; i++) {
        cr_assert_str_eq(x.rows[i].key, y.rows[i].key);
        cr_assert_eq(x.rows[i].count, y.rows[i].count, "%s", x.rows[i].key);
        cr_assert_eq(x.rows[i].bytes, y.rows[i].bytes, "%s", x.rows[i].key);
    }
    query_census_free(&x);
    query_census_free(&y);
}

static int64_t sql_int(const char *path, const char *sql) {
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void check_round_trip(bool profiled) {
    fixture f;
    start(&f, profiled);
    write_snapshot(&f);
    hs_error err = {0};
    store_snapshot *snap;
    cr_assert_eq(store_snapshot_open(f.path, &snap, &err), HS_OK, "%s", err.message);
    const store_meta *m = store_snapshot_meta(snap);
    cr_assert_str_eq(m->program, "synthetic");
    cr_assert_eq(m->pid, 77);
    cr_assert_eq(m->version.major, heap_version(f.live)->major);
    cr_assert_eq(m->version.prof_mode, heap_version(f.live)->prof_mode);
    cr_assert_eq(m->heap_bytes, heap_block_bytes(f.live));
    heap *h;
    cr_assert_eq(heap_open(store_snapshot_source(snap), &h, &err), HS_OK, "%s", err.message);
    cr_assert_eq(heap_block_count(h), heap_block_count(f.live));
    cr_assert_eq(heap_roots(h)->count, heap_roots(f.live)->count);
    cr_assert_eq(memcmp(heap_roots(h)->items, heap_roots(f.live)->items,
                        heap_roots(h)->count * 8), 0);
    assert_same_census(f.live, h, QUERY_CENSUS_BY_TYPE);
    assert_same_census(f.live, h, QUERY_CENSUS_BY_CONSTRUCTOR);
    assert_same_census(f.live, h, QUERY_CENSUS_BY_SOURCE);
    if (profiled)
        assert_same_census(f.live, h, QUERY_CENSUS_BY_ERA);

    /* the closures table agrees with the census */
    query_census c;
    cr_assert_eq(query_census_run(h, QUERY_CENSUS_BY_TYPE, NULL, &c, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(sql_int(f.path, "SELECT count(*) FROM closures"), (int64_t)c.total_count);
    cr_assert_eq(sql_int(f.path, "SELECT sum(size) FROM closures"), (int64_t)c.total_bytes);
    cr_assert_eq(m->closures, c.total_count);
    query_census_free(&c);
    cr_assert_eq(sql_int(f.path, "SELECT count(*) FROM closures WHERE constructor = 'Leak'"),
                 300);
    if (profiled)
        cr_assert_eq(sql_int(f.path, "SELECT count(*) FROM closures WHERE constructor = 'Leak'"
                                     " AND era = 2"), 300);
    else
        cr_assert_eq(sql_int(f.path, "SELECT count(*) FROM closures WHERE era IS NOT NULL"), 0);
    heap_free(h);
    store_snapshot_close(snap);
    stop(&f);
}

Test(store_snapshot, round_trip_plain, .timeout = 120) { check_round_trip(false); }
Test(store_snapshot, round_trip_profiled, .timeout = 120) { check_round_trip(true); }

/* A quit signal ends a query of the file at once (the guard of every
 * snapshot connection), whatever the file makes SQLite do. */
Test(store_snapshot, a_signal_ends_every_read, .timeout = 120) {
    fixture f;
    start(&f, false);
    write_snapshot(&f);
    /* enough rows that reading them runs SQLite long enough to look */
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(f.path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "INSERT INTO roots (address) SELECT address FROM roots,"
                                  " (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1"
                                  " FROM n WHERE i < 100000) SELECT i FROM n)",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    hs_error err = {0};
    store_snapshot *snap;
    cr_assert_eq(store_snapshot_open(f.path, &snap, &err), HS_OK, "%s", err.message);
    heap_source src = store_snapshot_source(snap);
    wire_ptr_list roots;
    cr_assert_eq(src.ops->roots(src.self, &roots, &err), HS_OK, "%s", err.message);
    cr_assert_gt(roots.count, 0);
    wire_ptr_list_free(&roots);
    hs_interrupt_catch();
    cr_assert_eq(raise(SIGINT), 0); /* only noted: the handler sets the flag */
    cr_assert_eq(src.ops->roots(src.self, &roots, &err), HS_ERR_CANCELLED, "%s", err.message);
    cr_assert(strstr(err.message, "interrupted by SIGINT"), "%s", err.message);
    store_snapshot_close(snap);
    stop(&f);
}
