/* Where ghc-debug keeps sockets and snapshots (wire-protocol.md §3.1). */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/discover.h"

/* Writes a path into buf; a path that does not fit is an error, never a
 * silently cut path that would name another directory. */
static hs_status put(char *buf, size_t cap, hs_error *err, const char *a, const char *b) {
    int n = snprintf(buf, cap, "%s%s", a, b);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            buf[0] = '\0';
        return hs_fail(err, HS_ERR_TOO_LARGE, "directory path too long: %s%s", a, b);
    }
    return HS_OK;
}

/* $HOME, or the passwd entry's home when HOME is unset (or empty: an
 * empty HOME would turn the data home into a root-relative path). */
static const char *home_dir(void) {
    const char *home = getenv("HOME");
    if (home && home[0])
        return home;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : NULL;
}

hs_status discover_data_home(char *buf, size_t cap, hs_error *err) {
    const char *xdg = getenv("XDG_DATA_HOME");
    /* XDG base directory spec: a relative path is invalid and ignored */
    if (xdg && xdg[0] == '/')
        return put(buf, cap, err, xdg, "");
    const char *home = home_dir();
    if (!home)
        return put(buf, cap, err, "", "");
    return put(buf, cap, err, home, "/.local/share");
}

static hs_status sub_dir(char *buf, size_t cap, hs_error *err, const char *leaf) {
    char home[4096];
    hs_status st = discover_data_home(home, sizeof home, err);
    if (st != HS_OK)
        return st;
    if (!home[0])
        return put(buf, cap, err, "", "");
    /* "/" as data home must not give "//ghc-debug" */
    size_t n = strlen(home);
    if (n > 1 && home[n - 1] == '/')
        home[n - 1] = '\0';
    else if (n == 1)
        home[0] = '\0';
    char tail[64];
    snprintf(tail, sizeof tail, "/ghc-debug/debuggee/%s", leaf);
    return put(buf, cap, err, home, tail);
}

hs_status discover_socket_dir(char *buf, size_t cap, hs_error *err) {
    return sub_dir(buf, cap, err, "sockets");
}

hs_status discover_snapshot_dir(char *buf, size_t cap, hs_error *err) {
    return sub_dir(buf, cap, err, "snapshots");
}
