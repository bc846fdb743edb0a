/* Connection handling of the synthetic debuggee: request framing (§4), the
 * per-connection loop, the fake program's self-pause timer (§8.2) and the
 * accept loop (one connection at a time, §3.4). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "synth_fragile.h"
#include "synth_fragile_wire.h"
#include "synth_hostile.h"
#include "synth_server_cli.h"
#include "synth_server_int.h"

#define IN_START (64u * 1024u)

static const synth_server_config no_config = {.wake_fd = -1};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void synth_state_init(synth_state *st, int64_t self_pause_after_ms) {
    *st = (synth_state){.self_pause_at_ms = -1};
    if (self_pause_after_ms >= 0)
        st->self_pause_at_ms = now_ms() + self_pause_after_ms;
}

static bool timer_armed(const synth_state *st) {
    return st->self_pause_at_ms >= 0 && !st->self_pause_done;
}

/* The fake program pauses itself when its time has come; o is the open
 * connection (NULL between connections) that may be owed a POLL reply. */
static void check_timer(synth_state *st, synth_out *o) {
    if (timer_armed(st) && now_ms() >= st->self_pause_at_ms)
        synth_self_pause(st, o);
}

static bool stopped(const synth_server_config *cfg) { return cfg->stop && *cfg->stop; }

enum { WAIT_READY = 1, WAIT_AGAIN = 0, WAIT_STOP = -1, WAIT_ERROR = -2 };

/* Waits until fd is readable, waking for the self-pause timer and stops. */
static int wait_readable(int fd, synth_state *st, synth_out *o, const synth_server_config *cfg) {
    struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = cfg->wake_fd, .events = POLLIN}};
    int timeout = -1;
    if (timer_armed(st)) {
        int64_t left = st->self_pause_at_ms - now_ms();
        timeout = left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
    }
    nfds_t n = cfg->wake_fd >= 0 ? 2 : 1;
    int r = poll(fds, n, timeout);
    if (r < 0 && errno != EINTR)
        return WAIT_ERROR;
    check_timer(st, o);
    if (stopped(cfg))
        return WAIT_STOP;
    if (r > 0 && ((fds[0].revents | (n > 1 ? fds[1].revents : 0)) & POLLNVAL))
        return WAIT_ERROR; /* a closed descriptor would make poll spin */
    if (r > 0 && n > 1 && (fds[1].revents & POLLIN)) {
        char drain[64]; /* a wake-up without a stop: consume it, do not spin */
        if (read(cfg->wake_fd, drain, sizeof drain) < 0 && errno != EAGAIN && errno != EINTR)
            return WAIT_ERROR;
    }
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
        return WAIT_READY;
    return WAIT_AGAIN;
}

/* --answer-delay: a slow debuggee. False when a stop came meanwhile. */
static bool delay(const synth_server_config *cfg) {
    int64_t until = now_ms() + cfg->answer_delay_ms;
    for (int64_t left; !stopped(cfg) && (left = until - now_ms()) > 0;) {
        struct pollfd w = {.fd = cfg->wake_fd, .events = POLLIN};
        poll(&w, cfg->wake_fd >= 0 ? 1 : 0, (int)left);
    }
    return !stopped(cfg);
}

/* --log-requests: one line per request, appended before it is served. */
static void log_request(const synth_server_config *cfg, uint32_t cmd) {
    FILE *f = fopen(cfg->log_path, "a");
    if (!f)
        return;
    const char *name = synth_command_name(cmd);
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double ms = (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
    if (name)
        fprintf(f, "%s %.3f\n", name, ms);
    else
        fprintf(f, "COMMAND_%u %.3f\n", cmd, ms);
    fclose(f);
}

/* --hold-resume: waits until the file exists. False when a stop came. */
static bool hold(const synth_server_config *cfg) {
    while (!stopped(cfg) && access(cfg->hold_path, F_OK) != 0) {
        struct pollfd w = {.fd = cfg->wake_fd, .events = POLLIN};
        poll(&w, cfg->wake_fd >= 0 ? 1 : 0, 5);
    }
    return !stopped(cfg);
}

synth_serve_result synth_serve_connection(const synth_process *p, synth_state *st, int fd,
                                          const synth_server_config *cfg) {
    if (!cfg)
        cfg = &no_config;
    synth_out o;
    size_t cap = IN_START, have = 0;
    uint8_t *in = malloc(cap);
    if (!in || synth_out_init(&o, fd, cfg->stop) != 0) {
        free(in);
        if (!cfg->quiet)
            fprintf(stderr, "heapscope-debuggee: out of memory for a connection\n");
        return SYNTH_SERVE_CLOSED;
    }
    synth_serve_result res = SYNTH_SERVE_CLOSED;
    uint32_t last_cmd = 0; /* the command answered last, for --fragile's report */
    for (;;) {
        /* answer every complete request (the client sends one at a time,
         * but nothing breaks if it pipelines) */
        size_t pos = 0;
        while (have - pos >= 4) {
            uint32_t len = hs_load_be32(in + pos);
            if (len > SYNTH_MAX_REQUEST) { /* cannot resynchronise: give up */
                synth_finish(&o, SYNTH_BAD_COMMAND);
                goto done;
            }
            if (have - pos - 4 < len)
                break;
            const uint8_t *body = in + pos + 4;
            if (len < 4) { /* no room for a command id; skip the LEN bytes */
                synth_finish(&o, SYNTH_BAD_COMMAND);
            } else {
                if (cfg->answer_delay_ms > 0 && !delay(cfg)) {
                    res = SYNTH_SERVE_STOPPED;
                    goto done;
                }
                uint32_t cmd = hs_load_be32(body);
                if (cfg->log_path)
                    log_request(cfg, cmd);
                if (cmd == SYNTH_CMD_RESUME && cfg->hold_path && !hold(cfg)) {
                    res = SYNTH_SERVE_STOPPED;
                    goto done;
                }
                last_cmd = cmd;
                if (cmd < 32)
                    st->requests[cmd]++;
                o.silent = cmd < 32 && (cfg->silent_on >> cmd & 1);
                o.hostile = cmd < 32 && cfg->hostile ? cfg->hostile->wire[cmd] : 0;
                if (cfg->hold_dir && cmd == cfg->hold_cmd && synth_hold_armed(cfg->hold_dir)) {
                    o.hostile = SYNTH_WIRE_HOLD;
                    o.hold_dir = cfg->hold_dir;
                }
                uint64_t resumes = st->resumes;
                if (cfg->fragile)
                    synth_fragile_gate(p, cmd, body + 4, len - 4);
                if (!o.stalled) /* a stalled stub reads requests and serves none */
                    synth_handle_request(p, st, &o, cmd, body + 4, len - 4);
                if (st->resumes != resumes && cfg->resumed)
                    cfg->resumed(cfg->resumed_ctx, st->resumes);
                o.silent = false;
                o.hostile = 0;
            }
            pos += 4 + (size_t)len;
            if (o.failed && o.fail_fragile && cfg->fragile) {
                synth_fragile_report("write", o.fail_errno, hs_load_be32(body));
                res = SYNTH_SERVE_FRAGILE;
                goto done;
            }
            if (o.failed)
                goto done;
            if (stopped(cfg)) {
                res = SYNTH_SERVE_STOPPED;
                goto done;
            }
            check_timer(st, &o);
        }
        memmove(in, in + pos, have - pos);
        have -= pos;
        if (have >= 4) { /* make room for the whole pending request */
            size_t need = 4 + (size_t)hs_load_be32(in);
            if (need > cap) {
                uint8_t *bigger = realloc(in, need);
                if (!bigger)
                    goto done;
                in = bigger;
                cap = need;
            }
        }
        int w = wait_readable(fd, st, &o, cfg);
        if (w == WAIT_STOP) {
            res = SYNTH_SERVE_STOPPED;
            goto done;
        }
        if (w == WAIT_ERROR || o.failed)
            goto done;
        if (w == WAIT_AGAIN)
            continue;
        ssize_t r = recv(fd, in + have, cap - have, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0 && cfg->fragile && (errno == ECONNRESET || errno == EPIPE)) {
            synth_fragile_report("read", errno, last_cmd);
            res = SYNTH_SERVE_FRAGILE;
            goto done;
        }
        if (r <= 0) /* EOF (a partial request is dropped) or socket error */
            goto done;
        have += (size_t)r;
    }
done:
    st->reply_owed = false; /* an owed POLL reply dies with its connection */
    synth_out_free(&o);
    free(in);
    return res;
}

int synth_write_counts(const synth_state *st, const char *path) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "connections %llu\n", (unsigned long long)st->connections);
    for (uint32_t c = 0; c < 32; c++) {
        const char *name = synth_command_name(c);
        if (st->requests[c] && name)
            fprintf(f, "%s %llu\n", name, (unsigned long long)st->requests[c]);
        else if (st->requests[c])
            fprintf(f, "COMMAND_%u %llu\n", c, (unsigned long long)st->requests[c]);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

synth_serve_result synth_serve(const synth_process *p, synth_state *st, int listen_fd,
                               const synth_server_config *cfg) {
    if (!cfg)
        cfg = &no_config;
    uint64_t served = 0;
    bool busy = cfg->hostile && cfg->hostile->busy;
    for (;;) {
        if (cfg->max_connections && served >= cfg->max_connections)
            return SYNTH_SERVE_DONE;
        /* --hostile busy: as if serving another client, nobody is accepted */
        int w = wait_readable(busy ? cfg->wake_fd : listen_fd, st, NULL, cfg);
        if (busy && w != WAIT_STOP && w != WAIT_ERROR)
            continue;
        if (w == WAIT_STOP)
            return SYNTH_SERVE_STOPPED;
        if (w == WAIT_ERROR) {
            if (!cfg->quiet)
                fprintf(stderr, "heapscope-debuggee: poll failed: %s\n", strerror(errno));
            return SYNTH_SERVE_ERROR;
        }
        if (w == WAIT_AGAIN)
            continue;
        int c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED)
                continue;
            if (!cfg->quiet)
                fprintf(stderr, "heapscope-debuggee: accept failed: %s\n", strerror(errno));
            return SYNTH_SERVE_ERROR;
        }
        st->connections++;
        served++;
        synth_serve_result r = synth_serve_connection(p, st, c, cfg);
        close(c);
        if (cfg->count_path && synth_write_counts(st, cfg->count_path) != 0 && !cfg->quiet)
            fprintf(stderr, "heapscope-debuggee: cannot write %s: %s\n", cfg->count_path,
                    strerror(errno));
        if (r == SYNTH_SERVE_STOPPED || r == SYNTH_SERVE_FRAGILE)
            return r;
    }
}
