/* TARGET text to what connect needs: the one place that decides whether a
 * target is well formed, so the CLI can refuse a malformed one as a usage
 * error before anything connects, and connect agrees with it. */
#include <stdio.h>
#include <string.h>

#include "heapscope/wire.h"

#define SYNTAX "a socket path, unix:PATH or tcp:HOST:PORT"
#define SHOWN_MAX 60 /* bytes of a target a message repeats */

/* The target as a message shows it: control bytes as '?', and a long one cut
 * (at a UTF-8 boundary) with "..." so the message keeps its point. */
static const char *shown(const char *text, char buf[SHOWN_MAX + 4]) {
    size_t n = strlen(text), keep = n;
    if (n > SHOWN_MAX) {
        keep = SHOWN_MAX - 3;
        while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80)
            keep--;
    }
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)text[i];
        buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    strcpy(buf + keep, keep < n ? "..." : "");
    return buf;
}

static hs_status parse_unix(const char *text, const char *path, wire_target *out,
                            hs_error *err) {
    char b[SHOWN_MAX + 4];
    size_t n = strlen(path);
    if (n == 0)
        return hs_fail(err, HS_ERR_USAGE, "empty socket path in target '%s'", shown(text, b));
    if (n > WIRE_UNIX_PATH_MAX)
        return hs_fail(err, HS_ERR_USAGE,
                       "socket path is %zu bytes long; Unix socket paths must be shorter than "
                       "108 bytes: %s",
                       n, shown(path, b));
    out->kind = WIRE_TARGET_UNIX;
    memcpy(out->path, path, n + 1);
    return HS_OK;
}

/* "HOST:PORT" or "[V6HOST]:PORT" (s is the text after "tcp:"). */
static hs_status parse_tcp(const char *text, const char *s, wire_target *out, hs_error *err) {
    char b[SHOWN_MAX + 4];
    const char *h = s, *h_end, *p;
    if (*s == '[') {
        h = s + 1;
        h_end = strchr(h, ']');
        if (!h_end || h_end[1] != ':')
            goto bad;
        p = h_end + 2;
    } else {
        h_end = strrchr(s, ':');
        if (!h_end)
            goto bad;
        if (memchr(s, ':', (size_t)(h_end - s)))
            return hs_fail(err, HS_ERR_USAGE,
                           "malformed target '%s': write an IPv6 host in brackets, "
                           "tcp:[ADDR]:PORT",
                           shown(text, b));
        p = h_end + 1;
    }
    size_t hn = (size_t)(h_end - h), pn = strlen(p);
    if (hn >= sizeof out->host)
        return hs_fail(err, HS_ERR_USAGE,
                       "malformed target '%s': the host name is %zu bytes long (at most %zu)",
                       shown(text, b), hn, sizeof out->host - 1);
    if (hn == 0 || pn == 0 || pn >= sizeof out->port)
        goto bad;
    unsigned long port_num = 0;
    for (size_t i = 0; i < pn; i++) {
        if (p[i] < '0' || p[i] > '9')
            goto bad;
        port_num = port_num * 10 + (unsigned long)(p[i] - '0');
    }
    if (port_num < 1 || port_num > 65535)
        return hs_fail(err, HS_ERR_USAGE, "malformed target '%s': port must be 1-65535",
                       shown(text, b));
    out->kind = WIRE_TARGET_TCP;
    memcpy(out->host, h, hn);
    out->host[hn] = '\0';
    memcpy(out->port, p, pn + 1);
    return HS_OK;
bad:
    return hs_fail(err, HS_ERR_USAGE, "malformed target '%s': expected tcp:HOST:PORT",
                   shown(text, b));
}

hs_status wire_target_parse(const char *text, wire_target *out, hs_error *err) {
    *out = (wire_target){0};
    if (!text || !*text)
        return hs_fail(err, HS_ERR_USAGE, "no target given: expected " SYNTAX);
    if (strncmp(text, "tcp:", 4) == 0)
        return parse_tcp(text, text + 4, out, err);
    return parse_unix(text, strncmp(text, "unix:", 5) == 0 ? text + 5 : text, out, err);
}
