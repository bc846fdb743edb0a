/* The command line, read by the tables: getopt_long's list is made from the
 * option table, the operands choose the explorer or a command of the
 * command table, and every option given is checked against where its row
 * says it applies. Every complaint is one "heapscope: ..." line, exit 2. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "table.h"

/* getopt_long's value for row i is VAL_BASE + 2 i, plus 1 for the --not-
 * form of a filter: above every short option's character. */
#define VAL_BASE 256
#define N_LONG (2 * CLI_MAX_OPTIONS + 1) /* a filter has two names; zero end */

static void make_getopt_lists(struct option *longopts, char *shorts) {
    static char not_names[CLI_MAX_OPTIONS][40]; /* "not-closure-name" */
    size_t n = 0;
    char *s = shorts;
    *s++ = ':'; /* a missing value returns ':', not '?' */
    for (size_t i = 0; i < cli_option_count; i++) {
        const cli_option *o = &cli_option_table[i];
        int has_arg = !o->arg ? no_argument : o->arg_optional ? optional_argument
                                                                : required_argument;
        longopts[n++] = (struct option){o->name, has_arg, NULL, VAL_BASE + 2 * (int)i};
        if (cli_option_is_filter(o)) {
            snprintf(not_names[i], sizeof not_names[i], "not-%s", o->name);
            longopts[n++] =
                (struct option){not_names[i], has_arg, NULL, VAL_BASE + 2 * (int)i + 1};
        }
        if (o->short_name) { /* -h, -V; -o FILE */
            *s++ = o->short_name;
            if (o->arg)
                *s++ = ':';
        }
    }
    *s = '\0';
    longopts[n] = (struct option){0};
}

/* The row of a getopt_long value, or NULL. */
static const cli_option *row_of(int val, bool *inverted) {
    *inverted = false;
    if (val >= VAL_BASE && (size_t)(val - VAL_BASE) / 2 < cli_option_count) {
        *inverted = (val - VAL_BASE) % 2 == 1;
        return &cli_option_table[(val - VAL_BASE) / 2];
    }
    for (size_t i = 0; val > 0 && i < cli_option_count; i++)
        if (cli_option_table[i].short_name == val)
            return &cli_option_table[i];
    return NULL;
}

/* getopt_long's complaint (opterr is 0, so it prints none), in our words
 * and under our name rather than the invoked path. */
static void option_error(int opt, char **argv, const struct option *longopts) {
    bool inverted;
    const cli_option *o = optopt ? row_of(optopt, &inverted) : NULL;
    if (optopt == 0) { /* an unknown or ambiguous --name */
        const char *arg = argv[optind - 1];
        arg += strncmp(arg, "--", 2) == 0 ? 2 : 0;
        size_t n = strcspn(arg, "=");
        int matches = 0, listed = 0;
        for (const struct option *l = longopts; l->name; l++)
            matches += strncmp(l->name, arg, n) == 0;
        fprintf(stderr, "heapscope: %s option '--%.*s'", matches > 1 ? "ambiguous" : "unknown",
                (int)n, arg);
        for (const struct option *l = longopts; matches > 1 && l->name; l++)
            if (strncmp(l->name, arg, n) == 0)
                fprintf(stderr, "%s--%s", listed++ ? ", " : ": ", l->name);
        fputc('\n', stderr);
    } else if (!o) {
        fprintf(stderr, "heapscope: unknown option '-%c'\n", optopt);
    } else {
        fprintf(stderr, "heapscope: --%s%s %s\n", inverted ? "not-" : "", o->name,
                opt == ':' ? "needs a value" : "takes no value");
    }
    fputs("Try 'heapscope --help'.\n", stderr);
}

static const cli_command *find_command(const char *name) {
    for (size_t i = 0; i < CLI_N_COMMANDS; i++)
        if (cli_command_table[i].name && strcmp(cli_command_table[i].name, name) == 0)
            return &cli_command_table[i];
    return NULL;
}

/* The explorer's options but `but`, for a message: "--timeout and --theme". */
static void explorer_options(FILE *out, const char *but) {
    size_t n = 0, total = 0;
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < cli_option_count; i++) {
            const cli_option *o = &cli_option_table[i];
            if (!(o->commands & CLI_ON(EXPLORER)) || strcmp(o->name, but) == 0)
                continue;
            if (pass == 0)
                total++;
            else
                fprintf(out, "%s--%s", n++ == 0 ? "" : n == total ? " and " : ", ", o->name);
        }
}

/* Every option given applies to `where`; 0, or 2 after a message. */
static int check_scope(const cli_parsed *p, cli_command_id where) {
    for (size_t k = 0; k < p->n_given; k++) {
        const cli_option *o = &cli_option_table[p->given[k] / 2];
        if (o->commands & CLI_ON_ID(where))
            continue;
        fprintf(stderr, "heapscope: --%s%s does not apply to ", p->given[k] % 2 ? "not-" : "",
                o->name);
        if (where != CLI_EXPLORER) {
            fprintf(stderr, "'%s'\n", cli_command_table[where].name);
        } else {
            fputs(p->common.demo ? "--demo, which takes only "
                                 : "the explorer (no command given), which takes only ",
                  stderr);
            explorer_options(stderr, p->common.demo ? "demo" : "");
            fputs("; see heapscope --help\n", stderr);
        }
        return 2;
    }
    return 0;
}

/* The operands: the explorer (none, or a target), --demo, or a command. */
static void choose(cli_parsed *p, char **operands, int n) {
    const cli_command *cmd = n ? find_command(operands[0]) : NULL;
    cli_command_id where = CLI_EXPLORER;
    cli_action action = p->common.demo ? CLI_ACT_DEMO : CLI_ACT_EXPLORER;
    if (p->common.demo && n > 0) {
        fprintf(stderr, "heapscope: --demo takes no target\n");
        return;
    }
    if (cmd || n > 1) {
        if (!cmd) {
            fprintf(stderr, "heapscope: unknown command '%s'. Try 'heapscope --help'.\n",
                    operands[0]);
            return;
        }
        if (n - 1 < cmd->min_args || n - 1 > cmd->max_args) {
            fprintf(stderr, "heapscope: usage: heapscope %s %s\n", cmd->name, cmd->args);
            return;
        }
        where = (cli_command_id)(cmd - cli_command_table);
        action = CLI_ACT_COMMAND;
        p->command = cmd;
        operands++;
        n--;
    }
    if (check_scope(p, where) != 0)
        return;
    p->args = operands;
    p->n_args = n;
    p->action = action;
}

static void note_given(cli_parsed *p, const cli_option *o, bool inverted) {
    unsigned char code = (unsigned char)(2 * (o - cli_option_table) + inverted);
    for (size_t k = 0; k < p->n_given; k++)
        if (p->given[k] == code)
            return;
    p->given[p->n_given++] = code; /* two codes per row at most: given[] holds them */
}

void cli_parse(int argc, char **argv, cli_parsed *p) {
    *p = (cli_parsed){
        .action = CLI_ACT_FAIL,
        .common = {.timeout_ms = 30000, .depth = 2, .limit = 100},
    };
    struct option longopts[N_LONG];
    char shorts[CLI_MAX_OPTIONS + 2];
    make_getopt_lists(longopts, shorts);
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        bool inverted;
        const cli_option *o = opt == '?' || opt == ':' ? NULL : row_of(opt, &inverted);
        if (!o) {
            option_error(opt, argv, longopts);
            return;
        }
        note_given(p, o, inverted);
        if (o->set(p, o, optarg, inverted) != 0)
            return;
        if (p->action != CLI_ACT_FAIL) /* only --help and its kind set it: done */
            return;
    }
    choose(p, argv + optind, argc - optind);
}

int cli_check_target(const char *target) {
    wire_target t;
    hs_error err = {0};
    if (session_target_is_file(target) || wire_target_parse(target, &t, &err) == HS_OK)
        return 0; /* a snapshot file, or a well-formed debuggee address */
    fprintf(stderr, "heapscope: %s\n", err.message);
    return 2;
}

int cli_run_command(const cli_parsed *p) {
    if (p->command->target_first && cli_check_target(p->args[0]) != 0)
        return 2;
    return p->command->run(p->args, p->n_args, &p->common);
}
