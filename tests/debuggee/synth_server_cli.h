/* Command line of heapscope-debuggee, parsed apart from main.c so it can be
 * tested without the generator. */
#ifndef SYNTH_SERVER_CLI_H
#define SYNTH_SERVER_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth_gen.h"
#include "synth_hostile.h"

typedef struct synth_cli {
    const char *socket_path;     /* --socket PATH, NULL = default (§3.1) */
    const char *tcp;             /* --tcp HOST:PORT, NULL = unix socket */
    const char *plan_path;       /* --plan FILE ("-" = stdout), NULL = none */
    bool plan_only;              /* --plan-only */
    const char *ghcdebug_path;   /* --ghc-debug-snapshot FILE, NULL = none */
    const char *ghcdebug_of;     /* --ghc-debug-snapshot-of SOCKET: of another debuggee */
    uint64_t max_connections;    /* --max-connections N, 0 = no limit */
    int64_t self_pause_after_ms; /* --self-pause-after MS, -1 = never */
    uint32_t silent_on;          /* --silent-on COMMAND: bit per command id */
    const char *count_path;      /* --count-requests FILE, NULL = none */
    int answer_delay_ms;         /* --answer-delay MS, 0 = none */
    const char *log_path;        /* --log-requests FILE, NULL = none */
    const char *hold_path;       /* --hold-resume FILE, NULL = none */
    synth_hostile hostile;       /* --hostile KIND,...: all zero = none */
    bool help;                   /* --help: print usage, exit 0 */
    bool fragile;                /* --fragile: as fragile as the official stub */
    uint32_t hold_cmd;           /* --hold COMMAND:DIR */
    const char *hold_dir;
} synth_cli;

/* Parses argv[1..]. gen must hold the defaults already (the generator's
 * synth_options_default); options override them. Returns 0, or -1 with a
 * message in err (a usage error: exit status 2). Options take their value
 * as the next argument or after '='. */
int synth_cli_parse(int argc, char **argv, synth_cli *cli, synth_options *gen, char *err,
                    size_t errlen);

/* A command name (VERSION, INFO_TABLES, ..., any case) or number 0..31;
 * opt names the option in the message. 0, or -1 with a message in err. */
int synth_command_id(const char *opt, const char *s, uint32_t *id, char *err, size_t errlen);

/* The name of a command id (VERSION, INFO_TABLES, ...), NULL if unknown. */
const char *synth_command_name(uint32_t id);

/* The --help text. */
const char *synth_cli_usage(void);

#endif
