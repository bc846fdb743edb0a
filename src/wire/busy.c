/* Is our Unix connection still waiting in the stub's listen queue?
 *
 * The stub serves one client at a time: a connect() to it succeeds as soon
 * as the kernel queues the connection, long before the stub accepts it. A
 * request written into a queued connection that we then close is read by
 * the stub once the other client leaves, and its answer written to a
 * closed socket aborts a program linked with the official stub. So nothing
 * is written until the stub has accepted the connection.
 *
 * NETLINK_SOCK_DIAG (UNIX_DIAG) tells: a listening socket's
 * UNIX_DIAG_ICONS lists the inodes of the client sockets queued on it, and
 * our socket's inode is fstat's st_ino. Who holds the stub meanwhile: the
 * peer of the stub's connected socket, found in /proc/PID/fd.
 *
 * TCP has nothing like it for a remote host (its backlog is the remote
 * kernel's), so a tcp: target is asked VERSION at once (conn.c, man page). */
#include <dirent.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wire_internal.h"

#define TCP_LISTEN_STATE 10
#define TCP_ESTABLISHED_STATE 1
#define DIAG_BUF 32768
/* Longest wait for the stub to accept a queued connection (at most the
 * connect timeout): a stub that serves nobody else accepts at once. */
#define ACCEPT_WAIT_MS 2000
#define ACCEPT_LOOK_MS 20 /* between looks, after a few quicker ones */

/* One dump of the Unix sockets in `states` with `show`; calls fn on each
 * message. 0, or -1 when sock_diag is not available. */
static int diag_dump(uint32_t states, uint32_t show,
                     void (*fn)(void *ctx, const struct unix_diag_msg *m, const struct rtattr *a,
                                int alen),
                     void *ctx) {
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return -1;
    struct {
        struct nlmsghdr h;
        struct unix_diag_req r;
    } req = {.h = {.nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                   .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
             .r = {.sdiag_family = AF_UNIX, .udiag_states = states, .udiag_show = show}};
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    if (sendto(nl, &req, sizeof req, 0, (struct sockaddr *)&to, sizeof to) < 0) {
        close(nl);
        return -1;
    }
    long *buf = malloc(DIAG_BUF); /* aligned for nlmsghdr */
    int rc = buf ? 0 : -1;
    for (bool done = !buf; !done;) {
        ssize_t n = recv(nl, buf, DIAG_BUF, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
             h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == NLMSG_DONE) {
                done = true;
                break;
            }
            if (h->nlmsg_type == NLMSG_ERROR) {
                rc = -1;
                done = true;
                break;
            }
            const struct unix_diag_msg *m = NLMSG_DATA(h);
            int alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *m));
            if (alen >= 0)
                fn(ctx, m, (const struct rtattr *)(m + 1), alen);
        }
    }
    free(buf);
    close(nl);
    return rc;
}

/* Listening sockets: the one whose queue holds `self`. */
typedef struct find_queue {
    uint32_t self;
    bool queued;
    uint32_t listener;
    char name[WIRE_UNIX_PATH_MAX + 1]; /* the listener's bound name */
} find_queue;

static void on_listener(void *ctx, const struct unix_diag_msg *m, const struct rtattr *a,
                        int alen) {
    find_queue *q = ctx;
    const struct rtattr *icons = NULL, *name = NULL;
    for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == UNIX_DIAG_ICONS)
            icons = a;
        else if (a->rta_type == UNIX_DIAG_NAME)
            name = a;
    }
    if (!icons)
        return;
    const uint32_t *ino = RTA_DATA(icons);
    size_t n = RTA_PAYLOAD(icons) / sizeof *ino;
    for (size_t i = 0; i < n; i++) {
        if (ino[i] != q->self)
            continue;
        q->queued = true;
        q->listener = m->udiag_ino;
        size_t len = name ? RTA_PAYLOAD(name) : 0;
        if (len > WIRE_UNIX_PATH_MAX)
            len = WIRE_UNIX_PATH_MAX;
        if (len)
            memcpy(q->name, RTA_DATA(name), len);
        q->name[len] = '\0';
    }
}

static int self_inode(int fd, uint32_t *ino) {
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return -1;
    *ino = (uint32_t)sb.st_ino;
    return 0;
}

wire_queue_state wire_unix_queue_state(int fd) {
    find_queue q = {0};
    if (self_inode(fd, &q.self) != 0)
        return WIRE_QUEUE_UNKNOWN;
    if (diag_dump(1u << TCP_LISTEN_STATE, UDIAG_SHOW_ICONS, on_listener, &q) != 0)
        return WIRE_QUEUE_UNKNOWN;
    return q.queued ? WIRE_QUEUE_QUEUED : WIRE_QUEUE_ACCEPTED;
}

/* Connected sockets bound to the listener's name (the stub's accepted
 * ones): the first live peer that is not a queued client. */
#define MAX_PEERS 16

typedef struct find_peer {
    const find_queue *q;
    uint32_t peer[MAX_PEERS];
    size_t n;
} find_peer;

static void on_connected(void *ctx, const struct unix_diag_msg *m, const struct rtattr *a,
                         int alen) {
    find_peer *f = ctx;
    const struct rtattr *name = NULL;
    uint32_t peer = 0;
    for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == UNIX_DIAG_NAME)
            name = a;
        else if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof peer)
            memcpy(&peer, RTA_DATA(a), sizeof peer);
    }
    if (f->n == MAX_PEERS || !peer || peer == f->q->self || m->udiag_ino == f->q->listener ||
        !name)
        return;
    size_t len = strnlen(RTA_DATA(name), RTA_PAYLOAD(name)); /* the payload may end in NUL */
    if (len != strlen(f->q->name) || memcmp(RTA_DATA(name), f->q->name, len) != 0)
        return;
    f->peer[f->n++] = peer; /* a queued client's embryo, or the client being served */
}

/* The process holding socket inode `ino` (the first found in /proc), 0 if
 * none we may see. */
static pid_t holder_of(uint32_t ino) {
    char want[32];
    snprintf(want, sizeof want, "socket:[%u]", ino);
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    pid_t found = 0;
    pid_t me = getpid();
    for (struct dirent *d; !found && (d = readdir(proc));) {
        char *end;
        long pid = strtol(d->d_name, &end, 10);
        if (*end || pid <= 0 || pid == me)
            continue;
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
        DIR *fds = opendir(dir);
        if (!fds)
            continue;
        for (struct dirent *f; !found && (f = readdir(fds));) {
            char path[64 + sizeof f->d_name], link[64];
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            ssize_t n = readlink(path, link, sizeof link - 1);
            if (n <= 0)
                continue;
            link[n] = '\0';
            if (strcmp(link, want) == 0)
                found = (pid_t)pid;
        }
        closedir(fds);
    }
    closedir(proc);
    return found;
}

void wire_unix_busy_with(int fd, char *out, size_t len) {
    out[0] = '\0';
    find_queue q = {0};
    if (self_inode(fd, &q.self) != 0 ||
        diag_dump(1u << TCP_LISTEN_STATE, UDIAG_SHOW_ICONS | UDIAG_SHOW_NAME, on_listener,
                  &q) != 0 ||
        !q.queued || !q.name[0])
        return;
    find_peer f = {.q = &q};
    if (diag_dump(1u << TCP_ESTABLISHED_STATE, UDIAG_SHOW_NAME | UDIAG_SHOW_PEER, on_connected,
                  &f) != 0)
        return;
    pid_t pid = 0;
    for (size_t i = 0; i < f.n && !pid; i++)
        pid = holder_of(f.peer[i]);
    if (!pid)
        return;
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
    FILE *c = fopen(path, "r");
    if (c) {
        if (fgets(comm, sizeof comm, c))
            comm[strcspn(comm, "\n")] = '\0';
        fclose(c);
    }
    snprintf(out, len, "process %ld%s%s", (long)pid, comm[0] ? ", " : "", comm);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

hs_status wire_await_accept(wire_conn *c, hs_error *err) {
    if (!c->accept_pending || c->fd < 0)
        return HS_OK;
    c->accept_pending = false;
    int limit = c->opts.connect_timeout_ms;
    if (limit < 0 || limit > ACCEPT_WAIT_MS)
        limit = ACCEPT_WAIT_MS;
    int64_t start = now_ms(), deadline = start + limit, next_tick = start;
    long look_us = 250; /* a stub serving nobody accepts within microseconds */
    for (;;) {
        wire_queue_state q = wire_unix_queue_state(c->fd);
        if (q != WIRE_QUEUE_QUEUED) {
            c->accepted = q == WIRE_QUEUE_ACCEPTED; /* UNKNOWN: go on as before */
            return HS_OK;
        }
        int64_t t = now_ms();
        if (t >= deadline)
            break;
        if (c->opts.wait && t >= next_tick) {
            next_tick = t + WIRE_WAIT_SLICE_MS;
            if (!c->opts.wait(c->opts.wait_ctx, 0, (int)(t - start))) {
                hs_fail(err, HS_ERR_CANCELLED, "connecting to %s: cancelled", c->target);
                wire_conn_kill(c, err ? err->message : "cancelled"); /* nothing was written */
                return HS_ERR_CANCELLED;
            }
        }
        nanosleep(&(struct timespec){0, look_us * 1000L}, NULL);
        look_us = look_us * 2 > ACCEPT_LOOK_MS * 1000L ? ACCEPT_LOOK_MS * 1000L : look_us * 2;
    }
    char who[128];
    wire_unix_busy_with(c->fd, who, sizeof who);
    hs_error local;
    if (!err)
        err = &local;
    hs_fail(err, HS_ERR_CONNECT,
            "the debuggee at %s is busy: another debugger is connected to it%s%s%s; it did not "
            "accept heapscope's connection within %d ms, and nothing was sent",
            c->target, who[0] ? " (" : "", who, who[0] ? ")" : "", limit);
    /* closed with nothing written: the stub will read 0 bytes and go on */
    wire_conn_kill(c, err->message);
    return HS_ERR_CONNECT;
}
