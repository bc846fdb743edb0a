/* Start-up (wire-protocol.md §3.1, §3.2) and the accept loop (§3.4). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "test_server_helpers.c"

#define PROG "heapscope-debuggee"

static char *expect_path(const char *fmt, const char *dir) {
    static char want[4096];
    snprintf(want, sizeof want, fmt, dir, (long)getpid());
    return want;
}

static void socket_path_is(const char *want) {
    char buf[4096], err[256];
    cr_assert_eq(synth_socket_path(buf, sizeof buf, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(buf, want);
}

Test(socket_path, ghc_debug_socket_verbatim) {
    setenv("GHC_DEBUG_SOCKET", "relative/sock", 1);
    setenv("XDG_DATA_HOME", "/xdg", 1);
    socket_path_is("relative/sock");
}

Test(socket_path, empty_ghc_debug_socket_is_still_used) {
    setenv("GHC_DEBUG_SOCKET", "", 1);
    socket_path_is("");
}

Test(socket_path, absolute_xdg_data_home) {
    unsetenv("GHC_DEBUG_SOCKET");
    setenv("XDG_DATA_HOME", "/xdg/data", 1);
    setenv("HOME", "/home/u", 1);
    socket_path_is(expect_path("%s/ghc-debug/debuggee/sockets/%ld-" PROG, "/xdg/data"));
}

Test(socket_path, relative_or_empty_xdg_is_ignored) {
    unsetenv("GHC_DEBUG_SOCKET");
    setenv("HOME", "/home/u", 1);
    setenv("XDG_DATA_HOME", "xdg/data", 1);
    socket_path_is(expect_path("%s/.local/share/ghc-debug/debuggee/sockets/%ld-" PROG, "/home/u"));
    setenv("XDG_DATA_HOME", "", 1);
    socket_path_is(expect_path("%s/.local/share/ghc-debug/debuggee/sockets/%ld-" PROG, "/home/u"));
}

Test(socket_path, no_home_uses_the_password_database) {
    unsetenv("GHC_DEBUG_SOCKET");
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    struct passwd *pw = getpwuid(getuid());
    cr_assert(pw != NULL);
    socket_path_is(expect_path("%s/.local/share/ghc-debug/debuggee/sockets/%ld-" PROG, pw->pw_dir));
}

Test(socket_path, too_small_buffer_is_an_error) {
    unsetenv("GHC_DEBUG_SOCKET");
    setenv("XDG_DATA_HOME", "/xdg", 1);
    char buf[16], err[256];
    cr_assert_eq(synth_socket_path(buf, sizeof buf, err, sizeof err), -1);
    cr_assert(strstr(err, "too long") != NULL, "%s", err);
}

/* ---- listening ---- */

static char DIR_[64];

static void mkdir_setup(void) {
    strcpy(DIR_, "/tmp/hs-listen-XXXXXX");
    cr_assert(mkdtemp(DIR_) != NULL);
}
static void mkdir_teardown(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR_);
    cr_assert_eq(system(cmd), 0);
}

static int connect_unix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, path);
    cr_assert(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect: %s", strerror(errno));
    return fd;
}

TestSuite(listen, .init = mkdir_setup, .fini = mkdir_teardown);

Test(listen, unix_socket_with_parents_banner_and_cleanup) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/a/b/sockets/1-x", DIR_);
    synth_listener l;
    cr_assert_eq(synth_listen_unix(&l, path, err, sizeof err), 0, "%s", err);
    struct stat sb;
    cr_assert(stat(path, &sb) == 0 && S_ISSOCK(sb.st_mode));
    char banner[256];
    snprintf(banner, sizeof banner, "Starting ghc-debug on socket: %s", path);
    cr_assert_str_eq(l.banner, banner);
    synth_listener_close(&l);
    cr_assert(stat(path, &sb) != 0 && errno == ENOENT, "the socket file was not removed");
    synth_listener_close(&l); /* idempotent */
}

Test(listen, stale_file_is_replaced) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/sock", DIR_);
    int f = open(path, O_CREAT | O_WRONLY, 0600);
    cr_assert(f >= 0);
    close(f);
    synth_listener l;
    cr_assert_eq(synth_listen_unix(&l, path, err, sizeof err), 0, "%s", err);
    int c = connect_unix(path);
    close(c);
    synth_listener_close(&l);
}

Test(listen, path_of_108_bytes_is_refused) {
    char path[200], err[256];
    int n = snprintf(path, sizeof path, "%s/", DIR_);
    memset(path + n, 's', 108 - (size_t)n);
    path[108] = '\0';
    synth_listener l;
    cr_assert_eq(synth_listen_unix(&l, path, err, sizeof err), -1);
    cr_assert(strstr(err, "shorter than 108") != NULL, "%s", err);
    path[107] = '\0'; /* 107 bytes fit */
    cr_assert_eq(synth_listen_unix(&l, path, err, sizeof err), 0, "%s", err);
    synth_listener_close(&l);
}

Test(listen, empty_path_is_refused) {
    char err[256];
    synth_listener l;
    cr_assert_eq(synth_listen_unix(&l, "", err, sizeof err), -1);
    cr_assert(strstr(err, "empty") != NULL, "%s", err);
}

Test(listen, unwritable_parent_is_a_clear_error) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/file/sock", DIR_);
    char file[128];
    snprintf(file, sizeof file, "%s/file", DIR_);
    int f = open(file, O_CREAT | O_WRONLY, 0600);
    close(f);
    synth_listener l;
    cr_assert_eq(synth_listen_unix(&l, path, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot listen") != NULL || strstr(err, "cannot create") != NULL,
              "%s", err);
}

Test(listen, tcp_on_loopback_any_port) {
    char err[256];
    synth_listener l;
    cr_assert_eq(synth_listen_tcp(&l, "127.0.0.1:0", err, sizeof err), 0, "%s", err);
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    cr_assert(getsockname(l.fd, (struct sockaddr *)&a, &alen) == 0);
    char banner[128];
    snprintf(banner, sizeof banner, "Starting ghc-debug on tcp: 127.0.0.1:%u", ntohs(a.sin_port));
    cr_assert_str_eq(l.banner, banner);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(connect(c, (struct sockaddr *)&a, sizeof a) == 0);
    close(c);
    synth_listener_close(&l);
}

Test(listen, tcp_bad_addresses) {
    const char *bad[] = {"localhost:80", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
                         "127.0.0.1:-1", ":80", "::1:80", "127.0.0.1:8x", "1.2.3.4.5:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        synth_listener l;
        cr_assert_eq(synth_listen_tcp(&l, bad[i], err, sizeof err), -1, "%s accepted", bad[i]);
        cr_assert(strstr(err, "--tcp") != NULL, "%s: %s", bad[i], err);
    }
}

/* ---- the accept loop ---- */

typedef struct loop {
    const synth_process *p;
    synth_state *st;
    int fd;
    synth_server_config cfg;
    synth_serve_result res;
    pthread_t th;
} loop;

static void *loop_thread(void *arg) {
    loop *l = arg;
    l->res = synth_serve(l->p, l->st, l->fd, &l->cfg);
    return NULL;
}

static void ask(int fd, const char *req, const char *ans) {
    tconn c = {.fd = fd};
    tc_send_hex(&c, req);
    tc_expect_hex(&c, ans);
}

Test(listen, connections_one_after_another_until_the_limit) {
    synth_process p;
    synth_state st;
    char path[128], err[256];
    tp_vectors(&p, false);
    synth_state_init(&st, -1);
    snprintf(path, sizeof path, "%s/sock", DIR_);
    synth_listener sl;
    cr_assert_eq(synth_listen_unix(&sl, path, err, sizeof err), 0, "%s", err);
    loop lp = {.p = &p, .st = &st, .fd = sl.fd,
               .cfg = {.wake_fd = -1, .max_connections = 3, .quiet = true}};
    cr_assert(pthread_create(&lp.th, NULL, loop_thread, &lp) == 0);

    int a = connect_unix(path);
    int b = connect_unix(path); /* queued behind a */
    ask(a, "00 00 00 05 | 00 00 00 02 | 00", "00 00 00 00 | 00 00");
    tconn cb = {.fd = b};
    tc_send_hex(&cb, "00 00 00 04 | 00 00 00 04");
    tc_expect_silence(&cb, 100); /* not served while a is connected */
    close(a);
    /* b is served now, and the pause made through a still holds */
    tc_expect_hex(&cb, "00 00 00 10 | 00 00 | 38 5a 10 00 42 00 00 00 | 10 7f 10 00 42 00 00 00");
    close(b);
    int c = connect_unix(path);
    ask(c, "00 00 00 04 | 00 00 00 03", "00 00 00 00 | 00 00");
    close(c);

    pthread_join(lp.th, NULL);
    cr_assert_eq(lp.res, SYNTH_SERVE_DONE);
    cr_assert_eq(st.connections, 3);
    cr_assert(!st.paused);
    synth_listener_close(&sl);
    tp_free(&p);
}

Test(listen, stop_through_the_wake_pipe) {
    synth_process p;
    synth_state st;
    char path[128], err[256];
    int wake[2];
    volatile sig_atomic_t stop = 0;
    tp_vectors(&p, false);
    synth_state_init(&st, -1);
    cr_assert(pipe(wake) == 0);
    snprintf(path, sizeof path, "%s/sock", DIR_);
    synth_listener sl;
    cr_assert_eq(synth_listen_unix(&sl, path, err, sizeof err), 0, "%s", err);
    loop lp = {.p = &p, .st = &st, .fd = sl.fd,
               .cfg = {.wake_fd = wake[0], .stop = &stop, .quiet = true}};
    cr_assert(pthread_create(&lp.th, NULL, loop_thread, &lp) == 0);
    int a = connect_unix(path);
    ask(a, "00 00 00 04 | 00 00 00 01",
        "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 00 | 01");
    /* stop while the connection is idle */
    stop = 1;
    cr_assert(write(wake[1], "x", 1) == 1);
    pthread_join(lp.th, NULL);
    cr_assert_eq(lp.res, SYNTH_SERVE_STOPPED);
    tconn ca = {.fd = a};
    tc_expect_eof(&ca);
    close(a);
    synth_listener_close(&sl);
    close(wake[0]);
    close(wake[1]);
    tp_free(&p);
}

Test(listen, self_pause_happens_between_connections) {
    synth_process p;
    synth_state st;
    char path[128], err[256];
    tp_vectors(&p, false);
    synth_state_init(&st, 50);
    snprintf(path, sizeof path, "%s/sock", DIR_);
    synth_listener sl;
    cr_assert_eq(synth_listen_unix(&sl, path, err, sizeof err), 0, "%s", err);
    loop lp = {.p = &p, .st = &st, .fd = sl.fd,
               .cfg = {.wake_fd = -1, .max_connections = 1, .quiet = true}};
    cr_assert(pthread_create(&lp.th, NULL, loop_thread, &lp) == 0);
    usleep(200 * 1000);
    int a = connect_unix(path);
    ask(a, "00 00 00 05 | 00 00 00 02 | 00", "00 00 00 00 | 01 01"); /* ALREADY_PAUSED */
    ask(a, "00 00 00 04 | 00 00 00 08", "00 00 00 00 | 00 00");       /* POLL: at once */
    close(a);
    pthread_join(lp.th, NULL);
    synth_listener_close(&sl);
    tp_free(&p);
}

Test(listen, wake_without_stop_is_consumed) {
    synth_process p;
    synth_state st;
    char path[128], err[256];
    int wake[2];
    volatile sig_atomic_t stop = 0;
    tp_vectors(&p, false);
    synth_state_init(&st, -1);
    cr_assert(pipe2(wake, O_NONBLOCK) == 0);
    snprintf(path, sizeof path, "%s/sock", DIR_);
    synth_listener sl;
    cr_assert_eq(synth_listen_unix(&sl, path, err, sizeof err), 0, "%s", err);
    loop lp = {.p = &p, .st = &st, .fd = sl.fd,
               .cfg = {.wake_fd = wake[0], .stop = &stop, .max_connections = 1, .quiet = true}};
    cr_assert(pthread_create(&lp.th, NULL, loop_thread, &lp) == 0);
    cr_assert(write(wake[1], "x", 1) == 1);
    usleep(100 * 1000);
    char b;
    cr_assert(read(wake[0], &b, 1) == -1 && errno == EAGAIN, "the wake byte was not consumed");
    int a = connect_unix(path);
    ask(a, "00 00 00 04 | 00 00 00 01",
        "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 00 | 01");
    close(a);
    pthread_join(lp.th, NULL);
    cr_assert_eq(lp.res, SYNTH_SERVE_DONE);
    synth_listener_close(&sl);
    close(wake[0]);
    close(wake[1]);
    tp_free(&p);
}

Test(listen, closed_listening_socket_is_an_error_not_a_spin) {
    synth_process p;
    synth_state st;
    tp_vectors(&p, false);
    synth_state_init(&st, -1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    close(fd);
    synth_server_config cfg = {.wake_fd = -1, .quiet = true};
    cr_assert_eq(synth_serve(&p, &st, fd, &cfg), SYNTH_SERVE_ERROR);
    tp_free(&p);
}

Test(listen, check_without_creating_anything) {
    char err[256], path[200];
    snprintf(path, sizeof path, "%s/not/yet/sock", DIR_);
    cr_assert_eq(synth_listen_check(path, NULL, err, sizeof err), 0, "%s", err);
    struct stat sb;
    snprintf(path, sizeof path, "%s/not", DIR_);
    cr_assert(stat(path, &sb) != 0, "check created a directory");
    cr_assert_eq(synth_listen_check("127.0.0.1:7", NULL, err, sizeof err), 0);
    cr_assert_eq(synth_listen_check(NULL, "127.0.0.1:7", err, sizeof err), 0);
    cr_assert_eq(synth_listen_check(NULL, "127.0.0.1:70000", err, sizeof err), -1);
    cr_assert(strstr(err, "bad port") != NULL, "%s", err);
    cr_assert_eq(synth_listen_check("", NULL, err, sizeof err), -1);
    memset(path, 'p', 150);
    path[150] = '\0';
    cr_assert_eq(synth_listen_check(path, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "shorter than 108") != NULL, "%s", err);
}
