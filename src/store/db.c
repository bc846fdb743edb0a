/* SQLite calls as hs_status values with messages a person can act on. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "heapscope/interrupt.h"
#include "store_internal.h"

void store_sqlite_why(sqlite3 *db, int rc, char *buf, size_t cap) {
    int ext = db ? sqlite3_extended_errcode(db) : rc;
    int sys = db && (rc & 0xff) == SQLITE_IOERR ? sqlite3_system_errno(db) : 0;
    struct rlimit fsize;
    if (sys)
        snprintf(buf, cap, "%s (%s)", sqlite3_errmsg(db), strerror(sys));
    else if (ext == SQLITE_IOERR_WRITE && getrlimit(RLIMIT_FSIZE, &fsize) == 0 &&
             fsize.rlim_cur != RLIM_INFINITY)
        /* SQLite often loses the errno (EFBIG) on the way up */
        snprintf(buf, cap, "%s (the file size limit, ulimit -f, is %llu bytes)",
                 sqlite3_errmsg(db), (unsigned long long)fsize.rlim_cur);
    else
        snprintf(buf, cap, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

hs_status store_db_fail(sqlite3 *db, int rc, hs_error *err, const char *doing) {
    char why[256];
    store_sqlite_why(db, rc, why, sizeof why);
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
        return hs_fail(err, HS_ERR_PROTOCOL, "%s: the file is damaged (%s)", doing, why);
    case SQLITE_FULL: return hs_fail(err, HS_ERR_IO, "%s: the disk is full", doing);
    case SQLITE_NOMEM: return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory", doing);
    case SQLITE_TOOBIG: return hs_fail(err, HS_ERR_TOO_LARGE, "%s: %s", doing, why);
    case SQLITE_INTERRUPT:
        /* the snapshot's guard (snapshot.c): a signal, or a query past its budget */
        if (hs_interrupt_signal())
            return hs_fail(err, HS_ERR_CANCELLED, "%s: interrupted by %s", doing,
                           hs_interrupt_name(hs_interrupt_signal()));
        return hs_fail(err, HS_ERR_TOO_LARGE,
                       "%s: stopped after %d million SQLite steps for one row (heapscope's "
                       "files need far fewer: a crafted or damaged file)",
                       doing, STORE_GUARD_EVERY * STORE_GUARD_CALLS / 1000000);
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return hs_fail(err, HS_ERR_IO, "%s: %s", doing, why);
    default: return hs_fail(err, HS_ERR_PROTOCOL, "%s: %s", doing, why);
    }
}

hs_status store_db_exec(sqlite3 *db, const char *sql, hs_error *err) {
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? HS_OK : store_db_fail(db, rc, err, "writing the snapshot");
}

hs_status store_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, hs_error *err) {
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    if (rc == SQLITE_OK)
        return HS_OK;
    *st = NULL;
    return store_db_fail(db, rc, err, "reading the snapshot's tables");
}

hs_status store_db_step_done(sqlite3 *db, sqlite3_stmt *st, hs_error *err, const char *doing) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? HS_OK : store_db_fail(db, rc, err, doing);
}
