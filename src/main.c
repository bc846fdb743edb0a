/* heapscope: argument parsing and dispatch only. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/tui.h"

#ifndef HEAPSCOPE_VERSION
#define HEAPSCOPE_VERSION "unknown"
#endif

static void usage(FILE *out) {
    fputs("Usage: heapscope [TARGET] [--theme NAME] [--timeout MS]\n"
          "       heapscope --demo\n"
          "       heapscope COMMAND [ARGS] [OPTIONS]\n"
          "\n"
          "Explore the heap of a Haskell program that runs the ghc-debug stub.\n"
          "TARGET is a debuggee's socket path, unix:PATH, or tcp:HOST:PORT.\n"
          "Without a command, the explorer opens in the terminal: on TARGET (or\n"
          "$GHC_DEBUG_SOCKET), else on a list of the running debuggees.\n"
          "\n"
          "Commands:\n",
          out);
    for (const cli_command *c = cli_commands; c->name; c++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", c->name, c->args);
        fprintf(out, "  %-24s %s\n", head, c->summary);
    }
    fputs("\n"
          "Options:\n"
          "  --demo                 start a synthetic debuggee with a planted leak on a\n"
          "                         private socket and open the explorer on it (without a\n"
          "                         terminal: pause it and print its roots)\n"
          "  --json                 machine-readable output\n"
          "  --timeout MS           longest silence from the debuggee before giving up\n"
          "                         (default 30000)\n"
          "  --leave-paused         do not resume the debuggee when done (by default it is\n"
          "                         resumed, unless it was already paused)\n"
          "  --depth N              show: levels of children (default 2, at most 64)\n"
          "  --by KIND              census: type (default), constructor, era or source\n"
          "  --top N                census: show the N largest rows (default all)\n"
          "  --theme NAME           explorer colours: themes/NAME.theme (default, light,\n"
          "                         high-contrast, or your own)\n"
          "  --keys                 print the explorer's keys and exit (--keys=man: as roff)\n"
          "  -h, --help             show this help and exit\n"
          "  -V, --version          show the version and exit\n"
          "\n",
          out);
    cli_filter_usage(out);
    fputs("\n"
          "Environment:\n"
          "  HEAPSCOPE_DEBUGGEE     the synthetic debuggee program used by --demo\n"
          "  GHC_DEBUG_SOCKET       the explorer's target when none is given\n"
          "  NO_COLOR               when set and not empty, the explorer uses no colours\n"
          "\n"
          "See heapscope(1) for more.\n",
          out);
}

static int parse_number(const char *option, const char *text, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "heapscope: %s wants a number from %ld to %ld, not '%s'\n", option, lo,
                hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

static const char *option_name(unsigned bit) {
    switch (bit) {
    case CLI_OPT_JSON: return "--json";
    case CLI_OPT_TIMEOUT: return "--timeout";
    case CLI_OPT_LEAVE_PAUSED: return "--leave-paused";
    case CLI_OPT_DEPTH: return "--depth";
    case CLI_OPT_BY: return "--by";
    case CLI_OPT_LIMIT: return "--limit";
    default: return "--top";
    }
}

/* getopt_long's complaint (opterr is 0, so it prints none), in our words and
 * under our name rather than the invoked path. */
static void option_error(int opt, char **argv, const struct option *longopts) {
    const struct option *o = NULL;
    for (const struct option *l = longopts; l->name && optopt; l++)
        if (l->val == optopt)
            o = l;
    if (optopt == 0) { /* an unknown or ambiguous --name */
        const char *arg = argv[optind - 1] + 2;
        int n = (int)strcspn(arg, "="), matches = 0;
        for (const struct option *l = longopts; l->name; l++)
            matches += strncmp(l->name, arg, (size_t)n) == 0;
        fprintf(stderr, "heapscope: %s option '--%.*s'", matches > 1 ? "ambiguous" : "unknown",
                n, arg);
        int listed = 0;
        for (const struct option *l = longopts; matches > 1 && l->name; l++)
            if (strncmp(l->name, arg, (size_t)n) == 0)
                fprintf(stderr, "%s--%s", listed++ ? ", " : ": ", l->name);
        fputc('\n', stderr);
    } else if (!o) {
        fprintf(stderr, "heapscope: unknown option '-%c'\n", optopt);
    } else if (opt == ':') {
        fprintf(stderr, "heapscope: --%s needs a value\n", o->name);
    } else {
        fprintf(stderr, "heapscope: --%s takes no value\n", o->name);
    }
    fputs("Try 'heapscope --help'.\n", stderr);
}

/* A target given on the command line: a malformed one is a usage error. */
static int check_target(const char *target) {
    wire_target t;
    hs_error err = {0};
    if (wire_target_parse(target, &t, &err) == HS_OK)
        return 0;
    fprintf(stderr, "heapscope: %s\n", err.message);
    return 2;
}

/* heapscope [TARGET]: the explorer. Only --timeout and --theme apply. */
static int run_tui(const char *target, const char *theme, const cli_common *common) {
    if (common->given & ~CLI_OPT_TIMEOUT) {
        fprintf(stderr, "heapscope: the explorer takes only --theme and --timeout; a batch "
                        "command takes the others (see heapscope --help)\n");
        return 2;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        if (!target) {
            usage(stderr);
            return 2;
        }
        /* without a terminal it was most likely meant as a command */
        if (check_target(target) != 0)
            return 2;
        fprintf(stderr, "heapscope: unknown command '%s' (as a target for the explorer, it "
                        "needs a terminal). Try 'heapscope --help'.\n", target);
        return 2;
    }
    if (target && check_target(target) != 0)
        return 2;
    tui_options o = {.target = target, .theme = theme, .timeout_ms = common->timeout_ms};
    return tui_run(&o);
}

/* --demo in a terminal: the explorer on the demo debuggee, stopped after. */
static int run_demo_tui(const char *theme, const cli_common *common) {
    hs_error err = {0};
    cli_debuggee d;
    if (cli_demo_start(&d, &err) != HS_OK) {
        fprintf(stderr, "heapscope: %s\n", err.message);
        return 1;
    }
    tui_options o = {.target = d.socket, .theme = theme, .timeout_ms = common->timeout_ms};
    int rc = tui_run(&o);
    cli_debuggee_stop(&d);
    return rc;
}

int main(int argc, char **argv) {
    enum { OPT_DEMO = 256, OPT_JSON, OPT_TIMEOUT, OPT_LEAVE_PAUSED, OPT_DEPTH, OPT_BY, OPT_TOP,
           OPT_LIMIT, OPT_THEME, OPT_KEYS };
    static const struct option own[] = {
        {"demo", no_argument, NULL, OPT_DEMO},
        {"json", no_argument, NULL, OPT_JSON},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"leave-paused", no_argument, NULL, OPT_LEAVE_PAUSED},
        {"depth", required_argument, NULL, OPT_DEPTH},
        {"by", required_argument, NULL, OPT_BY},
        {"top", required_argument, NULL, OPT_TOP},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"theme", required_argument, NULL, OPT_THEME},
        {"keys", optional_argument, NULL, OPT_KEYS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
    };
    enum { N_OWN = sizeof own / sizeof own[0] };
    struct option longopts[N_OWN + CLI_FILTER_OPTION_COUNT + 1] = {0}; /* zero-terminated */
    memcpy(longopts, own, sizeof own);
    memcpy(longopts + N_OWN, cli_filter_options, sizeof cli_filter_options);
    cli_common common = {.timeout_ms = 30000, .limit = 100};
    int demo = 0, opt;
    opterr = 0;
    const char *theme = NULL;
    long number;
    while ((opt = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_DEMO: demo = 1; break;
        case OPT_JSON:
            common.json = true;
            common.given |= CLI_OPT_JSON;
            break;
        case OPT_TIMEOUT:
            if (parse_number("--timeout", optarg, 1, 86400000, &number) != 0)
                return 2;
            common.timeout_ms = (int)number;
            common.given |= CLI_OPT_TIMEOUT;
            break;
        case OPT_LEAVE_PAUSED:
            common.leave_paused = true;
            common.given |= CLI_OPT_LEAVE_PAUSED;
            break;
        case OPT_DEPTH:
            if (parse_number("--depth", optarg, 0, 64, &number) != 0)
                return 2;
            common.depth = (int)number;
            common.given |= CLI_OPT_DEPTH;
            break;
        case OPT_BY:
            common.by = optarg;
            common.given |= CLI_OPT_BY;
            break;
        case OPT_TOP:
            if (parse_number("--top", optarg, 0, 1000000000, &number) != 0)
                return 2;
            common.top = number;
            common.given |= CLI_OPT_TOP;
            break;
        case OPT_LIMIT:
            if (parse_number("--limit", optarg, 0, 1000000000, &number) != 0)
                return 2;
            common.limit = number;
            common.given |= CLI_OPT_LIMIT;
            break;
        case OPT_THEME: theme = optarg; break;
        case OPT_KEYS:
            if (optarg && strcmp(optarg, "man") != 0) {
                fprintf(stderr, "heapscope: --keys takes nothing or =man, not '%s'\n", optarg);
                return 2;
            }
            if (optarg)
                tui_commands_print_man(stdout);
            else
                tui_commands_print(stdout);
            return 0;
        case 'h': usage(stdout); return 0;
        case 'V': printf("heapscope %s\n", HEAPSCOPE_VERSION); return 0;
        default:
            if (cli_is_filter_option(opt)) {
                if (cli_filter_option(&common, opt, optarg) != 0)
                    return 2;
                break;
            }
            option_error(opt, argv, longopts);
            return 2;
        }
    }
    char **args = argv + optind;
    int n_args = argc - optind;
    if (demo) {
        if (n_args > 0) {
            fprintf(stderr, "heapscope: --demo takes no target\n");
            return 2;
        }
        return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ? run_demo_tui(theme, &common)
                                                             : cli_demo(&common);
    }
    const cli_command *cmd = n_args ? cli_find_command(args[0]) : NULL;
    if (n_args <= 1 && !cmd)
        return run_tui(n_args ? args[0] : NULL, theme, &common);
    if (theme) {
        fprintf(stderr, "heapscope: --theme applies to the explorer only\n");
        return 2;
    }
    if (!cmd) {
        fprintf(stderr, "heapscope: unknown command '%s'. Try 'heapscope --help'.\n", args[0]);
        return 2;
    }
    if (n_args - 1 < cmd->min_args || n_args - 1 > cmd->max_args) {
        fprintf(stderr, "heapscope: usage: heapscope %s %s\n", cmd->name, cmd->args);
        return 2;
    }
    unsigned stray = common.given & ~cmd->options;
    if (stray) {
        unsigned bit = stray & -stray;
        fprintf(stderr, "heapscope: %s does not apply to '%s'\n",
                bit == CLI_OPT_FILTER ? common.filters[0].option : option_name(bit), cmd->name);
        return 2;
    }
    if (check_target(args[1]) != 0)
        return 2;
    return cmd->run(args + 1, n_args - 1, &common);
}
