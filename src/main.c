/* heapscope: dispatch only. The command line is read by cli_parse from the
 * command and option tables of src/cli. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/interrupt.h"
#include "heapscope/tui.h"

#ifndef HEAPSCOPE_VERSION
#define HEAPSCOPE_VERSION "unknown"
#endif

static bool in_terminal(void) { return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO); }

/* heapscope [TARGET]: the explorer. */
static int run_tui(const char *target, const cli_common *common) {
    if (target && cli_check_target(target) != 0)
        return 2;
    if (!in_terminal()) {
        if (!target) {
            cli_print_help(stderr);
            return 2;
        }
        /* without a terminal it was most likely meant as a command */
        fprintf(stderr, "heapscope: unknown command '%s' (as a target for the explorer, it "
                        "needs a terminal). Try 'heapscope --help'.\n", target);
        return 2;
    }
    tui_options o = {.target = target, .theme = common->theme, .timeout_ms = common->timeout_ms,
                     .max_answer = common->max_answer, .no_cache = common->no_cache,
                     .snapshot_dir = common->snapshot_dir,
                     .cache_size = common->cache_size};
    return tui_run(&o);
}

/* --demo in a terminal: the explorer on the demo debuggee, stopped after;
 * without one, its roots printed. */
static int run_demo(const cli_common *common) {
    if (!in_terminal()) {
        cli_output_note_errors();
        return cli_demo(common);
    }
    hs_error err = {0};
    cli_debuggee d;
    if (cli_demo_start(&d, &err) != HS_OK) {
        fprintf(stderr, "heapscope: %s\n", err.message);
        return 1;
    }
    tui_options o = {.target = d.socket, .theme = common->theme, .timeout_ms = common->timeout_ms,
                     .max_answer = common->max_answer, .no_cache = common->no_cache,
                     .snapshot_dir = common->snapshot_dir,
                     .cache_size = common->cache_size};
    int rc = tui_run(&o);
    cli_debuggee_stop(&d);
    return rc;
}

static int run(const cli_parsed *p) {
    switch (p->action) {
    case CLI_ACT_FAIL: return 2;
    case CLI_ACT_HELP: cli_print_help(stdout); return 0;
    case CLI_ACT_VERSION: printf("heapscope %s\n", HEAPSCOPE_VERSION); return 0;
    case CLI_ACT_KEYS:
        if (p->man)
            tui_commands_print_man(stdout);
        else
            tui_commands_print(stdout);
        return 0;
    case CLI_ACT_COMMANDS: cli_print_commands(stdout, p->man); return 0;
    case CLI_ACT_OPTIONS: cli_print_options(stdout, p->man); return 0;
    case CLI_ACT_FILTERS: cli_print_filters(stdout, p->man); return 0;
    case CLI_ACT_EXPLORER:
    case CLI_ACT_DEMO:
    case CLI_ACT_COMMAND: break;
    }
    /* From here a quit signal is a flag: the work stops, a debuggee we
     * paused is resumed, and hs_interrupt_exit_status says so. */
    hs_interrupt_catch();
    return p->action == CLI_ACT_EXPLORER ? run_tui(p->n_args ? p->args[0] : NULL, &p->common)
           : p->action == CLI_ACT_DEMO   ? run_demo(&p->common)
                                        : cli_run_command(p);
}

int main(int argc, char **argv) {
    /* A reader that went away (`heapscope find ... | head`) and a file
     * grown past `ulimit -f` are errors of write(2), EPIPE and EFBIG, not
     * deaths that leave a debuggee paused or a temporary file behind. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    cli_timing_start();
    cli_messages_safe();
    cli_parsed p;
    cli_parse(argc, argv, &p);
    if (p.action != CLI_ACT_EXPLORER && p.action != CLI_ACT_DEMO)
        cli_output_note_errors();
    int rc = run(&p);
    if (hs_interrupt_signal()) {
        fflush(stdout);
        return hs_interrupt_exit_status(rc);
    }
    return cli_output_status(rc);
}
