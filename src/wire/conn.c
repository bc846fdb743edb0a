/* Connections: connecting over Unix or TCP sockets with
 * a timeout, and the life cycle of a wire_conn. Framing is in frame.c. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wire_internal.h"

#define DEFAULT_CONNECT_TIMEOUT_MS 5000
#define DEFAULT_IO_TIMEOUT_MS 30000
#define MIN_DEFAULT_MAX_RESPONSE (UINT64_C(256) << 20)
#define MAX_DEFAULT_MAX_RESPONSE (UINT64_C(16) << 30)
/* How often a Unix connect is retried while the stub's backlog is full. */
#define BUSY_RETRY_MS 20

uint64_t wire_default_max_response(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t quarter = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : 0;
    return quarter < MIN_DEFAULT_MAX_RESPONSE   ? MIN_DEFAULT_MAX_RESPONSE
           : quarter > MAX_DEFAULT_MAX_RESPONSE ? MAX_DEFAULT_MAX_RESPONSE
                                                : quarter;
}

void wire_options_default(wire_options *o) {
    *o = (wire_options){
        .connect_timeout_ms = DEFAULT_CONNECT_TIMEOUT_MS,
        .io_timeout_ms = DEFAULT_IO_TIMEOUT_MS,
        .max_response = wire_default_max_response(),
    };
}

void wire_options_with_timeout(wire_options *o, int timeout_ms) {
    wire_options_default(o);
    if (timeout_ms > 0) {
        o->io_timeout_ms = timeout_ms;
        if (timeout_ms < o->connect_timeout_ms)
            o->connect_timeout_ms = timeout_ms;
    }
}

/* Zero fields mean "default", so `wire_options o = {0}` is usable; a
 * negative timeout means no limit. */
static wire_options effective_options(const wire_options *opts) {
    wire_options o;
    wire_options_default(&o);
    if (!opts)
        return o;
    wire_options r = *opts;
    if (r.connect_timeout_ms == 0)
        r.connect_timeout_ms = o.connect_timeout_ms;
    if (r.io_timeout_ms == 0)
        r.io_timeout_ms = o.io_timeout_ms;
    if (r.max_response == 0)
        r.max_response = o.max_response;
    return r;
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- life cycle ------------------------------------------------------ */

hs_status wire_conn_from_fd(int fd, const char *name, const wire_options *opts,
                            wire_conn **out, hs_error *err) {
    *out = NULL;
    if (fd < 0)
        return hs_fail(err, HS_ERR_USAGE, "wire_conn_from_fd: invalid descriptor %d", fd);
    /* Non-blocking: every wait goes through poll() with the I/O timeout. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
        int e = errno;
        close(fd);
        return hs_fail(err, HS_ERR_IO, "cannot set up descriptor %d: %s", fd, strerror(e));
    }
    wire_conn *c = calloc(1, sizeof *c);
    char fallback[32];
    snprintf(fallback, sizeof fallback, "fd %d", fd);
    if (c) {
        c->target = strdup(name ? name : fallback);
        c->rbuf = malloc(WIRE_RBUF_SIZE);
    }
    if (!c || !c->target || !c->rbuf) {
        if (c) {
            free(c->target);
            free(c->rbuf);
        }
        free(c);
        close(fd);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for a connection");
    }
    c->fd = fd;
    c->opts = effective_options(opts);
    *out = c;
    return HS_OK;
}

void wire_conn_kill(wire_conn *c, const char *reason) {
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    c->rpos = c->rlen = 0;
    snprintf(c->dead_reason, sizeof c->dead_reason, "%s", reason ? reason : "closed");
}

void wire_close(wire_conn *c) {
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    wire_buf_free(&c->req);
    wire_buf_free(&c->scratch);
    free(c->rbuf);
    free(c->target);
    free(c);
}

const char *wire_conn_target(const wire_conn *c) { return c->target; }

bool wire_conn_is_open(const wire_conn *c) { return c && c->fd >= 0; }

void wire_conn_set_io_timeout(wire_conn *c, int ms) {
    c->opts.io_timeout_ms = ms == 0 ? DEFAULT_IO_TIMEOUT_MS : ms;
}

void wire_conn_set_wait(wire_conn *c, wire_wait_fn fn, void *ctx) {
    c->opts.wait = fn;
    c->opts.wait_ctx = ctx;
}

wire_stats wire_conn_stats(const wire_conn *c) { return c->stats; }

pid_t wire_conn_peer_pid(const wire_conn *c) {
    if (!wire_conn_is_open(c))
        return 0;
    struct sockaddr_storage self;
    socklen_t self_len = sizeof self;
    if (getsockname(c->fd, (struct sockaddr *)&self, &self_len) != 0 || self.ss_family != AF_UNIX)
        return 0; /* a TCP peer may be anywhere: no pid says who it is */
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
        return 0;
    return cred.pid > 0 ? cred.pid : 0; /* 0: the peer lives in another pid namespace */
}

/* ---- connecting ------------------------------------------------------ */

/* The wait function of a connect, due every WIRE_WAIT_SLICE_MS. */
typedef struct connect_wait {
    const wire_options *o;
    int64_t started, next_tick;
} connect_wait;

static connect_wait connect_wait_start(const wire_options *o) {
    int64_t t = now_ms();
    return (connect_wait){o, t, t}; /* due at the first wait */
}

/* False when the wait function cancels. */
static bool connect_tick(connect_wait *w) {
    int64_t t = now_ms();
    if (!w->o->wait || t < w->next_tick)
        return true;
    w->next_tick = t + WIRE_WAIT_SLICE_MS;
    return w->o->wait(w->o->wait_ctx, 0, (int)(t - w->started));
}

/* Milliseconds to sleep before the next look: until the deadline, at most
 * one slice when there is a wait function; -1 = forever. */
static int connect_slice(const connect_wait *w, int64_t deadline) {
    int64_t t = now_ms(), left = -1;
    if (deadline >= 0)
        left = deadline > t ? deadline - t : 0;
    if (w->o->wait) {
        int64_t slice = w->next_tick - t < 1 ? 1 : w->next_tick - t;
        left = left < 0 || slice < left ? slice : left;
    }
    return left > INT32_MAX ? INT32_MAX : (int)left;
}

/* Waits for a non-blocking connect to finish; returns 0 or an errno value
 * (ETIMEDOUT when the timeout passes, ECANCELED when the wait function
 * says stop). */
static int finish_connect(int fd, connect_wait *w) {
    int64_t deadline = w->o->connect_timeout_ms < 0 ? -1 : now_ms() + w->o->connect_timeout_ms;
    for (;;) {
        if (!connect_tick(w))
            return ECANCELED;
        if (deadline >= 0 && now_ms() >= deadline)
            return ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int r = poll(&p, 1, connect_slice(w, deadline));
        if (r == 0)
            continue;
        if (r < 0) {
            if (errno == EINTR) {
                w->next_tick = 0; /* a signal: let the wait function see it now */
                continue;
            }
            return errno;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
            return errno;
        return soerr;
    }
}

static hs_status connect_unix(const char *path, const char *target, const wire_options *o,
                              wire_conn **out, hs_error *err) {
    size_t n = strlen(path); /* below sun_path's size: wire_target_parse checked */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, path, n + 1);

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return hs_fail(err, HS_ERR_IO, "cannot create a socket: %s", strerror(errno));
    int64_t deadline = o->connect_timeout_ms < 0 ? -1 : now_ms() + o->connect_timeout_ms;
    connect_wait w = connect_wait_start(o);
    int e = 0;
    for (;;) {
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
            e = 0;
            break;
        }
        e = errno;
        if (e == EINTR) {
            w.next_tick = 0;
            e = connect_tick(&w) ? 0 : ECANCELED;
            if (e)
                break;
            continue;
        }
        if (e == EINPROGRESS) {
            e = finish_connect(fd, &w);
            break;
        }
        /* EAGAIN: the stub's listen backlog is full (another client is being
         * served); retry until the connect timeout. */
        if (e != EAGAIN || (deadline >= 0 && now_ms() >= deadline))
            break;
        if (!connect_tick(&w)) {
            e = ECANCELED;
            break;
        }
        nanosleep(&(struct timespec){0, BUSY_RETRY_MS * 1000000L}, NULL);
    }
    if (e == 0) {
        /* connect() succeeded, but the connection may only sit in the
         * stub's queue: nothing is written until the stub accepted it
         * (wire_await_accept, before the first request). */
        hs_status st = wire_conn_from_fd(fd, target, o, out, err);
        if (st == HS_OK)
            (*out)->accept_pending = true;
        return st;
    }
    close(fd);

    struct stat st;
    switch (e) {
    case ENOENT:
    case ENOTDIR: return hs_fail(err, HS_ERR_CONNECT, "no debuggee socket at %s", path);
    case ECONNREFUSED:
        if (stat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
            return hs_fail(err, HS_ERR_CONNECT, "%s is not a socket", path);
        return hs_fail(err, HS_ERR_CONNECT,
                       "%s refused the connection: a stale socket file? the debuggee may have "
                       "exited",
                       path);
    case EACCES:
    case EPERM:
        return hs_fail(err, HS_ERR_CONNECT, "permission denied connecting to %s", path);
    case EAGAIN:
        return hs_fail(err, HS_ERR_CONNECT,
                       "the debuggee at %s is busy: another debugger is connected to it "
                       "(its connection queue stayed full for %d ms)",
                       path, o->connect_timeout_ms);
    case ETIMEDOUT:
        return hs_fail(err, HS_ERR_CONNECT, "connecting to %s timed out after %d ms", path,
                       o->connect_timeout_ms);
    case ECANCELED: return hs_fail(err, HS_ERR_CANCELLED, "connecting to %s: cancelled", path);
    }
    return hs_fail(err, HS_ERR_CONNECT, "cannot connect to %s: %s", path, strerror(e));
}

/* TCP: whether the stub accepted the connection cannot be seen. The
 * handshake completes in the remote kernel, which queues the connection
 * in the stub's backlog without a sign to the client; only that host's
 * kernel knows its queue (for a loopback target inet_diag would show the
 * listener's queue length, but not whose connections are in it). So a
 * tcp: connection is not awaited: wire_hello sends VERSION at once and
 * takes silence within 2 s for a busy debuggee, and that VERSION then
 * stays queued: when the other client leaves, the stub answers it to a
 * closed connection, which aborts a program linked with the official
 * stub. The man page (THE DEBUGGEE'S SAFETY) says so. */
static hs_status connect_tcp(const char *host, const char *port, const char *target,
                             const wire_options *o, wire_conn **out, hs_error *err) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g != 0)
        return hs_fail(err, HS_ERR_CONNECT, "cannot resolve host '%s': %s", host,
                       g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g));
    int e = ECONNREFUSED;
    connect_wait w = connect_wait_start(o);
    for (struct addrinfo *a = res; a && e != ECANCELED; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                        a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        e = 0;
        while (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
            e = errno;
            if (e != EINTR)
                break;
        }
        if (e == EINPROGRESS)
            e = finish_connect(fd, &w);
        if (e == 0) {
            freeaddrinfo(res);
            /* One small request per answer: do not let Nagle hold it back. */
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return wire_conn_from_fd(fd, target, o, out, err);
        }
        close(fd);
    }
    freeaddrinfo(res);
    if (e == ECANCELED)
        return hs_fail(err, HS_ERR_CANCELLED, "connecting to %s: cancelled", target);
    if (e == ETIMEDOUT)
        return hs_fail(err, HS_ERR_CONNECT, "connecting to %s timed out after %d ms", target,
                       o->connect_timeout_ms);
    return hs_fail(err, HS_ERR_CONNECT, "cannot connect to %s: %s", target, strerror(e));
}

hs_status wire_connect(const char *target, const wire_options *opts, wire_conn **out,
                       hs_error *err) {
    *out = NULL;
    wire_target t;
    hs_status st = wire_target_parse(target, &t, err);
    if (st != HS_OK)
        return st;
    wire_options o = effective_options(opts);
    if (t.kind == WIRE_TARGET_TCP)
        st = connect_tcp(t.host, t.port, target, &o, out, err);
    else
        st = connect_unix(t.path, target, &o, out, err);
    if (st == HS_OK)
        (*out)->reconnectable = true;
    return st;
}

hs_status wire_reconnect(wire_conn *c, hs_error *err) {
    if (!c->reconnectable)
        return hs_fail(err, HS_ERR_USAGE, "cannot connect to %s again: it is not a target",
                       c->target);
    wire_conn *fresh;
    hs_status st = wire_connect(c->target, &c->opts, &fresh, err);
    if (st != HS_OK)
        return st;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = fresh->fd; /* the fresh stream, with this connection's settings */
    c->accept_pending = fresh->accept_pending; /* not yet seen accepted */
    c->accepted = false;
    fresh->fd = -1;
    wire_close(fresh);
    c->rpos = c->rlen = 0;
    c->dead_reason[0] = '\0';
    return HS_OK;
}
