/* Batch commands of the heapscope binary. main.c parses the command line
 * and calls one of these; each returns the process exit status
 * (0 success, 1 failure reported on stderr, 2 usage error). */
#ifndef HEAPSCOPE_CLI_H
#define HEAPSCOPE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "heapscope/status.h"
#include "heapscope/wire.h"

/* Options from the command line; each command accepts a subset. */
enum cli_option {
    CLI_OPT_JSON = 1 << 0,
    CLI_OPT_TIMEOUT = 1 << 1,
    CLI_OPT_LEAVE_PAUSED = 1 << 2,
    CLI_OPT_DEPTH = 1 << 3,
    CLI_OPT_BY = 1 << 4,
    CLI_OPT_TOP = 1 << 5,
    CLI_OPT_LIMIT = 1 << 6,
    CLI_OPT_FILTER = 1 << 7, /* any of the filter options */
};

/* A filter option as given (--constructor REGEX, --not-era RANGE, ...),
 * kept in command-line order: the order the filters are evaluated in. */
typedef struct cli_filter_arg {
    query_filter_kind kind;
    bool invert;
    const char *option; /* "--not-era", for messages */
    const char *value;
} cli_filter_arg;

#define CLI_MAX_FILTERS 32

typedef struct cli_common {
    int timeout_ms;    /* idle timeout for answers; connect uses min(it, 5 s) */
    bool json;
    bool leave_paused; /* do not resume when done */
    int depth;         /* show: levels below the closure (default 2) */
    const char *by;    /* census: bucket kind (default "type") */
    long top;          /* census: rows shown, 0 = all */
    long limit;        /* retainers, find: matches shown, 0 = all (default 100) */
    cli_filter_arg filters[CLI_MAX_FILTERS];
    size_t n_filters;
    unsigned given;    /* CLI_OPT_* given on the command line */
} cli_common;

/* ---- filter options (filters_args.c) ---- */

/* getopt_long values of the filter options: base + 2 * kind + invert. */
#define CLI_FILTER_OPT_BASE 512
#define CLI_FILTER_OPTION_COUNT (2 * QUERY_FILTER_KIND_COUNT)
/* getopt_long entries of the filter options (--constructor, --not-constructor,
 * ...): CLI_FILTER_OPTION_COUNT of them. */
extern const struct option cli_filter_options[CLI_FILTER_OPTION_COUNT];
/* True when opt is one of their values. */
bool cli_is_filter_option(int opt);
/* Records a filter option in common; 0, or 2 after a usage message. */
int cli_filter_option(cli_common *common, int opt, const char *value);
/* The --help lines of the filter options. */
void cli_filter_usage(FILE *out);
/* The filters of common, parsed and compiled; 0, or 2 after a usage
 * message (bad regex, malformed era range, unknown closure type, ...). */
int cli_filters_build(const cli_common *common, query_filters **out);

/* A paused debuggee, or a snapshot file, with its heap opened. */
typedef struct cli_session {
    const char *target;
    wire_conn *conn;
    struct store_snapshot *snapshot; /* a snapshot file: no connection */
    heap *heap;
    bool was_paused; /* it was paused before we came: leave it so */
} cli_session;

/* True when target names a file (a snapshot), not a socket or tcp:. */
bool cli_target_is_file(const char *target);

/* Connects, pauses and opens the heap (fetching all blocks, with progress
 * on stderr when it is a terminal); a snapshot file is opened instead. */
hs_status cli_session_open(const char *target, const cli_common *common, cli_session *s,
                           hs_error *err);
/* Resumes (unless it was paused before or --leave-paused) and disconnects. */
hs_status cli_session_close(cli_session *s, const cli_common *common, hs_error *err);

/* A synthetic debuggee started as a child process on a private socket. */
typedef struct cli_debuggee {
    pid_t pid;
    char dir[256];    /* private directory holding the socket */
    char socket[320]; /* the socket path */
} cli_debuggee;

/* Starts heapscope-debuggee with extra_args (NULL-terminated, may be NULL)
 * and waits until its socket accepts connections. */
hs_status cli_debuggee_start(const char *const *extra_args, cli_debuggee *out, hs_error *err);
/* Stops it (SIGTERM, then SIGKILL) and removes its directory. */
void cli_debuggee_stop(cli_debuggee *d);

/* Connects to target and pauses it; *was_paused says whether it already was. */
hs_status cli_open_paused(const char *target, const cli_common *common, wire_conn **out,
                          bool *was_paused, hs_error *err);

/* The demo debuggee: 50000 closures, era profiling, 1000 Leak from era 2. */
hs_status cli_demo_start(cli_debuggee *d, hs_error *err);
/* Without a terminal: start it, pause, print its roots, resume, stop. */
int cli_demo(const cli_common *common);
int cli_info(const char *target, const cli_common *common);
int cli_roots(const char *target, const cli_common *common);
int cli_show(const char *target, const char *address, const cli_common *common);
int cli_census(const char *target, const cli_common *common);
int cli_retainers(const char *target, const cli_common *common);
int cli_find(const char *target, const cli_common *common);
/* Writes one pause of target into a new snapshot file at output (replacing
 * an existing one only when force). */
int cli_snapshot(const char *target, const char *output, bool force, const cli_common *common);

/* The batch commands, for dispatch and for --help. run() gets the
 * positional arguments after the command name. */
typedef struct cli_command {
    const char *name;
    const char *args;    /* synopsis of the arguments */
    const char *summary; /* one line for --help */
    int min_args, max_args;
    unsigned options; /* CLI_OPT_* it accepts */
    int (*run)(char **args, int n_args, const cli_common *common);
} cli_command;

extern const cli_command cli_commands[];
const cli_command *cli_find_command(const char *name);

#endif
