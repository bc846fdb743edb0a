/* heapscope: argument parsing and dispatch only. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/cli.h"

#ifndef HEAPSCOPE_VERSION
#define HEAPSCOPE_VERSION "unknown"
#endif

static void usage(FILE *out) {
    fputs("Usage: heapscope --demo\n"
          "       heapscope COMMAND [ARGS] [OPTIONS]\n"
          "\n"
          "Explore the heap of a Haskell program that runs the ghc-debug stub.\n"
          "TARGET is a debuggee's socket path, unix:PATH, or tcp:HOST:PORT.\n"
          "\n"
          "Commands:\n",
          out);
    for (const cli_command *c = cli_commands; c->name; c++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", c->name, c->args);
        fprintf(out, "  %-22s %s\n", head, c->summary);
    }
    fputs("\n"
          "Options:\n"
          "  --demo                 start a synthetic debuggee with a planted leak on a\n"
          "                         private socket, pause it and show its roots\n"
          "  --json                 machine-readable output\n"
          "  --timeout MS           longest silence from the debuggee before giving up\n"
          "                         (default 30000)\n"
          "  --leave-paused         do not resume the debuggee when done (by default it is\n"
          "                         resumed, unless it was already paused)\n"
          "  --depth N              show: levels of children (default 2, at most 64)\n"
          "  --by KIND              census: type (default), constructor, era or source\n"
          "  --top N                census: show the N largest rows (default all)\n"
          "  -h, --help             show this help and exit\n"
          "  -V, --version          show the version and exit\n"
          "\n"
          "Environment:\n"
          "  HEAPSCOPE_DEBUGGEE     the synthetic debuggee program used by --demo\n"
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
    default: return "--top";
    }
}

int main(int argc, char **argv) {
    enum { OPT_DEMO = 256, OPT_JSON, OPT_TIMEOUT, OPT_LEAVE_PAUSED, OPT_DEPTH, OPT_BY, OPT_TOP };
    static const struct option longopts[] = {
        {"demo", no_argument, NULL, OPT_DEMO},
        {"json", no_argument, NULL, OPT_JSON},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"leave-paused", no_argument, NULL, OPT_LEAVE_PAUSED},
        {"depth", required_argument, NULL, OPT_DEPTH},
        {"by", required_argument, NULL, OPT_BY},
        {"top", required_argument, NULL, OPT_TOP},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    cli_common common = {.timeout_ms = 30000};
    int demo = 0, opt;
    long number;
    while ((opt = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
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
        case 'h': usage(stdout); return 0;
        case 'V': printf("heapscope %s\n", HEAPSCOPE_VERSION); return 0;
        default: fputs("Try 'heapscope --help'.\n", stderr); return 2;
        }
    }
    char **args = argv + optind;
    int n_args = argc - optind;
    if (demo) {
        if (n_args > 0) {
            fprintf(stderr, "heapscope: --demo takes no target\n");
            return 2;
        }
        return cli_demo(&common);
    }
    if (n_args == 0) {
        usage(stderr);
        return 2;
    }
    const cli_command *cmd = cli_find_command(args[0]);
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
        fprintf(stderr, "heapscope: %s does not apply to '%s'\n", option_name(stray & -stray),
                cmd->name);
        return 2;
    }
    return cmd->run(args + 1, n_args - 1, &common);
}
