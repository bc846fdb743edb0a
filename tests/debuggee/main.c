/* heapscope-debuggee: a synthetic GHC program running the ghc-debug stub.
 * Generates a fake heap (synth_gen*.c), optionally writes the plan of what
 * was planted, then serves the ghc-debug protocol (synth_server*.c) until
 * stopped by SIGINT/SIGTERM or --max-connections. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"
#include "synth_gen.h"
#include "synth_ghcdebug.h"
#include "synth_fragile_wire.h"
#include "synth_hostile.h"
#include "synth_server.h"
#include "synth_server_cli.h"

static volatile sig_atomic_t g_stop;
static int g_wake[2] = {-1, -1};

/* Sets the stop flag and wakes the server's poll (self-pipe). */
static void on_signal(int sig) {
    (void)sig;
    int saved = errno;
    g_stop = 1;
    if (g_wake[1] >= 0)
        (void)!write(g_wake[1], "x", 1);
    errno = saved;
}

static int install_signals(void) {
    if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    /* no SA_RESTART: a blocked send or poll returns EINTR and sees the flag */
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* --grow-per-pause: the program ran between pauses and grew (synth_gen.h):
 * the heap is generated again with one more round, as it was otherwise. */
typedef struct regrow {
    synth_options gen;
    synth_process *p;
    const synth_hostile *hostile;
} regrow;

static void on_resumed(void *ctx, uint64_t resumes) {
    regrow *g = ctx;
    g->gen.grow_rounds = resumes;
    synth_process fresh = {0};
    char err[1024];
    if (synth_generate(&g->gen, &fresh, err, sizeof err) != 0 ||
        synth_hostile_heap(&fresh, g->hostile->heap, err, sizeof err) != 0) {
        fprintf(stderr, "heapscope-debuggee: growing the heap: %s\n", err);
        synth_process_free(&fresh);
        return; /* the program stops growing */
    }
    synth_process_free(g->p);
    *g->p = fresh;
}

static int write_plan(const synth_process *p, const char *path) {
    const char *json = p->plan_json ? p->plan_json : "{}";
    size_t len = strlen(json);
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "heapscope-debuggee: cannot write plan %s: %s\n", path, strerror(errno));
        return -1;
    }
    bool ok = fwrite(json, 1, len, f) == len;
    if (ok && (len == 0 || json[len - 1] != '\n'))
        ok = fputc('\n', f) != EOF;
    ok = (to_stdout ? fflush(f) : fclose(f)) == 0 && ok;
    if (!ok)
        fprintf(stderr, "heapscope-debuggee: writing plan %s failed: %s\n", path, strerror(errno));
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    synth_options gen;
    synth_cli cli;
    char err[1024];
    synth_options_default(&gen);
    if (synth_cli_parse(argc, argv, &cli, &gen, err, sizeof err) != 0) {
        fprintf(stderr, "heapscope-debuggee: %s\n", err);
        return 2;
    }
    if (cli.help) {
        fputs(synth_cli_usage(), stdout);
        return 0;
    }
    if (install_signals() != 0) {
        fprintf(stderr, "heapscope-debuggee: cannot install signal handlers: %s\n",
                strerror(errno));
        return 1;
    }

    /* check where to listen before the (possibly long) generation; bind
     * after it, so that a socket that accepts is a debuggee that answers */
    char path[4096];
    bool serve = !cli.plan_only && !cli.ghcdebug_path;
    if (serve && !cli.tcp && !cli.socket_path) {
        if (synth_socket_path(path, sizeof path, err, sizeof err) != 0) {
            fprintf(stderr, "heapscope-debuggee: %s\n", err);
            return 1;
        }
        cli.socket_path = path;
    }
    if (serve && synth_listen_check(cli.socket_path, cli.tcp, err, sizeof err) != 0) {
        fprintf(stderr, "heapscope-debuggee: %s\n", err);
        return cli.tcp || cli.socket_path != path ? 2 : 1; /* an option, or the environment */
    }

    if (cli.ghcdebug_of) { /* another debuggee's heap: nothing to generate */
        if (synth_write_ghcdebug_snapshot_of(cli.ghcdebug_of, cli.ghcdebug_path, err,
                                             sizeof err) == 0)
            return 0;
        fprintf(stderr, "heapscope-debuggee: ghc-debug snapshot: %s\n", err);
        return 1;
    }
    synth_process p = {0};
    if (synth_generate(&gen, &p, err, sizeof err) != 0) {
        fprintf(stderr, "heapscope-debuggee: cannot generate the heap: %s\n", err);
        return 1;
    }
    if (synth_hostile_heap(&p, cli.hostile.heap, err, sizeof err) != 0) {
        fprintf(stderr, "heapscope-debuggee: %s\n", err);
        synth_process_free(&p);
        return 1;
    }
    int status = 0;
    if (cli.plan_path || cli.plan_only)
        status = write_plan(&p, cli.plan_path ? cli.plan_path : "-") ? 1 : 0;
    if (status == 0 && cli.ghcdebug_path &&
        synth_write_ghcdebug_snapshot(&p, cli.ghcdebug_path, err, sizeof err) != 0) {
        fprintf(stderr, "heapscope-debuggee: ghc-debug snapshot: %s\n", err);
        status = 1;
    }
    if (status != 0 || !serve || g_stop) {
        synth_process_free(&p);
        return status;
    }

    synth_listener l;
    int r = cli.tcp ? synth_listen_tcp(&l, cli.tcp, err, sizeof err)
                    : synth_listen_unix(&l, cli.socket_path, err, sizeof err);
    if (r != 0) {
        fprintf(stderr, "heapscope-debuggee: %s\n", err);
        synth_process_free(&p);
        return 1;
    }
    fprintf(stderr, "%s\n", l.banner);

    synth_state st;
    synth_state_init(&st, cli.self_pause_after_ms);
    synth_server_config cfg = {
        .wake_fd = g_wake[0], .stop = &g_stop, .max_connections = cli.max_connections,
        .silent_on = cli.silent_on, .count_path = cli.count_path,
        .answer_delay_ms = cli.answer_delay_ms, .log_path = cli.log_path,
        .hold_path = cli.hold_path, .hostile = &cli.hostile, .fragile = cli.fragile,
        .hold_cmd = cli.hold_cmd, .hold_dir = cli.hold_dir};
    regrow grow = {.gen = gen, .p = &p, .hostile = &cli.hostile};
    if (gen.grow_per_pause) {
        cfg.resumed = on_resumed;
        cfg.resumed_ctx = &grow;
    }
    synth_serve_result res = synth_serve(&p, &st, l.fd, &cfg);

    synth_listener_close(&l);
    synth_process_free(&p);
    if (res == SYNTH_SERVE_FRAGILE)
        return SYNTH_FRAGILE_WIRE_EXIT;
    return res == SYNTH_SERVE_ERROR ? 1 : 0;
}
