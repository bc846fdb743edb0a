/* heapscope --demo: a synthetic debuggee with a planted leak, started on a
 * private socket, paused and shown. */
#include <stdio.h>

#include "heapscope/cli.h"
#include "heapscope/closure_type.h"
#include "output.h"

#define DEMO_ROOTS_SHOWN 12

static const char *const demo_args[] = {"--closures", "50000", "--profiled", "--eras", "6",
                                        "--leak-count", "1000", "--leak-era", "2",
                                        "--seed", "42", NULL};

/* One line per closure: address, closure type and, for constructors, the
 * constructor description as the debuggee wrote it. */
static hs_status print_closures(heap *h, const wire_ptr_list *ptrs, size_t shown,
                                hs_error *err) {
    heap_closure c = {0};
    hs_status st = heap_prefetch_statics(h, ptrs->items, shown, err);
    for (size_t i = 0; st == HS_OK && i < shown; i++) {
        st = heap_decode(h, ptrs->items[i], &c, err);
        if (st != HS_OK)
            break;
        printf("  0x%-12llx %-22s", (unsigned long long)c.addr, hs_closure_type_name(c.type));
        if (hs_closure_type_is_constructor(c.type)) {
            const heap_info *in = c.info;
            if (in->con_package[0]) /* package:Module.Name, as on the wire */
                printf(" %s:%s.%s", in->con_package, in->con_module, in->con_name);
            else
                printf(" %s", in->con_name);
        }
        putchar('\n');
    }
    heap_closure_free(&c);
    return st;
}

static hs_status show_paused_heap(heap *h, hs_error *err) {
    char ghc[64];
    cli_ghc_version_text(heap_version(h), ghc, sizeof ghc);
    printf("debuggee: GHC %s, profiling: %s\n\n", ghc,
           cli_prof_mode_name(heap_version(h)->prof_mode));
    const wire_ptr_list *saved = heap_saved_objects(h), *roots = heap_roots(h);
    printf("Saved objects (%zu):\n", saved->count);
    hs_status st = print_closures(h, saved, saved->count, err);
    if (st != HS_OK)
        return st;
    size_t shown = roots->count < DEMO_ROOTS_SHOWN ? roots->count : DEMO_ROOTS_SHOWN;
    printf("\nGC roots (%zu, first %zu shown):\n", roots->count, shown);
    return print_closures(h, roots, shown, err);
}

hs_status cli_demo_start(cli_debuggee *d, hs_error *err) {
    fprintf(stderr, "heapscope: starting the synthetic demo debuggee (50000 closures, "
                    "a planted leak of 1000 Leak closures from era 2)...\n");
    return cli_debuggee_start(demo_args, d, err);
}

int cli_demo(const cli_common *common) {
    hs_error err = {0};
    cli_debuggee d;
    if (cli_demo_start(&d, &err) != HS_OK)
        return cli_report(&err);
    printf("demo debuggee: pid %ld, socket %s\n", (long)d.pid, d.socket);

    cli_session session;
    hs_status st = cli_session_open(d.socket, common, &session, &err);
    if (st == HS_OK) {
        st = show_paused_heap(session.heap, &err);
        hs_error close_err = {0};
        hs_status cst = cli_session_close(&session, common, &close_err);
        if (st == HS_OK && cst != HS_OK) {
            st = cst;
            err = close_err;
        }
    }
    cli_debuggee_stop(&d);
    return st == HS_OK ? 0 : cli_report(&err);
}
