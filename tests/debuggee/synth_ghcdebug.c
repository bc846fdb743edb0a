/* The imitated ghc-debug client's plumbing: requests answered in process
 * by this debuggee's own server (synth_handle_request writes its frames to
 * a memory file, read back and joined here), the request cache keyed by the
 * request bytes, and the snapshot file: each cached request and its answer
 * re-encoded as ghc-debug's RequestCache encodes it (putResponseBinary). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "synth_ghcdebug.h"
#include "synth_server_int.h"

#define MAX_REQ 20u
#define MAX_ANSWER ((size_t)1 << 36) /* from another debuggee */

typedef struct gw_entry {
    uint8_t req[MAX_REQ];
    uint8_t req_len;
    uint8_t cmd;
    uint64_t hash;
    uint8_t *body;
    size_t len;
} gw_entry;

struct gw {
    const synth_process *p; /* in process: this heap, answered by its server */
    synth_state st;
    synth_out out;
    int fd;                 /* the memory file the server writes, or the socket */
    bool remote;            /* fd is a connection to another debuggee */
    gw_entry *entries;
    size_t n, cap;
    size_t *slots; /* open addressing over entries, index + 1; 0 = empty */
    size_t n_slots;
    uint8_t *frames; /* read-back buffer */
    size_t frames_cap;
    char *err;
    size_t errlen;
    bool failed;
};

void gw_fatal(gw *w, const char *fmt, ...) {
    if (w->failed)
        return;
    w->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errlen, fmt, ap);
    va_end(ap);
}

bool gw_failed(const gw *w) { return w->failed; }

static uint64_t hash_bytes(const uint8_t *b, size_t n) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(1099511628211);
    return h ^ (h >> 29);
}

/* The request bytes as ghc-debug's putRequest writes them. */
static size_t encode_request(uint8_t *b, uint32_t cmd, uint64_t k1, uint32_t k2) {
    uint8_t *p = b + 8;
    switch (cmd) {
    case SYNTH_CMD_CLOSURES: case SYNTH_CMD_INFO_TABLES: case SYNTH_CMD_SRT:
        hs_store_be16(p, 1);
        hs_store_le64(p + 2, k1);
        p += 10;
        break;
    case SYNTH_CMD_STACK_BITMAP:
        hs_store_le64(p, k1);
        hs_store_be32(p + 8, k2);
        p += 12;
        break;
    case SYNTH_CMD_FUN_BITMAP:
        hs_store_le64(p, k1);
        hs_store_be16(p + 8, (uint16_t)k2);
        p += 10;
        break;
    case SYNTH_CMD_CON_DESC: case SYNTH_CMD_SOURCE_INFO: case SYNTH_CMD_BLOCK:
    case SYNTH_CMD_CCS: case SYNTH_CMD_CC: case SYNTH_CMD_INDEX_TABLE:
        hs_store_le64(p, k1);
        p += 8;
        break;
    default:
        break;
    }
    size_t len = (size_t)(p - b);
    hs_store_be32(b, (uint32_t)(len - 4));
    hs_store_be32(b + 4, cmd);
    return len;
}

static gw_entry *lookup(gw *w, const uint8_t *req, size_t len, uint64_t h, size_t *slot) {
    size_t mask = w->n_slots - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        size_t v = w->slots[i];
        if (v == 0) {
            *slot = i;
            return NULL;
        }
        gw_entry *e = &w->entries[v - 1];
        if (e->hash == h && e->req_len == len && memcmp(e->req, req, len) == 0)
            return e;
    }
}

static bool grow_slots(gw *w) {
    size_t n = w->n_slots ? w->n_slots * 2 : 1024;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t k = 0; k < w->n; k++) {
        size_t i = w->entries[k].hash & (n - 1);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = k + 1;
    }
    free(w->slots);
    w->slots = s;
    w->n_slots = n;
    return true;
}

/* Runs one request through the server; joins the frames of its answer
 * into a fresh buffer. Returns the final status. */
static uint16_t serve(gw *w, const uint8_t *req, size_t len, uint8_t **body, size_t *blen) {
    *body = NULL;
    *blen = 0;
    if (ftruncate(w->fd, 0) != 0 || lseek(w->fd, 0, SEEK_SET) != 0) {
        gw_fatal(w, "memory file: %s", strerror(errno));
        return SYNTH_BAD_COMMAND;
    }
    synth_handle_request(w->p, &w->st, &w->out, hs_load_be32(req + 4), req + 8, len - 8);
    struct stat sb;
    if (w->out.failed || fstat(w->fd, &sb) != 0) {
        gw_fatal(w, "memory file: cannot write an answer");
        return SYNTH_BAD_COMMAND;
    }
    size_t size = (size_t)sb.st_size;
    if (size > w->frames_cap) {
        free(w->frames);
        w->frames_cap = size;
        if (!(w->frames = malloc(size))) {
            w->frames_cap = 0;
            gw_fatal(w, "out of memory for a %zu-byte answer", size);
            return SYNTH_BAD_COMMAND;
        }
    }
    if (pread(w->fd, w->frames, size, 0) != (ssize_t)size) {
        gw_fatal(w, "memory file: short read");
        return SYNTH_BAD_COMMAND;
    }
    uint8_t *out = malloc(size ? size : 1);
    if (!out) {
        gw_fatal(w, "out of memory for a %zu-byte answer", size);
        return SYNTH_BAD_COMMAND;
    }
    size_t at = 0, n = 0;
    uint16_t status = SYNTH_BAD_COMMAND;
    while (at + 6 <= size) {
        uint32_t flen = hs_load_be32(w->frames + at);
        status = hs_load_be16(w->frames + at + 4);
        memcpy(out + n, w->frames + at + 6, flen);
        n += flen;
        at += 6 + (size_t)flen;
        if (status != SYNTH_OKAY_CONTINUES)
            break;
    }
    if (status != SYNTH_OKAY) {
        free(out);
        return status;
    }
    *body = out;
    *blen = n;
    return status;
}

static bool io_all(gw *w, bool sending, void *buf, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t r = sending ? send(w->fd, (uint8_t *)buf + done, n - done, MSG_NOSIGNAL)
                            : recv(w->fd, (uint8_t *)buf + done, n - done, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            gw_fatal(w, "the debuggee %s", r == 0 ? "closed the connection" : strerror(errno));
            return false;
        }
        done += (size_t)r;
    }
    return true;
}

/* The same from another debuggee over its socket: the request as is, the
 * answer's frames joined (wire-protocol.md §5). */
static uint16_t serve_remote(gw *w, const uint8_t *req, size_t len, uint8_t **body,
                             size_t *blen) {
    *body = NULL;
    *blen = 0;
    if (!io_all(w, true, (void *)req, len))
        return SYNTH_BAD_COMMAND;
    uint8_t *out = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        uint8_t h[6];
        if (!io_all(w, false, h, sizeof h))
            break;
        uint32_t flen = hs_load_be32(h);
        uint16_t status = hs_load_be16(h + 4);
        if (flen > MAX_ANSWER - n) {
            gw_fatal(w, "an answer of more than %zu bytes", n + (size_t)flen);
            break;
        }
        if (n + flen + 1 > cap) { /* doubling: answers come in many small frames */
            size_t want = cap ? cap : 4096;
            while (want < n + flen + 1)
                want *= 2;
            uint8_t *grown = realloc(out, want);
            if (!grown) {
                gw_fatal(w, "out of memory for an answer of %zu bytes", n + (size_t)flen);
                break;
            }
            out = grown;
            cap = want;
        }
        if (!io_all(w, false, out + n, flen))
            break;
        n += flen;
        if (status == SYNTH_OKAY_CONTINUES)
            continue;
        if (status != SYNTH_OKAY)
            free(out);
        else
            *body = out, *blen = n;
        return status;
    }
    free(out);
    return SYNTH_BAD_COMMAND;
}

bool gw_request(gw *w, uint32_t cmd, uint64_t k1, uint32_t k2, gw_answer *out) {
    *out = (gw_answer){0};
    if (w->failed)
        return false;
    uint8_t req[MAX_REQ];
    size_t len = encode_request(req, cmd, k1, k2);
    uint64_t h = hash_bytes(req, len);
    if (2 * (w->n + 1) > w->n_slots && !grow_slots(w)) {
        gw_fatal(w, "out of memory for the request cache");
        return false;
    }
    size_t slot;
    gw_entry *e = lookup(w, req, len, h, &slot);
    if (!e) {
        uint8_t *body;
        size_t blen;
        if ((w->remote ? serve_remote : serve)(w, req, len, &body, &blen) != SYNTH_OKAY)
            return false;
        if (w->n == w->cap) {
            size_t cap = w->cap ? 2 * w->cap : 1024;
            gw_entry *grown = realloc(w->entries, cap * sizeof *grown);
            if (!grown) {
                free(body);
                gw_fatal(w, "out of memory for the request cache");
                return false;
            }
            w->entries = grown;
            w->cap = cap;
        }
        e = &w->entries[w->n++];
        *e = (gw_entry){.req_len = (uint8_t)len, .cmd = (uint8_t)cmd, .hash = h, .body = body,
                        .len = blen};
        memcpy(e->req, req, len);
        w->slots[slot] = w->n;
    }
    *out = (gw_answer){e->body, e->len};
    return true;
}

/* ---- the file ---- */

typedef struct obuf {
    FILE *f;
    bool bad;
} obuf;

static void put(obuf *o, const void *b, size_t n) {
    if (n && fwrite(b, 1, n, o->f) != n)
        o->bad = true;
}
static void put_u8(obuf *o, uint8_t v) { put(o, &v, 1); }
static void put_be32(obuf *o, uint32_t v) {
    uint8_t b[4];
    hs_store_be32(b, v);
    put(o, b, 4);
}
static void put_be64(obuf *o, uint64_t v) {
    uint8_t b[8];
    hs_store_be64(b, v);
    put(o, b, 8);
}
static void put_le64(obuf *o, uint64_t v) {
    uint8_t b[8];
    hs_store_le64(b, v);
    put(o, b, 8);
}
static void put_ptr(obuf *o, const uint8_t *wire) { /* ClosurePtr get untags */
    put_le64(o, hs_load_le64(wire) & ~(uint64_t)7);
}

/* Data.Binary String of the characters b[0..n) (C8.unpack: one per byte). */
static void put_chars(obuf *o, const uint8_t *b, size_t n) {
    put_be64(o, n);
    for (size_t i = 0; i < n; i++) {
        if (b[i] < 0x80) {
            put_u8(o, b[i]);
        } else {
            put_u8(o, (uint8_t)(0xc0 | b[i] >> 6));
            put_u8(o, (uint8_t)(0x80 | (b[i] & 0x3f)));
        }
    }
}

/* isUpper on a Latin-1 character, as Data.Char has it. */
static bool upper(uint8_t c) {
    return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

/* parseConstrDesc (Types/Closures.hs), then putConstrDescCache. */
static void put_con_desc(obuf *o, const uint8_t *s, size_t n) {
    const uint8_t *colon = memchr(s, ':', n);
    size_t plen = colon ? (size_t)(colon - s) : n;
    const uint8_t *rest = colon ? colon + 1 : s + n, *end = s + n, *occ = rest;
    size_t mlen = 0;
    while (occ < end && upper(*occ)) {
        const uint8_t *dot = memchr(occ, '.', (size_t)(end - occ));
        if (!dot)
            break;
        mlen = (size_t)(dot - rest);
        occ = dot + 1;
    }
    size_t olen = (size_t)(end - occ);
    if (plen == 0 || mlen == 0 || olen == 0) {
        put_chars(o, s, 0);
        put_chars(o, s, 0);
        put_chars(o, s, n);
    } else {
        put_chars(o, s, plen);
        put_chars(o, rest, mlen);
        put_chars(o, occ, olen);
    }
}

/* putIPE: six i32-length strings; the closure type as show (fromEnum ty)
 * of readCTy ("0" is CONSTR). */
static void put_ipe(obuf *o, const uint8_t *b, size_t len) {
    if (hs_load_be32(b) == 0) {
        put(o, b, 4);
        return;
    }
    size_t at = 4;
    put_be32(o, 6);
    for (int i = 0; i < 6; i++) {
        uint32_t n = hs_load_be32(b + at);
        const uint8_t *s = b + at + 4;
        at += 4 + (size_t)n;
        if (i != 1) {
            put_be32(o, n);
            put(o, s, n);
            continue;
        }
        unsigned long v = 0;
        for (uint32_t k = 0; k < n && k < 9; k++)
            v = v * 10 + (unsigned long)(s[k] - '0');
        if (n == 1 && s[0] == '0')
            v = 1; /* readCTy "0" = CONSTR */
        char text[24];
        int tn = snprintf(text, sizeof text, "%lu", v);
        put_be32(o, (uint32_t)tn);
        put(o, text, (size_t)tn);
    }
    (void)len;
}

/* putCC: the wire bytes but the CAF flag inverted and the link untagged. */
static void put_cc(obuf *o, const uint8_t *b, size_t len) {
    size_t tail = len - 32;
    put(o, b, tail + 16);                            /* id, strings, mem_alloc, ticks */
    put_le64(o, hs_load_be64(b + tail + 16) ? 0 : 1); /* read BE, non-zero = CAF */
    put_ptr(o, b + tail + 24);
}

static void put_answer(obuf *o, const gw_entry *e) {
    const uint8_t *b = e->body;
    size_t n = e->len;
    switch (e->cmd) {
    case SYNTH_CMD_ROOTS: case SYNTH_CMD_SAVED_OBJECTS:
        put_be64(o, n / 8);
        for (size_t i = 0; i + 8 <= n; i += 8)
            put_ptr(o, b + i);
        break;
    case SYNTH_CMD_SRT:
        if ((hs_load_le64(b) & ~(uint64_t)7) == 0) {
            put_u8(o, 0);
        } else {
            put_u8(o, 1);
            put_ptr(o, b);
        }
        break;
    case SYNTH_CMD_CON_DESC:
        put_con_desc(o, b + 4, n - 4);
        break;
    case SYNTH_CMD_SOURCE_INFO:
        put_ipe(o, b, n);
        break;
    case SYNTH_CMD_ALL_BLOCKS: {
        uint64_t count = 0;
        for (size_t at = 0; at + 14 <= n; at += 14 + hs_load_be32(b + at + 10))
            count++;
        put_be64(o, count);
        put(o, b, n);
        break;
    }
    case SYNTH_CMD_CCS:
        for (size_t i = 0; i < 96; i += 8) {
            if (i >= 8 && i <= 32)
                put_ptr(o, b + i); /* cc, prev, index table, root */
            else
                put(o, b + i, 8);
        }
        break;
    case SYNTH_CMD_CC:
        put_cc(o, b, n);
        break;
    case SYNTH_CMD_INDEX_TABLE:
        for (int i = 0; i < 3; i++)
            put_ptr(o, b + 8 * i);
        put_u8(o, b[24] ? 0 : 1); /* putIndexTable: 0 for a back edge */
        break;
    case SYNTH_CMD_CCS_MAIN:
        put_ptr(o, b);
        break;
    default: /* VERSION, CLOSURES, INFO_TABLES, bitmaps, BLOCK: as on the wire */
        put(o, b, n);
        break;
    }
}

static int by_hash(const void *a, const void *b) {
    const gw_entry *x = a, *y = b;
    return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int write_file(gw *w, const char *path) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        gw_fatal(w, "%s: path too long", path);
        return -1;
    }
    obuf o = {fopen(tmp, "wb"), false};
    if (!o.f) {
        gw_fatal(w, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    /* HashMap order: neither the order of the requests nor sorted */
    qsort(w->entries, w->n, sizeof *w->entries, by_hash);
    put_be32(&o, 0);     /* snapshotVersion */
    put_be64(&o, w->n); /* HM.size */
    for (size_t i = 0; i < w->n; i++) {
        put(&o, w->entries[i].req, w->entries[i].req_len);
        put_answer(&o, &w->entries[i]);
    }
    bool ok = !o.bad && fflush(o.f) == 0 && fsync(fileno(o.f)) == 0;
    ok = fclose(o.f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        gw_fatal(w, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void gw_free(gw *w) {
    for (size_t i = 0; i < w->n; i++)
        free(w->entries[i].body);
    free(w->entries);
    free(w->slots);
    free(w->frames);
}

int synth_write_ghcdebug_snapshot(const synth_process *p, const char *path, char *err,
                                  size_t errlen) {
    gw w = {.p = p, .fd = -1, .err = err, .errlen = errlen};
    synth_state_init(&w.st, -1);
    w.st.paused = true; /* the TUI takes snapshots of a paused program */
    w.fd = memfd_create("ghc-debug-answer", MFD_CLOEXEC);
    if (w.fd < 0 || synth_out_init(&w.out, w.fd, NULL) != 0)
        gw_fatal(&w, "cannot make a memory file: %s", strerror(errno));
    else
        gw_trace_snapshot(&w);
    int rc = w.failed ? -1 : write_file(&w, path);
    if (w.fd >= 0) {
        synth_out_free(&w.out);
        close(w.fd);
    }
    gw_free(&w);
    return rc;
}

/* A PAUSE or RESUME, never recorded (isWriteRequest). */
static uint16_t control(gw *w, uint32_t cmd) {
    uint8_t req[9] = {0, 0, 0, cmd == SYNTH_CMD_PAUSE ? 5 : 4, 0, 0, 0, (uint8_t)cmd, 0};
    uint8_t *body;
    size_t n;
    uint16_t st = serve_remote(w, req, cmd == SYNTH_CMD_PAUSE ? 9 : 8, &body, &n);
    free(body);
    return st;
}

int synth_write_ghcdebug_snapshot_of(const char *socket_path, const char *path, char *err,
                                     size_t errlen) {
    gw w = {.fd = -1, .remote = true, .err = err, .errlen = errlen};
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof a.sun_path) {
        snprintf(err, errlen, "%s: socket path too long", socket_path);
        return -1;
    }
    memcpy(a.sun_path, socket_path, strlen(socket_path) + 1);
    w.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (w.fd < 0 || connect(w.fd, (struct sockaddr *)&a, sizeof a) != 0) {
        snprintf(err, errlen, "cannot connect to %s: %s", socket_path, strerror(errno));
        if (w.fd >= 0)
            close(w.fd);
        return -1;
    }
    /* the TUI pauses, then takes the snapshot, and resumes when it leaves */
    uint16_t paused = control(&w, SYNTH_CMD_PAUSE);
    if (paused != SYNTH_OKAY && paused != SYNTH_ALREADY_PAUSED)
        gw_fatal(&w, "%s did not pause (status 0x%x)", socket_path, paused);
    else
        gw_trace_snapshot(&w);
    if (paused == SYNTH_OKAY && !w.failed && control(&w, SYNTH_CMD_RESUME) != SYNTH_OKAY)
        gw_fatal(&w, "%s did not resume", socket_path);
    close(w.fd);
    int rc = w.failed ? -1 : write_file(&w, path);
    gw_free(&w);
    return rc;
}
