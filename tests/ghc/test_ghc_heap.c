/* Runner of the ghc test suite: test_ghc_heap CHECK PROGRAM [ARGS...]
 * starts the GHC program (Shapes.hs built with the stub) with ARGS,
 * connects heapscope's client library to it, runs one check and stops
 * the program, which must then end cleanly and remove its socket.
 * Exit status 0 = pass, 1 = fail, 2 = usage. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ghc_checks.h"
#include "heapscope/closure_type.h"

void ghc_check_at(ghc_ctx *x, bool ok, const char *file, int line, const char *fmt, ...) {
    if (ok)
        return;
    x->failures++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool ghc_ok(ghc_ctx *x, hs_status st, const hs_error *err, const char *what) {
    if (st == HS_OK)
        return true;
    x->failures++;
    fprintf(stderr, "FAIL %s: %s (%s)\n", what, err->message, hs_status_name(st));
    return false;
}

void ghc_note(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("  ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
}

heap *ghc_pause_and_open(ghc_ctx *x) {
    hs_error err = {0};
    bool was_paused = true;
    if (!ghc_ok(x, wire_pause(x->conn, &was_paused, &err), &err, "PAUSE"))
        return NULL;
    CHECK(x, !was_paused, "the program was already paused");
    heap *h = NULL;
    if (!ghc_ok(x, heap_open(heap_source_live(x->conn), &h, &err), &err, "heap_open"))
        return NULL;
    return h;
}

void ghc_close_and_resume(ghc_ctx *x, heap *h) {
    heap_free(h);
    hs_error err = {0};
    ghc_ok(x, wire_resume(x->conn, &err), &err, "RESUME");
}

const char *ghc_con_name(const heap_closure *c) {
    return hs_closure_type_is_constructor(c->type) && c->info && c->info->con_name
               ? c->info->con_name
               : "";
}

static bool is_indirection(const heap_closure *c) {
    if (c->type == HS_IND || c->type == HS_IND_STATIC)
        return true;
    return c->type == HS_BLACKHOLE && c->n_edges == 1;
}

bool ghc_follow_indirections(ghc_ctx *x, heap *h, uint64_t addr, heap_closure *c) {
    hs_error err = {0};
    for (int hops = 0; hops < 8; hops++) {
        if (!ghc_ok(x, heap_decode(h, addr, c, &err), &err, "heap_decode"))
            return false;
        if (!is_indirection(c))
            return true;
        uint64_t next = c->edges[0].addr;
        if (c->type == HS_BLACKHOLE) { /* owned by a thread: stop at the hole */
            heap_closure owner = {0};
            hs_status st = heap_decode(h, next, &owner, &err);
            bool thread = st == HS_OK && (owner.type == HS_TSO || owner.type == HS_BLOCKING_QUEUE);
            heap_closure_free(&owner);
            if (!ghc_ok(x, st, &err, "heap_decode") || thread)
                return st == HS_OK;
        }
        addr = next;
    }
    CHECK(x, false, "more than 8 indirections from 0x%llx", (unsigned long long)addr);
    return false;
}

typedef struct check_entry {
    const char *name;
    void (*run)(ghc_ctx *x);
} check_entry;

static const check_entry checks[] = {
    {"pause", check_pause},         {"roots", check_roots},
    {"blocks", check_blocks},       {"list", check_list},
    {"malformed", check_malformed}, {"frames", check_frames},
    {"profiled", check_profiled},
};

static int usage(void) {
    fputs("usage: test_ghc_heap CHECK PROGRAM [ARGS...]\nchecks:", stderr);
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        fprintf(stderr, " %s", checks[i].name);
    fputc('\n', stderr);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 3)
        return usage();
    const check_entry *check = NULL;
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (strcmp(argv[1], checks[i].name) == 0)
            check = &checks[i];
    if (!check)
        return usage();
    ghc_ctx x = {0};
    char why[512] = "";
    printf("check %s: %s", check->name, argv[2]);
    for (int i = 3; i < argc; i++)
        printf(" %s", argv[i]);
    printf("\n");
    if (!ghc_program_start(argv[2], (const char *const *)argv + 3, &x.prog, why, sizeof why)) {
        fprintf(stderr, "FAIL cannot start the program: %s\n", why);
        ghc_program_dump_log(&x.prog);
        ghc_program_stop(&x.prog, why, sizeof why);
        return 1;
    }
    hs_error err = {0};
    wire_options opts;
    wire_options_default(&opts);
    opts.io_timeout_ms = 60000;
    if (ghc_ok(&x, wire_connect(x.prog.socket, &opts, &x.conn, &err), &err, "connect")) {
        check->run(&x);
        wire_close(x.conn);
    }
    if (x.failures)
        ghc_program_dump_log(&x.prog);
    if (!ghc_program_stop(&x.prog, why, sizeof why)) {
        fprintf(stderr, "FAIL %s\n", why);
        x.failures++;
    }
    printf("%s: %s (%d failure%s)\n", check->name, x.failures ? "FAIL" : "ok", x.failures,
           x.failures == 1 ? "" : "s");
    return x.failures ? 1 : 0;
}
