/* heapscope --demo: a synthetic debuggee with a planted leak, started on a
 * private socket, paused and shown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/cli.h"
#include "heapscope/closure_type.h"
#include "output.h"

#define DEMO_ROOTS_SHOWN 12

static const char *const demo_args[] = {"--closures", "50000", "--profiled", "--eras", "6",
                                        "--leak-count", "1000", "--leak-era", "2",
                                        "--seed", "42", NULL};

/* One line per closure: address, closure type and, for constructors, the
 * constructor description. Two batched requests, then one per constructor. */
static hs_status print_closures(wire_conn *c, const wire_ptr_list *ptrs, size_t shown,
                                hs_error *err) {
    if (shown == 0)
        return HS_OK;
    wire_blobs closures = {0}, infos = {0};
    uint64_t *info_ptrs = calloc(shown, sizeof *info_ptrs);
    hs_status st = info_ptrs ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (st == HS_OK)
        st = wire_closures(c, ptrs->items, shown, &closures, err);
    for (size_t i = 0; st == HS_OK && i < shown; i++) {
        if (closures.items[i].len < 8)
            st = hs_fail(err, HS_ERR_PROTOCOL, "closure 0x%llx: %zu bytes, no info pointer",
                         (unsigned long long)ptrs->items[i], closures.items[i].len);
        else
            info_ptrs[i] = hs_load_le64(closures.items[i].data);
    }
    if (st == HS_OK)
        st = wire_info_tables(c, info_ptrs, shown, &infos, err);
    for (size_t i = 0; st == HS_OK && i < shown; i++) {
        const wire_slice *it = &infos.items[i];
        if (it->len != 16 && it->len != 32) {
            st = hs_fail(err, HS_ERR_PROTOCOL, "info table 0x%llx: unexpected size %zu",
                         (unsigned long long)info_ptrs[i], it->len);
            break;
        }
        uint32_t type = hs_load_le32(it->data + it->len - 8);
        printf("  0x%-12llx %-22s", (unsigned long long)ptrs->items[i], hs_closure_type_name(type));
        if (hs_closure_type_is_constructor(type)) {
            wire_con_desc d = {0};
            st = wire_get_con_desc(c, info_ptrs[i], &d, err);
            if (st == HS_OK)
                printf(" %s", d.raw);
            wire_con_desc_free(&d);
        }
        putchar('\n');
    }
    wire_blobs_free(&closures);
    wire_blobs_free(&infos);
    free(info_ptrs);
    return st;
}

static hs_status show_paused_heap(wire_conn *c, hs_error *err) {
    wire_version v;
    wire_ptr_list roots = {0}, saved = {0};
    hs_status st = wire_get_version(c, &v, err);
    if (st == HS_OK)
        st = wire_roots(c, &roots, err);
    if (st == HS_OK)
        st = wire_saved_objects(c, &saved, err);
    if (st == HS_OK) {
        char ghc[64];
        cli_ghc_version_text(&v, ghc, sizeof ghc);
        printf("debuggee: GHC %s, profiling: %s\n\n", ghc, cli_prof_mode_name(v.prof_mode));
        printf("Saved objects (%zu):\n", saved.count);
        st = print_closures(c, &saved, saved.count, err);
    }
    if (st == HS_OK) {
        size_t shown = roots.count < DEMO_ROOTS_SHOWN ? roots.count : DEMO_ROOTS_SHOWN;
        printf("\nGC roots (%zu, first %zu shown):\n", roots.count, shown);
        st = print_closures(c, &roots, shown, err);
    }
    wire_ptr_list_free(&roots);
    wire_ptr_list_free(&saved);
    return st;
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

    wire_conn *c = NULL;
    bool was_paused = false;
    hs_status st = cli_open_paused(d.socket, common, &c, &was_paused, &err);
    if (st == HS_OK)
        st = show_paused_heap(c, &err);
    if (st == HS_OK)
        st = wire_resume(c, &err);
    wire_close(c);
    cli_debuggee_stop(&d);
    return st == HS_OK ? 0 : cli_report(&err);
}
