/* Start-up and the server thread (§3.1, §3.4): the socket path comes from
 * GHC_DEBUG_SOCKET or the XDG sockets directory, the banner goes to
 * stderr, and one OS thread of our own (not a Haskell thread) serves one
 * connection at a time. The program calls heapscope_stub_start once the
 * RTS is up and heapscope_stub_stop when main ends (HeapscopeStub.hs). */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "rts_private.h"
#include "stub.h"

static char socket_path[4096];
static int listen_fd = -1;

/* <data home>: $XDG_DATA_HOME if absolute, else $HOME/.local/share, else
 * the passwd home directory's .local/share. */
static bool data_home(char *buf, size_t cap) {
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && xdg[0] == '/')
        return (size_t)snprintf(buf, cap, "%s", xdg) < cap;
    const char *home = getenv("HOME");
    if (!home) {
        const struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    return home && (size_t)snprintf(buf, cap, "%s/.local/share", home) < cap;
}

static bool choose_path(void) {
    const char *env = getenv("GHC_DEBUG_SOCKET");
    if (env)
        return (size_t)snprintf(socket_path, sizeof socket_path, "%s", env) < sizeof socket_path;
    char home[2048];
    if (!data_home(home, sizeof home))
        return false;
    const char *slash = prog_name ? strrchr(prog_name, '/') : NULL;
    const char *name = slash ? slash + 1 : prog_name ? prog_name : "program";
    return (size_t)snprintf(socket_path, sizeof socket_path,
                            "%s/ghc-debug/debuggee/sockets/%ld-%s", home, (long)getpid(),
                            name) < sizeof socket_path;
}

/* mkdir -p of the directory part of path. */
static void make_parent_dirs(const char *path) {
    char dir[sizeof socket_path];
    snprintf(dir, sizeof dir, "%s", path);
    char *end = strrchr(dir, '/');
    if (!end || end == dir)
        return;
    *end = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
    mkdir(dir, 0700);
}

static void serve(int fd) {
    req_reader rd = {0};
    out o;
    out_init(&o, fd);
    req r;
    while (!o.broken && req_read(fd, &rd, &r) == 1)
        stub_dispatch(&r, &o);
    req_reader_free(&rd);
}

/* Connections one at a time; paused state survives a disconnect. */
static void *server_main(void *arg) {
    (void)arg;
    for (;;) {
        int fd = accept(listen_fd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            stub_log("accept failed: %s", strerror(errno));
            return NULL;
        }
        serve(fd);
        close(fd);
    }
}

int heapscope_stub_start(void) {
    if (!choose_path()) {
        stub_log("cannot choose a socket path");
        return -1;
    }
    make_parent_dirs(socket_path);
    fprintf(stderr, "Starting ghc-debug on socket: %s\n", socket_path);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof addr.sun_path) {
        stub_log("socket path too long (%zu bytes): %s", strlen(socket_path), socket_path);
        return -1;
    }
    memcpy(addr.sun_path, socket_path, strlen(socket_path) + 1);
    unlink(socket_path);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(listen_fd, 1) != 0) {
        stub_log("cannot listen on %s: %s", socket_path, strerror(errno));
        return -1;
    }
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int err = pthread_create(&thread, &attr, server_main, NULL);
    pthread_attr_destroy(&attr);
    if (err != 0) {
        stub_log("cannot start the server thread: %s", strerror(err));
        return -1;
    }
    return 0;
}

void heapscope_stub_stop(void) {
    if (listen_fd >= 0 && unlink(socket_path) != 0)
        printf("ghc-debug: failed to cleanup socket: %s\n", socket_path);
}
