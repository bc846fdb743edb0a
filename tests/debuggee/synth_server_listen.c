/* Start-up of the synthetic debuggee as the stub does it (wire-protocol.md
 * §3.1, §3.2): where the socket goes, and the listening socket itself. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "synth_server.h"

_Static_assert(sizeof(((struct sockaddr_un *)0)->sun_path) == SYNTH_SUN_PATH_MAX,
               "sun_path size");

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen,
                                                      const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int synth_socket_path(char *buf, size_t len, char *err, size_t errlen) {
    const char *env = getenv("GHC_DEBUG_SOCKET");
    if (env) { /* verbatim, even when empty (the stub does the same) */
        if (strlen(env) >= len)
            return fail(err, errlen, "GHC_DEBUG_SOCKET is too long: %s", env);
        strcpy(buf, env);
        return 0;
    }
    const char *xdg = getenv("XDG_DATA_HOME");
    char home_share[4096];
    const char *data_home;
    if (xdg && xdg[0] == '/') {
        data_home = xdg;
    } else { /* an empty or relative XDG_DATA_HOME is ignored */
        const char *home = getenv("HOME");
        if (!home) {
            struct passwd *pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home)
            return fail(err, errlen, "cannot find a home directory for the socket");
        int n = snprintf(home_share, sizeof home_share, "%s/.local/share", home);
        if (n < 0 || (size_t)n >= sizeof home_share)
            return fail(err, errlen, "HOME is too long: %s", home);
        data_home = home_share;
    }
    int n = snprintf(buf, len, "%s/ghc-debug/debuggee/sockets/%ld-%s", data_home, (long)getpid(),
                     SYNTH_PROGNAME);
    if (n < 0 || (size_t)n >= len)
        return fail(err, errlen, "socket path under %s is too long", data_home);
    return 0;
}

/* mkdir -p of the directory part of path. */
static int make_parents(const char *path, char *err, size_t errlen) {
    char dir[SYNTH_SUN_PATH_MAX];
    strcpy(dir, path); /* the caller checked the length */
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *s = dir + 1;; s++) {
        bool end = *s == '\0';
        if (*s == '/' || end) {
            *s = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return fail(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
            if (end)
                return 0;
            *s = '/';
        }
    }
}

static int check_unix(const char *path, char *err, size_t errlen) {
    size_t len = strlen(path);
    if (len == 0)
        return fail(err, errlen, "the socket path is empty");
    if (len >= SYNTH_SUN_PATH_MAX)
        return fail(err, errlen,
                    "socket path is %zu bytes, a Unix socket path must be shorter than %d: %s",
                    len, SYNTH_SUN_PATH_MAX, path);
    return 0;
}

int synth_listen_unix(synth_listener *l, const char *path, char *err, size_t errlen) {
    *l = (synth_listener){.fd = -1, .is_unix = true};
    size_t len = strlen(path);
    if (check_unix(path, err, errlen) != 0)
        return -1;
    if (make_parents(path, err, errlen) != 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, "socket: %s", strerror(errno));
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, len + 1);
    unlink(path); /* a stale socket of a dead debuggee */
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errlen, "cannot listen on %s: %s", path, strerror(e));
    }
    l->fd = fd;
    memcpy(l->path, path, len + 1);
    snprintf(l->banner, sizeof l->banner, "Starting ghc-debug on socket: %s", path);
    return 0;
}

/* "A.B.C.D:PORT" into an IPv4 socket address; host gets the A.B.C.D part. */
static int parse_tcp(const char *host_port, struct sockaddr_in *a, char host[INET_ADDRSTRLEN],
                     char *err, size_t errlen) {
    const char *colon = strrchr(host_port, ':');
    size_t hlen = colon ? (size_t)(colon - host_port) : 0;
    if (!colon || hlen == 0 || hlen >= INET_ADDRSTRLEN)
        return fail(err, errlen, "--tcp wants HOST:PORT with an IPv4 address, got '%s'",
                    host_port);
    memcpy(host, host_port, hlen);
    host[hlen] = '\0';
    char *end;
    errno = 0;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end || errno || port > 65535)
        return fail(err, errlen, "--tcp: bad port '%s' (0-65535)", colon + 1);
    *a = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
        return fail(err, errlen, "--tcp: '%s' is not an IPv4 address", host);
    return 0;
}

int synth_listen_check(const char *unix_path, const char *host_port, char *err, size_t errlen) {
    if (host_port) {
        struct sockaddr_in a;
        char host[INET_ADDRSTRLEN];
        return parse_tcp(host_port, &a, host, err, errlen);
    }
    return check_unix(unix_path, err, errlen);
}

int synth_listen_tcp(synth_listener *l, const char *host_port, char *err, size_t errlen) {
    *l = (synth_listener){.fd = -1};
    struct sockaddr_in a;
    char host[INET_ADDRSTRLEN];
    if (parse_tcp(host_port, &a, host, err, errlen) != 0)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fail(err, errlen, "socket: %s", strerror(errno));
    socklen_t alen = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) != 0) {
        int e = errno;
        close(fd);
        return fail(err, errlen, "cannot listen on %s: %s", host_port, strerror(e));
    }
    l->fd = fd;
    snprintf(l->banner, sizeof l->banner, "Starting ghc-debug on tcp: %s:%u", host,
             (unsigned)ntohs(a.sin_port));
    return 0;
}

void synth_listener_close(synth_listener *l) {
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    if (l->is_unix && l->path[0] && unlink(l->path) != 0 && errno != ENOENT)
        printf("ghc-debug: failed to cleanup socket: %s\n", l->path);
    l->path[0] = '\0';
}
