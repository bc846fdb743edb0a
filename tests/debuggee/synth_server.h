/* The protocol server of the synthetic debuggee: answers the ghc-debug wire
 * protocol (../shared/spec/wire-protocol.md) from a synth_process, reading
 * the fake memory exactly as the real stub reads a real process.
 *
 * Deliberate differences from the reference stub (its §9 "test-server
 * guidance"): malformed requests (LEN < 4, short payloads), unknown commands
 * (0, 10, 13, >= 22) and unmapped addresses are answered with an empty
 * BAD_COMMAND frame instead of aborting, crashing or staying silent, and the
 * connection goes on; a LEN above SYNTH_MAX_REQUEST is answered BAD_COMMAND
 * and the connection is closed; the whole request is validated before
 * anything is written, so an error never follows a partial body. PAUSE in
 * fork mode is treated as PAUSE(0). RET_BCO stack frames answer BAD_STACK.
 * FUN_BITMAP (and RET_FUN frames) on a closure that is not a function, and
 * CON_DESC on an info table that is not a constructor's, answer BAD_COMMAND.
 * INDEX_TABLE and CCS_MAIN answer BAD_COMMAND on a non-profiled process;
 * CCS and CC read the memory they are given in either flavour (§6). The
 * 8-byte frame-flush quirk of §5.4 is not reproduced. */
#ifndef SYNTH_SERVER_H
#define SYNTH_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"

/* Requests longer than this (the LEN field) are refused and the connection
 * is closed: nothing legitimate comes near it. */
#define SYNTH_MAX_REQUEST ((UINT32_C(1) << 20) + 4u)

/* Debuggee state: global to the process, it survives disconnects (§3.4). */
typedef struct synth_state {
    bool paused;
    bool poll_pending;    /* a POLL arrived once: RESUME answers NO_RESUME */
    bool self_paused;     /* the fake program paused itself, nobody resumed */
    bool self_pause_done; /* the one-shot self-pause timer has fired */
    bool reply_owed;      /* this connection waits for a deferred POLL reply */
    int64_t self_pause_at_ms; /* CLOCK_MONOTONIC ms of the self-pause; -1 never */
    uint64_t connections;     /* connections accepted so far */
    uint64_t resumes;         /* RESUMEs that let the program run again */
    uint64_t requests[32];    /* requests served so far, by command id (< 32) */
} synth_state;

/* Fresh state: running, nothing pending. With self_pause_after_ms >= 0 the
 * fake program pauses itself that many milliseconds from now (the real
 * program calling the stub's pause function): the debuggee becomes paused
 * and a deferred POLL reply is sent. A POLL that arrives while the program
 * is still paused by itself is answered at once (the reference would wait
 * for the program's next pause; answering keeps tests free of races). */
void synth_state_init(synth_state *st, int64_t self_pause_after_ms);

typedef struct synth_server_config {
    int wake_fd;                 /* readable = look at *stop now; -1 = none */
    volatile sig_atomic_t *stop; /* non-zero = stop serving; NULL = never */
    uint64_t max_connections;    /* synth_serve returns after this many; 0 = no limit */
    bool quiet;                  /* no diagnostics on stderr */
    uint32_t silent_on;          /* bit c: command c is carried out but never answered
                                    (a stub stuck before its reply); commands < 32 */
    const char *count_path;      /* written after each connection: synth_write_counts */
    int answer_delay_ms;         /* each request waits this long before it is served */
    const char *log_path;        /* each request's name appended before it is served */
    const char *hold_path;       /* RESUME is served once this file exists */
    const struct synth_hostile *hostile; /* --hostile transport kinds; NULL = none */
    /* after a RESUME was answered (st->resumes counts it): the program ran;
       it may replace the heap p points to (--grow-per-pause); NULL = none */
    void (*resumed)(void *ctx, uint64_t resumes);
    void *resumed_ctx;
    bool fragile;                /* --fragile: a request for a wild address exits
                                    (synth_fragile.h); a failed read or write ends
                                    serving (SYNTH_SERVE_FRAGILE, synth_fragile_wire.h),
                                    as the official stub crashes or aborts */
    uint32_t hold_cmd;           /* --hold COMMAND:DIR; hold_dir NULL = none */
    const char *hold_dir;
} synth_server_config;

/* Outcome of serving. */
typedef enum synth_serve_result {
    SYNTH_SERVE_CLOSED = 0,  /* peer closed, I/O error or bad framing: connection over */
    SYNTH_SERVE_STOPPED = 1, /* *cfg->stop became non-zero */
    SYNTH_SERVE_DONE = 2,    /* max_connections reached */
    SYNTH_SERVE_FRAGILE = 3, /* --fragile: a read or write failed (said on stderr) */
    SYNTH_SERVE_ERROR = -1   /* accept or allocation failure (message on stderr) */
} synth_serve_result;

/* Serves requests on one connected socket until the peer closes it, an I/O
 * error, a request longer than SYNTH_MAX_REQUEST, or a stop. Never closes fd.
 * cfg may be NULL. */
synth_serve_result synth_serve_connection(const synth_process *p, synth_state *st, int fd,
                                          const synth_server_config *cfg);

/* Writes st's request counts to path (a temporary file renamed over it):
 * "connections N", then "COMMAND N" for each command served. 0, or -1. */
int synth_write_counts(const synth_state *st, const char *path);

/* Accept loop: serves connections one after another on a listening socket
 * until stopped or max_connections have been served. cfg may be NULL. */
synth_serve_result synth_serve(const synth_process *p, synth_state *st, int listen_fd,
                               const synth_server_config *cfg);

/* ---- start-up (§3.1, §3.2) ---- */

#define SYNTH_PROGNAME "heapscope-debuggee"
#define SYNTH_SUN_PATH_MAX 108 /* sizeof sun_path: paths this long are refused */

/* The stub's socket path: $GHC_DEBUG_SOCKET verbatim if set, else
 * <data home>/ghc-debug/debuggee/sockets/<pid>-heapscope-debuggee, where data
 * home = $XDG_DATA_HOME if set and absolute, else $HOME/.local/share (the
 * passwd home when HOME is unset). Returns 0, or -1 with a message in err. */
int synth_socket_path(char *buf, size_t len, char *err, size_t errlen);

typedef struct synth_listener {
    int fd;                          /* listening socket, -1 = none */
    bool is_unix;
    char path[SYNTH_SUN_PATH_MAX];   /* unix: the socket file, removed by close */
    char banner[SYNTH_SUN_PATH_MAX + 64]; /* "Starting ghc-debug on ...: ..." */
} synth_listener;

/* Unix mode: refuses empty paths and paths of 108 bytes or more, creates
 * the parent directories, removes a stale file, binds and listens (backlog
 * 1). The caller prints l->banner once this succeeds (the stub prints it
 * before binding; printing after means a client may connect at once). */
int synth_listen_unix(synth_listener *l, const char *path, char *err, size_t errlen);

/* TCP mode, "A.B.C.D:PORT" (IPv4 only, as the stub; port 0 = any free port,
 * the banner shows the bound one). No SO_REUSEADDR, backlog 1. */
int synth_listen_tcp(synth_listener *l, const char *host_port, char *err, size_t errlen);

/* Checks a unix path (host_port NULL) or "A.B.C.D:PORT" as the two functions
 * above would, without creating anything: lets main refuse a bad address
 * before a long heap generation. Returns 0, or -1 with a message in err. */
int synth_listen_check(const char *unix_path, const char *host_port, char *err, size_t errlen);

/* Closes the socket and removes the socket file (unix mode); a failed
 * removal prints the stub's "ghc-debug: failed to cleanup socket: <path>"
 * to stdout. Idempotent. */
void synth_listener_close(synth_listener *l);

#endif
