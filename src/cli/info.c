/* heapscope info TARGET: what the debuggee runs, without pausing it. */
#include <stdio.h>

#include "heapscope/cli.h"
#include "output.h"

int cli_info(const char *target, const cli_common *common) {
    hs_error err = {0};
    wire_options opts;
    cli_wire_options(common, &opts);
    wire_conn *c = NULL;
    wire_version v;
    if (wire_connect(target, &opts, &c, &err) != HS_OK || wire_get_version(c, &v, &err) != HS_OK) {
        wire_close(c);
        return cli_report(&err);
    }
    wire_close(c);

    char ghc[64];
    cli_ghc_version_text(&v, ghc, sizeof ghc);
    if (common->json) {
        printf("{\"target\": ");
        cli_json_string(stdout, target);
        printf(", \"ghc_version\": \"%s\", \"ghc_major\": %u, \"ghc_patch\": %u, "
               "\"profiling_mode\": %u, \"profiling\": \"%s\", \"tables_next_to_code\": %s}\n",
               ghc, v.major, v.patch, v.prof_mode, cli_prof_mode_name(v.prof_mode),
               v.tntc ? "true" : "false");
    } else {
        printf("target     %s\nghc        %s\nprofiling  %s (mode %u)\ntntc       %s\n", target,
               ghc, cli_prof_mode_name(v.prof_mode), v.prof_mode, v.tntc ? "yes" : "no");
    }
    return 0;
}
