/* Reading ghc-debug's snapshot files.
 *
 * The format, as ghc-debug-client 0.6.0.0 writes it (read in the
 * zoominsoftware/ghc-debug repository, branch vendor-fork, commit d4fe160;
 * paths below are in it). Data.Binary conventions: Word32 = u32 BE,
 * Int = i64 BE, Word64 / Word = u64 BE, Bool = u8 0/1, Maybe = u8 0 or
 * u8 1 + value, list = i64 BE count + elements, String = list of Char, each
 * Char UTF-8 encoded (Data.Binary's instance).
 *
 *   file    = u32 BE format version (must be 0)     Client/Monad/Simple.hs:
 *             RequestCache                          Snapshot, snapshotVersion
 *   cache   = i64 BE n, n x (request, answer)       Client/RequestCache.hs:
 *             in HashMap order (unspecified)        putCache, getCache
 *   request = exactly the wire request: u32 BE LEN, u32 BE CMD, payload,
 *             LEN = 4 + payload (common/.../Types.hs: putRequest,
 *             getRequest with `isolate`). CLOSURES, INFO_TABLES and SRT
 *             carry a u16 BE count (always 1, ignored when read) and one
 *             PTR. A PTR is the address as 8 bytes LE (Types/Ptr.hs:
 *             putWord64be . toBE64 on a little-endian host); every address
 *             is untagged when read (mkClosurePtr), including stack pointers.
 *   answer  = by command (RequestCache.hs: putResponseBinary):
 *     VERSION       u32 BE major, u32 BE patch, u8 profiling mode 0..5,
 *                   u8 TNTC 0/1 (10 bytes, as on the wire)
 *     ROOTS, SAVED_OBJECTS   [PTR]: i64 BE count, PTRs (untagged)
 *     CLOSURES      u32 BE len + bytes (Ptr.hs: putRawClosure)
 *     INFO_TABLES   u32 BE len + bytes (Types.hs: putInfoTable; read as i32)
 *     SRT           Maybe PTR (the wire's 0 became Nothing)
 *     STACK_BITMAP, FUN_BITMAP   u32 BE n + n bytes 1/0 (Ptr.hs: PtrBitmap)
 *     CON_DESC      three Strings: package, module, name, already split
 *                   (putConstrDescCache); characters are the bytes of the
 *                   wire string (C8.unpack), so bytes >= 0x80 take 2 bytes
 *     SOURCE_INFO   i32 BE 0, or i32 BE 6 and six (i32 BE len + bytes)
 *                   (putIPE); the closure type is rewritten as
 *                   show (fromEnum ty), so the compiler's "0" becomes "1"
 *     ALL_BLOCKS    [RawBlock]: i64 BE count, then RawBlocks as on the wire
 *                   (u16 LE flags, PTR start, i32 BE len, bytes)
 *     BLOCK         one RawBlock
 *     CCS           96 bytes as on the wire (putCCS; absent PTRs are 0)
 *     CC            i64 LE id, three (i32 BE len + bytes), u64 BE
 *                   mem_alloc and u64 BE time_ticks (the client read the
 *                   LE wire words as BE and writes them back BE: the bytes
 *                   are the wire's), u64 LE 0 if is_caf else 1 (putCC
 *                   inverts it), PTR link (0 = none)
 *     INDEX_TABLE   PTR cc, PTR ccs, PTR next (0 = none), u8 0 if back
 *                   edge else 1 (putIndexTable inverts it too)
 *     CCS_MAIN      PTR
 *     PAUSE, RESUME, POLL: never cached (isWriteRequest); their answer
 *                   type is (), which takes no bytes.
 * The two inverted booleans are stored inverted: this reader gives their
 * true values (ghc-debug itself would show them flipped after loading).
 *
 * What a snapshot holds (Snapshot.hs: snapshot): ALL_BLOCKS, VERSION,
 * ROOTS, SAVED_OBJECTS, for profiled programs the cost-centre tree from
 * CCS_MAIN (CostCentres.hs: findAllChildrenOfCC), then everything a
 * traversal from the roots asked (ParTrace.hs: tracePar): closures outside
 * the heap range, info tables, SRTs, constructor descriptions, bitmaps and
 * the SOURCE_INFO of every closure and stack frame; plus whatever the TUI
 * had asked before. ghc-debug loads blocks from the ALL_BLOCKS entry, then
 * the BLOCK entries (Monad/Simple.hs: initBlockCacheFromReqCache), and
 * answers everything else from the cache.
 *
 * Older ghc-debug wrote the same format version 0 with other answer
 * layouts, so a file does not say which it is. Seen in
 * bgamari/ghc-debug: master (client 0.2.0.0) answers VERSION with one u32;
 * wip/ci (0.3.0.0) and wip/mp-fixes (0.5.0.0) with two u32 and no
 * profiling mode; wip/remove-cmm-sources (January 2024) with 10 bytes but
 * a Maybe, length-prefixed CCS. This reader takes the 0.6 layout; a file
 * whose VERSION answer fits an older layout gets a message saying so, any
 * other mismatch reads as corrupt.
 *
 * Checks: every length against what is left of the file (and counts
 * against the least bytes their elements take), exact request lengths (as
 * `isolate`), known commands only, no request recorded twice, no bytes
 * after the last entry, and each answer as gd_scan_answer says. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ghcdebug_internal.h"
#include "heapscope/bytes.h"
#include "heapscope/grow.h"
#include "heapscope/regular_file.h"

#define SNIFF_BYTES 20u
#define MIN_ENTRY_BYTES 9u /* a request header and a one-byte answer */
#define MAX_REQUEST_LEN 16u /* CMD + the longest payload (STACK_BITMAP: 12) */

/* The payload length of a request ghc-debug could have recorded; -1 for an
 * unknown command. */
static int request_payload(uint32_t cmd) {
    switch (cmd) {
    case WIRE_CMD_VERSION: case WIRE_CMD_RESUME: case WIRE_CMD_ROOTS: case WIRE_CMD_POLL:
    case WIRE_CMD_SAVED_OBJECTS: case WIRE_CMD_ALL_BLOCKS: case WIRE_CMD_CCS_MAIN:
        return 0;
    case WIRE_CMD_PAUSE:
        return 1;
    case WIRE_CMD_CLOSURES: case WIRE_CMD_INFO_TABLES: case WIRE_CMD_SRT:
        return 10;
    case WIRE_CMD_STACK_BITMAP:
        return 12;
    case WIRE_CMD_FUN_BITMAP:
        return 10;
    case WIRE_CMD_CON_DESC: case WIRE_CMD_SOURCE_INFO: case WIRE_CMD_BLOCK: case WIRE_CMD_CCS:
    case WIRE_CMD_CC: case WIRE_CMD_INDEX_TABLE:
        return 8;
    default:
        return -1;
    }
}

/* True when p (n bytes available) starts a request header of a known
 * command with the length that command takes. */
static bool plausible_request(const uint8_t *p, size_t n) {
    if (n < 8)
        return false;
    uint32_t len = hs_load_be32(p), cmd = hs_load_be32(p + 4);
    int payload = request_payload(cmd);
    return payload >= 0 && len == 4u + (uint32_t)payload;
}

bool ghcdebug_file_sniff(const uint8_t *head, size_t len) {
    if (!head || len < 12)
        return false;
    uint32_t version = hs_load_be32(head);
    uint64_t count = hs_load_be64(head + 4);
    if (version > 0xff || count > (UINT64_C(1) << 40))
        return false;
    if (version != GHCDEBUG_FORMAT_VERSION || count == 0)
        return true; /* the rest has a layout we do not know, or is empty */
    return plausible_request(head + 12, len - 12);
}

bool ghcdebug_file_sniff_path(const char *path) {
    int fd;
    if (hs_open_regular(path, "a ghc-debug snapshot file", &fd, NULL, NULL) != HS_OK)
        return false;
    uint8_t head[SNIFF_BYTES];
    ssize_t n = pread(fd, head, sizeof head, 0);
    close(fd);
    return n > 0 && ghcdebug_file_sniff(head, (size_t)n);
}

/* Reads one request; on success *e has cmd and keys. */
static hs_status read_request(gd_reader *r, gd_entry *e, hs_error *err) {
    if (!gd_has(r, 8))
        return hs_fail(err, HS_ERR_PROTOCOL, "the file ends inside a request header");
    uint32_t len = hs_load_be32(gd_take(r, 4));
    uint32_t cmd = hs_load_be32(r->p);
    int payload = request_payload(cmd);
    if (payload < 0)
        return hs_fail(err, HS_ERR_PROTOCOL, "unknown request command %u", cmd);
    if (len != 4u + (uint32_t)payload)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "a %s request of length %u (ghc-debug writes %d)", wire_command_name(cmd),
                       len, 4 + payload);
    if (!gd_has(r, len))
        return hs_fail(err, HS_ERR_PROTOCOL, "the file ends inside a %s request",
                       wire_command_name(cmd));
    const uint8_t *p = gd_take(r, len) + 4;
    e->cmd = (uint8_t)cmd;
    e->k1 = 0;
    e->k2 = 0;
    switch (payload) {
    case 1:
        if (p[0] > 1)
            return hs_fail(err, HS_ERR_PROTOCOL, "a PAUSE request with mode %u", p[0]);
        break;
    case 8:
        e->k1 = wire_untag(hs_load_le64(p));
        break;
    case 10: /* u16 count + PTR, or FUN_BITMAP's PTR + u16 count */
        if (cmd == WIRE_CMD_FUN_BITMAP) {
            e->k1 = wire_untag(hs_load_le64(p));
            e->k2 = hs_load_be16(p + 8);
        } else {
            e->k1 = wire_untag(hs_load_le64(p + 2));
        }
        break;
    case 12:
        e->k1 = wire_untag(hs_load_le64(p));
        e->k2 = hs_load_be32(p + 8);
        break;
    default:
        break;
    }
    return HS_OK;
}

static int entry_cmp(const void *a, const void *b) {
    const gd_entry *x = a, *y = b;
    if (x->cmd != y->cmd)
        return x->cmd < y->cmd ? -1 : 1;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    return 0;
}

const gd_entry *gd_find(const ghcdebug_file *f, uint8_t cmd, uint64_t k1, uint32_t k2) {
    gd_entry key = {.cmd = cmd, .k1 = k1, .k2 = k2};
    if (f->n_entries == 0) /* a file of no entries has no array: bsearch wants one */
        return NULL;
    return bsearch(&key, f->entries, f->n_entries, sizeof key, entry_cmp);
}

/* The message for an entry that does not parse right after a VERSION entry
 * whose answer starts at `answer`: when an older, shorter VERSION answer
 * fits, say which ghc-debug wrote the file. */
static bool older_layout(const ghcdebug_file *f, size_t answer, hs_error *err) {
    static const struct { size_t bytes; const char *who; } older[] = {
        {8, "ghc-debug 0.3 to 0.5"}, {4, "ghc-debug 0.2 or older"}};
    for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
        size_t at = answer + older[i].bytes;
        if (at <= f->len && (at == f->len || plausible_request(f->bytes + at, f->len - at))) {
            hs_fail(err, HS_ERR_PROTOCOL,
                    "written by %s (a %zu-byte VERSION answer); this heapscope reads the "
                    "snapshots of ghc-debug 0.6",
                    older[i].who, older[i].bytes);
            return true;
        }
    }
    return false;
}

/* Parses every entry into f->entries (unsorted yet). */
static hs_status parse_entries(ghcdebug_file *f, gd_reader *r, uint64_t count, hs_error *err) {
    size_t cap = 0;
    size_t version_answer = SIZE_MAX; /* where the last VERSION answer began */
    for (uint64_t i = 0; i < count; i++) {
        size_t at = f->len - r->left;
        gd_entry e = {0};
        bool have_request = false;
        hs_status st = read_request(r, &e, err);
        if (st == HS_OK) {
            have_request = true;
            e.off = f->len - r->left;
            st = gd_scan_answer(e.cmd, r, err);
            e.len = f->len - r->left - e.off;
        }
        if (st != HS_OK) {
            size_t prev = have_request && e.cmd == WIRE_CMD_VERSION ? e.off : version_answer;
            if (prev != SIZE_MAX && older_layout(f, prev, err))
                return HS_ERR_PROTOCOL;
            return hs_fail_context(err, "ghc-debug snapshot entry %llu of %llu (at byte %zu)",
                                   (unsigned long long)i + 1, (unsigned long long)count, at);
        }
        version_answer = e.cmd == WIRE_CMD_VERSION ? e.off : SIZE_MAX;
        f->n_total++;
        f->counts[e.cmd]++;
        if (e.cmd == WIRE_CMD_PAUSE || e.cmd == WIRE_CMD_RESUME || e.cmd == WIRE_CMD_POLL)
            continue; /* ghc-debug ignores these when it loads a snapshot */
        if (!hs_grow((void **)&f->entries, &cap, f->n_entries + 1, sizeof e))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory for %llu entries",
                           (unsigned long long)count);
        f->entries[f->n_entries++] = e;
    }
    if (r->left != 0) {
        if (version_answer != SIZE_MAX && older_layout(f, version_answer, err))
            return HS_ERR_PROTOCOL;
        return hs_fail(err, HS_ERR_PROTOCOL, "%zu bytes after the last of %llu entries",
                       r->left, (unsigned long long)count);
    }
    return HS_OK;
}

/* Sorts the index and refuses a request recorded twice. */
static hs_status index_entries(ghcdebug_file *f, hs_error *err) {
    if (f->n_entries > 1)
        qsort(f->entries, f->n_entries, sizeof *f->entries, entry_cmp);
    for (size_t i = 1; i < f->n_entries; i++)
        if (entry_cmp(&f->entries[i - 1], &f->entries[i]) == 0)
            return hs_fail(err, HS_ERR_PROTOCOL,
                           "the %s request for 0x%llx is recorded twice",
                           wire_command_name(f->entries[i].cmd),
                           (unsigned long long)f->entries[i].k1);
    return HS_OK;
}

/* Appends the RawBlocks of a scanned ALL_BLOCKS (list) or BLOCK answer. */
static hs_status add_blocks(ghcdebug_file *f, const gd_entry *e, size_t *cap, hs_error *err) {
    gd_reader r = {f->bytes + e->off, e->len};
    uint64_t n = 1;
    if (e->cmd == WIRE_CMD_ALL_BLOCKS)
        n = hs_load_be64(gd_take(&r, 8));
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *h = gd_take(&r, 14);
        ghcdebug_block b = {.flags = hs_load_le16(h),
                            .start = wire_untag(hs_load_le64(h + 2)),
                            .len = hs_load_be32(h + 10)};
        b.data = gd_take(&r, b.len);
        if (!hs_grow((void **)&f->blocks, cap, f->n_blocks + 1, sizeof b))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory for the block list");
        f->blocks[f->n_blocks++] = b;
    }
    return HS_OK;
}

/* By start, then by place in the file (data points into its bytes): of a
 * group recorded twice, the first copy comes first. */
static int block_cmp(const void *a, const void *b) {
    const ghcdebug_block *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->data > y->data) - (x->data < y->data);
}

static bool overlaps(const ghcdebug_block *a, const ghcdebug_block *b) {
    return a->start < b->start + b->len && b->start < a->start + a->len;
}

/* ALL_BLOCKS' groups as recorded, then the BLOCK entries' groups that are
 * not empty and overlap none of them (ghc-debug lets the ALL_BLOCKS group
 * win too); sorted by start, then file order. ALL_BLOCKS may hold a group
 * twice (the RTS lists each empty pinned group once per capability): the
 * heap keeps the first copy and refuses groups that overlap otherwise
 * (heap_open), as it does for every source. */
static hs_status collect_blocks(ghcdebug_file *f, hs_error *err) {
    size_t cap = 0;
    const gd_entry *all = gd_find(f, WIRE_CMD_ALL_BLOCKS, 0, 0);
    if (all) {
        hs_status st = add_blocks(f, all, &cap, err);
        if (st != HS_OK)
            return st;
    }
    for (size_t i = 0; i < f->n_entries; i++) {
        const gd_entry *e = &f->entries[i];
        if (e->cmd != WIRE_CMD_BLOCK)
            continue;
        size_t before = f->n_blocks;
        hs_status st = add_blocks(f, e, &cap, err);
        if (st != HS_OK)
            return st;
        const ghcdebug_block *b = &f->blocks[before];
        bool keep = b->len > 0;
        for (size_t j = 0; keep && j < before; j++)
            keep = !overlaps(b, &f->blocks[j]);
        if (!keep)
            f->n_blocks = before;
    }
    if (f->n_blocks > 1)
        qsort(f->blocks, f->n_blocks, sizeof *f->blocks, block_cmp);
    return HS_OK;
}

/* The one-of-a-kind answers every use needs, decoded once. */
static hs_status decode_fixed(ghcdebug_file *f, hs_error *err) {
    const gd_entry *e = gd_find(f, WIRE_CMD_VERSION, 0, 0);
    if (!e)
        return hs_fail(err, HS_ERR_PROTOCOL, "the snapshot has no VERSION entry");
    hs_status st = wire_decode_version(f->bytes + e->off, e->len, &f->version, err);
    if (st == HS_OK && (e = gd_find(f, WIRE_CMD_ROOTS, 0, 0))) {
        f->has_roots = true;
        st = gd_decode_ptr_list(f->bytes + e->off, e->len, &f->roots, err);
    }
    if (st == HS_OK && (e = gd_find(f, WIRE_CMD_SAVED_OBJECTS, 0, 0))) {
        f->has_saved = true;
        st = gd_decode_ptr_list(f->bytes + e->off, e->len, &f->saved, err);
    }
    return st;
}

/* Takes ownership of bytes (from malloc). */
static hs_status parse_owned(uint8_t *bytes, size_t len, ghcdebug_file **out, hs_error *err) {
    *out = NULL;
    ghcdebug_file *f = calloc(1, sizeof *f);
    if (!f) {
        free(bytes);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    f->bytes = bytes;
    f->len = len;
    gd_reader r = {bytes, len};
    hs_status st = HS_OK;
    if (!gd_has(&r, 12)) {
        st = hs_fail(err, HS_ERR_PROTOCOL, "the file is %zu bytes, too short for the header",
                     len);
    } else {
        uint32_t version = hs_load_be32(gd_take(&r, 4));
        uint64_t count = hs_load_be64(gd_take(&r, 8));
        if (version != GHCDEBUG_FORMAT_VERSION)
            st = hs_fail(err, HS_ERR_PROTOCOL,
                         "ghc-debug snapshot format version %u is not supported (this heapscope "
                         "reads %u)",
                         version, GHCDEBUG_FORMAT_VERSION);
        else if (count > r.left / MIN_ENTRY_BYTES)
            st = hs_fail(err, HS_ERR_PROTOCOL,
                         "truncated or damaged: the header announces %llu entries, more than "
                         "the %zu bytes after it can hold",
                         (unsigned long long)count, r.left);
        else
            st = parse_entries(f, &r, count, err);
    }
    if (st == HS_OK)
        st = index_entries(f, err);
    if (st == HS_OK)
        st = decode_fixed(f, err);
    if (st == HS_OK)
        st = collect_blocks(f, err);
    if (st != HS_OK) {
        ghcdebug_file_free(f);
        return st;
    }
    *out = f;
    return HS_OK;
}

hs_status ghcdebug_file_parse(const uint8_t *bytes, size_t len, ghcdebug_file **out,
                              hs_error *err) {
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for %zu bytes", len);
    if (len)
        memcpy(copy, bytes, len);
    return parse_owned(copy, len, out, err);
}

/* Reads the whole regular file at path. */
static hs_status slurp(const char *path, uint8_t **bytes, size_t *len, hs_error *err) {
    int fd;
    off_t file_size;
    hs_status st = hs_open_regular(path, "a ghc-debug snapshot file", &fd, &file_size, err);
    if (st == HS_ERR_NOT_FOUND)
        return HS_ERR_IO; /* the message says so; "not found" means no such answer here */
    if (st != HS_OK)
        return st;
    if ((uint64_t)file_size > GHCDEBUG_FILE_MAX_BYTES || (uint64_t)file_size > SIZE_MAX)
        st = hs_fail(err, HS_ERR_TOO_LARGE, "%s is %lld bytes, more than heapscope reads", path,
                     (long long)file_size);
    size_t size = st == HS_OK ? (size_t)file_size : 0;
    uint8_t *buf = st == HS_OK ? malloc(size ? size : 1) : NULL;
    if (st == HS_OK && !buf)
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory for the %zu bytes of %s", size, path);
    size_t got = 0;
    while (st == HS_OK && got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            st = hs_fail(err, HS_ERR_IO, "cannot read %s: %s", path, strerror(errno));
        else if (n == 0)
            break; /* it shrank while we read: parse what is there */
        else
            got += (size_t)n;
    }
    close(fd);
    if (st != HS_OK) {
        free(buf);
        return st;
    }
    *bytes = buf;
    *len = got;
    return HS_OK;
}

hs_status ghcdebug_file_open(const char *path, ghcdebug_file **out, hs_error *err) {
    *out = NULL;
    uint8_t *bytes = NULL;
    size_t len = 0;
    hs_status st = slurp(path, &bytes, &len, err);
    if (st != HS_OK)
        return st;
    st = parse_owned(bytes, len, out, err);
    if (st != HS_OK)
        hs_fail_context(err, "%s", path);
    return st;
}

void ghcdebug_file_free(ghcdebug_file *f) {
    if (!f)
        return;
    free(f->bytes);
    free(f->entries);
    free(f->blocks);
    wire_ptr_list_free(&f->roots);
    wire_ptr_list_free(&f->saved);
    free(f);
}

size_t ghcdebug_file_entry_count(const ghcdebug_file *f) { return f->n_total; }

size_t ghcdebug_file_count(const ghcdebug_file *f, uint32_t cmd) {
    return cmd < GD_CMD_LIMIT ? f->counts[cmd] : 0;
}

const wire_version *ghcdebug_file_version(const ghcdebug_file *f) { return &f->version; }

const ghcdebug_block *ghcdebug_file_blocks(const ghcdebug_file *f, size_t *count) {
    *count = f->n_blocks;
    return f->blocks;
}
