/* Pause and resume: the counter Shapes.hs bumps about every millisecond
 * stays frozen while the program is paused and moves on after a resume;
 * many quick pause/resume cycles (run with several capabilities, while
 * the program allocates and collects) neither crash nor deadlock it; the
 * pause-state errors come back as the spec says. */
#include <time.h>

#include "ghc_checks.h"
#include "heapscope/bytes.h"

#define QUICK_CYCLES 40
#define RUN_LOOKS 25 /* 10 s of running, at most */

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The word at byte offset off of the closure at addr, by a CLOSURES request. */
static bool closure_word(ghc_ctx *x, uint64_t addr, size_t off, uint64_t *out) {
    wire_blobs blobs = {0};
    hs_error err = {0};
    bool ok = ghc_ok(x, wire_closures(x->conn, &addr, 1, &blobs, &err), &err, "CLOSURES");
    if (ok) {
        ok = blobs.count == 1 && blobs.items[0].len >= off + 8;
        CHECK(x, ok, "closure 0x%llx is too short", (unsigned long long)addr);
        if (ok)
            *out = hs_load_le64(blobs.items[0].data + off);
    }
    wire_blobs_free(&blobs);
    return ok;
}

/* Saved object 0 is an IORef: STRef (one field) -> MUT_VAR -> I# n. Read
 * fresh each time, without any cache. */
static bool read_counter(ghc_ctx *x, unsigned header, uint64_t *value) {
    wire_ptr_list saved = {0};
    hs_error err = {0};
    bool ok = ghc_ok(x, wire_saved_objects(x->conn, &saved, &err), &err, "SAVED_OBJECTS");
    if (ok)
        CHECK(x, ok = saved.count == SAVED_COUNT, "%zu saved objects", saved.count);
    uint64_t mut_var, box;
    ok = ok && closure_word(x, saved.items[SAVED_COUNTER], header, &mut_var) &&
         closure_word(x, wire_untag(mut_var), header, &box) &&
         closure_word(x, wire_untag(box), header, value);
    wire_ptr_list_free(&saved);
    return ok;
}

static bool pause(ghc_ctx *x) {
    hs_error err = {0};
    bool was = true;
    bool ok = ghc_ok(x, wire_pause(x->conn, &was, &err), &err, "PAUSE");
    CHECK(x, !ok || !was, "PAUSE: it was already paused");
    return ok;
}

static bool resume(ghc_ctx *x) {
    hs_error err = {0};
    return ghc_ok(x, wire_resume(x->conn, &err), &err, "RESUME");
}

static void check_states(ghc_ctx *x) {
    hs_error err = {0};
    CHECK(x, wire_resume(x->conn, &err) == HS_ERR_NOT_PAUSED, "RESUME while running: %s",
          err.message);
    wire_ptr_list roots = {0};
    CHECK(x, wire_roots(x->conn, &roots, &err) == HS_ERR_NOT_PAUSED,
          "ROOTS while running: %s", err.message);
    wire_ptr_list_free(&roots);
    wire_block_list blocks = {0};
    CHECK(x, wire_all_blocks(x->conn, &blocks, &err) == HS_ERR_NOT_PAUSED,
          "ALL_BLOCKS while running: %s", err.message);
    wire_block_list_free(&blocks);
    bool paused = true;
    CHECK(x, wire_query_paused(x->conn, &paused, &err) == HS_OK && !paused,
          "the pause probe while running: %s", err.message);
    if (!pause(x))
        return;
    CHECK(x, wire_query_paused(x->conn, &paused, &err) == HS_OK && paused,
          "the pause probe while paused: %s", err.message);
    bool was = false;
    CHECK(x, wire_pause(x->conn, &was, &err) == HS_OK && was,
          "a second PAUSE must say ALREADY_PAUSED");
    resume(x);
    CHECK(x, wire_query_paused(x->conn, &paused, &err) == HS_OK && !paused,
          "the pause probe after RESUME: %s", err.message);
}

void check_pause(ghc_ctx *x) {
    hs_error err = {0};
    wire_version v;
    if (!ghc_ok(x, wire_get_version(x->conn, &v, &err), &err, "VERSION"))
        return;
    CHECK(x, v.major == 900 && v.patch == 2, "VERSION %u/%u, want 900/2", v.major, v.patch);
    CHECK(x, v.tntc, "VERSION says no tables next to code");
    unsigned header = v.prof_mode ? 24 : 8;
    check_states(x);

    uint64_t before, after, later;
    if (!pause(x) || !read_counter(x, header, &before))
        return;
    sleep_ms(400);
    if (!read_counter(x, header, &after))
        return;
    ghc_note("paused: counter %llu, 400 ms later %llu", (unsigned long long)before,
             (unsigned long long)after);
    CHECK(x, before == after, "the counter moved while paused: %llu -> %llu",
          (unsigned long long)before, (unsigned long long)after);
    /* Running again: the counter moves. On a loaded machine the program
     * may get no core for a while, so look again (up to RUN_LOOKS times)
     * rather than expect a move within one fixed window. */
    int looks = 0;
    do {
        if (!resume(x))
            return;
        sleep_ms(400);
        if (!pause(x) || !read_counter(x, header, &later))
            return;
    } while (later == after && ++looks < RUN_LOOKS);
    ghc_note("resumed for 400 ms (%d more looks): counter %llu", looks,
             (unsigned long long)later);
    CHECK(x, later > after, "the counter did not move in %d runs of 400 ms after resume: "
          "%llu -> %llu", RUN_LOOKS, (unsigned long long)after, (unsigned long long)later);
    if (!resume(x))
        return;

    /* quick cycles, some landing while a GC is being synchronised */
    uint64_t last = later;
    for (int i = 0; i < QUICK_CYCLES && x->failures == 0; i++) {
        uint64_t a, b;
        if (!pause(x) || !read_counter(x, header, &a) || !read_counter(x, header, &b))
            return;
        CHECK(x, a == b && a >= last, "cycle %d: counter %llu then %llu (before %llu)", i,
              (unsigned long long)a, (unsigned long long)b, (unsigned long long)last);
        last = b;
        if (!resume(x))
            return;
        sleep_ms(i % 4 * 3);
    }
    ghc_note("%d quick pause/resume cycles, counter now %llu", QUICK_CYCLES,
             (unsigned long long)last);
}
