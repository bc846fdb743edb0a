/* Fingerprints: equal for the same program image, different as soon as the
 * executable, a mapping or the arguments change, and refused when nothing
 * proves the code (memory no file backs, a replaced library). Most tests
 * lay out a directory like /proc/PID by hand (exe symlink, maps, cmdline). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "heapscope/cache.h"

static char dir[64];

static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/hs-fp-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(cache_fingerprint, .init = make_dir, .fini = remove_dir);

static void sh(const char *fmt, const char *a, const char *b) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void write_file(const char *name, const char *content, size_t len) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(content, 1, len, f), len);
    fclose(f);
}

/* A fake /proc/PID: exe -> dir/prog, a maps file whose text mapping is
 * prog's inode, plus the extra maps lines and the command line given. */
static void fake_proc(const char *extra_maps, const char *cmdline) {
    char prog[256], link[256], maps[4096];
    snprintf(prog, sizeof prog, "%s/prog", dir);
    snprintf(link, sizeof link, "%s/exe", dir);
    unlink(link);
    cr_assert_eq(symlink(prog, link), 0);
    struct stat st;
    cr_assert_eq(stat(prog, &st), 0);
    snprintf(maps, sizeof maps,
             "00400000-00401000 r--p 00000000 %02x:%02x %llu %s\n"
             "00401000-00402000 r-xp 00001000 %02x:%02x %llu %s\n"
             "7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]\n%s",
             major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, prog,
             major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, prog,
             extra_maps);
    write_file("maps", maps, strlen(maps));
    write_file("cmdline", cmdline, strlen(cmdline) + 1);
}

static char *fingerprint_ok(void) {
    cache_fingerprint fp;
    hs_error err = {0};
    cr_assert_eq(cache_fingerprint_dir(dir, &fp, &err), HS_OK, "%s", err.message);
    cr_assert_not_null(fp.text);
    cr_assert(strstr(fp.exe, "/prog"), "%s", fp.exe);
    char *text = fp.text;
    fp.text = NULL; /* the caller keeps the text; the rest goes */
    cache_fingerprint_free(&fp);
    return text;
}

static void fingerprint_refused(const char *why) {
    cache_fingerprint fp;
    hs_error err = {0};
    cr_assert_eq(cache_fingerprint_dir(dir, &fp, &err), HS_ERR_NOT_FOUND, "%s", err.message);
    cr_assert_null(fp.text);
    cr_assert(strstr(err.message, why), "%s", err.message);
}

Test(cache_fingerprint, same_program_same_text) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("", "prog");
    char *a = fingerprint_ok(), *b = fingerprint_ok();
    cr_assert_str_eq(a, b);
    cr_assert(strstr(a, "build-id:"), "an ELF with a build id is known by it: %s", a);
    free(a);
    free(b);
}

Test(cache_fingerprint, replaced_binary_at_same_path_differs) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("", "prog");
    char *before = fingerprint_ok();
    /* rebuilt: another binary renamed over the same path */
    sh("cd '%s' && cp /bin/false new && mv new prog%s", dir, "");
    fake_proc("", "prog");
    char *after = fingerprint_ok();
    cr_assert_str_neq(before, after);
    free(before);
    free(after);
}

Test(cache_fingerprint, same_bytes_rewritten_in_place_differs) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("", "prog");
    char *before = fingerprint_ok();
    /* the same inode and size, written again later: the mtime tells */
    sh("sleep 0.01; cat /bin/true > '%s/prog'%s", dir, "");
    char *after = fingerprint_ok();
    cr_assert_str_neq(before, after);
    free(before);
    free(after);
}

Test(cache_fingerprint, no_build_id_hashes_the_bytes) {
    write_file("prog", "#!/bin/sh\necho one\n", 19);
    fake_proc("", "prog");
    char *one = fingerprint_ok();
    cr_assert(strstr(one, "hash:"), "%s", one);
    /* same size, same mtime second is not enough: the bytes differ */
    struct stat st;
    char path[256];
    snprintf(path, sizeof path, "%s/prog", dir);
    cr_assert_eq(stat(path, &st), 0);
    write_file("prog", "#!/bin/sh\necho two\n", 19);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    char *two = fingerprint_ok();
    cr_assert_str_neq(one, two);
    free(one);
    free(two);
}

Test(cache_fingerprint, arguments_count) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("", "prog\0--leak-constructor=A");
    char *a = fingerprint_ok();
    static const char other_args[] = "prog\0--leak-constructor=B";
    write_file("cmdline", other_args, sizeof other_args);
    char *b = fingerprint_ok();
    cr_assert_str_neq(a, b);
    free(a);
    free(b);
}

Test(cache_fingerprint, load_address_counts) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("", "prog");
    char *a = fingerprint_ok();
    char path[256];
    snprintf(path, sizeof path, "sed -i 's/^00401000-00402000/00501000-00502000/' '%s/maps'", dir);
    cr_assert_eq(system(path), 0);
    char *b = fingerprint_ok();
    cr_assert_str_neq(a, b);
    free(a);
    free(b);
}

/* The loader puts libraries elsewhere at every run: where they are is not
 * part of the fingerprint (else no two runs would share answers), but their
 * ranges are listed so that no answer for an address in them is kept. */
Test(cache_fingerprint, libraries_may_move_and_are_listed) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    sh("cp /bin/true '%s/lib.so'%s", dir, "");
    char path[256], lines[1024];
    snprintf(path, sizeof path, "%s/lib.so", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    const char *fmt = "%s-%s r--p 00000000 %02x:%02x %llu %s\n"
                      "%s-%s r-xp 00001000 %02x:%02x %llu %s\n";
    snprintf(lines, sizeof lines, fmt, "7f0000000000", "7f0000001000", major(st.st_dev),
             minor(st.st_dev), (unsigned long long)st.st_ino, path, "7f0000001000",
             "7f0000003000", major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino,
             path);
    fake_proc(lines, "prog");
    cache_fingerprint a;
    hs_error err = {0};
    cr_assert_eq(cache_fingerprint_dir(dir, &a, &err), HS_OK, "%s", err.message);
    cr_assert_eq(a.n_moving, 2);
    cr_assert_eq(a.moving[0].start, 0x7f0000000000u);
    cr_assert_eq(a.moving[1].end, 0x7f0000003000u);
    snprintf(lines, sizeof lines, fmt, "7e0000000000", "7e0000001000", major(st.st_dev),
             minor(st.st_dev), (unsigned long long)st.st_ino, path, "7e0000001000",
             "7e0000003000", major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino,
             path);
    fake_proc(lines, "prog");
    cache_fingerprint b;
    cr_assert_eq(cache_fingerprint_dir(dir, &b, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(a.text, b.text, "the library moved: the same program");
    cr_assert_eq(b.moving[0].start, 0x7e0000000000u);
    for (size_t i = 0; i < a.n_moving; i++) /* the executable itself never moves */
        cr_assert(a.moving[i].start >= 0x7e0000000000u);
    cache_fingerprint_free(&a);
    cache_fingerprint_free(&b);
}

Test(cache_fingerprint, code_no_file_backs_is_refused) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n", "prog");
    fingerprint_refused("no file backs");
    /* writable but not executable anonymous memory is just the heap */
    fake_proc("7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n", "prog");
    free(fingerprint_ok());
}

Test(cache_fingerprint, replaced_library_is_refused) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    sh("cp /bin/true '%s/lib.so'%s", dir, "");
    char path[256], line[512];
    snprintf(path, sizeof path, "%s/lib.so", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    snprintf(line, sizeof line, "7f0000000000-7f0000001000 r-xp 00001000 %02x:%02x %llu %s\n",
             major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, path);
    fake_proc(line, "prog");
    char *with_lib = fingerprint_ok();
    cr_assert(strstr(with_lib, "\nfile "), "%s", with_lib);
    free(with_lib);
    /* the library file now is another inode than the one mapped */
    sh("cp '%s/lib.so' '%s/lib2.so'", dir, dir);
    sh("mv '%s/lib2.so' '%s/lib.so'", dir, dir);
    fingerprint_refused("not the file the program mapped");
    snprintf(line, sizeof line, "7f0000000000-7f0000001000 r-xp 00001000 fe:00 12 %s (deleted)\n",
             path);
    fake_proc(line, "prog");
    fingerprint_refused("replaced after the program mapped it");
}

Test(cache_fingerprint, unreadable_proc_is_refused) {
    cache_fingerprint fp;
    hs_error err = {0};
    cr_assert_eq(cache_fingerprint_dir(dir, &fp, &err), HS_ERR_NOT_FOUND);
    cr_assert(strstr(err.message, "exe"), "%s", err.message);
    cr_assert_eq(cache_fingerprint_pid(0, &fp, &err), HS_ERR_NOT_FOUND);
    cr_assert(strstr(err.message, "no process id"), "%s", err.message);
}

Test(cache_fingerprint, malformed_maps_is_an_error) {
    sh("cp /bin/true '%s/prog'%s", dir, "");
    fake_proc("zzzz not a maps line\n", "prog");
    cache_fingerprint fp;
    hs_error err = {0};
    cr_assert_eq(cache_fingerprint_dir(dir, &fp, &err), HS_ERR_PROTOCOL);
    cr_assert(strstr(err.message, "memory map"), "%s", err.message);
}

/* A real child process: its fingerprint is stable while it runs and names
 * the binary it runs; our own process differs from it. */
Test(cache_fingerprint, real_process) {
    sh("cp /bin/sleep '%s/prog'%s", dir, "");
    char prog[256];
    snprintf(prog, sizeof prog, "%s/prog", dir);
    pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        execl(prog, prog, "5", (char *)NULL);
        _exit(127);
    }
    usleep(100 * 1000);
    cache_fingerprint a, b, self;
    hs_error err = {0};
    cr_assert_eq(cache_fingerprint_pid(child, &a, &err), HS_OK, "%s", err.message);
    cr_assert_eq(cache_fingerprint_pid(child, &b, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(a.text, b.text);
    cr_assert_str_eq(a.exe, prog);
    cr_assert(strstr(a.text, "\nfile "), "libc is a mapped library: %s", a.text);
    cr_assert_eq(cache_fingerprint_pid(getpid(), &self, &err), HS_OK, "%s", err.message);
    cr_assert_str_neq(a.text, self.text);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    cache_fingerprint_free(&a);
    cache_fingerprint_free(&b);
    cache_fingerprint_free(&self);
}

Test(cache_fingerprint, maps_line_parser) {
    char line[] = "7f06f7cf9000-7f06f7e4f000 r-xp 00026000 fe:00 332835      /usr/lib/libc.so.6 (deleted)";
    cache_map_line m;
    cr_assert(cache_maps_parse_line(line, &m));
    cr_assert_eq(m.start, 0x7f06f7cf9000u);
    cr_assert_eq(m.end, 0x7f06f7e4f000u);
    cr_assert_str_eq(m.perms, "r-xp");
    cr_assert_eq(m.offset, 0x26000u);
    cr_assert_eq(m.dev_major, 0xfe);
    cr_assert_eq(m.inode, 332835u);
    cr_assert_str_eq(m.path, "/usr/lib/libc.so.6");
    cr_assert(m.deleted);
    char anon[] = "7f06f7ea8000-7f06f7eb5000 rw-p 00000000 00:00 0 ";
    cr_assert(cache_maps_parse_line(anon, &m));
    cr_assert_str_eq(m.path, "");
    char bad[] = "7f06f7eb5000-7f06f7ea8000 rw-p 00000000 00:00 0";
    cr_assert_not(cache_maps_parse_line(bad, &m), "end before start");
    char cut[] = "7f06f7eb5000-7f06f7ea8000 rw-p";
    cr_assert_not(cache_maps_parse_line(cut, &m));
}

Test(cache_fingerprint, build_id_reader) {
    char hex[129];
    int fd = open("/bin/true", O_RDONLY);
    cr_assert_geq(fd, 0);
    cr_assert(cache_elf_build_id(fd, hex, sizeof hex));
    cr_assert_eq(strlen(hex) % 2, 0);
    cr_assert_geq(strlen(hex), 16);
    close(fd);
    write_file("notelf", "hello", 5);
    char path[256];
    snprintf(path, sizeof path, "%s/notelf", dir);
    fd = open(path, O_RDONLY);
    cr_assert_not(cache_elf_build_id(fd, hex, sizeof hex));
    close(fd);
}
