/* wire_connect: targets, the error messages a person sees, and real
 * connections over a Unix socket and loopback TCP. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "heapscope/wire.h"

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/hs-wire-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(wire_connect, .init = make_dir, .fini = remove_dir);

static int unix_listener(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0, "bind: %s", strerror(errno));
    cr_assert_eq(listen(fd, 1), 0);
    return fd;
}

/* Accepts the client, preloads a VERSION answer, runs wire_version, and
 * checks the request bytes that arrived. */
static void version_exchange(int listener, wire_conn *c) {
    int s = accept(listener, NULL, NULL);
    cr_assert_geq(s, 0, "accept: %s", strerror(errno));
    const uint8_t answer[16] = {0, 0, 0, 10, 0, 0, 0, 0, 3, 0x8e, 0, 0, 0, 1, 0, 1};
    cr_assert_eq(write(s, answer, sizeof answer), (ssize_t)sizeof answer);
    wire_version v;
    hs_error err = {0};
    cr_assert_eq(wire_get_version(c, &v, &err), HS_OK, "%s", err.message);
    cr_assert_eq(v.major, 910);
    cr_assert_eq(v.patch, 1);
    uint8_t req[8];
    cr_assert_eq(read(s, req, sizeof req), 8);
    cr_assert_eq(hs_load_be32(req), 4);
    cr_assert_eq(hs_load_be32(req + 4), WIRE_CMD_VERSION);
    close(s);
}

Test(wire_connect, missing_socket) {
    char path[128];
    snprintf(path, sizeof path, "%s/no-such-socket", dir);
    wire_conn *c = (wire_conn *)1;
    hs_error err = {0};
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_ERR_CONNECT);
    cr_assert_null(c);
    char want[160];
    snprintf(want, sizeof want, "no debuggee socket at %s", path);
    cr_assert_str_eq(err.message, want);
    char missing_dir[160];
    snprintf(missing_dir, sizeof missing_dir, "unix:%s/nodir/sock", dir);
    cr_assert_eq(wire_connect(missing_dir, NULL, &c, &err), HS_ERR_CONNECT);
    cr_assert(strstr(err.message, "no debuggee socket at"), "%s", err.message);
}

Test(wire_connect, stale_socket_file) {
    char path[128];
    snprintf(path, sizeof path, "%s/stale", dir);
    close(unix_listener(path)); /* the file stays, nobody listens */
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert(S_ISSOCK(st.st_mode));
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_ERR_CONNECT);
    cr_assert(strstr(err.message, "refused the connection: a stale socket file? the debuggee "
                                  "may have exited"),
              "%s", err.message);
    cr_assert(strstr(err.message, path), "%s", err.message);
}

Test(wire_connect, not_a_socket) {
    char path[128];
    snprintf(path, sizeof path, "%s/plain-file", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_ERR_CONNECT);
    cr_assert(strstr(err.message, "is not a socket"), "%s", err.message);
}

Test(wire_connect, path_length_limit) {
    char path[200];
    size_t base = strlen(dir) + 1;
    /* 108 bytes: one too many for sun_path with its NUL */
    snprintf(path, sizeof path, "%s/%0*d", dir, (int)(108 - base), 0);
    cr_assert_eq(strlen(path), 108);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "108 bytes"), "%s", err.message);
    cr_assert(strstr(err.message, "is 108 bytes long"), "%s", err.message);
    /* 107 bytes is allowed: the connect itself fails (no such socket) */
    path[107] = '\0';
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_ERR_CONNECT);
    cr_assert(strstr(err.message, "no debuggee socket"), "%s", err.message);
    /* and a real 107-byte socket path works */
    int l = unix_listener(path);
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_OK, "%s", err.message);
    version_exchange(l, c);
    wire_close(c);
    close(l);
}

Test(wire_connect, malformed_targets) {
    const char *bad[] = {"",           "unix:",          "tcp:",        "tcp:host",
                         "tcp:host:",  "tcp::80",        "tcp:host:x1", "tcp:host:0",
                         "tcp:host:65536", "tcp:host:123456", "tcp:[::1",  "tcp:[::1]80",
                         "tcp:[]:80",  "tcp:::1:80",     "tcp:host:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wire_conn *c = NULL;
        hs_error err = {0};
        cr_assert_eq(wire_connect(bad[i], NULL, &c, &err), HS_ERR_USAGE, "'%s': %s (%s)", bad[i],
                     hs_status_name(err.status), err.message);
        cr_assert_null(c);
        cr_assert_gt(strlen(err.message), 0);
    }
    hs_error err = {0};
    wire_conn *c = NULL;
    cr_assert_eq(wire_connect("tcp:host", NULL, &c, &err), HS_ERR_USAGE);
    cr_assert_str_eq(err.message, "malformed target 'tcp:host': expected tcp:HOST:PORT");
    cr_assert_eq(wire_connect("tcp:::1:80", NULL, &c, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "tcp:[ADDR]:PORT"), "%s", err.message);
}

Test(wire_connect, unix_prefix_and_plain_path) {
    char path[128], target[140];
    snprintf(path, sizeof path, "%s/12345-leaky", dir);
    snprintf(target, sizeof target, "unix:%s", path);
    int l = unix_listener(path);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(target, NULL, &c, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(wire_conn_target(c), target);
    cr_assert(wire_conn_is_open(c));
    version_exchange(l, c);
    wire_close(c);
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_OK, "%s", err.message);
    version_exchange(l, c);
    wire_close(c);
    close(l);
}

/* The peer pid is the listening process's, not ours: a child listens. */
Test(wire_connect, unix_peer_pid_is_the_listener) {
    char path[128];
    snprintf(path, sizeof path, "%s/peer", dir);
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        int l = unix_listener(path);
        char go = 1;
        if (write(ready[1], &go, 1) != 1)
            _exit(1);
        int s = accept(l, NULL, NULL);
        char byte;
        while (read(s, &byte, 1) > 0) /* until the client closes */
            ;
        _exit(0);
    }
    char go;
    cr_assert_eq(read(ready[0], &go, 1), 1);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_OK, "%s", err.message);
    cr_assert_eq(wire_conn_peer_pid(c), child);
    cr_assert_neq(wire_conn_peer_pid(c), getpid());
    wire_close(c);
    int status;
    cr_assert_eq(waitpid(child, &status, 0), child);
    close(ready[0]);
    close(ready[1]);
    cr_assert_eq(wire_conn_peer_pid(NULL), 0);
}

Test(wire_connect, reconnect_after_the_stream_died) {
    char path[128];
    snprintf(path, sizeof path, "%s/99-silent", dir);
    int l = unix_listener(path);
    wire_conn *c = NULL;
    hs_error err = {0};
    wire_options o = {.io_timeout_ms = 150};
    cr_assert_eq(wire_connect(path, &o, &c, &err), HS_OK, "%s", err.message);
    int first = accept(l, NULL, NULL); /* accepted, never answered */
    cr_assert_geq(first, 0);
    cr_assert_eq(wire_resume(c, &err), HS_ERR_TIMEOUT, "%s", err.message);
    cr_assert_not(wire_conn_is_open(c));
    cr_assert_eq(wire_reconnect(c, &err), HS_OK, "%s", err.message);
    cr_assert(wire_conn_is_open(c));
    cr_assert_str_eq(wire_conn_target(c), path);
    version_exchange(l, c); /* the second connection answers */
    close(first);
    wire_close(c);
    close(l);
}

Test(wire_connect, only_a_target_can_be_reconnected) {
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_conn_from_fd(sv[0], "peer", NULL, &c, &err), HS_OK, "%s", err.message);
    cr_assert_eq(wire_reconnect(c, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "not a target"), "%s", err.message);
    wire_close(c);
    close(sv[1]);
}

static int tcp_listener(int family, uint16_t *port) {
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int rc;
    if (family == AF_INET) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    } else {
        struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
        rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    }
    if (rc != 0 || listen(fd, 1) != 0) {
        close(fd);
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&ss, &sl), 0);
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                    : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

Test(wire_connect, tcp_loopback_ipv4) {
    uint16_t port;
    int l = tcp_listener(AF_INET, &port);
    cr_assert_geq(l, 0, "cannot listen on 127.0.0.1");
    char target[64];
    snprintf(target, sizeof target, "tcp:127.0.0.1:%u", port);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(target, NULL, &c, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(wire_conn_target(c), target);
    cr_assert_eq(wire_conn_peer_pid(c), 0, "a TCP peer has no pid to trust");
    version_exchange(l, c);
    wire_close(c);
    close(l);
}

Test(wire_connect, tcp_loopback_ipv6_if_available) {
    uint16_t port;
    int l = tcp_listener(AF_INET6, &port);
    if (l < 0) /* a skip tests/run counts and names, not a silent pass */
        cr_skip_test("no IPv6 loopback here");
    char target[64];
    snprintf(target, sizeof target, "tcp:[::1]:%u", port);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(target, NULL, &c, &err), HS_OK, "%s", err.message);
    version_exchange(l, c);
    wire_close(c);
    close(l);
}

Test(wire_connect, tcp_refused) {
    uint16_t port;
    int l = tcp_listener(AF_INET, &port);
    cr_assert_geq(l, 0);
    close(l); /* nobody listens on that port now */
    char target[64];
    snprintf(target, sizeof target, "tcp:127.0.0.1:%u", port);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(target, NULL, &c, &err), HS_ERR_CONNECT);
    cr_assert(strstr(err.message, "Connection refused"), "%s", err.message);
    cr_assert(strstr(err.message, target), "%s", err.message);
    cr_assert_null(c);
}

Test(wire_connect, from_fd_sets_flags) {
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_conn_from_fd(sv[0], NULL, NULL, &c, &err), HS_OK, "%s", err.message);
    cr_assert(fcntl(sv[0], F_GETFD) & FD_CLOEXEC);
    cr_assert(fcntl(sv[0], F_GETFL) & O_NONBLOCK);
    char want[32];
    snprintf(want, sizeof want, "fd %d", sv[0]);
    cr_assert_str_eq(wire_conn_target(c), want);
    wire_stats s = wire_conn_stats(c);
    cr_assert_eq(s.requests + s.bytes_sent + s.bytes_received + s.frames_received, 0);
    wire_close(c);
    cr_assert_eq(fcntl(sv[0], F_GETFD), -1, "wire_close closes the descriptor");
    close(sv[1]);
    cr_assert_eq(wire_conn_from_fd(-1, "x", NULL, &c, &err), HS_ERR_USAGE);
    cr_assert_null(c);
}

Test(wire_connect, default_options) {
    wire_options o;
    wire_options_default(&o);
    cr_assert_eq(o.connect_timeout_ms, 5000);
    cr_assert_eq(o.io_timeout_ms, 30000);
    cr_assert_eq(o.max_response, wire_default_max_response());
    cr_assert_geq(o.max_response, UINT64_C(256) << 20);
    cr_assert_leq(o.max_response, UINT64_C(16) << 30);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    uint64_t quarter = (uint64_t)pages * (uint64_t)page / 4;
    if (quarter >= UINT64_C(256) << 20 && quarter <= UINT64_C(16) << 30)
        cr_assert_eq(o.max_response, quarter, "a quarter of the physical memory");
    cr_assert_null(o.progress);
}

Test(wire_connect, options_with_timeout) {
    wire_options d, o;
    wire_options_default(&d);
    wire_options_with_timeout(&o, 0);
    cr_assert_eq(o.io_timeout_ms, d.io_timeout_ms, "0 keeps the defaults");
    cr_assert_eq(o.connect_timeout_ms, d.connect_timeout_ms);
    wire_options_with_timeout(&o, 200);
    cr_assert_eq(o.io_timeout_ms, 200);
    cr_assert_eq(o.connect_timeout_ms, 200, "connecting waits no longer than the timeout");
    wire_options_with_timeout(&o, 60000);
    cr_assert_eq(o.io_timeout_ms, 60000);
    cr_assert_eq(o.connect_timeout_ms, d.connect_timeout_ms, "nor longer than the default");
}

Test(wire_connect, target_parse_fields) {
    wire_target t;
    hs_error err = {0};
    cr_assert_eq(wire_target_parse("tcp:[::1]:4000", &t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(t.kind, WIRE_TARGET_TCP);
    cr_assert_str_eq(t.host, "::1");
    cr_assert_str_eq(t.port, "4000");
    cr_assert_eq(wire_target_parse("tcp:localhost:65535", &t, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(t.host, "localhost");
    cr_assert_str_eq(t.port, "65535");
    cr_assert_eq(wire_target_parse("unix:/run/x.sock", &t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(t.kind, WIRE_TARGET_UNIX);
    cr_assert_str_eq(t.path, "/run/x.sock");
    cr_assert_eq(wire_target_parse("relative/sock", &t, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(t.path, "relative/sock");
}

/* An absurd target is named in the message, but cut short and with its
 * control bytes masked: the message stays one readable line. */
Test(wire_connect, target_parse_long_and_odd_text) {
    char text[4200];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    wire_target t;
    hs_error err = {0};
    cr_assert_eq(wire_target_parse(text, &t, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "is 4199 bytes long"), "%s", err.message);
    cr_assert(strstr(err.message, "aaa..."), "%s", err.message);
    cr_assert_lt(strlen(err.message), 200, "%s", err.message);
    memcpy(text, "tcp:", 4);
    memcpy(text + 4000, ":80", 4);
    cr_assert_eq(wire_target_parse(text, &t, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "host name is 3996 bytes long"), "%s", err.message);
    cr_assert_eq(wire_target_parse("tcp:ho\033[2Jst", &t, &err), HS_ERR_USAGE);
    cr_assert_str_eq(err.message, "malformed target 'tcp:ho?[2Jst': expected tcp:HOST:PORT");
}

/* Issue 19: the official stub serves one client at a time and aborts when
 * it answers a request whose client left. A connection the stub has not
 * accepted is waited on and, still queued, closed with nothing in it. */
Test(wire_connect, a_queued_connection_is_closed_with_nothing_written) {
    char path[100];
    snprintf(path, sizeof path, "%s/77-busy", dir);
    int l = unix_listener(path);
    int holder = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    cr_assert_eq(connect(holder, (struct sockaddr *)&sa, sizeof sa), 0);
    int served = accept(l, NULL, NULL); /* the stub serves the holder */
    cr_assert_geq(served, 0);

    wire_conn *c = NULL;
    hs_error err = {0};
    wire_options o = {.connect_timeout_ms = 300};
    cr_assert_eq(wire_connect(path, &o, &c, &err), HS_OK, "%s", err.message);
    wire_version v;
    cr_assert_eq(wire_hello(c, &v, &err), HS_ERR_CONNECT, "%s", err.message);
    cr_assert(strstr(err.message, "is busy: another debugger is connected to it"), "%s",
              err.message);
    cr_assert(strstr(err.message, "within 300 ms, and nothing was sent"), "%s", err.message);
    cr_assert_not(wire_conn_is_open(c));
    cr_assert_eq(wire_conn_stats(c).bytes_sent, 0);
    wire_close(c);

    /* the holder leaves; the stub takes the next connection: it is empty */
    close(served);
    close(holder);
    int next = accept(l, NULL, NULL);
    cr_assert_geq(next, 0);
    char b;
    cr_assert_eq(read(next, &b, 1), 0, "the queued connection held a request");
    close(next);
    close(l);
}

Test(wire_connect, an_accepted_connection_is_asked_with_the_whole_timeout) {
    char path[128];
    snprintf(path, sizeof path, "%s/78-slow", dir);
    int l = unix_listener(path);
    wire_conn *c = NULL;
    hs_error err = {0};
    cr_assert_eq(wire_connect(path, NULL, &c, &err), HS_OK, "%s", err.message);
    int s = accept(l, NULL, NULL); /* accepted before the first request */
    cr_assert_geq(s, 0);
    pid_t child = fork();
    if (child == 0) { /* a debuggee slower than the 2 s of a hello on tcp: */
        sleep(3);
        static const uint8_t answer[16] = {0, 0, 0, 10, 0, 0, 0, 0, 3, 0x8e, 0, 0, 0, 1, 0, 1};
        _exit(write(s, answer, sizeof answer) == (ssize_t)sizeof answer ? 0 : 1);
    }
    wire_version v;
    cr_assert_eq(wire_hello(c, &v, &err), HS_OK, "%s", err.message);
    cr_assert_eq(v.major, 910);
    int status;
    waitpid(child, &status, 0);
    wire_close(c);
    close(s);
    close(l);
}
