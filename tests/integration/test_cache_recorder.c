/* Recording a pause beside a UI (cache_recorder) against the synthetic
 * debuggee: the owner's loop keeps working between short serve() calls
 * while the thread writes the snapshot; the recorded pause answers a
 * census as the live heap does; abandoning leaves no file and no row. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/cache.h"
#include "heapscope/cli.h"
#include "heapscope/query.h"
#include "heapscope/store.h"

typedef struct owner {
    cli_debuggee debuggee;
    wire_conn *conn;
    cache *cache;
    cache_link link;
    heap *heap;
    char dir[64];
} owner;

static void start(owner *o, const char *closures) {
    memset(o, 0, sizeof *o);
    snprintf(o->dir, sizeof o->dir, "/tmp/hs-rec-XXXXXX");
    cr_assert_not_null(mkdtemp(o->dir));
    const char *args[] = {"--closures", closures, "--profiled", "--eras", "3", "--seed", "2", NULL};
    hs_error err = {0};
    cr_assert_eq(cli_debuggee_start(args, &o->debuggee, &err), HS_OK, "%s", err.message);
    cr_assert_eq(wire_connect(o->debuggee.socket, NULL, &o->conn, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(wire_pause(o->conn, NULL, &err), HS_OK, "%s", err.message);
    cache_options opts = {.dir = o->dir};
    cr_assert_eq(cache_open(&opts, &o->cache, &err), HS_OK, "%s", err.message);
    heap_source src = cache_link_live(o->cache, o->conn, heap_source_live(o->conn), &o->link);
    cr_assert_not_null(o->link.source, "%s", o->link.why_not);
    cr_assert_eq(heap_open(src, &o->heap, &err), HS_OK, "%s", err.message);
}

static void stop(owner *o) {
    heap_free(o->heap);
    cache_link_close(&o->link);
    cache_close(o->cache);
    wire_close(o->conn);
    cli_debuggee_stop(&o->debuggee);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", o->dir);
    cr_assert_eq(system(cmd), 0);
}

static cache_recorder *record(owner *o) {
    cache_recorder_config cfg = {.cache = o->cache, .program = o->link.program, .h = o->heap,
                                 .src = cache_source_heap(o->link.source)};
    cache_link_meta(&o->link, o->debuggee.socket, &cfg.meta);
    snprintf(cfg.exe, sizeof cfg.exe, "%s", o->link.exe);
    cache_recorder *r = NULL;
    hs_error err = {0};
    cr_assert_eq(cache_recorder_start(&cfg, &r, &err), HS_OK, "%s", err.message);
    return r;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t census_total(heap *h) {
    query_census c;
    hs_error err = {0};
    cr_assert_eq(query_census_run(h, QUERY_CENSUS_BY_TYPE, NULL, &c, &err), HS_OK, "%s",
                 err.message);
    uint64_t total = c.total_count;
    query_census_free(&c);
    return total;
}

Test(recorder, owner_stays_free_while_the_thread_records) {
    owner o;
    start(&o, "300000");
    cache_recorder *r = record(&o);
    double longest = 0;
    int rounds = 0, own_work = 0;
    for (bool running = true; running; rounds++) {
        double t0 = now();
        running = cache_recorder_serve(r, 20);
        double took = now() - t0;
        longest = took > longest ? took : longest;
        /* the owner's own use of its heap in between (read-only) */
        if (heap_roots(o.heap)->count > 0) {
            heap_closure c = {0};
            hs_error err = {0};
            cr_assert_eq(heap_decode(o.heap, wire_untag(heap_roots(o.heap)->items[0]), &c, &err),
                         HS_OK, "%s", err.message);
            heap_closure_free(&c);
            own_work++;
        }
        cache_recorder_progress p = cache_recorder_get_progress(r);
        cr_assert(p.running || !running);
    }
    cr_assert_lt(longest, 0.5, "a serve call blocked the owner for %.3f s", longest);
    cr_assert_gt(rounds, 1, "the recording took several rounds of the owner's loop");
    cr_assert_eq(own_work, rounds);
    cache_pause pause;
    hs_error err = {0};
    cr_assert_eq(cache_recorder_finish(r, false, &pause, &err), HS_OK, "%s", err.message);
    cr_assert_eq(pause.pid, o.link.pid);
    /* the recorded pause answers as the live heap */
    store_snapshot *snap;
    cr_assert_eq(store_snapshot_open(pause.file, &snap, &err), HS_OK, "%s", err.message);
    heap *h;
    cr_assert_eq(heap_open(store_snapshot_source(snap), &h, &err), HS_OK, "%s", err.message);
    uint64_t live = census_total(o.heap);
    cr_assert_eq(census_total(h), live);
    cr_assert_eq(pause.closures, live);
    heap_free(h);
    store_snapshot_close(snap);
    cache_pause_list l;
    cr_assert_eq(cache_list_pauses(o.cache, &l, &err), HS_OK);
    cr_assert_eq(l.count, 1);
    cr_assert_str_eq(l.items[0].file, pause.file);
    cache_pause_list_free(&l);
    stop(&o);
}

static int files_in(const char *dir) {
    char path[256];
    snprintf(path, sizeof path, "%s/pauses", dir);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.' || strlen(e->d_name) > 2; /* .tmp files count */
    closedir(d);
    return n;
}

Test(recorder, abandoning_leaves_nothing) {
    owner o;
    start(&o, "300000");
    cache_recorder *r = record(&o);
    for (int i = 0; i < 3; i++)
        cache_recorder_serve(r, 5);
    hs_error err = {0};
    cr_assert_eq(cache_recorder_finish(r, true, NULL, &err), HS_ERR_CANCELLED, "%s",
                 err.message);
    cr_assert_eq(files_in(o.dir), 0, "no snapshot and no temporary file");
    cache_pause_list l;
    cr_assert_eq(cache_list_pauses(o.cache, &l, &err), HS_OK);
    cr_assert_eq(l.count, 0);
    cache_pause_list_free(&l);
    /* the owner's connection is intact: it can still resume */
    cr_assert_eq(wire_resume(o.conn, &err), HS_OK, "%s", err.message);
    stop(&o);
}

Test(recorder, abandoning_before_any_answer) {
    owner o;
    start(&o, "5000");
    cache_recorder *r = record(&o);
    hs_error err = {0};
    cr_assert_eq(cache_recorder_finish(r, true, NULL, &err), HS_ERR_CANCELLED);
    cr_assert_eq(files_in(o.dir), 0);
    stop(&o);
}
