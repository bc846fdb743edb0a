/* --fragile (wire part; synth_fragile.c: addresses) and --hold: the synthetic debuggee as fragile as
 * the official stub, and an answer held half-way until a test says go.
 *
 * The official stub (../shared/ghc-debug-stub) serves one client at a time
 * (listen backlog 1, as synth_listen_* already do) and throws an uncaught
 * SocketError on any failed read or write: the program aborts. Under
 * --fragile the debuggee does the same, as an exit with its own status
 * (SYNTH_FRAGILE_WIRE_EXIT) and one line on stderr naming what failed, so that a
 * test sees that heapscope would have killed a real program. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "synth_fragile_wire.h"
#include "synth_server_cli.h"
#include "synth_server_int.h"

const char synth_fragile_help[] =
    "  --fragile                as fragile as the official stub: a request naming an\n"
    "                           address that is no closure (or info table, stack\n"
    "                           frame, cost centre) of this heap exits at once with\n"
    "                           status 139, where the stub's program would crash; a\n"
    "                           failed read or write (the client reset or closed the\n"
    "                           connection while a request or its answer was under\n"
    "                           way) exits with status 3, where the stub aborts; each\n"
    "                           with a line 'fragile: ...' on stderr\n"
    "  --hold COMMAND:DIR       send the next answer to COMMAND given while the file\n"
    "                           DIR/arm exists in two halves: remove DIR/arm, send\n"
    "                           the first half, create DIR/held, wait until DIR/release\n"
    "                           exists (remove it and DIR/held), send the rest. A client\n"
    "                           that closes meanwhile is a failed write (--fragile)\n";

static const char *errno_name(int e) {
    switch (e) {
    case EPIPE: return "EPIPE";
    case ECONNRESET: return "ECONNRESET";
    case 0: return "the client closed the connection";
    }
    return strerror(e);
}

void synth_fragile_report(const char *what, int err, uint32_t cmd) {
    const char *name = synth_command_name(cmd);
    char command[32];
    if (!name) {
        snprintf(command, sizeof command, "command %u", cmd);
        name = command;
    }
    fprintf(stderr, "fragile: %s failed (%s) while %s %s: the official stub would have aborted\n",
            what, errno_name(err), strcmp(what, "read") == 0 ? "reading after" : "answering",
            name);
    fflush(stderr);
}

int synth_hold_parse(const char *v, uint32_t *cmd, const char **dir, char *err, size_t errlen) {
    const char *colon = strchr(v, ':');
    if (!colon || colon == v || !colon[1]) {
        snprintf(err, errlen, "--hold wants COMMAND:DIR, got '%s'", v);
        return -1;
    }
    char name[32];
    size_t n = (size_t)(colon - v);
    if (n >= sizeof name) {
        snprintf(err, errlen, "--hold: '%.*s' is not a command", (int)n, v);
        return -1;
    }
    memcpy(name, v, n);
    name[n] = '\0';
    if (synth_command_id("--hold", name, cmd, err, errlen) != 0)
        return -1;
    *dir = colon + 1;
    return 0;
}

static bool exists(const char *dir, const char *name) {
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0;
}

static void remove_file(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static void create_file(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

bool synth_hold_armed(const char *dir) { return dir && exists(dir, "arm"); }

void synth_hold_deliver(synth_out *o, const uint8_t *b, size_t n) {
    size_t half = n / 2;
    remove_file(o->hold_dir, "arm");
    if (!synth_out_send(o, b, half))
        return;
    create_file(o->hold_dir, "held");
    /* Wait for the test; a client that leaves meanwhile is noticed (the
     * official stub would find out at its next write). */
    while (!exists(o->hold_dir, "release") && !(o->stop && *o->stop)) {
        struct pollfd p = {.fd = o->fd, .events = POLLRDHUP};
        if (poll(&p, 1, 10) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            o->failed = true;
            o->fail_errno = 0; /* closed by the client mid-answer */
            o->fail_fragile = true;
            return;
        }
    }
    remove_file(o->hold_dir, "release");
    remove_file(o->hold_dir, "held");
    synth_out_send(o, b + half, n - half);
}
