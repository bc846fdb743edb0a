/* Starting and stopping the synthetic debuggee (heapscope --demo, tests). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/cli.h"

#ifndef HEAPSCOPE_LIBEXECDIR
#define HEAPSCOPE_LIBEXECDIR "/usr/local/libexec/heapscope"
#endif

extern char **environ;

static bool is_executable(const char *path) { return access(path, X_OK) == 0; }

/* $HEAPSCOPE_DEBUGGEE, then beside this executable (the build tree), then
 * the installed libexec directory. */
static hs_status find_debuggee(char *out, size_t cap, hs_error *err) {
    const char *env = getenv("HEAPSCOPE_DEBUGGEE");
    if (env && *env) {
        if (!is_executable(env))
            return hs_fail(err, HS_ERR_USAGE, "HEAPSCOPE_DEBUGGEE=%s is not an executable", env);
        snprintf(out, cap, "%s", env);
        return HS_OK;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            int w = snprintf(out, cap, "%s/heapscope-debuggee", self);
            if (w > 0 && (size_t)w < cap && is_executable(out))
                return HS_OK;
        }
    }
    snprintf(out, cap, "%s/heapscope-debuggee", HEAPSCOPE_LIBEXECDIR);
    if (is_executable(out))
        return HS_OK;
    return hs_fail(err, HS_ERR_NOT_FOUND,
                   "cannot find heapscope-debuggee beside heapscope or in %s; "
                   "set HEAPSCOPE_DEBUGGEE to its path",
                   HEAPSCOPE_LIBEXECDIR);
}

static bool socket_accepts(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    if (n >= sizeof sa.sun_path) {
        close(fd);
        return false;
    }
    memcpy(sa.sun_path, path, n + 1);
    bool ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return ok;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

hs_status cli_debuggee_start(const char *const *extra_args, cli_debuggee *out, hs_error *err) {
    *out = (cli_debuggee){.pid = -1};
    char exe[PATH_MAX];
    if (find_debuggee(exe, sizeof exe, err) != HS_OK)
        return err->status;

    /* the socket path must fit sun_path (108 bytes) */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 60)
        tmp = "/tmp";
    snprintf(out->dir, sizeof out->dir, "%s/heapscope-demo-XXXXXX", tmp);
    if (!mkdtemp(out->dir))
        return hs_fail(err, HS_ERR_IO, "cannot create a private directory in %s: %s", tmp,
                       strerror(errno));
    snprintf(out->socket, sizeof out->socket, "%s/debuggee.sock", out->dir);

    const char *argv[64];
    size_t argc = 0;
    argv[argc++] = exe;
    argv[argc++] = "--socket";
    argv[argc++] = out->socket;
    for (size_t i = 0; extra_args && extra_args[i] && argc < 63; i++)
        argv[argc++] = extra_args[i];
    argv[argc] = NULL;

    /* heapscope ignores SIGPIPE and SIGXFSZ (main.c); the debuggee gets the
     * usual actions back */
    posix_spawnattr_t attr;
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGXFSZ);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(&out->pid, exe, NULL, &attr, (char *const *)argv, environ);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        out->pid = -1;
        rmdir(out->dir);
        return hs_fail(err, HS_ERR_IO, "cannot start %s: %s", exe, strerror(rc));
    }
    /* Generating a large heap takes a while: wait as long as the child lives. */
    for (long waited = 0;; waited += 20) {
        if (socket_accepts(out->socket))
            return HS_OK;
        int status;
        if (waitpid(out->pid, &status, WNOHANG) == out->pid) {
            out->pid = -1;
            cli_debuggee_stop(out);
            return hs_fail(err, HS_ERR_IO, "the synthetic debuggee exited before listening (%s %d)",
                           WIFEXITED(status) ? "status" : "signal",
                           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        }
        if (waited > 600000) {
            cli_debuggee_stop(out);
            return hs_fail(err, HS_ERR_TIMEOUT, "the synthetic debuggee did not listen within 10 minutes");
        }
        sleep_ms(20);
    }
}

void cli_debuggee_stop(cli_debuggee *d) {
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        int status;
        for (int i = 0; i < 250; i++) {
            if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
                d->pid = -1;
                break;
            }
            sleep_ms(20);
        }
        if (d->pid > 0) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
            d->pid = -1;
        }
    }
    if (d->socket[0])
        unlink(d->socket);
    if (d->dir[0])
        rmdir(d->dir);
    d->socket[0] = d->dir[0] = '\0';
}
