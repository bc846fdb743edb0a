/* Status codes and error values shared by every module.
 *
 * Functions that can fail return an hs_status and, on failure, fill an
 * hs_error with a message a person can act on. Nothing below main.c exits. */
#ifndef HEAPSCOPE_STATUS_H
#define HEAPSCOPE_STATUS_H

#include <stddef.h>

typedef enum hs_status {
    HS_OK = 0,
    HS_ERR_USAGE,          /* bad argument from the user or caller */
    HS_ERR_NOMEM,          /* allocation failed */
    HS_ERR_IO,             /* socket or file error (errno text in message) */
    HS_ERR_CONNECT,        /* could not connect to the target */
    HS_ERR_TIMEOUT,        /* no bytes from the peer within the timeout */
    HS_ERR_CLOSED,         /* peer closed the connection */
    HS_ERR_PROTOCOL,       /* malformed frame or response body */
    HS_ERR_TOO_LARGE,      /* a length beyond a sane cap */
    HS_ERR_BAD_COMMAND,    /* stub status 0x0100 */
    HS_ERR_ALREADY_PAUSED, /* stub status 0x0101 */
    HS_ERR_NOT_PAUSED,     /* stub status 0x0102 */
    HS_ERR_NO_RESUME,      /* stub status 0x0103 */
    HS_ERR_BAD_STACK,      /* stub status 0x0104 */
    HS_ERR_NOT_FOUND,      /* a lookup that found nothing */
    HS_ERR_INTERNAL,       /* a bug in heapscope: say so plainly */
    HS_ERR_CANCELLED       /* the user (Esc) or a signal stopped the work */
} hs_status;

#define HS_ERROR_MESSAGE_MAX 512

typedef struct hs_error {
    hs_status status;
    char message[HS_ERROR_MESSAGE_MAX];
} hs_error;

/* Fills err (when non-NULL) with status and a printf-style message and
 * returns status, so callers can write `return hs_fail(err, ...)`. */
hs_status hs_fail(hs_error *err, hs_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends context to an existing message: "context: old message". */
hs_status hs_fail_context(hs_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A short stable name for a status ("timeout", "not-paused", ...). */
const char *hs_status_name(hs_status status);

#endif
