/* heapscope info TARGET: what the debuggee runs, without pausing it (or
 * what a snapshot file was taken from: its meta table, a ghc-debug file's
 * VERSION entry). */
#include <stdio.h>

#include "heapscope/cli.h"
#include "output.h"

static void print_info(const char *target, const wire_version *v, const cli_common *common) {
    char ghc[64];
    cli_ghc_version_text(v, ghc, sizeof ghc);
    if (common->json) {
        printf("{\"target\": ");
        cli_json_string(stdout, target);
        printf(", \"ghc_version\": \"%s\", \"ghc_major\": %u, \"ghc_patch\": %u, "
               "\"profiling_mode\": %u, \"profiling\": \"%s\", \"tables_next_to_code\": %s, ",
               ghc, v->major, v->patch, v->prof_mode, cli_prof_mode_name(v->prof_mode),
               v->tntc ? "true" : "false");
        cli_json_timing(stdout);
        puts("}");
    } else {
        printf("target     %s\nghc        %s\nprofiling  %s (mode %u)\ntntc       %s\n", target,
               ghc, cli_prof_mode_name(v->prof_mode), v->prof_mode, v->tntc ? "yes" : "no");
    }
}

int cli_info(const char *target, const cli_common *common) {
    hs_error err = {0};
    session_options o;
    cli_session_options(common, &o);
    session *s = NULL;
    const wire_version *v = NULL;
    hs_status st = session_open(target, &o, &s, &err);
    if (st == HS_OK)
        st = session_version(s, &v, &err);
    if (st == HS_OK)
        print_info(target, v, common);
    session_close(s);
    return st == HS_OK ? 0 : cli_report(&err);
}
