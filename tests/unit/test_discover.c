/* discover: the data home rules, the socket and snapshot listings (newest
 * first by lstat mtime, GHC_DEBUG_SOCKET) and the picker's time format.
 * Criterion runs every test in its own process, so setenv stays local. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <locale.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/discover.h"

static char root[64];
static char sockets[256], snapshots[256];

static void make_root(void) {
    snprintf(root, sizeof root, "/tmp/hs-discover-XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    snprintf(sockets, sizeof sockets, "%s/ghc-debug/debuggee/sockets", root);
    snprintf(snapshots, sizeof snapshots, "%s/ghc-debug/debuggee/snapshots", root);
    cr_assert_eq(setenv("XDG_DATA_HOME", root, 1), 0);
    unsetenv("GHC_DEBUG_SOCKET");
}

static void remove_root(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(discover, .init = make_root, .fini = remove_root);

static void mkdirs(const char *path) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    cr_assert_eq(system(cmd), 0);
}

/* Sets the entry's own mtime (not its target's, for a symlink). */
static void set_mtime(const char *path, time_t sec, long nsec) {
    struct timespec ts[2] = {{sec, nsec}, {sec, nsec}};
    cr_assert_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0, "%s: %s", path,
                 strerror(errno));
}

static void make_file(const char *dir, const char *name, time_t mtime) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs("x", f);
    fclose(f);
    set_mtime(path, mtime, 0);
}

/* A bound socket file; closing the descriptor leaves a stale socket. */
static void make_socket(const char *dir, const char *name, time_t mtime) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s", dir, name);
    cr_assert_lt(n, (int)sizeof sa.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0, "bind: %s", strerror(errno));
    close(fd);
    set_mtime(sa.sun_path, mtime, 0);
}

static void dir_of(hs_status (*fn)(char *, size_t, hs_error *), char *buf, size_t cap) {
    hs_error err = {0};
    cr_assert_eq(fn(buf, cap, &err), HS_OK, "%s", err.message);
}

/* ---- data home --------------------------------------------------------- */

Test(discover, xdg_data_home_when_absolute) {
    char buf[512];
    dir_of(discover_data_home, buf, sizeof buf);
    cr_assert_str_eq(buf, root);
    dir_of(discover_socket_dir, buf, sizeof buf);
    cr_assert_str_eq(buf, sockets);
    dir_of(discover_snapshot_dir, buf, sizeof buf);
    cr_assert_str_eq(buf, snapshots);
}

Test(discover, empty_or_relative_xdg_is_ignored) {
    setenv("HOME", "/home/u", 1);
    char buf[512];
    setenv("XDG_DATA_HOME", "", 1);
    dir_of(discover_data_home, buf, sizeof buf);
    cr_assert_str_eq(buf, "/home/u/.local/share");
    setenv("XDG_DATA_HOME", "relative/data", 1);
    dir_of(discover_data_home, buf, sizeof buf);
    cr_assert_str_eq(buf, "/home/u/.local/share");
    dir_of(discover_socket_dir, buf, sizeof buf);
    cr_assert_str_eq(buf, "/home/u/.local/share/ghc-debug/debuggee/sockets");
    unsetenv("XDG_DATA_HOME");
    dir_of(discover_snapshot_dir, buf, sizeof buf);
    cr_assert_str_eq(buf, "/home/u/.local/share/ghc-debug/debuggee/snapshots");
}

Test(discover, home_unset_uses_the_passwd_entry) {
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    struct passwd *pw = getpwuid(getuid());
    cr_assert_not_null(pw, "this test needs a passwd entry for uid %d", (int)getuid());
    char want[512], buf[512];
    snprintf(want, sizeof want, "%s/.local/share", pw->pw_dir);
    dir_of(discover_data_home, buf, sizeof buf);
    cr_assert_str_eq(buf, want);
}

Test(discover, trailing_slash_does_not_double) {
    char with_slash[300], buf[512];
    snprintf(with_slash, sizeof with_slash, "%s/", root);
    setenv("XDG_DATA_HOME", with_slash, 1);
    dir_of(discover_socket_dir, buf, sizeof buf);
    cr_assert_str_eq(buf, sockets);
}

Test(discover, small_buffer_is_an_error_not_a_cut_path) {
    char buf[8] = "junk";
    hs_error err = {0};
    cr_assert_eq(discover_socket_dir(buf, sizeof buf, &err), HS_ERR_TOO_LARGE);
    cr_assert_str_eq(buf, "");
    cr_assert(strstr(err.message, "too long"), "%s", err.message);
}

/* ---- listings ---------------------------------------------------------- */

Test(discover, missing_directories_are_empty_lists) {
    discover_list l = {.count = 99};
    hs_error err = {0};
    cr_assert_eq(discover_sockets(&l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 0);
    cr_assert_null(l.items);
    discover_list_free(&l);
    cr_assert_eq(discover_snapshots(&l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 0);
    discover_list_free(&l);
}

/* 0 when the sockets directory cannot be read and lists as empty; else a
 * code saying what went wrong (no Criterion asserts: it may run in a child). */
static int unreadable_lists_empty(void) {
    DIR *probe = opendir(sockets);
    if (probe) {
        closedir(probe);
        return 1; /* readable: the test would test nothing */
    }
    discover_list l;
    hs_error err = {0};
    if (discover_sockets(&l, &err) != HS_OK)
        return 2;
    size_t count = l.count;
    discover_list_free(&l);
    return count == 0 ? 0 : 4;
}

Test(discover, unreadable_directory_is_an_empty_list) {
    mkdirs(sockets);
    make_file(sockets, "1-x", 1000);
    chmod(sockets, 0);
    int code;
    if (geteuid() != 0) {
        code = unreadable_lists_empty();
    } else {
        /* root reads anything: check as nobody, who may reach the directory
         * (the temporary root is opened to others) but not read it */
        chmod(root, 0755);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
                _exit(3);
            _exit(unreadable_lists_empty());
        }
        int status = 0;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    }
    chmod(sockets, 0700);
    cr_assert_eq(code, 0, "1 readable, 2 discover failed, 3 cannot become nobody, 4 not empty: %d",
                 code);
}

Test(discover, sockets_newest_first_with_kind_and_time) {
    mkdirs(sockets);
    make_socket(sockets, "100-old", 1000000);
    make_file(sockets, "200-stale", 3000000);
    make_socket(sockets, "300-new", 2000000);
    discover_list l;
    hs_error err = {0};
    cr_assert_eq(discover_sockets(&l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 3);
    const char *names[] = {"200-stale", "300-new", "100-old"};
    const time_t times[] = {3000000, 2000000, 1000000};
    const bool sock[] = {false, true, true};
    for (size_t i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", sockets, names[i]);
        cr_assert_str_eq(l.items[i].name, names[i]);
        cr_assert_str_eq(l.items[i].path, path);
        cr_assert_eq(l.items[i].mtime, times[i]);
        cr_assert_eq(l.items[i].is_socket, sock[i], "%s", names[i]);
        cr_assert_not(l.items[i].from_env);
    }
    discover_list_free(&l);
    cr_assert_eq(l.count, 0);
    cr_assert_null(l.items);
}

Test(discover, same_second_sorts_by_nanoseconds) {
    mkdirs(sockets);
    make_file(sockets, "a", 5000);
    make_file(sockets, "b", 5000);
    char path[512];
    snprintf(path, sizeof path, "%s/a", sockets);
    set_mtime(path, 5000, 900000000);
    snprintf(path, sizeof path, "%s/b", sockets);
    set_mtime(path, 5000, 100000000);
    discover_list l;
    cr_assert_eq(discover_sockets(&l, NULL), HS_OK);
    cr_assert_eq(l.count, 2);
    cr_assert_str_eq(l.items[0].name, "a");
    cr_assert_str_eq(l.items[1].name, "b");
    discover_list_free(&l);
}

Test(discover, symlinks_use_their_own_mtime) {
    mkdirs(sockets);
    make_file(root, "target", 9000000);
    char link_path[512], target[512];
    snprintf(target, sizeof target, "%s/target", root);
    snprintf(link_path, sizeof link_path, "%s/link", sockets);
    cr_assert_eq(symlink(target, link_path), 0);
    set_mtime(link_path, 4000, 0);
    make_file(sockets, "file", 5000);
    discover_list l;
    cr_assert_eq(discover_sockets(&l, NULL), HS_OK);
    cr_assert_eq(l.count, 2);
    cr_assert_str_eq(l.items[0].name, "file");
    cr_assert_str_eq(l.items[1].name, "link");
    cr_assert_eq(l.items[1].mtime, 4000);
    discover_list_free(&l);
}

Test(discover, a_link_to_a_socket_is_a_socket) {
    mkdirs(sockets);
    make_socket(root, "real", 9000000);
    char link_path[512], target[512];
    snprintf(target, sizeof target, "%s/real", root);
    snprintf(link_path, sizeof link_path, "%s/linked", sockets);
    cr_assert_eq(symlink(target, link_path), 0);
    snprintf(link_path, sizeof link_path, "%s/dangling", sockets);
    cr_assert_eq(symlink("/nonexistent/sock", link_path), 0);
    discover_list l;
    cr_assert_eq(discover_sockets(&l, NULL), HS_OK);
    cr_assert_eq(l.count, 2);
    for (size_t i = 0; i < 2; i++)
        cr_expect_eq(l.items[i].is_socket, strcmp(l.items[i].name, "linked") == 0, "%s",
                     l.items[i].name);
    discover_list_free(&l);
}

Test(discover, ghc_debug_socket_is_added_when_present) {
    mkdirs(sockets);
    make_socket(sockets, "1-in-dir", 2000);
    make_socket(root, "elsewhere", 3000);
    char env[512];
    snprintf(env, sizeof env, "%s/elsewhere", root);
    setenv("GHC_DEBUG_SOCKET", env, 1);
    discover_list l;
    hs_error err = {0};
    cr_assert_eq(discover_sockets(&l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 2);
    cr_assert_str_eq(l.items[0].path, env);
    cr_assert_str_eq(l.items[0].name, "elsewhere");
    cr_assert(l.items[0].from_env);
    cr_assert(l.items[0].is_socket);
    cr_assert_not(l.items[1].from_env);
    discover_list_free(&l);
}

Test(discover, ghc_debug_socket_absent_is_not_listed) {
    setenv("GHC_DEBUG_SOCKET", "/nonexistent/heapscope/sock", 1);
    discover_list l;
    cr_assert_eq(discover_sockets(&l, NULL), HS_OK);
    cr_assert_eq(l.count, 0);
    discover_list_free(&l);
    setenv("GHC_DEBUG_SOCKET", "", 1);
    cr_assert_eq(discover_sockets(&l, NULL), HS_OK);
    cr_assert_eq(l.count, 0);
    discover_list_free(&l);
}

Test(discover, ghc_debug_socket_in_the_directory_is_listed_once) {
    mkdirs(sockets);
    make_socket(sockets, "7-prog", 2000);
    char env[512];
    snprintf(env, sizeof env, "%s/7-prog", sockets);
    setenv("GHC_DEBUG_SOCKET", env, 1);
    discover_list l;
    cr_assert_eq(discover_sockets(&l, NULL), HS_OK);
    cr_assert_eq(l.count, 1);
    cr_assert(l.items[0].from_env);
    discover_list_free(&l);
}

Test(discover, snapshots_are_files_newest_first) {
    mkdirs(snapshots);
    make_file(snapshots, "monday", 1000);
    make_file(snapshots, "tuesday", 2000);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/a-directory", snapshots);
    mkdirs(sub);
    make_socket(root, "env-sock", 3000);
    char env[512];
    snprintf(env, sizeof env, "%s/env-sock", root);
    setenv("GHC_DEBUG_SOCKET", env, 1); /* a socket is not a snapshot */
    discover_list l;
    hs_error err = {0};
    cr_assert_eq(discover_snapshots(&l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 2);
    cr_assert_str_eq(l.items[0].name, "tuesday");
    cr_assert_str_eq(l.items[1].name, "monday");
    cr_assert_eq(l.items[1].mtime, 1000);
    cr_assert_not(l.items[0].is_socket);
    discover_list_free(&l);
}

/* The picker's Snapshots tab: the snapshot directory and the directories
 * given, regular files only, each file once, with its size. */
Test(discover, snapshot_files_of_several_directories) {
    mkdirs(snapshots);
    char other[512], path[700], link_path[700];
    snprintf(other, sizeof other, "%s/elsewhere", root);
    mkdirs(other);
    make_file(snapshots, "monday", 1000);
    make_file(other, "wednesday", 3000);
    make_file(other, ".wednesday.Ab12Cd.tmp", 4000); /* a snapshot being written */
    make_socket(snapshots, "a-socket", 5000);
    snprintf(path, sizeof path, "%s/sub", other);
    mkdirs(path);
    /* a link in the snapshot directory to a file of the other one: once */
    snprintf(path, sizeof path, "%s/wednesday", other);
    snprintf(link_path, sizeof link_path, "%s/link-to-wednesday", snapshots);
    cr_assert_eq(symlink(path, link_path), 0, "%s", strerror(errno));
    FILE *f = fopen(path, "w");
    fputs("twelve bytes", f);
    fclose(f);
    set_mtime(path, 3000, 0);
    const char *dirs[] = {other, NULL, "", other}; /* given twice, and empty entries */
    discover_list l;
    hs_error err = {0};
    cr_assert_eq(discover_snapshot_files(dirs, 4, &l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 2, "got %zu entries", l.count);
    cr_assert_str_eq(l.items[0].name, "link-to-wednesday", "the first path it was seen by");
    cr_assert_eq(l.items[0].mtime, 3000, "the file's own time, not the link's");
    cr_assert_eq(l.items[0].size, 12);
    cr_assert_str_eq(l.items[1].name, "monday");
    cr_assert_eq(l.items[1].size, 1);
    discover_list_free(&l);
}

Test(discover, snapshot_files_of_a_missing_directory_are_none) {
    const char *dirs[] = {"/nonexistent/heapscope-test"};
    discover_list l;
    hs_error err = {0};
    cr_assert_eq(discover_snapshot_files(dirs, 1, &l, &err), HS_OK, "%s", err.message);
    cr_assert_eq(l.count, 0);
    discover_list_free(&l);
}

Test(discover, free_tolerates_null_and_empty) {
    discover_list_free(NULL);
    discover_list l = {0};
    discover_list_free(&l);
    cr_assert_eq(l.count, 0);
}

/* ---- time (no directories needed) -------------------------------------- */

Test(discover_time, time_is_c_locale_percent_c) {
    setenv("TZ", "UTC", 1);
    tzset();
    char buf[64];
    discover_format_time(0, buf, sizeof buf);
    cr_assert_str_eq(buf, "Thu Jan  1 00:00:00 1970");
    discover_format_time(1795334040, buf, sizeof buf); /* 2026-11-22 07:54:00 UTC */
    cr_assert_str_eq(buf, "Sun Nov 22 07:54:00 2026");
    setenv("TZ", "EST5", 1);
    tzset();
    discover_format_time(0, buf, sizeof buf); /* local time, as ls shows it */
    cr_assert_str_eq(buf, "Wed Dec 31 19:00:00 1969");
}

Test(discover_time, time_ignores_the_process_locale) {
    setenv("TZ", "UTC", 1);
    tzset();
    /* the UI calls setlocale(LC_ALL, ""); a German LC_TIME says "Do" for Thu */
    static const char *const others[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                         "fr_FR.utf8", "es_ES.UTF-8", "es_ES.utf8"};
    const char *set = NULL;
    for (size_t i = 0; i < sizeof others / sizeof *others && !set; i++)
        set = setlocale(LC_ALL, others[i]);
    if (!set)
        cr_skip_test("no German, French or Spanish locale installed");
    char buf[64];
    discover_format_time(0, buf, sizeof buf);
    cr_assert_str_eq(buf, "Thu Jan  1 00:00:00 1970");
}

Test(discover_time, time_respects_small_buffers) {
    setenv("TZ", "UTC", 1);
    tzset();
    char buf[6] = "xxxxx";
    discover_format_time(0, buf, sizeof buf); /* cut, still terminated */
    cr_assert_str_eq(buf, "Thu J");
    discover_format_time(0, buf + 1, 0); /* nothing written at all */
    cr_assert_str_eq(buf, "Thu J");
}
