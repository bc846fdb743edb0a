/* The session module against the synthetic debuggee: what a TARGET can do
 * (live socket, snapshot file, a pause held in memory), pause and read,
 * resume and pause again over the kept heap, a debuggee found paused, a
 * read cancelled half way (its answer finished, the connection kept: read
 * again and give back on it). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/session.h"

static cli_debuggee start(const char *delay_ms) {
    const char *args[] = {"--closures", "3000", "--profiled", "--seed", "3",
                          delay_ms ? "--answer-delay" : NULL, delay_ms, NULL};
    cli_debuggee d;
    hs_error err = {0};
    cr_assert_eq(cli_debuggee_start(args, &d, &err), HS_OK, "%s", err.message);
    return d;
}

static session *open_ok(const char *target, const session_options *o) {
    session *s = NULL;
    hs_error err = {0};
    cr_assert_eq(session_open(target, o, &s, &err), HS_OK, "%s: %s", target, err.message);
    return s;
}

/* Whether the debuggee is paused, as a fresh session sees it. */
static bool paused_now(const char *target) {
    session *s = open_ok(target, NULL);
    hs_error err = {0};
    cr_assert_eq(session_probe(s, &err), HS_OK, "%s", err.message);
    bool paused = session_paused(s);
    session_close(s);
    return paused;
}

Test(session_module, live_pause_read_resume_and_pause_again) {
    cli_debuggee d = start(NULL);
    session *s = open_ok(d.socket, NULL);
    session_caps caps = session_caps_of(s);
    cr_expect(caps.live && caps.can_pause && caps.can_resume);
    cr_expect_null(caps.why_no_resume);
    cr_expect_str_eq(session_target(s), d.socket);
    cr_assert_not_null(session_known_version(s), "the open asked VERSION");
    cr_expect_eq(session_prof_mode(s), WIRE_PROF_ERA);
    hs_error err = {0};
    cr_assert_eq(session_probe(s, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_paused(s));
    cr_expect_null(session_heap(s));

    cr_assert_eq(session_pause(s, &err), HS_OK, "%s", err.message);
    cr_expect(session_paused(s) && session_ours(s));
    cr_assert_eq(session_read_heap(s, &err), HS_OK, "%s", err.message);
    heap *first = session_heap(s);
    cr_assert_not_null(first);
    size_t roots = heap_roots(first)->count;
    cr_expect_gt(roots, 0);

    cr_assert_eq(session_resume(s, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_paused(s) || session_ours(s));
    cr_expect_null(session_heap(s), "no heap while it runs");
    cr_assert_eq(session_pause(s, &err), HS_OK, "%s", err.message);
    cr_assert_eq(session_read_heap(s, &err), HS_OK, "%s", err.message);
    cr_expect_eq(session_heap(s), first, "the kept heap is refreshed, not made anew");
    cr_expect_eq(heap_roots(session_heap(s))->count, roots);
    cr_assert_eq(session_give_back(s, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_ours(s));
    session_close(s);
    cr_expect_not(paused_now(d.socket), "given back");
    cli_debuggee_stop(&d);
}

Test(session_module, a_debuggee_found_paused_is_not_ours) {
    cli_debuggee d = start(NULL);
    hs_error err = {0};
    session *a = open_ok(d.socket, NULL);
    cr_assert_eq(session_pause(a, &err), HS_OK, "%s", err.message);
    session_close(a); /* gone without giving it back: it stays paused */

    session *b = open_ok(d.socket, NULL);
    cr_assert_eq(session_probe(b, &err), HS_OK, "%s", err.message);
    cr_expect(session_paused(b) && !session_ours(b), "found paused, not ours");
    cr_assert_eq(session_pause(b, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_ours(b), "pausing a paused debuggee does not make it ours");
    cr_assert_eq(session_read_heap(b, &err), HS_OK, "%s", err.message);
    cr_assert_eq(session_give_back(b, &err), HS_OK);
    session_close(b);
    cr_expect(paused_now(d.socket), "give back leaves what was not ours");

    session *c = open_ok(d.socket, NULL);
    cr_assert_eq(session_probe(c, &err), HS_OK);
    cr_assert_eq(session_resume(c, &err), HS_OK, "%s", err.message);
    session_close(c);
    cr_expect_not(paused_now(d.socket));
    cli_debuggee_stop(&d);
}

/* Cancels the first wait on ALL_BLOCKS while *armed. */
static bool cancel_blocks(void *ctx, uint32_t cmd, int waited_ms) {
    (void)waited_ms;
    bool *armed = ctx;
    if (*armed && cmd == WIRE_CMD_ALL_BLOCKS) {
        *armed = false;
        return false;
    }
    return true;
}

Test(session_module, a_cancelled_read_keeps_the_connection_and_gives_back_on_it) {
    cli_debuggee d = start("200");
    bool armed = true;
    session_options o = {.wait = cancel_blocks, .wait_ctx = &armed};
    session *s = open_ok(d.socket, &o);
    hs_error err = {0};
    cr_assert_eq(session_pause(s, &err), HS_OK, "%s", err.message);
    cr_expect_eq(session_read_heap(s, &err), HS_ERR_CANCELLED, "%s", err.message);
    cr_expect_null(session_heap(s));
    cr_expect_not(session_lost(s), "the cancelled answer was finished: the stream is in step");
    cr_assert_eq(session_revive(s, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_lost(s));
    cr_expect(session_paused(s) && session_ours(s), "still paused, and still ours");
    cr_assert_eq(session_read_heap(s, &err), HS_OK, "%s", err.message);
    cr_expect_not_null(session_heap(s));
    armed = true; /* cancelled again: give back on the same connection */
    session_drop_heap(s);
    cr_expect_eq(session_read_heap(s, &err), HS_ERR_CANCELLED);
    cr_expect_not(session_lost(s));
    cr_assert_eq(session_give_back(s, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_paused(s) || session_ours(s));
    session_close(s);
    cr_expect_not(paused_now(d.socket), "resumed");
    cli_debuggee_stop(&d);
}

Test(session_module, a_snapshot_file_is_one_pause) {
    cli_debuggee d = start(NULL);
    hs_error err = {0};
    session *live = open_ok(d.socket, NULL);
    cr_assert_eq(session_pause(live, &err), HS_OK, "%s", err.message);
    cr_assert_eq(session_read_heap(live, &err), HS_OK, "%s", err.message);
    char path[300];
    snprintf(path, sizeof path, "%s/pause.heapscope", d.dir);
    store_meta m = {.pid = 1};
    cr_assert_eq(store_snapshot_write(session_heap(live), path, &m, NULL, &err), HS_OK, "%s",
                 err.message);
    size_t roots = heap_roots(session_heap(live))->count;
    cr_assert_eq(session_give_back(live, &err), HS_OK);
    session_close(live);

    cr_expect(session_target_is_file(path));
    cr_expect_not(session_target_is_file(d.socket));
    session *s = open_ok(path, NULL);
    session_caps caps = session_caps_of(s);
    cr_expect_not(caps.live || caps.can_pause || caps.can_resume);
    cr_expect_str_eq(caps.why_no_resume, "a snapshot file cannot be resumed");
    cr_expect_not_null(caps.why_no_pause);
    cr_expect_not_null(session_snapshot_meta(s));
    cr_expect_eq(session_prof_mode(s), WIRE_PROF_ERA, "the version is in the file");
    cr_expect_not(session_paused(s), "not shown before session_pause");
    cr_expect_eq(session_resume(s, &err), HS_ERR_USAGE);
    cr_expect_str_eq(err.message, "a snapshot file cannot be resumed");
    cr_assert_eq(session_pause(s, &err), HS_OK);
    cr_expect(session_paused(s) && !session_ours(s));
    cr_assert_eq(session_read_heap(s, &err), HS_OK, "%s", err.message);
    heap *h = session_heap(s);
    cr_expect_eq(heap_roots(h)->count, roots);
    cr_assert_eq(session_read_heap(s, &err), HS_OK);
    cr_expect_eq(session_heap(s), h, "a file's pause is read once");
    cr_expect_not(session_lost(s));
    session_close(s);
    unlink(path);
    cli_debuggee_stop(&d);
}

Test(session_module, a_missing_target_is_a_clear_error) {
    session *s = (session *)1;
    hs_error err = {0};
    cr_expect_neq(session_open("/nonexistent/heapscope-socket", NULL, &s, &err), HS_OK);
    cr_expect_null(s);
    cr_expect(strstr(err.message, "/nonexistent/heapscope-socket") != NULL, "%s", err.message);
    cr_expect(session_lost(NULL) && !session_paused(NULL) && session_heap(NULL) == NULL);
    session_close(NULL);
}

/* The last request of the debuggee's --log-requests log ("NAME TIME"). */
static void last_request(const char *log, char *name, size_t cap) {
    FILE *f = fopen(log, "r");
    cr_assert_not_null(f, "%s", log);
    char line[256];
    name[0] = 0;
    while (fgets(line, sizeof line, f))
        sscanf(line, "%63s", name);
    (void)cap;
    fclose(f);
}

/* session_complete, then session_let_go: the debuggee runs, the heap
 * stays and answers offline; what was not fetched during the pause is
 * refused without a request. */
static void let_go_and_read(bool whole) {
    char log[] = "/tmp/heapscope-letgo-XXXXXX";
    int fd = mkstemp(log);
    cr_assert_geq(fd, 0);
    close(fd);
    const char *args[] = {"--closures", "3000", "--profiled", "--seed", "3",
                          "--log-requests", log, NULL};
    cli_debuggee d;
    hs_error err = {0};
    cr_assert_eq(cli_debuggee_start(args, &d, &err), HS_OK, "%s", err.message);
    session *s = open_ok(d.socket, NULL);
    cr_assert_eq(session_pause(s, &err), HS_OK, "%s", err.message);
    cr_assert_eq(session_read_heap(s, &err), HS_OK, "%s", err.message);
    heap *h = session_heap(s);
    cr_assert_eq(session_complete(s, whole, NULL, NULL, &err), HS_OK, "%s", err.message);
    cr_assert_eq(session_let_go(s, &err), HS_OK, "%s", err.message);
    cr_expect_not(session_paused(s) || session_ours(s), "resumed");
    cr_expect_eq(session_heap(s), h, "the heap stays, offline");
    char name[64];
    last_request(log, name, sizeof name);
    cr_expect_str_eq(name, "RESUME");

    const wire_ptr_list *roots = heap_roots(h);
    heap_closure c = {0};
    for (size_t i = 0; i < roots->count; i++) {
        hs_status st = heap_decode(h, wire_untag(roots->items[i]), &c, &err);
        if (whole) {
            cr_expect_eq(st, HS_OK, "root %zu: %s", i, err.message);
        } else {
            cr_expect_neq(st, HS_OK, "root %zu was never read", i);
            cr_expect(strstr(err.message, "not fetched during the pause") != NULL, "%s",
                      err.message);
        }
    }
    heap_closure_free(&c);
    last_request(log, name, sizeof name);
    cr_expect_str_eq(name, "RESUME", "nothing is asked after the RESUME");
    cr_assert_eq(session_give_back(s, &err), HS_OK, "nothing left to give back");
    session_close(s);
    cr_expect_not(paused_now(d.socket), "it runs");
    cli_debuggee_stop(&d);
    unlink(log);
}

Test(session_module, let_go_after_a_whole_completion_reads_every_root) { let_go_and_read(true); }

Test(session_module, let_go_refuses_what_the_pause_did_not_fetch) { let_go_and_read(false); }
