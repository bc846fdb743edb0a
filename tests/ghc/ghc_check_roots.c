/* Roots and saved objects of a real heap: the roots hold every thread
 * (blocked in the ways Shapes.hs arranged) plus CAFs and stable pointers,
 * some of them tagged; constructor descriptions are package:Module.Con;
 * the interrupted thunk became an AP_STACK and the stuck one a BLACKHOLE
 * owned by a thread; stack and argument bitmaps lead to what only they
 * reach. */
#include <string.h>

#include "ghc_checks.h"
#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heapscope/query.h"

/* why_blocked values (heap-layout.md §7) the program's threads must show */
static const struct {
    uint32_t value;
    const char *name;
} wanted_blocks[] = {
    {1, "BlockedOnMVar"},  {2, "BlockedOnBlackHole"}, {6, "BlockedOnSTM"},
    {10, "BlockedOnCCall"}, {12, "BlockedOnMsgThrowTo"}, {14, "BlockedOnMVarRead"},
};

static void check_raw_roots(ghc_ctx *x) {
    wire_buf body = {0};
    hs_error err = {0};
    if (!ghc_ok(x, wire_call(x->conn, WIRE_CMD_ROOTS, NULL, 0, UINT64_C(1) << 30, &body, &err),
                &err, "ROOTS"))
        return;
    size_t tagged = 0, n = body.len / 8;
    CHECK(x, body.len % 8 == 0, "ROOTS body of %zu bytes", body.len);
    for (size_t i = 0; i < n; i++)
        tagged += (hs_load_le64(body.data + 8 * i) & 7) != 0;
    ghc_note("%zu roots on the wire, %zu of them tagged", n, tagged);
    CHECK(x, tagged > 0, "no root carries tag bits (stable pointers to constructors should)");
    wire_buf_free(&body);
}

static void check_threads(ghc_ctx *x, heap *h) {
    const wire_ptr_list *roots = heap_roots(h);
    heap_closure c = {0};
    hs_error err = {0};
    size_t threads = 0, others = 0, cafs = 0;
    bool seen[64] = {0};
    for (size_t i = 0; i < roots->count; i++) {
        if (!ghc_ok(x, heap_decode(h, roots->items[i], &c, &err), &err, "decoding a root"))
            break;
        if (c.type != HS_TSO) {
            others++;
            /* the value of Shapes.hs's cafMarker: a root only as a CAF */
            cafs += strcmp(ghc_con_name(&c), "CafMarker") == 0;
            continue;
        }
        threads++;
        if (c.why_blocked < 64)
            seen[c.why_blocked] = true;
    }
    heap_closure_free(&c);
    ghc_note("roots: %zu threads, %zu others", threads, others);
    CHECK(x, threads >= 10, "only %zu threads among the roots", threads);
    CHECK(x, others >= SAVED_COUNT, "only %zu roots besides threads", others);
    CHECK(x, cafs == 1, "%zu CafMarker roots, want 1: the CAFs are missing", cafs);
    for (size_t i = 0; i < sizeof wanted_blocks / sizeof wanted_blocks[0]; i++)
        CHECK(x, seen[wanted_blocks[i].value], "no thread is %s", wanted_blocks[i].name);
}

static void check_con(ghc_ctx *x, const heap_closure *c, const char *package, const char *module,
                      const char *name) {
    const heap_info *i = c->info;
    bool ok = i && i->con_name && strcmp(i->con_package, package) == 0 &&
              strcmp(i->con_module, module) == 0 && strcmp(i->con_name, name) == 0;
    CHECK(x, ok, "0x%llx is %s:%s.%s, want %s:%s.%s", (unsigned long long)c->addr,
          i && i->con_package ? i->con_package : "?", i && i->con_module ? i->con_module : "?",
          i && i->con_name ? i->con_name : "?", package, module, name);
}

/* Each saved object is held by a stable pointer, so it is a root. */
static void check_saved_are_roots(ghc_ctx *x, heap *h) {
    const wire_ptr_list *saved = heap_saved_objects(h), *roots = heap_roots(h);
    for (size_t i = 0; i < saved->count; i++) {
        bool found = false;
        for (size_t k = 0; k < roots->count && !found; k++)
            found = wire_untag(roots->items[k]) == wire_untag(saved->items[i]);
        CHECK(x, found, "saved object %zu (0x%llx) is not among the roots (stable pointers)", i,
              (unsigned long long)saved->items[i]);
    }
}

static void check_saved(ghc_ctx *x, heap *h) {
    const wire_ptr_list *saved = heap_saved_objects(h);
    CHECK(x, saved->count == SAVED_COUNT, "%zu saved objects, want %d", saved->count,
          SAVED_COUNT);
    if (saved->count != SAVED_COUNT)
        return;
    check_saved_are_roots(x, h);
    heap_closure c = {0};
    hs_error err = {0};
    /* Holder -> (:) -> Map's Bin */
    if (ghc_ok(x, heap_decode(h, saved->items[SAVED_HOLDER], &c, &err), &err, "Holder")) {
        check_con(x, &c, "main", "Main", "Holder");
        uint64_t list = c.n_edges ? c.edges[0].addr : 0;
        if (ghc_ok(x, heap_decode(h, list, &c, &err), &err, "Holder's list")) {
            check_con(x, &c, "ghc-prim", "GHC.Types", ":");
            uint64_t map = c.n_edges ? c.edges[0].addr : 0;
            if (ghc_ok(x, heap_decode(h, map, &c, &err), &err, "a Map"))
                check_con(x, &c, "containers-0.6.4.1", "Data.Map.Internal", "Bin");
        }
    }
    if (ghc_ok(x, heap_decode(h, saved->items[SAVED_SHAPES], &c, &err), &err, "Shapes"))
        check_con(x, &c, "main", "Main", "Shapes");
    if (ghc_follow_indirections(x, h, saved->items[SAVED_INTERRUPTED], &c)) {
        ghc_note("interrupted thunk: %s with %zu frames", hs_closure_type_name(c.type),
                 c.n_frames);
        CHECK(x, c.type == HS_AP_STACK && c.n_frames >= 1,
              "the interrupted thunk leads to %s, want an AP_STACK with frames",
              hs_closure_type_name(c.type));
    }
    if (ghc_follow_indirections(x, h, saved->items[SAVED_STUCK], &c))
        CHECK(x, c.type == HS_BLACKHOLE, "the stuck thunk is %s, want a BLACKHOLE",
              hs_closure_type_name(c.type));
    heap_closure_free(&c);
}

typedef struct markers {
    uint64_t pap, stack, big_frame;
} markers;

static query_action count_markers(void *ctx, heap *h, const heap_closure *c, uint32_t depth) {
    (void)h;
    (void)depth;
    markers *m = ctx;
    m->pap += strcmp(ghc_con_name(c), "PapMarker") == 0;
    m->stack += strcmp(ghc_con_name(c), "StackMarker") == 0;
    m->big_frame += strcmp(ghc_con_name(c), "BigFrameMarker") == 0;
    return QUERY_CONTINUE;
}

/* Closures the roots reach only through words whose pointer-ness a bitmap
 * says: a PAP's payload after an Int# (FUN_BITMAP, argument pattern N P),
 * a blocked thread's small stack frame (from the info table) and a RET_BIG
 * frame mixing pointers and Int#s (STACK_BITMAP's large bitmap). */
static void check_bitmaps(ghc_ctx *x, heap *h) {
    markers m = {0};
    query_traversal t = {.visit = count_markers, .ctx = &m};
    query_traversal_stats stats;
    hs_error err = {0};
    const wire_ptr_list *roots = heap_roots(h);
    if (!ghc_ok(x, query_traverse(h, roots->items, roots->count, &t, &stats, &err), &err,
                "traversal"))
        return;
    CHECK(x, m.pap == 1, "%llu PapMarker reached, want 1", (unsigned long long)m.pap);
    CHECK(x, m.stack == 1, "%llu StackMarker reached, want 1", (unsigned long long)m.stack);
    CHECK(x, m.big_frame == 1, "%llu BigFrameMarker reached, want 1",
          (unsigned long long)m.big_frame);
    CHECK(x, stats.unreadable.count == 0, "unreadable: %s", stats.unreadable.problem);
}

/* The stub's STACK_BITMAP answer for each frame of the threads' stacks.
 * heapscope derives small-bitmap frames from the info table itself, so
 * here the stub's answer is checked against that derivation; for RET_BIG
 * and RET_FUN frames the client used the stub's answer, so its length
 * must match the frame the client walked. */
static void check_stack_bitmaps(ghc_ctx *x, heap *h) {
    const wire_ptr_list *roots = heap_roots(h);
    heap_closure tso = {0}, stack = {0};
    hs_error err = {0};
    size_t frames = 0, big = 0, bad = 0;
    for (size_t i = 0; i < roots->count; i++) {
        if (heap_decode(h, roots->items[i], &tso, &err) != HS_OK || tso.type != HS_TSO)
            continue;
        uint64_t stack_addr = 0;
        for (size_t e = 0; e < tso.n_edges; e++)
            if (tso.edges[e].kind == HEAP_EDGE_STACK)
                stack_addr = tso.edges[e].addr;
        if (!stack_addr || !ghc_ok(x, heap_decode(h, stack_addr, &stack, &err), &err, "STACK"))
            continue;
        for (size_t f = 0; f < stack.n_frames; f++) {
            const heap_frame *fr = &stack.frames[f];
            wire_bitmap bm = {0};
            if (!ghc_ok(x, wire_stack_bitmap(x->conn, stack.sp, fr->offset, &bm, &err), &err,
                        "STACK_BITMAP"))
                break;
            frames++;
            uint32_t type = fr->info->type;
            bool ok;
            if (type == HS_RET_BIG || type == HS_RET_FUN) {
                big++;
                ok = bm.count == fr->size / 8 - (type == HS_RET_FUN ? 3 : 1);
            } else {
                uint64_t layout = fr->info->layout;
                ok = bm.count == (layout & 0x3F);
                for (size_t k = 0; ok && k < bm.count; k++)
                    ok = bm.bits[k] == !((layout >> 6 >> k) & 1);
            }
            if (!ok && bad++ == 0)
                CHECK(x, false, "STACK_BITMAP of a %s frame at 0x%llx differs from its info table",
                      hs_closure_type_name(type), (unsigned long long)(stack.sp + fr->offset));
            wire_bitmap_free(&bm);
        }
    }
    heap_closure_free(&tso);
    heap_closure_free(&stack);
    ghc_note("STACK_BITMAP checked on %zu frames (%zu RET_BIG or RET_FUN), %zu differ", frames,
             big, bad);
    CHECK(x, frames >= 20, "only %zu stack frames checked", frames);
    CHECK(x, big >= 1, "no RET_BIG frame: BigFrame.hs no longer makes one");
}

void check_roots(ghc_ctx *x) {
    hs_error err = {0};
    if (!ghc_ok(x, wire_pause(x->conn, NULL, &err), &err, "PAUSE"))
        return;
    check_raw_roots(x);
    heap *h = NULL;
    if (ghc_ok(x, heap_open(heap_source_live(x->conn), &h, &err), &err, "heap_open")) {
        check_threads(x, h);
        check_saved(x, h);
        check_bitmaps(x, h);
        check_stack_bitmaps(x, h);
    }
    ghc_close_and_resume(x, h);
}
