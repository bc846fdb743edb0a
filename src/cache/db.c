/* The cache database: where it lives, its schema, and opening it so that
 * several heapscope processes can share it (WAL, a busy timeout, schema
 * creation inside an IMMEDIATE transaction that re-checks the version). */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/store.h"
#include "cache_internal.h"

static const char schema_sql[] =
    /* one row per fingerprint: a program image seen before */
    "CREATE TABLE programs(id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE,"
    " exe TEXT NOT NULL, first_seen INTEGER NOT NULL, last_used INTEGER NOT NULL);"
    /* immutable answers, by program and by what identifies them */
    "CREATE TABLE info_tables(program INTEGER NOT NULL, info INTEGER NOT NULL,"
    " bytes BLOB NOT NULL, PRIMARY KEY(program, info)) WITHOUT ROWID;"
    "CREATE TABLE srts(program INTEGER NOT NULL, info INTEGER NOT NULL, srt INTEGER NOT NULL,"
    " PRIMARY KEY(program, info)) WITHOUT ROWID;"
    "CREATE TABLE con_descs(program INTEGER NOT NULL, info INTEGER NOT NULL,"
    " text TEXT, PRIMARY KEY(program, info)) WITHOUT ROWID;" /* text NULL: none */
    "CREATE TABLE source_infos(program INTEGER NOT NULL, info INTEGER NOT NULL,"
    " available INTEGER NOT NULL, found INTEGER NOT NULL, name TEXT, closure_type_text TEXT,"
    " closure_type INTEGER NOT NULL, type TEXT, label TEXT, module TEXT, position TEXT,"
    " PRIMARY KEY(program, info)) WITHOUT ROWID;"
    "CREATE TABLE frame_bitmaps(program INTEGER NOT NULL, info INTEGER NOT NULL,"
    " bits BLOB NOT NULL, PRIMARY KEY(program, info)) WITHOUT ROWID;"
    "CREATE TABLE fun_bitmaps(program INTEGER NOT NULL, info INTEGER NOT NULL,"
    " n INTEGER NOT NULL, bits BLOB NOT NULL, PRIMARY KEY(program, info, n)) WITHOUT ROWID;"
    /* recorded pauses: one snapshot file each, in the pauses/ directory */
    "CREATE TABLE pauses(id INTEGER PRIMARY KEY, file TEXT NOT NULL UNIQUE,"
    " program TEXT NOT NULL, exe TEXT NOT NULL, pid INTEGER NOT NULL, target TEXT NOT NULL,"
    " paused_at INTEGER NOT NULL, closures INTEGER NOT NULL, heap_bytes INTEGER NOT NULL,"
    " file_bytes INTEGER NOT NULL, recorded_at INTEGER NOT NULL);"
    "CREATE INDEX pauses_by_time ON pauses(paused_at);";

hs_status cache_db_fail(sqlite3 *db, int rc, hs_error *err, const char *doing) {
    char why[256];
    store_sqlite_why(db, rc, why, sizeof why);
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "%s: the cache is damaged (%s); `heapscope cache clear` starts anew",
                       doing, why);
    case SQLITE_FULL: return hs_fail(err, HS_ERR_IO, "%s: the disk is full", doing);
    case SQLITE_NOMEM: return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory", doing);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return hs_fail(err, HS_ERR_TIMEOUT, "%s: another heapscope kept the cache busy", doing);
    default: return hs_fail(err, HS_ERR_IO, "%s: %s", doing, why);
    }
}

hs_status cache_db_exec(cache *c, const char *sql, hs_error *err, const char *doing) {
    int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? HS_OK : cache_db_fail(c->db, rc, err, doing);
}

hs_status cache_db_prepare(cache *c, const char *sql, sqlite3_stmt **st, hs_error *err) {
    int rc = sqlite3_prepare_v2(c->db, sql, -1, st, NULL);
    if (rc == SQLITE_OK)
        return HS_OK;
    *st = NULL;
    return cache_db_fail(c->db, rc, err, "reading the cache");
}

hs_status cache_db_step_done(cache *c, sqlite3_stmt *st, hs_error *err, const char *doing) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? HS_OK : cache_db_fail(c->db, rc, err, doing);
}

hs_status cache_begin(cache *c, hs_error *err) {
    return cache_db_exec(c, "BEGIN IMMEDIATE", err, "writing the cache");
}

hs_status cache_commit(cache *c, hs_status st, hs_error *err) {
    if (st == HS_OK)
        return cache_db_exec(c, "COMMIT", err, "writing the cache");
    sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
    return st;
}

int64_t cache_now(void) { return (int64_t)time(NULL); }

static hs_status put_path(char *buf, size_t cap, hs_error *err, const char *a, const char *b) {
    int n = snprintf(buf, cap, "%s%s", a, b);
    if (n < 0 || (size_t)n >= cap)
        return hs_fail(err, HS_ERR_TOO_LARGE, "cache directory path too long: %s%s", a, b);
    return HS_OK;
}

hs_status cache_default_dir(char *buf, size_t cap, hs_error *err) {
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') /* a relative one is invalid: ignored (XDG spec) */
        return put_path(buf, cap, err, xdg, "/heapscope");
    const char *home = getenv("HOME");
    if (!home || !home[0]) {
        struct passwd *pw = getpwuid(getuid());
        home = pw && pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : NULL;
    }
    if (!home)
        return hs_fail(err, HS_ERR_NOT_FOUND, "no home directory for the cache");
    return put_path(buf, cap, err, home, "/.cache/heapscope");
}

/* mkdir -p, private to the user. */
static hs_status make_dirs(const char *path, hs_error *err) {
    char buf[4096];
    if (put_path(buf, sizeof buf, err, path, "") != HS_OK)
        return HS_ERR_TOO_LARGE;
    for (char *p = buf + 1;; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST)
                return hs_fail(err, HS_ERR_IO, "cannot create %s: %s", buf, strerror(errno));
            if (end)
                break;
            *p = '/';
        }
    }
    return HS_OK;
}

/* A cache another user could write to, or a symlink to one, would let them
 * choose what heapscope believes and which files it removes: refused. */
static hs_status check_private(const char *path, const struct stat *st, const char *what,
                               hs_error *err) {
    if (S_ISLNK(st->st_mode))
        return hs_fail(err, HS_ERR_IO, "%s is a symlink: the cache %s must be a real one",
                       path, what);
    if (st->st_uid != geteuid())
        return hs_fail(err, HS_ERR_IO, "%s belongs to another user (uid %lu): not used as the "
                       "cache %s", path, (unsigned long)st->st_uid, what);
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return hs_fail(err, HS_ERR_IO, "%s is writable by others (mode %03o): not used as the "
                       "cache %s; chmod go-w it", path, (unsigned)(st->st_mode & 0777), what);
    return HS_OK;
}

hs_status cache_check_dir(const char *path, hs_error *err) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return hs_fail(err, HS_ERR_IO, "cannot use %s: %s", path, strerror(errno));
    hs_status s = check_private(path, &st, "directory", err);
    if (s == HS_OK && !S_ISDIR(st.st_mode))
        s = hs_fail(err, HS_ERR_IO, "%s is not a directory", path);
    return s;
}

/* Creates cache.db private (0600) before SQLite opens it, and checks an
 * existing one without following a symlink. An existing file is never
 * opened here: closing a descriptor of it would drop the locks another
 * connection of this process holds on it (POSIX locks are per process). */
static hs_status check_db_file(const char *path, hs_error *err) {
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return HS_OK;
    }
    if (errno != EEXIST)
        return hs_fail(err, HS_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    struct stat st;
    if (lstat(path, &st) != 0)
        return hs_fail(err, HS_ERR_IO, "cannot use %s: %s", path, strerror(errno));
    hs_status s = check_private(path, &st, "database", err);
    if (s == HS_OK && !S_ISREG(st.st_mode))
        s = hs_fail(err, HS_ERR_IO, "%s is not a regular file", path);
    return s;
}

static hs_status pragma_int(cache *c, const char *sql, int64_t *out, hs_error *err) {
    sqlite3_stmt *st;
    hs_status s = cache_db_prepare(c, sql, &st, err);
    if (s != HS_OK)
        return s;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else
        s = cache_db_fail(c->db, rc, err, "reading the cache");
    sqlite3_finalize(st);
    return s;
}

/* Creates the schema unless another process did it first. */
static hs_status create_schema(cache *c, hs_error *err) {
    hs_status st = cache_begin(c, err);
    if (st != HS_OK)
        return st;
    int64_t version = 0;
    st = pragma_int(c, "PRAGMA user_version", &version, err);
    if (st == HS_OK && version == 0) {
        st = cache_db_exec(c, schema_sql, err, "creating the cache");
        char stamp[128];
        snprintf(stamp, sizeof stamp, "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 CACHE_APPLICATION_ID, CACHE_SCHEMA_VERSION);
        if (st == HS_OK)
            st = cache_db_exec(c, stamp, err, "creating the cache");
    }
    return cache_commit(c, st, err);
}

static hs_status check_and_set_up(cache *c, hs_error *err) {
    int64_t app = 0, version = 0, tables = 0;
    /* one read transaction: three separate reads could see the stamp before
     * and the tables after another heapscope's creation, and call the
     * fresh cache foreign */
    hs_status st = cache_db_exec(c, "BEGIN", err, "reading the cache");
    if (st == HS_OK)
        st = pragma_int(c, "PRAGMA application_id", &app, err);
    if (st == HS_OK)
        st = pragma_int(c, "PRAGMA user_version", &version, err);
    if (st == HS_OK)
        st = pragma_int(c, "SELECT count(*) FROM sqlite_master", &tables, err);
    sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    if (st != HS_OK)
        return st;
    bool empty = app == 0 && version == 0 && tables == 0;
    if (!empty && app != CACHE_APPLICATION_ID)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "%s is not a heapscope cache; `heapscope cache clear` replaces it",
                       c->db_path);
    if (version > CACHE_SCHEMA_VERSION)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "%s was made by a newer heapscope (schema %lld, this one reads up to %d)",
                       c->db_path, (long long)version, CACHE_SCHEMA_VERSION);
    if (empty) /* before any table exists: lets deletes give space back */
        st = cache_db_exec(c, "PRAGMA auto_vacuum = INCREMENTAL", err, "creating the cache");
    int64_t ignored;
    if (st == HS_OK) /* persistent once set; waits out a concurrent opener */
        st = pragma_int(c, "PRAGMA journal_mode = WAL", &ignored, err);
    if (st == HS_OK)
        st = cache_db_exec(c, "PRAGMA synchronous = NORMAL", err, "opening the cache");
    if (st == HS_OK && version == 0)
        st = create_schema(c, err);
    return st;
}

hs_status cache_open(const cache_options *opts, cache **out, hs_error *err) {
    *out = NULL;
    cache *c = calloc(1, sizeof *c);
    if (!c)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    c->max_bytes = opts && opts->max_bytes ? opts->max_bytes : CACHE_DEFAULT_MAX_BYTES;
    int busy_ms = opts && opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms
                                                     : CACHE_DEFAULT_BUSY_TIMEOUT_MS;
    hs_status st = opts && opts->dir ? put_path(c->dir, sizeof c->dir, err, opts->dir, "")
                                     : cache_default_dir(c->dir, sizeof c->dir, err);
    if (st == HS_OK)
        st = make_dirs(c->dir, err);
    if (st == HS_OK)
        st = cache_check_dir(c->dir, err);
    if (st == HS_OK)
        st = put_path(c->db_path, sizeof c->db_path, err, c->dir, "/cache.db");
    if (st == HS_OK)
        st = check_db_file(c->db_path, err);
    if (st == HS_OK) {
        int rc = sqlite3_open_v2(c->db_path, &c->db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
        if (rc != SQLITE_OK)
            st = cache_db_fail(c->db, rc, err, "opening the cache");
    }
    if (st == HS_OK) {
        sqlite3_busy_timeout(c->db, busy_ms);
        st = check_and_set_up(c, err);
    }
    if (st == HS_OK) /* what a heapscope killed mid-recording left */
        st = cache_remove_orphans(c, err);
    if (st != HS_OK) {
        hs_fail_context(err, "cache %s", c->db_path[0] ? c->db_path : c->dir);
        cache_close(c);
        return st;
    }
    *out = c;
    return HS_OK;
}

void cache_close(cache *c) {
    if (!c)
        return;
    sqlite3_close(c->db);
    free(c);
}

const char *cache_dir(const cache *c) { return c->dir; }
const char *cache_db_path(const cache *c) { return c->db_path; }
uint64_t cache_max_bytes(const cache *c) { return c->max_bytes; }

hs_status cache_program(cache *c, const cache_fingerprint *fp, int64_t *id, hs_error *err) {
    sqlite3_stmt *find = NULL, *add = NULL, *touch = NULL;
    hs_status st = cache_begin(c, err);
    if (st == HS_OK)
        st = cache_db_prepare(c, "SELECT id FROM programs WHERE fingerprint = ?1", &find, err);
    if (st == HS_OK)
        st = cache_db_prepare(c,
                              "INSERT INTO programs(fingerprint, exe, first_seen, last_used)"
                              " VALUES (?1, ?2, ?3, ?3)",
                              &add, err);
    if (st == HS_OK)
        st = cache_db_prepare(c, "UPDATE programs SET last_used = ?2 WHERE id = ?1", &touch,
                              err);
    if (st == HS_OK) {
        sqlite3_bind_text(find, 1, fp->text, -1, SQLITE_STATIC);
        int rc = sqlite3_step(find);
        if (rc == SQLITE_ROW) {
            *id = sqlite3_column_int64(find, 0);
            sqlite3_bind_int64(touch, 1, *id);
            sqlite3_bind_int64(touch, 2, cache_now());
            st = cache_db_step_done(c, touch, err, "writing the cache");
        } else if (rc == SQLITE_DONE) {
            sqlite3_bind_text(add, 1, fp->text, -1, SQLITE_STATIC);
            sqlite3_bind_text(add, 2, fp->exe, -1, SQLITE_STATIC);
            sqlite3_bind_int64(add, 3, cache_now());
            st = cache_db_step_done(c, add, err, "writing the cache");
            *id = sqlite3_last_insert_rowid(c->db);
        } else {
            st = cache_db_fail(c->db, rc, err, "reading the cache");
        }
    }
    sqlite3_finalize(find);
    sqlite3_finalize(add);
    sqlite3_finalize(touch);
    return cache_commit(c, st, err);
}
