/* Recorded pauses: one snapshot file each in DIR/pauses/ (written by the
 * store, atomically), indexed by a row of the pauses table. A file per
 * pause makes a cached pause open like any snapshot, lets the size cap
 * give space back by unlinking (one big database would need a VACUUM), and
 * keeps a long recording from holding the database's write lock.
 *
 * The row is added after the file is complete; a file without a row (a
 * crash in between) or a row without a file is cleaned up by cache_trim,
 * so the index never names what is not there. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/grow.h"
#include "heapscope/store.h"
#include "cache_internal.h"

#define PAUSES_DIR "pauses"
#define PAUSE_SUFFIX ".hsnap"
/* A temporary file of the store's atomic writer untouched for this long
 * belongs to a heapscope that died while recording, whatever pid its name
 * gives (one of a dead writer goes at once: writer_pid). */
#define STALE_TMP_SECONDS 3600

static hs_status pauses_dir(const cache *c, char *buf, size_t cap, hs_error *err) {
    if ((size_t)snprintf(buf, cap, "%s/" PAUSES_DIR, c->dir) >= cap)
        return hs_fail(err, HS_ERR_TOO_LARGE, "cache directory path too long");
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return hs_fail(err, HS_ERR_IO, "cannot create %s: %s", buf, strerror(errno));
    return cache_check_dir(buf, err); /* pause files are written by path */
}

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The name of a pause file inside pauses/ when `file` (a row's column:
 * untrusted) is one: DIR/pauses/NAME or NAME, NAME a plain file name of
 * ours (no '/', no leading '.', the pause suffix); else NULL. */
static const char *own_name(const cache *c, const char *file) {
    size_t dn = strlen(c->dir), pn = strlen(PAUSES_DIR);
    const char *name = file;
    if (strncmp(file, c->dir, dn) == 0 && file[dn] == '/' &&
        strncmp(file + dn + 1, PAUSES_DIR, pn) == 0 && file[dn + 1 + pn] == '/')
        name = file + dn + 1 + pn + 1;
    size_t n = strlen(name), sn = strlen(PAUSE_SUFFIX);
    if (n <= sn || name[0] == '.' || strchr(name, '/') ||
        strcmp(name + n - sn, PAUSE_SUFFIX) != 0)
        return NULL;
    return name;
}

/* pauses/ opened without following a symlink; -1 when it cannot be. */
static int open_pauses_dir(const cache *c) {
    char dir[4200];
    if ((size_t)snprintf(dir, sizeof dir, "%s/" PAUSES_DIR, c->dir) >= sizeof dir)
        return -1;
    return open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* What a row's file is: a regular file of pauses/ (its size in *bytes),
 * one that is gone, or a path that is no file of this cache (never
 * opened, never deleted). */
typedef enum row_file { ROW_FILE_OURS, ROW_FILE_GONE, ROW_FILE_FOREIGN } row_file;

static row_file classify(const cache *c, int dirfd, const char *file, uint64_t *bytes) {
    const char *name = own_name(c, file);
    if (!name)
        return ROW_FILE_FOREIGN;
    struct stat st;
    if (dirfd < 0 || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return ROW_FILE_GONE;
    if (!S_ISREG(st.st_mode))
        return ROW_FILE_FOREIGN; /* a symlink or a device put there: not ours */
    if (bytes)
        *bytes = (uint64_t)st.st_size;
    return ROW_FILE_OURS;
}

/* The pid of the heapscope that wrote a pause file or is writing its
 * temporary file (".NAME.XXXXXX.tmp"): NAME is TIME-PID-WRITER-COUNTER
 * plus the pause suffix (see new_pause_path); 0 when the name says none. */
static long writer_pid(const char *name) {
    const char *end = strstr(name, PAUSE_SUFFIX);
    const char *p = end;
    int dashes = 0;
    while (p && p > name && dashes < 2)
        if (*--p == '-')
            dashes++;
    if (!p || dashes < 2)
        return 0;
    char *stop;
    long pid = strtol(p + 1, &stop, 10);
    return stop != p + 1 && *stop == '-' && pid > 0 && pid <= INT_MAX ? pid : 0;
}

/* Whether a process may still be writing: its pid is alive (ours counts:
 * a recorder thread). Unknown writers are judged by age instead. */
static bool writer_alive(long pid) {
    if (pid == (long)getpid())
        return true;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static bool is_tmp_name(const char *name) {
    size_t n = strlen(name);
    return name[0] == '.' && n > 4 && strcmp(name + n - 4, ".tmp") == 0;
}

/* A name no other process picks: time, pid of the program, our pid, a
 * counter. */
static hs_status new_pause_path(const cache *c, const store_meta *m, char *path, size_t cap,
                                hs_error *err) {
    static unsigned counter;
    char dir[4096], when[32];
    hs_status st = pauses_dir(c, dir, sizeof dir, err);
    if (st != HS_OK)
        return st;
    time_t t = (time_t)m->paused_at;
    struct tm tm;
    strftime(when, sizeof when, "%Y%m%d-%H%M%S", gmtime_r(&t, &tm));
    if ((size_t)snprintf(path, cap, "%s/%s-%" PRId64 "-%ld-%u" PAUSE_SUFFIX, dir, when, m->pid,
                         (long)getpid(), counter++) >= cap)
        return hs_fail(err, HS_ERR_TOO_LARGE, "cache directory path too long");
    return HS_OK;
}

static hs_status trim_keeping(cache *c, int64_t keep, hs_error *err);

static hs_status add_row(cache *c, const cache_pause *p, int64_t *id, hs_error *err) {
    sqlite3_stmt *st = NULL;
    hs_status s = cache_begin(c, err);
    if (s == HS_OK)
        s = cache_db_prepare(c,
                             "INSERT INTO pauses(file, program, exe, pid, target, paused_at,"
                             " closures, heap_bytes, file_bytes, recorded_at)"
                             " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                             &st, err);
    if (s == HS_OK) {
        sqlite3_bind_text(st, 1, p->file, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, p->program, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, p->exe, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, p->pid);
        sqlite3_bind_text(st, 5, p->target, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, p->paused_at);
        sqlite3_bind_int64(st, 7, (sqlite3_int64)p->closures);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)p->heap_bytes);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)p->file_bytes);
        sqlite3_bind_int64(st, 10, cache_now());
        s = cache_db_step_done(c, st, err, "recording the pause");
        *id = sqlite3_last_insert_rowid(c->db);
    }
    sqlite3_finalize(st);
    return cache_commit(c, s, err);
}

hs_status cache_record(cache *c, heap *h, const store_meta *meta, const char *exe,
                       const store_write_options *opts, cache_pause *out, hs_error *err) {
    cache_pause p = {.pid = meta->pid, .paused_at = meta->paused_at};
    hs_status st = new_pause_path(c, meta, p.file, sizeof p.file, err);
    if (st == HS_OK)
        st = store_snapshot_write(h, p.file, meta, opts, err);
    if (st != HS_OK)
        return hs_fail_context(err, "recording the pause in the cache");
    store_snapshot *snap;
    st = store_snapshot_open(p.file, &snap, err);
    if (st == HS_OK) {
        const store_meta *m = store_snapshot_meta(snap);
        p.closures = m->closures;
        p.heap_bytes = m->heap_bytes;
        store_snapshot_close(snap);
    }
    snprintf(p.program, sizeof p.program, "%s", meta->program);
    snprintf(p.exe, sizeof p.exe, "%s", exe ? exe : "");
    snprintf(p.target, sizeof p.target, "%s", meta->target);
    p.file_bytes = file_size(p.file);
    if (st == HS_OK)
        st = add_row(c, &p, &p.id, err);
    if (st != HS_OK) {
        unlink(p.file);
        return hs_fail_context(err, "recording the pause in the cache");
    }
    if (out)
        *out = p;
    hs_error trim_err;
    trim_keeping(c, p.id, &trim_err); /* a cap not met now is met at the next recording */
    return HS_OK;
}

/* ---- listing ---- */

static void column(sqlite3_stmt *st, int i, char *buf, size_t cap) {
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, cap, "%s", t ? (const char *)t : "");
}

/* Rows newest first (oldest first with oldest_first). */
static hs_status read_rows(cache *c, bool oldest_first, cache_pause_list *out, hs_error *err) {
    *out = (cache_pause_list){0};
    sqlite3_stmt *st;
    hs_status s = cache_db_prepare(
        c,
        oldest_first ? "SELECT id, file, program, exe, pid, target, paused_at, closures,"
                       " heap_bytes, file_bytes FROM pauses ORDER BY paused_at, id"
                     : "SELECT id, file, program, exe, pid, target, paused_at, closures,"
                       " heap_bytes, file_bytes FROM pauses ORDER BY paused_at DESC, id DESC",
        &st, err);
    if (s != HS_OK)
        return s;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!hs_grow((void **)&out->items, &cap, out->count + 1, sizeof *out->items)) {
            s = hs_fail(err, HS_ERR_NOMEM, "out of memory listing the cache");
            break;
        }
        cache_pause *p = &out->items[out->count++];
        *p = (cache_pause){.id = sqlite3_column_int64(st, 0),
                           .pid = sqlite3_column_int64(st, 4),
                           .paused_at = sqlite3_column_int64(st, 6),
                           .closures = (uint64_t)sqlite3_column_int64(st, 7),
                           .heap_bytes = (uint64_t)sqlite3_column_int64(st, 8),
                           .file_bytes = (uint64_t)sqlite3_column_int64(st, 9)};
        column(st, 1, p->file, sizeof p->file);
        column(st, 2, p->program, sizeof p->program);
        column(st, 3, p->exe, sizeof p->exe);
        column(st, 5, p->target, sizeof p->target);
    }
    if (s == HS_OK && rc != SQLITE_DONE)
        s = cache_db_fail(c->db, rc, err, "listing the cache");
    sqlite3_finalize(st);
    if (s != HS_OK)
        cache_pause_list_free(out);
    return s;
}

/* The rows whose file classify() puts in `kind`. */
static hs_status rows_of_kind(cache *c, row_file kind, cache_pause_list *out, hs_error *err) {
    hs_status s = read_rows(c, false, out, err);
    if (s != HS_OK)
        return s;
    int dirfd = open_pauses_dir(c);
    size_t kept = 0;
    for (size_t i = 0; i < out->count; i++)
        if (classify(c, dirfd, out->items[i].file, NULL) == kind)
            out->items[kept++] = out->items[i];
    out->count = kept;
    if (dirfd >= 0)
        close(dirfd);
    return HS_OK;
}

/* A file deleted behind our back is not listed, nor a row naming a file
 * that is not one of this cache's (cache_list_foreign lists those). */
hs_status cache_list_pauses(cache *c, cache_pause_list *out, hs_error *err) {
    return rows_of_kind(c, ROW_FILE_OURS, out, err);
}

hs_status cache_list_foreign(cache *c, cache_pause_list *out, hs_error *err) {
    return rows_of_kind(c, ROW_FILE_FOREIGN, out, err);
}

void cache_pause_list_free(cache_pause_list *l) {
    free(l->items);
    *l = (cache_pause_list){0};
}

/* ---- forgetting ---- */

hs_status cache_forget_pause(cache *c, int64_t id, hs_error *err) {
    sqlite3_stmt *find = NULL, *del = NULL;
    char file[4096] = "";
    hs_status s = cache_begin(c, err);
    if (s == HS_OK)
        s = cache_db_prepare(c, "SELECT file FROM pauses WHERE id = ?1", &find, err);
    if (s == HS_OK)
        s = cache_db_prepare(c, "DELETE FROM pauses WHERE id = ?1", &del, err);
    if (s == HS_OK) {
        sqlite3_bind_int64(find, 1, id);
        if (sqlite3_step(find) == SQLITE_ROW)
            column(find, 0, file, sizeof file);
        sqlite3_bind_int64(del, 1, id);
        s = cache_db_step_done(c, del, err, "forgetting a pause");
    }
    sqlite3_finalize(find);
    sqlite3_finalize(del);
    s = cache_commit(c, s, err);
    /* the row goes first: never a row without its file; and only a file of
     * pauses/ is removed, whatever the row says (unlinkat removes a
     * symlink itself, never what it points to) */
    const char *name = own_name(c, file);
    int dirfd = name ? open_pauses_dir(c) : -1;
    if (s == HS_OK && dirfd >= 0)
        unlinkat(dirfd, name, 0);
    if (dirfd >= 0)
        close(dirfd);
    return s;
}

/* Files in pauses/ that no row names (a crash between the write and the
 * row), and temporary files of the writer, once their writer is dead (or,
 * for a name without a pid, after an hour). *tmp_bytes and *tmp_files
 * count the temporary files left (NULL: not counted). */
static void scan_pauses(cache *c, const cache_pause_list *rows, bool remove, uint64_t *tmp_bytes,
                        uint64_t *tmp_files) {
    int dirfd = open_pauses_dir(c);
    DIR *d = dirfd >= 0 ? fdopendir(dirfd) : NULL;
    if (!d) {
        if (dirfd >= 0)
            close(dirfd);
        return;
    }
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        bool tmp = is_tmp_name(e->d_name);
        struct stat st;
        if ((!tmp && !own_name(c, e->d_name)) ||
            fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        long pid = writer_pid(e->d_name);
        /* a dead writer's file goes now; any untouched for an hour too (its
         * writer's pid may have been reused; a live writer keeps it fresh) */
        bool abandoned = (pid && !writer_alive(pid)) || now - st.st_mtime > STALE_TMP_SECONDS;
        bool named = false;
        for (size_t i = 0; !tmp && rows && i < rows->count && !named; i++) {
            const char *row_name = own_name(c, rows->items[i].file);
            named = row_name && strcmp(row_name, e->d_name) == 0;
        }
        /* a file just written whose row is being added has a live writer */
        if (remove && !named && abandoned && unlinkat(dirfd, e->d_name, 0) == 0)
            continue;
        if (tmp && tmp_bytes)
            *tmp_bytes += (uint64_t)st.st_size;
        if (tmp && tmp_files)
            (*tmp_files)++;
    }
    closedir(d);
}

static void remove_orphans(cache *c, const cache_pause_list *rows) {
    scan_pauses(c, rows, true, NULL, NULL);
}

hs_status cache_remove_orphans(cache *c, hs_error *err) {
    cache_pause_list rows;
    hs_status s = read_rows(c, true, &rows, err);
    if (s == HS_OK)
        remove_orphans(c, &rows);
    cache_pause_list_free(&rows);
    return s;
}

hs_status cache_usage_get(cache *c, cache_usage *out, hs_error *err) {
    *out = (cache_usage){.max_bytes = c->max_bytes};
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", c->db_path);
    out->db_bytes = file_size(c->db_path) + file_size(wal);
    cache_pause_list l;
    hs_status s = read_rows(c, false, &l, err);
    if (s != HS_OK)
        return s;
    int dirfd = open_pauses_dir(c);
    for (size_t i = 0; i < l.count; i++) {
        uint64_t bytes = 0; /* the file's real size: the row's is untrusted */
        if (classify(c, dirfd, l.items[i].file, &bytes) != ROW_FILE_OURS)
            continue;
        out->pause_bytes += bytes;
        out->pauses++;
    }
    if (dirfd >= 0)
        close(dirfd);
    cache_pause_list_free(&l);
    scan_pauses(c, NULL, false, &out->tmp_bytes, &out->tmp_files);
    sqlite3_stmt *st;
    s = cache_db_prepare(c, "SELECT count(*) FROM programs", &st, err);
    if (s == HS_OK && sqlite3_step(st) == SQLITE_ROW)
        out->programs = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return s;
}

/* Drops the immutable rows of the program used longest ago; *dropped is
 * false when there was none. */
static hs_status drop_oldest_program(cache *c, bool *dropped, hs_error *err) {
    static const char *const tables[] = {"info_tables",  "srts",          "con_descs",
                                         "source_infos", "frame_bitmaps", "fun_bitmaps",
                                         "programs"};
    *dropped = false;
    sqlite3_stmt *st;
    int64_t id = -1;
    hs_status s = cache_begin(c, err);
    if (s == HS_OK)
        s = cache_db_prepare(c, "SELECT id FROM programs ORDER BY last_used, id LIMIT 1", &st,
                             err);
    if (s == HS_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    char sql[128];
    for (size_t i = 0; s == HS_OK && id >= 0 && i < sizeof tables / sizeof *tables; i++) {
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s = %lld", tables[i],
                 strcmp(tables[i], "programs") == 0 ? "id" : "program", (long long)id);
        s = cache_db_exec(c, sql, err, "trimming the cache");
    }
    s = cache_commit(c, s, err);
    *dropped = s == HS_OK && id >= 0;
    return s;
}

/* cache_trim, never removing the pause `keep` (the one just recorded, which
 * stays even when it alone is over the cap). */
static hs_status trim_keeping(cache *c, int64_t keep, hs_error *err) {
    cache_pause_list rows;
    hs_status s = read_rows(c, true, &rows, err);
    if (s != HS_OK)
        return s;
    remove_orphans(c, &rows);
    cache_usage u;
    s = cache_usage_get(c, &u, err);
    uint64_t total = u.db_bytes + u.pause_bytes + u.tmp_bytes;
    int dirfd = open_pauses_dir(c);
    for (size_t i = 0; s == HS_OK && i < rows.count; i++) {
        uint64_t bytes = 0;
        row_file f = classify(c, dirfd, rows.items[i].file, &bytes);
        if (f == ROW_FILE_FOREIGN) { /* its row is dropped, the file left alone */
            s = cache_forget_pause(c, rows.items[i].id, err);
            continue;
        }
        bool gone = f == ROW_FILE_GONE;
        if (!gone && (total <= c->max_bytes || rows.items[i].id == keep))
            continue; /* oldest first: drop until under the cap */
        s = cache_forget_pause(c, rows.items[i].id, err);
        if (!gone)
            total -= bytes < total ? bytes : total;
    }
    if (dirfd >= 0)
        close(dirfd);
    cache_pause_list_free(&rows);
    /* still over with no pause left: the answers of programs not used lately */
    bool dropped = true;
    while (s == HS_OK && total > c->max_bytes && dropped) {
        s = drop_oldest_program(c, &dropped, err);
        if (s == HS_OK)
            s = cache_db_exec(c, "PRAGMA incremental_vacuum", err, "trimming the cache");
        char wal[4200];
        snprintf(wal, sizeof wal, "%s-wal", c->db_path);
        total = file_size(c->db_path) + file_size(wal);
    }
    return s;
}

hs_status cache_trim(cache *c, hs_error *err) { return trim_keeping(c, -1, err); }

hs_status cache_clear(const cache_options *opts, hs_error *err) {
    char dir[4096], path[8192];
    hs_status s = opts && opts->dir ? HS_OK : cache_default_dir(dir, sizeof dir, err);
    if (s != HS_OK)
        return s;
    if (opts && opts->dir)
        snprintf(dir, sizeof dir, "%s", opts->dir);
    struct stat dst;
    if (lstat(dir, &dst) != 0 && errno == ENOENT)
        return HS_OK; /* nothing to clear */
    s = cache_check_dir(dir, err); /* never clear through a symlink or in another's */
    if (s != HS_OK)
        return s;
    /* only what heapscope made: the database and the recorded pauses */
    static const char *const db_files[] = {"cache.db", "cache.db-wal", "cache.db-shm"};
    for (size_t i = 0; i < sizeof db_files / sizeof *db_files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, db_files[i]);
        if (unlink(path) != 0 && errno != ENOENT)
            return hs_fail(err, HS_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/" PAUSES_DIR, dir);
    hs_error ignored;
    if (cache_check_dir(path, &ignored) != HS_OK)
        return HS_OK; /* absent, or not ours to empty: the database is gone anyway */
    DIR *d = opendir(path);
    if (!d)
        return HS_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        bool ours = (n > strlen(PAUSE_SUFFIX) &&
                     strcmp(e->d_name + n - strlen(PAUSE_SUFFIX), PAUSE_SUFFIX) == 0) ||
                    (e->d_name[0] == '.' && n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0);
        char file[8448];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (ours && unlink(file) != 0 && errno != ENOENT)
            s = hs_fail(err, HS_ERR_IO, "cannot remove %s: %s", file, strerror(errno));
    }
    closedir(d);
    rmdir(path); /* fails, harmlessly, if something else lives there */
    return s;
}
