/* The fingerprint of a running program: what must be equal before answers
 * read from an earlier process may stand for this one's.
 *
 * Info tables, constructor descriptions, source locations and SRTs are
 * fixed by the code a process runs and by where it is loaded. So the text
 * names: the executable (device, inode, size, mtime, and its GNU build id
 * or a hash of its bytes) and where its code is mapped, the same identity
 * for each library with code, and a hash of the command line (cheap, and
 * guards programs whose code depends on their arguments). Libraries are
 * loaded at another address at every run, so where they are is not part of
 * the text (else no two runs would share answers); instead their ranges
 * are listed (`moving`), and the cache neither answers nor keeps an address
 * inside them. Anything that cannot be proved gives no fingerprint, hence
 * no reuse: code in memory no file backs (an interpreter, a JIT), a
 * library replaced since it was mapped, no access to /proc. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "heapscope/grow.h"
#include "cache_internal.h"

#define MAX_MAPS_BYTES (16u << 20)
#define MAX_CMDLINE_BYTES (1u << 20)
#define MAX_FILES 4096
#define DELETED_SUFFIX " (deleted)"

typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...) {
    for (int round = 0; round < 2 && !t->failed; round++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
        } else if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        } else if (!hs_grow((void **)&t->s, &t->cap, t->len + (size_t)n + 1, 1)) {
            t->failed = true;
        }
    }
}

bool cache_maps_parse_line(char *line, cache_map_line *out) {
    unsigned long long start, end, offset, inode;
    unsigned major, minor;
    char perms[5];
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &offset, &major,
               &minor, &inode, &path_at) != 7 ||
        strlen(perms) != 4 || start >= end)
        return false;
    *out = (cache_map_line){.start = start, .end = end, .offset = offset, .inode = inode,
                            .dev_major = major, .dev_minor = minor, .path = line + path_at};
    memcpy(out->perms, perms, sizeof perms);
    size_t n = strlen(out->path), suffix = strlen(DELETED_SUFFIX);
    if (n >= suffix && strcmp(out->path + n - suffix, DELETED_SUFFIX) == 0) {
        out->path[n - suffix] = '\0';
        out->deleted = true;
    }
    return true;
}

/* Reads a whole /proc file (sizes there read as 0) up to cap bytes, NUL
 * terminated; NULL with errno set on failure, EFBIG when it is longer. */
static char *read_small_file(const char *path, size_t cap, size_t *len_out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = NULL;
    size_t len = 0, have = 0;
    for (;;) {
        if (!hs_grow((void **)&buf, &have, len + 4097, 1)) {
            errno = ENOMEM;
            break;
        }
        ssize_t n = read(fd, buf + len, have - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n == 0) {
            close(fd);
            buf[len] = '\0';
            if (len_out)
                *len_out = len;
            return buf;
        }
        len += (size_t)n;
        if (len > cap) {
            errno = EFBIG;
            break;
        }
    }
    int e = errno;
    close(fd);
    free(buf);
    errno = e;
    return NULL;
}

/* "MAJ:MIN INO SIZE MTIME ID" of an open file, ID its build id or hash. */
static bool put_identity(text *t, int fd, const struct stat *st) {
    char id[2 * 64 + 1], hash[33];
    const char *kind = "build-id";
    if (!cache_elf_build_id(fd, id, sizeof id)) {
        if (!cache_hash_file(fd, hash))
            return false;
        snprintf(id, sizeof id, "%s", hash);
        kind = "hash";
    }
    put(t, "%u:%u %llu %lld %lld.%09ld %s:%s\n", major(st->st_dev), minor(st->st_dev),
        (unsigned long long)st->st_ino, (long long)st->st_size, (long long)st->st_mtim.tv_sec,
        st->st_mtim.tv_nsec, kind, id);
    return true;
}

typedef struct file_id {
    unsigned major, minor;
    uint64_t inode;
    const char *path; /* into the maps text */
    bool deleted;
} file_id;

static bool is_kernel_mapping(const char *path) {
    return strcmp(path, "[vdso]") == 0 || strcmp(path, "[vsyscall]") == 0 ||
           strcmp(path, "[uprobes]") == 0;
}

typedef struct exe_id {
    unsigned major, minor;
    uint64_t inode;
} exe_id;

static bool add_range(cache_fingerprint *out, size_t *cap, uint64_t start, uint64_t end) {
    if (!hs_grow((void **)&out->moving, cap, out->n_moving + 1, sizeof *out->moving))
        return false;
    out->moving[out->n_moving++] = (cache_range){start, end};
    return true;
}

/* Appends the executable's mappings (where it is loaded is part of what it
 * answers), collects the distinct libraries with executable code (their
 * identity counts, not where they are: the loader moves them at every
 * run), and lists every range of a library in out->moving. */
static hs_status put_maps(text *t, char *maps, exe_id exe, cache_fingerprint *out,
                          file_id **files, size_t *n_files, size_t *cap, hs_error *err) {
    size_t ranges_cap = 0;
    for (char *line = maps, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        cache_map_line m;
        if (!cache_maps_parse_line(line, &m))
            return hs_fail(err, HS_ERR_PROTOCOL, "unreadable line in the memory map: %.60s",
                           line);
        bool is_exe = m.inode == exe.inode && m.dev_major == exe.major && m.dev_minor == exe.minor;
        if (m.inode != 0 && !is_exe && !add_range(out, &ranges_cap, m.start, m.end))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        if (m.perms[2] != 'x')
            continue;
        if (m.inode == 0) {
            if (is_kernel_mapping(m.path))
                continue;
            return hs_fail(err, HS_ERR_NOT_FOUND,
                           "the program runs code that no file backs (%s)",
                           m.path[0] ? m.path : "anonymous memory");
        }
        if (is_exe) {
            put(t, "map %" PRIx64 "-%" PRIx64 " %s %" PRIx64 "\n", m.start, m.end, m.perms,
                m.offset);
            continue;
        }
        bool seen = false;
        for (size_t i = 0; i < *n_files && !seen; i++)
            seen = (*files)[i].inode == m.inode && (*files)[i].major == m.dev_major &&
                   (*files)[i].minor == m.dev_minor;
        if (seen)
            continue;
        if (*n_files >= MAX_FILES)
            return hs_fail(err, HS_ERR_NOT_FOUND, "more than %d mapped files", MAX_FILES);
        if (!hs_grow((void **)files, cap, *n_files + 1, sizeof **files))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        (*files)[(*n_files)++] = (file_id){m.dev_major, m.dev_minor, m.inode, m.path, m.deleted};
    }
    return HS_OK;
}

/* A mapped library, opened by path: it must still be the file mapped. */
static hs_status put_library(text *t, const file_id *f, hs_error *err) {
    if (f->deleted || f->path[0] != '/')
        return hs_fail(err, HS_ERR_NOT_FOUND, "%s was replaced after the program mapped it",
                       f->path);
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || major(st.st_dev) != f->major ||
        minor(st.st_dev) != f->minor || st.st_ino != f->inode) {
        if (fd >= 0)
            close(fd);
        return hs_fail(err, HS_ERR_NOT_FOUND, "%s is not the file the program mapped",
                       f->path);
    }
    put(t, "file ");
    bool ok = put_identity(t, fd, &st);
    close(fd);
    return ok ? HS_OK : hs_fail(err, HS_ERR_NOT_FOUND, "cannot identify %s", f->path);
}

static hs_status put_cmdline(text *t, const char *dir, hs_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/cmdline", dir);
    size_t len = 0;
    char *args = read_small_file(path, MAX_CMDLINE_BYTES, &len);
    if (!args)
        return hs_fail(err, HS_ERR_NOT_FOUND, "cannot read %s: %s", path, strerror(errno));
    cache_hash h;
    char hex[33];
    cache_hash_init(&h);
    cache_hash_add(&h, (const uint8_t *)args, len);
    cache_hash_hex(&h, hex);
    free(args);
    put(t, "args %s\n", hex);
    return HS_OK;
}

static hs_status fingerprint(const char *dir, cache_fingerprint *out, text *t, int exe_fd,
                             hs_error *err) {
    struct stat exe;
    char path[4096];
    if (fstat(exe_fd, &exe) != 0)
        return hs_fail(err, HS_ERR_NOT_FOUND, "cannot stat the executable: %s", strerror(errno));
    put(t, "heapscope-fingerprint 1\nexe ");
    if (!put_identity(t, exe_fd, &exe))
        return hs_fail(err, HS_ERR_NOT_FOUND, "cannot identify the executable");
    snprintf(path, sizeof path, "%s/maps", dir);
    char *maps = read_small_file(path, MAX_MAPS_BYTES, NULL);
    if (!maps)
        return hs_fail(err, HS_ERR_NOT_FOUND, "cannot read %s: %s", path, strerror(errno));
    file_id *files = NULL;
    size_t n_files = 0, cap = 0;
    exe_id id = {major(exe.st_dev), minor(exe.st_dev), exe.st_ino};
    hs_status st = put_maps(t, maps, id, out, &files, &n_files, &cap, err);
    for (size_t i = 0; st == HS_OK && i < n_files; i++)
        st = put_library(t, &files[i], err);
    free(files);
    free(maps);
    if (st == HS_OK)
        st = put_cmdline(t, dir, err);
    if (st == HS_OK && t->failed)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (st == HS_OK) {
        out->text = t->s;
        t->s = NULL;
    }
    return st;
}

hs_status cache_fingerprint_dir(const char *dir, cache_fingerprint *out, hs_error *err) {
    *out = (cache_fingerprint){0};
    char path[4096];
    if (snprintf(path, sizeof path, "%s/exe", dir) >= (int)sizeof path)
        return hs_fail(err, HS_ERR_TOO_LARGE, "path too long: %s", dir);
    ssize_t n = readlink(path, out->exe, sizeof out->exe - 1);
    out->exe[n > 0 ? n : 0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return hs_fail(err, HS_ERR_NOT_FOUND, "cannot open %s: %s", path, strerror(errno));
    text t = {0};
    hs_status st = fingerprint(dir, out, &t, fd, err);
    close(fd);
    free(t.s);
    if (st != HS_OK)
        cache_fingerprint_free(out);
    return st;
}

hs_status cache_fingerprint_pid(pid_t pid, cache_fingerprint *out, hs_error *err) {
    *out = (cache_fingerprint){0};
    if (pid <= 0)
        return hs_fail(err, HS_ERR_NOT_FOUND, "no process id (not a local Unix socket)");
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld", (long)pid);
    return cache_fingerprint_dir(dir, out, err);
}

void cache_fingerprint_free(cache_fingerprint *f) {
    free(f->text);
    free(f->moving);
    f->text = NULL;
    f->moving = NULL;
    f->n_moving = 0;
}
