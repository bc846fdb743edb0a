/* heapscope info TARGET: what the debuggee runs, without pausing it (or
 * what a snapshot file was taken from). */
#include <stdio.h>

#include "heapscope/cli.h"
#include "heapscope/ghcdebug_file.h"
#include "heapscope/store.h"
#include "output.h"

static void print_info(const char *target, const wire_version *v, const cli_common *common) {
    char ghc[64];
    cli_ghc_version_text(v, ghc, sizeof ghc);
    if (common->json) {
        printf("{\"target\": ");
        cli_json_string(stdout, target);
        printf(", \"ghc_version\": \"%s\", \"ghc_major\": %u, \"ghc_patch\": %u, "
               "\"profiling_mode\": %u, \"profiling\": \"%s\", \"tables_next_to_code\": %s}\n",
               ghc, v->major, v->patch, v->prof_mode, cli_prof_mode_name(v->prof_mode),
               v->tntc ? "true" : "false");
    } else {
        printf("target     %s\nghc        %s\nprofiling  %s (mode %u)\ntntc       %s\n", target,
               ghc, cli_prof_mode_name(v->prof_mode), v->prof_mode, v->tntc ? "yes" : "no");
    }
}

/* A snapshot's version is in its meta table; a ghc-debug snapshot's in
 * its VERSION entry. */
static hs_status file_version(const char *target, wire_version *v, hs_error *err) {
    if (!store_is_snapshot_file(target) && ghcdebug_file_sniff_path(target)) {
        ghcdebug_file *f;
        hs_status st = ghcdebug_file_open(target, &f, err);
        if (st == HS_OK)
            *v = *ghcdebug_file_version(f);
        ghcdebug_file_free(f);
        return st;
    }
    store_snapshot *snap;
    hs_status st = store_snapshot_open(target, &snap, err);
    if (st == HS_OK)
        *v = store_snapshot_meta(snap)->version;
    store_snapshot_close(snap);
    return st;
}

int cli_info(const char *target, const cli_common *common) {
    hs_error err = {0};
    wire_version v;
    if (cli_target_is_file(target)) {
        if (file_version(target, &v, &err) != HS_OK)
            return cli_report(&err);
        print_info(target, &v, common);
        return 0;
    }
    wire_options opts;
    cli_wire_options(common, &opts);
    wire_conn *c = NULL;
    if (wire_connect(target, &opts, &c, &err) != HS_OK || wire_hello(c, &v, &err) != HS_OK) {
        wire_close(c);
        return cli_report(&err);
    }
    wire_close(c);
    print_info(target, &v, common);
    return 0;
}
