/* The wait function (issue 9): a call or connect that waits on a silent
 * peer calls it every slice, so a UI can move its spinner and take Esc,
 * and a command can notice a signal. Returning false cancels (issue 19):
 * the answer in flight is read to its end first, since the official stub
 * aborts the program when it writes to a closed connection; the
 * connection stays in step. Only a peer silent for the timeout is left. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/wire.h"
#include "wire_peer.h"

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct wait_log {
    int calls;
    int stop_at;          /* cancel on this call (0 = never) */
    uint32_t cmd;         /* of the last call */
    int last_waited;
    bool waited_grows;
    volatile sig_atomic_t *flag; /* cancel once it is set */
} wait_log;

static bool on_wait(void *ctx, uint32_t cmd, int waited_ms) {
    wait_log *w = ctx;
    w->calls++;
    if (w->calls > 1 && waited_ms < w->last_waited)
        w->waited_grows = false;
    w->last_waited = waited_ms;
    w->cmd = cmd;
    if (w->flag && *w->flag)
        return false;
    return w->stop_at == 0 || w->calls < w->stop_at;
}

static wire_conn *silent_peer(wire_peer *p, wait_log *log) {
    peer_init(p);
    peer_no_reply(p);
    wire_options o = {.io_timeout_ms = 30000, .wait = on_wait, .wait_ctx = log};
    return peer_start(p, &o);
}

/* A peer whose empty answer comes after ms. */
static wire_conn *late_peer(wire_peer *p, int ms, wait_log *log, wire_options *o) {
    peer_init(p);
    peer_reply_hex(p, "000000000000");
    peer_delay_last(p, ms);
    o->wait = on_wait;
    o->wait_ctx = log;
    return peer_start(p, o);
}

typedef struct drain_log {
    int calls;
    uint32_t cmd;
    int last_ms;
} drain_log;

static void on_drain(void *ctx, uint32_t cmd, uint64_t bytes, uint64_t frame_left, int ms) {
    (void)bytes, (void)frame_left;
    drain_log *d = ctx;
    d->calls++;
    d->cmd = cmd;
    d->last_ms = ms;
}

Test(wire_wait, a_cancel_finishes_the_answer_in_flight_and_keeps_the_connection) {
    wait_log log = {.stop_at = 4, .waited_grows = true};
    drain_log drained = {0};
    wire_peer p;
    wire_options o = {.io_timeout_ms = 30000, .drain = on_drain, .drain_ctx = &drained};
    wire_conn *c = late_peer(&p, 1500, &log, &o);
    hs_error err = {0};
    int64_t t0 = now_ms();
    bool was_paused;
    cr_assert_eq(wire_pause(c, &was_paused, &err), HS_ERR_CANCELLED, "%s", err.message);
    int64_t took = now_ms() - t0;
    cr_assert_str_eq(err.message, "PAUSE: cancelled");
    cr_assert_eq(log.calls, 4, "one call per slice until the cancel, none after");
    cr_assert_eq(log.cmd, WIRE_CMD_PAUSE);
    cr_assert(log.waited_grows);
    cr_assert_geq(log.last_waited, 3 * WIRE_WAIT_SLICE_MS);
    cr_assert_geq(took, 1400, "the answer was waited for (took %lld ms)", (long long)took);
    cr_assert_lt(took, 10000, "not the 30 s timeout (took %lld ms)", (long long)took);
    cr_assert_geq(drained.calls, 1, "a drain over a second says so");
    cr_assert_eq(drained.cmd, WIRE_CMD_PAUSE);
    cr_assert_geq(drained.last_ms, WIRE_DRAIN_NOTE_MS);
    cr_assert(wire_conn_is_open(c), "the answer was read: the stream is in step");
    wire_stats st = wire_conn_stats(c);
    cr_assert_eq(st.drained, 1);
    cr_assert_eq(st.bytes_received, 6);
    wire_close(c);
    peer_join(&p);
    peer_free(&p);
}

Test(wire_wait, a_cancelled_answer_that_never_comes_is_left_after_the_timeout_and_says_so) {
    wait_log log = {.stop_at = 2};
    wire_peer p;
    peer_init(&p);
    peer_no_reply(&p);
    wire_options o = {.io_timeout_ms = 600, .wait = on_wait, .wait_ctx = &log};
    wire_conn *c = peer_start(&p, &o);
    hs_error err = {0};
    cr_assert_eq(wire_resume(c, &err), HS_ERR_TIMEOUT, "%s", err.message);
    cr_assert(strstr(err.message, "RESUME: no answer from"), "%s", err.message);
    cr_assert(strstr(err.message, "(finishing a cancelled answer)"), "%s", err.message);
    cr_assert(strstr(err.message, "closing the connection may kill the program"), "%s",
              err.message);
    cr_assert_not(wire_conn_is_open(c));
    wire_close(c);
    peer_join(&p);
    peer_free(&p);
}

Test(wire_wait, a_slow_answer_ticks_and_still_arrives) {
    wait_log log = {.waited_grows = true};
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000000000");
    peer_delay_last(&p, 450);
    wire_options o = {.wait = on_wait, .wait_ctx = &log};
    wire_conn *c = peer_start(&p, &o);
    hs_error err = {0};
    cr_assert_eq(wire_resume(c, &err), HS_OK, "%s", err.message);
    cr_assert_geq(log.calls, 3, "the spinner moved while waiting (%d calls)", log.calls);
    cr_assert_eq(log.cmd, WIRE_CMD_RESUME);
    cr_assert(wire_conn_is_open(c));
    wire_close(c);
    peer_join(&p);
    peer_free(&p);
}

Test(wire_wait, without_a_wait_function_the_timeout_still_applies) {
    wire_peer p;
    peer_init(&p);
    peer_no_reply(&p);
    wire_options o = {.io_timeout_ms = 250};
    wire_conn *c = peer_start(&p, &o);
    hs_error err = {0};
    cr_assert_eq(wire_resume(c, &err), HS_ERR_TIMEOUT, "%s", err.message);
    wire_close(c);
    peer_join(&p);
    peer_free(&p);
}

Test(wire_wait, the_setter_replaces_and_removes_the_wait_function) {
    wait_log first = {.stop_at = 1}, second = {.stop_at = 2};
    wire_peer p;
    wire_options o = {0};
    wire_conn *c = late_peer(&p, 400, &first, &o);
    wire_conn_set_wait(c, on_wait, &second);
    hs_error err = {0};
    cr_assert_eq(wire_resume(c, &err), HS_ERR_CANCELLED, "%s", err.message);
    cr_assert_eq(first.calls, 0);
    cr_assert_eq(second.calls, 2);
    wire_close(c);
    peer_join(&p);
    peer_free(&p);

    wait_log unused = {.stop_at = 1};
    c = silent_peer(&p, &unused);
    wire_conn_set_wait(c, NULL, NULL);
    wire_conn_set_io_timeout(c, 250);
    cr_assert_eq(wire_resume(c, &err), HS_ERR_TIMEOUT, "%s", err.message);
    cr_assert_eq(unused.calls, 0);
    wire_close(c);
    peer_join(&p);
    peer_free(&p);
}

/* ---- the pause state, asked without changing it ---- */

Test(wire_wait, query_paused_asks_an_empty_srt) {
    wire_peer p;
    peer_init(&p);
    peer_reply_hex(&p, "000000000000"); /* paused: an empty answer */
    peer_reply_hex(&p, "000000000102"); /* running: NOT_PAUSED */
    wire_conn *c = peer_start(&p, NULL);
    hs_error err = {0};
    bool paused = false;
    cr_assert_eq(wire_query_paused(c, &paused, &err), HS_OK, "%s", err.message);
    cr_assert(paused);
    cr_assert_eq(wire_query_paused(c, &paused, &err), HS_OK, "%s", err.message);
    cr_assert_not(paused);
    cr_assert(wire_conn_is_open(c), "NOT_PAUSED is an answer, not a failure");
    wire_close(c);
    peer_join(&p);
    size_t n;
    const uint8_t *r = peer_request(&p, 0, &n);
    static const uint8_t want[10] = {0, 0, 0, 6, 0, 0, 0, 17, 0, 0};
    cr_assert_eq(n, sizeof want);
    cr_assert(memcmp(r, want, n) == 0, "SRT with a count of 0");
    peer_free(&p);
}

/* ---- a signal interrupts the wait at once ---- */

static volatile sig_atomic_t got_signal;
static void on_usr1(int sig) {
    (void)sig;
    got_signal = 1;
}

typedef struct kicker {
    pthread_t target;
    int after_ms;
} kicker;

static void *kick(void *arg) {
    kicker *k = arg;
    nanosleep(&(struct timespec){0, k->after_ms * 1000000L}, NULL);
    pthread_kill(k->target, SIGUSR1);
    return NULL;
}

Test(wire_wait, a_signal_reaches_the_wait_function_without_waiting_for_the_slice) {
    struct sigaction sa = {.sa_handler = on_usr1}; /* no SA_RESTART, like heapscope's */
    sigemptyset(&sa.sa_mask);
    cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    got_signal = 0;
    wait_log log = {.flag = &got_signal, .waited_grows = true};
    wire_peer p;
    wire_options o = {0};
    wire_conn *c = late_peer(&p, 700, &log, &o); /* answered after the cancel */
    kicker k = {pthread_self(), 250};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, kick, &k), 0);
    hs_error err = {0};
    int64_t t0 = now_ms();
    cr_assert_eq(wire_resume(c, &err), HS_ERR_CANCELLED, "%s", err.message);
    int64_t took = now_ms() - t0;
    pthread_join(t, NULL);
    cr_assert(got_signal);
    cr_assert_lt(took, 5000, "took %lld ms", (long long)took);
    wire_close(c);
    peer_join(&p);
    peer_free(&p);
    signal(SIGUSR1, SIG_DFL);
}

/* ---- connecting ---- */

Test(wire_wait, a_connect_to_a_full_backlog_can_be_cancelled) {
    char dir[] = "/tmp/hs-wait-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%.40s/s", dir);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    cr_assert_eq(bind(l, (struct sockaddr *)&sa, sizeof sa), 0, "%s", strerror(errno));
    cr_assert_eq(listen(l, 0), 0);
    /* fill the backlog: later connects get EAGAIN and are retried */
    int held[4], n_held = 0;
    for (; n_held < 4; n_held++) {
        held[n_held] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (connect(held[n_held], (struct sockaddr *)&sa, sizeof sa) != 0) {
            close(held[n_held]);
            break;
        }
    }
    cr_assert_lt(n_held, 4, "the backlog never filled");
    wait_log log = {.stop_at = 3, .waited_grows = true};
    wire_options o = {.connect_timeout_ms = 20000, .wait = on_wait, .wait_ctx = &log};
    wire_conn *c = NULL;
    hs_error err = {0};
    int64_t t0 = now_ms();
    cr_assert_eq(wire_connect(path, &o, &c, &err), HS_ERR_CANCELLED, "%s", err.message);
    int64_t took = now_ms() - t0;
    cr_assert_null(c);
    cr_assert(strstr(err.message, "cancelled"), "%s", err.message);
    cr_assert_eq(log.calls, 3);
    cr_assert_eq(log.cmd, 0, "a connect is not a command");
    cr_assert_lt(took, 10000, "took %lld ms", (long long)took);
    for (int i = 0; i < n_held; i++)
        close(held[i]);
    close(l);
    unlink(path);
    rmdir(dir);
}
