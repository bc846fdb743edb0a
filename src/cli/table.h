/* The command line as two tables (private to src/cli): the commands
 * (commands.c) and the options (options.c). Option parsing (parse.c),
 * `--help` and the man page's COMMANDS, OPTIONS and FILTERS (doc.c) are all
 * made from them, and tests/integration/test_cli_doc.py fails when the man
 * page drifts. A new command is one row in each of: the id list below and
 * the command table; a new option is one row of the option table. */
#ifndef HEAPSCOPE_CLI_TABLE_H
#define HEAPSCOPE_CLI_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "heapscope/cli.h"

/* Where an option can apply: the explorer (no command) or a batch command. */
typedef enum cli_command_id {
    CLI_EXPLORER,
    CLI_INFO,
    CLI_ROOTS,
    CLI_SHOW,
    CLI_CENSUS,
    CLI_THUNKS,
    CLI_RETAINERS,
    CLI_FIND,
    CLI_CACHE,
    CLI_SNAPSHOT,
    CLI_DOMINATORS,
    CLI_STRINGS,
    CLI_DUMP,
    CLI_DIFF,
    CLI_LEAKS,
    CLI_N_COMMANDS
} cli_command_id;

#define CLI_ON_ID(id) (1u << (id))
#define CLI_ON(name) CLI_ON_ID(CLI_##name)
#define CLI_ON_BATCH (((1u << CLI_N_COMMANDS) - 1) & ~CLI_ON(EXPLORER))

struct cli_command {
    const char *name;    /* NULL for the explorer */
    const char *args;    /* synopsis of the positional arguments */
    int min_args, max_args;
    bool target_first;   /* args[0] is a TARGET, checked before running */
    int (*run)(char **args, int n_args, const cli_common *common);
    const char *summary; /* one line of --help (option hints are added) */
    const char *man;     /* roff: the body of its COMMANDS entry */
};

extern const cli_command cli_command_table[CLI_N_COMMANDS];

typedef struct cli_option cli_option;

/* Stores an option's value (value is NULL for one without); 0, or 2 after a
 * usage message. inverted: given as --not-NAME (filters). */
typedef int (*cli_option_set)(cli_parsed *p, const cli_option *o, const char *value,
                              bool inverted);

struct cli_option {
    const char *name;      /* long name, without "--" */
    char short_name;       /* or 0 */
    const char *arg;       /* its value's name in the docs ("MS"), NULL: none */
    bool arg_optional;     /* --keys[=man] */
    unsigned commands;     /* CLI_ON(...) where it applies; 0: anywhere (--help) */
    cli_option_set set;
    size_t field;          /* generic setters: offsetof(cli_common, ...) */
    long lo, hi;           /* number setters: the range */
    int detail;            /* action id, or query filter kind */
    const char *help;      /* --help text, NULL for a hidden option */
    const char *man;       /* roff: the body of its OPTIONS or FILTERS entry */
};

extern const cli_option cli_option_table[];
extern const size_t cli_option_count;

/* Setters of the option table (options.c). */
int cli_set_filter(cli_parsed *p, const cli_option *o, const char *value, bool inverted);

static inline bool cli_option_is_filter(const cli_option *o) { return o->set == cli_set_filter; }

#endif
