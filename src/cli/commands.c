/* The command table: main.c dispatches through it and --help lists it. */
#include <string.h>

#include "heapscope/cli.h"

static int run_info(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_info(args[0], common);
}

static int run_roots(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_roots(args[0], common);
}

static int run_show(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_show(args[0], args[1], common);
}

static int run_census(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_census(args[0], common);
}

static int run_retainers(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_retainers(args[0], common);
}

static int run_find(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_find(args[0], common);
}

#define SESSION_OPTS (CLI_OPT_JSON | CLI_OPT_TIMEOUT | CLI_OPT_LEAVE_PAUSED)
#define SEARCH_OPTS (SESSION_OPTS | CLI_OPT_LIMIT | CLI_OPT_FILTER)

const cli_command cli_commands[] = {
    {"info", "TARGET", "the debuggee's GHC version and profiling mode (no pause)", 1, 1,
     CLI_OPT_JSON | CLI_OPT_TIMEOUT, run_info},
    {"roots", "TARGET", "saved objects and GC roots, one closure each", 1, 1, SESSION_OPTS,
     run_roots},
    {"show", "TARGET ADDR", "a closure and its children as a tree [--depth N]", 2, 2,
     SESSION_OPTS | CLI_OPT_DEPTH, run_show},
    {"census", "TARGET", "count and bytes per bucket [--by type|constructor|era|source] [--top N]",
     1, 1, SESSION_OPTS | CLI_OPT_BY | CLI_OPT_TOP, run_census},
    {"retainers", "TARGET FILTERS", "a shortest path from the GC roots to each matching closure",
     1, 1, SEARCH_OPTS, run_retainers},
    {"find", "TARGET [FILTERS]", "the closures matching the filters, without paths", 1, 1,
     SEARCH_OPTS, run_find},
    {NULL, NULL, NULL, 0, 0, 0, NULL},
};

const cli_command *cli_find_command(const char *name) {
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}
