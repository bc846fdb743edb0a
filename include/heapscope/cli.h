/* Batch commands of the heapscope binary and its command line. main.c
 * parses the command line with cli_parse and dispatches; each command
 * returns the process exit status (0 success, 1 failure reported on
 * stderr, 2 usage error). */
#ifndef HEAPSCOPE_CLI_H
#define HEAPSCOPE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "heapscope/cache.h"
#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "heapscope/session.h"
#include "heapscope/status.h"
#include "heapscope/wire.h"

/* A filter option as given (--constructor REGEX, --not-era RANGE, ...),
 * kept in command-line order: the order the filters are evaluated in. */
typedef struct cli_filter_arg {
    query_filter_kind kind;
    bool invert;
    const char *option; /* "--not-era", for messages */
    const char *value;
} cli_filter_arg;

#define CLI_MAX_FILTERS 32

/* The values of the options (defaults from cli_parse); each command reads
 * those that apply to it. */
typedef struct cli_common {
    int timeout_ms;    /* idle timeout for answers; connect uses min(it, 5 s) */
    uint64_t max_answer; /* cap on one answer in bytes; 0 = wire_default_max_response() */
    bool json;
    bool leave_paused; /* do not resume when done */
    int depth;         /* show: levels below the closure (default 2) */
    const char *by;    /* census: bucket kinds, "A" or "A,B" (default "type") */
    const char *sort;  /* census, thunks: column (default "bytes") */
    long top;          /* census, thunks, strings: rows shown (census: per level), 0 = all */
    long limit;        /* retainers, find (matches), leaks --group (edges) shown, 0 = all
                          (default 100) */
    long group;        /* leaks: the group whose edges to list (1 = the first), 0 = none */
    cli_filter_arg filters[CLI_MAX_FILTERS];
    size_t n_filters;
    const char *output; /* snapshot, dump: -o FILE */
    bool force;        /* snapshot: replace an existing FILE */
    bool demo;         /* --demo */
    const char *theme; /* explorer: --theme */
    const char *snapshot_dir; /* explorer: --snapshot-dir */
    bool no_cache;       /* --no-cache: neither read nor write the cache */
    uint64_t cache_size; /* --cache-size: cap of the cache directory, 0 = default */
    bool record;         /* --record: record the pause in the cache */
    bool retained;       /* show, find, retainers: retained sizes (the dominator tree) */
    bool merged;         /* retainers: the prefix tree of the paths */
} cli_common;

/* ---- the command line (parse.c, doc.c; tables in commands.c, options.c) ---- */

typedef struct cli_command cli_command; /* a row of the command table */

/* What the command line asks for. */
typedef enum cli_action {
    CLI_ACT_FAIL,     /* a usage error, already reported: exit 2 */
    CLI_ACT_HELP,     /* --help */
    CLI_ACT_VERSION,  /* --version */
    CLI_ACT_KEYS,     /* --keys[=man]: the explorer's key table */
    CLI_ACT_COMMANDS, /* --commands[=man] (hidden): the command table */
    CLI_ACT_OPTIONS,  /* --options[=man] (hidden): the option table */
    CLI_ACT_FILTERS,  /* --filters[=man] (hidden): the filter options */
    CLI_ACT_EXPLORER, /* no command: the explorer, on args[0] when given */
    CLI_ACT_DEMO,     /* --demo */
    CLI_ACT_COMMAND,  /* a batch command */
} cli_action;

#define CLI_MAX_OPTIONS 64

typedef struct cli_parsed {
    cli_action action;
    bool man;                   /* the =man form of --keys, --commands, ... */
    const cli_command *command; /* CLI_ACT_COMMAND */
    char **args;                /* operands after the command name (explorer: its target) */
    int n_args;
    cli_common common;
    /* option table rows in the order first given (parse.c) */
    unsigned char given[2 * CLI_MAX_OPTIONS]; /* 2 row + 1 for a --not- form */
    size_t n_given;
} cli_parsed;

/* Parses the command line by the option and command tables: every value
 * checked, every option checked against what it applies to. A usage error
 * is reported on stderr and gives CLI_ACT_FAIL. */
void cli_parse(int argc, char **argv, cli_parsed *out);
/* Runs the batch command of p (a malformed target is a usage error);
 * returns the exit status. */
int cli_run_command(const cli_parsed *p);
/* 0 for a well-formed target, else 2 after a usage message. */
int cli_check_target(const char *target);

/* --help, from the tables. */
void cli_print_help(FILE *out);
/* The tables, for tests and the man page: tab-separated lines, or (man)
 * the roff of the man page's COMMANDS, OPTIONS and FILTERS entries. */
void cli_print_commands(FILE *out, bool man);
void cli_print_options(FILE *out, bool man);
void cli_print_filters(FILE *out, bool man);

/* The filters of common, parsed and compiled; 0, or 2 after a usage
 * message (bad regex, malformed era range, unknown closure type, ...). */
int cli_filters_build(const cli_common *common, query_filters **out);
/* The filters as a JSON list of their descriptions (query_filters_describe). */
void cli_json_filters(FILE *out, const query_filters *f);

/* A batch command's TARGET: a paused debuggee, or a snapshot file, with its
 * heap read (src/cli/target.c, over the session module). */
typedef struct cli_session {
    const char *target;
    session *sess;
    heap *heap;   /* the pause's */
    cache *cache; /* NULL: --no-cache, a file, or it could not be opened */
    hs_error resume_err; /* set by cli_session_close when the resume failed (status != 0) */
} cli_session;

/* Connects, pauses and reads the heap (with progress on stderr when it is
 * a terminal); a snapshot file is opened instead. A quit signal cancels
 * the waits; on failure the debuggee is given back as cli_session_close
 * does. */
hs_status cli_session_open(const char *target, const cli_common *common, cli_session *s,
                           hs_error *err);
/* What a command must read of the pause beyond what the GC roots and the
 * saved objects reach (an address the user named), or all it reads, asked
 * while the debuggee is still paused; a failure ends the command with it. */
typedef hs_status (*cli_prepare_fn)(void *ctx, heap *h, hs_error *err);
/* cli_session_open, then prepare (may be NULL) while paused; then a
 * debuggee heapscope paused is let go, unless --leave-paused: the pause is
 * completed (session_complete: the whole reachable heap when whole, else
 * only what prepare read), the debuggee resumed (session_let_go) and the
 * heap read offline after. */
hs_status cli_session_open_prepared(const char *target, const cli_common *common,
                                    cli_prepare_fn prepare, void *prepare_ctx, bool whole,
                                    cli_session *s, hs_error *err);
/* A prepare step's help: reads what printing the decoded closure c asks
 * (its label, location, cost centres), printing it to out (a null
 * stream) as text and as JSON. */
hs_status cli_prepare_closure(FILE *out, heap *h, const heap_closure *c, hs_error *err);
/* The exit status of a failed cli_session_open: its error, then, when
 * leaving could not resume the debuggee, that too. */
int cli_session_open_failed(const cli_session *s, const hs_error *err);
/* The command's start (main), for the elapsed time --json reports. */
void cli_timing_start(void);
/* Records the pause (--record), resumes a debuggee we paused (unless
 * --leave-paused; over a new connection if a cancel or a timeout closed
 * it) and closes everything. */
hs_status cli_session_close(cli_session *s, const cli_common *common, hs_error *err);
/* The end of a command: closes the session (cli_session_close) and gives
 * the exit status, reporting the command's failure st (err) first (then a
 * failed resume, which may leave the debuggee paused), else the close's: 0
 * when both went well. */
int cli_session_finish(cli_session *s, const cli_common *common, hs_status st,
                       const hs_error *err);
/* The filters of common built (cli_filters_build) and the session of
 * target opened (cli_session_open): 0, or the exit status after the
 * message. On 0 the caller frees *filters and closes *s. */
int cli_open_with_filters(const char *target, const cli_common *common, query_filters **filters,
                          cli_session *s);
/* False once a quit signal arrived or standard output failed (its reader
 * went away, the disk is full): long work (progress callbacks) stops. */
bool cli_keep_going(void);
/* The exit status once standard output is flushed: rc when it was written
 * in full; else, when its reader went away (EPIPE: `heapscope find | head`),
 * 128 + SIGPIPE without a word, as SIGPIPE would have ended it; else one
 * line saying why (a full disk) and 1. */
int cli_output_status(int rc);
/* True once writing standard output failed (ferror), the reason kept. */
bool cli_output_failed(void);
/* Makes stdout a stream that notes why its first write failed, when it
 * fails, and shows control characters and bytes that are not UTF-8 as
 * visible escapes (src/cli/text_safe.h): a batch command calls it first
 * (not the explorer: curses wants the real stdout). */
void cli_output_note_errors(void);
/* Makes stderr show control characters and bytes that are not UTF-8 as
 * visible escapes: a message quoting a file's, a socket's or a closure's
 * name cannot drive the terminal. main calls it first. */
void cli_messages_safe(void);
/* fflush(stdout), keeping why it failed for cli_output_status. */
void cli_flush_output(void);
/* The session options of a command: --timeout, --max-answer, waits that a
 * quit signal cancels, heap-fetch progress on a terminal. */
void cli_session_options(const cli_common *common, session_options *o);

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

/* The demo debuggee: 50000 closures, era profiling, 1000 Leak from era 2. */
hs_status cli_demo_start(cli_debuggee *d, hs_error *err);
/* Without a terminal: start it, pause, print its roots, resume, stop. */
int cli_demo(const cli_common *common);
int cli_info(const char *target, const cli_common *common);
int cli_roots(const char *target, const cli_common *common);
int cli_show(const char *target, const char *address, const cli_common *common);
int cli_census(const char *target, const cli_common *common);
int cli_thunks(const char *target, const cli_common *common);
int cli_retainers(const char *target, const cli_common *common);
int cli_find(const char *target, const cli_common *common);
int cli_dominators(const char *target, const cli_common *common);
int cli_strings(const char *target, const cli_common *common);
int cli_dump(const char *target, const char *addr, const cli_common *common);
/* heapscope diff A B: the census buckets that changed from pause A to B */
int cli_diff(const char *a, const char *b, const cli_common *common);
int cli_leaks(const char *target, const cli_common *common);
/* heapscope cache list|clear */
int cli_cache(const char *what, const cli_common *common);
/* Writes one pause of target into a new snapshot file at common->output
 * (replacing an existing one only with common->force). */
int cli_snapshot(const char *target, const cli_common *common);

#endif
