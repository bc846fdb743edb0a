/* Starting and stopping the Haskell test program. */
#include "ghc_program.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_TIMEOUT_MS 60000
#define STOP_TIMEOUT_MS 15000

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static bool can_connect(const char *path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path)
        return false;
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool ok = connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0;
    close(fd);
    return ok;
}

static void child(const char *exe, const char *const *args, const ghc_program *p, int in_fd) {
    int log_fd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    /* in its own directory: heap profiles (.hp) and the like land there */
    if (log_fd < 0 || dup2(in_fd, 0) < 0 || dup2(log_fd, 2) < 0 || dup2(log_fd, 1) < 0 ||
        chdir(p->dir) != 0)
        _exit(127);
    setenv("GHC_DEBUG_SOCKET", p->socket, 1);
    const char *argv[64] = {exe};
    size_t n = 1;
    for (size_t i = 0; args && args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    execv(exe, (char *const *)argv);
    _exit(127);
}

bool ghc_program_start(const char *exe, const char *const *args, ghc_program *p, char *why,
                       size_t cap) {
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->stdin_fd = -1;
    char exe_path[PATH_MAX]; /* the child runs in its own directory */
    if (!realpath(exe, exe_path)) {
        snprintf(why, cap, "%s: %s", exe, strerror(errno));
        return false;
    }
    exe = exe_path;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(p->dir, sizeof p->dir, "%s/heapscope-ghc-XXXXXX", tmp);
    if (!mkdtemp(p->dir)) {
        snprintf(why, cap, "mkdtemp %s: %s", p->dir, strerror(errno));
        return false;
    }
    snprintf(p->socket, sizeof p->socket, "%s/sock", p->dir);
    snprintf(p->log, sizeof p->log, "%s/stderr", p->dir);
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        snprintf(why, cap, "pipe: %s", strerror(errno));
        return false;
    }
    p->pid = fork();
    if (p->pid == 0)
        child(exe, args, p, pipe_fds[0]);
    close(pipe_fds[0]);
    p->stdin_fd = pipe_fds[1];
    if (p->pid < 0) {
        snprintf(why, cap, "fork: %s", strerror(errno));
        return false;
    }
    for (long waited = 0; waited < START_TIMEOUT_MS; waited += 20) {
        if (can_connect(p->socket))
            return true;
        int status;
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            p->pid = -1;
            snprintf(why, cap, "%s exited before opening its socket (status 0x%x)", exe, status);
            return false;
        }
        sleep_ms(20);
    }
    snprintf(why, cap, "%s did not open %s within %d s", exe, p->socket, START_TIMEOUT_MS / 1000);
    return false;
}

/* The private directory and the files in it (socket, log, .hp). */
static void remove_dir(const char *dir) {
    DIR *d = dir[0] ? opendir(dir) : NULL;
    if (!d)
        return;
    const struct dirent *e;
    char path[600];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

bool ghc_program_stop(ghc_program *p, char *why, size_t cap) {
    bool clean = true;
    if (p->stdin_fd >= 0)
        close(p->stdin_fd);
    p->stdin_fd = -1;
    if (p->pid > 0) {
        int status = 0;
        long waited = 0;
        while (waitpid(p->pid, &status, WNOHANG) == 0 && waited < STOP_TIMEOUT_MS) {
            sleep_ms(20);
            waited += 20;
        }
        if (waited >= STOP_TIMEOUT_MS) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &status, 0);
            snprintf(why, cap, "the program did not end within %d s of its stdin closing",
                     STOP_TIMEOUT_MS / 1000);
            clean = false;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            snprintf(why, cap, "the program ended with status 0x%x", status);
            clean = false;
        }
        p->pid = -1;
    }
    struct stat st;
    if (clean && p->socket[0] && stat(p->socket, &st) == 0) {
        snprintf(why, cap, "the program left its socket %s behind", p->socket);
        clean = false;
    }
    remove_dir(p->dir);
    return clean;
}

void ghc_program_dump_log(const ghc_program *p) {
    FILE *f = fopen(p->log, "r");
    if (!f)
        return;
    fprintf(stderr, "---- stderr of the GHC program ----\n");
    char line[1024];
    while (fgets(line, sizeof line, f))
        fputs(line, stderr);
    fprintf(stderr, "-----------------------------------\n");
    fclose(f);
}
