#include "heapscope/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message is one line whatever text it quotes (a typed filter, a name
 * from the debuggee or a file): control characters, which could also move
 * the cursor or recolour the terminal it is printed on, become '?'. */
static void one_line(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

hs_status hs_fail(hs_error *err, hs_status status, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        one_line(err->message);
        err->status = status;
    }
    return status;
}

hs_status hs_fail_context(hs_error *err, const char *fmt, ...) {
    if (!err)
        return HS_ERR_INTERNAL;
    char context[HS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    char old[HS_ERROR_MESSAGE_MAX];
    memcpy(old, err->message, sizeof old);
    /* both parts may be long: keep the context whole, cut the old message */
    size_t n = strnlen(context, sizeof err->message - 3);
    memcpy(err->message, context, n);
    memcpy(err->message + n, ": ", 2);
    size_t room = sizeof err->message - n - 3;
    size_t m = strnlen(old, room);
    memcpy(err->message + n + 2, old, m);
    err->message[n + 2 + m] = '\0';
    one_line(err->message);
    return err->status;
}

const char *hs_status_name(hs_status status) {
    switch (status) {
    case HS_OK: return "ok";
    case HS_ERR_USAGE: return "usage";
    case HS_ERR_NOMEM: return "out-of-memory";
    case HS_ERR_IO: return "io";
    case HS_ERR_CONNECT: return "connect";
    case HS_ERR_TIMEOUT: return "timeout";
    case HS_ERR_CLOSED: return "closed";
    case HS_ERR_PROTOCOL: return "protocol";
    case HS_ERR_TOO_LARGE: return "too-large";
    case HS_ERR_BAD_COMMAND: return "bad-command";
    case HS_ERR_ALREADY_PAUSED: return "already-paused";
    case HS_ERR_NOT_PAUSED: return "not-paused";
    case HS_ERR_NO_RESUME: return "no-resume";
    case HS_ERR_BAD_STACK: return "bad-stack";
    case HS_ERR_NOT_FOUND: return "not-found";
    case HS_ERR_INTERNAL: return "internal";
    case HS_ERR_CANCELLED: return "cancelled";
    }
    return "unknown";
}
