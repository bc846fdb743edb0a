/* The heap_source of a snapshot: each request is a lookup by the key the
 * heap asks with, through prepared statements. What the file does not
 * hold is HEAP_UNAVAILABLE with the reason; what it holds is checked
 * (lengths, bit values, ranges) before it is handed to the heap. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "store_internal.h"

const char *const store_queries[Q_COUNT] = {
    [Q_ROOTS] = "SELECT address FROM roots ORDER BY ord",
    [Q_SAVED] = "SELECT address FROM saved_objects ORDER BY ord",
    [Q_CHUNKS] = "SELECT chunk, groups, groups_checksum, data_checksum, length(data)"
                 " FROM heap_chunks ORDER BY chunk",
    [Q_STATIC] = "SELECT bytes FROM static_closures WHERE address = ?",
    [Q_INFO] = "SELECT raw FROM info_tables WHERE info = ?",
    [Q_SRT] = "SELECT srt FROM info_tables WHERE info = ?",
    [Q_CON_DESC] = "SELECT description FROM con_descs WHERE info = ?",
    [Q_SOURCE_INFO] = "SELECT found, name, closure_type_text, closure_type, type, label, module,"
                      " position FROM source_infos WHERE info = ?",
    [Q_FRAME_BITMAP] = "SELECT bits FROM frame_bitmaps WHERE frame_info = ? AND frame = ?",
    [Q_FUN_BITMAP] = "SELECT bits FROM fun_bitmaps WHERE fun_info = ? AND n = ?",
    [Q_CCS] = "SELECT id, cc, prev, index_table, root, depth, scc_count, selected, time_ticks,"
              " mem_alloc, inherited_alloc, inherited_ticks FROM cost_centre_stacks"
              " WHERE address = ?",
    [Q_CC] = "SELECT id, label, module, srcloc, mem_alloc, time_ticks, is_caf, link"
             " FROM cost_centres WHERE address = ?",
    [Q_INDEX_ENTRY] = "SELECT cc, ccs, next, back_edge FROM ccs_index_entries WHERE address = ?",
    [Q_CCS_MAIN] = "SELECT value FROM meta WHERE key = 'ccs_main'",
};

#define MAX_ROOTS (UINT64_C(1) << 26)
#define MAX_BITMAP (UINT64_C(1) << 24)

/* Runs query q with up to two keys; SQLITE_ROW leaves the row to read
 * (the caller resets), anything else is reset here. */
static int lookup(store_snapshot *s, int q, uint64_t k1, uint64_t k2) {
    sqlite3_stmt *st = s->q[q];
    sqlite3_reset(st);
    if (sqlite3_bind_parameter_count(st) >= 1)
        store_bind_u64(st, 1, k1);
    if (sqlite3_bind_parameter_count(st) >= 2)
        store_bind_u64(st, 2, k2);
    int rc = store_read_step(s, st);
    if (rc != SQLITE_ROW)
        sqlite3_reset(st);
    return rc;
}

/* The answer when lookup() found no row (or failed). */
static hs_status missing(store_snapshot *s, int rc, hs_error *err, const char *what,
                         uint64_t key) {
    if (rc == SQLITE_DONE)
        return hs_fail(err, HEAP_UNAVAILABLE, "the snapshot did not record %s 0x%llx", what,
                       (unsigned long long)key);
    return store_db_fail(s->db, rc, err, "reading the snapshot");
}

static char *dup_text(sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? strdup((const char *)t) : NULL;
}

static hs_status snap_version(void *self, wire_version *out, hs_error *err) {
    (void)err;
    *out = ((store_snapshot *)self)->meta.version;
    return HS_OK;
}

static hs_status read_ptrs(store_snapshot *s, int q, wire_ptr_list *out, hs_error *err) {
    *out = (wire_ptr_list){0};
    sqlite3_stmt *st = s->q[q];
    int rc;
    while ((rc = store_read_step(s, st)) == SQLITE_ROW) {
        if (out->count >= MAX_ROOTS) {
            sqlite3_reset(st);
            wire_ptr_list_free(out);
            return hs_fail(err, HS_ERR_TOO_LARGE, "the snapshot lists too many roots");
        }
        if (out->count == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 64;
            uint64_t *p = realloc(out->items, cap * sizeof *p);
            if (!p) {
                sqlite3_reset(st);
                wire_ptr_list_free(out);
                return hs_fail(err, HS_ERR_NOMEM, "out of memory");
            }
            out->items = p;
            out->cap = cap;
        }
        out->items[out->count++] = store_column_u64(st, 0);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        wire_ptr_list_free(out);
        return store_db_fail(s->db, rc, err, "reading the roots");
    }
    return HS_OK;
}

static hs_status snap_roots(void *self, wire_ptr_list *out, hs_error *err) {
    return read_ptrs(self, Q_ROOTS, out, err);
}

static hs_status snap_saved(void *self, wire_ptr_list *out, hs_error *err) {
    return read_ptrs(self, Q_SAVED, out, err);
}

/* n BLOB answers (static closures, info tables) in one allocation. */
static hs_status read_blobs(store_snapshot *s, int q, const char *what, const uint64_t *keys,
                            size_t n, size_t min_len, size_t max_len, heap_blobs *out,
                            hs_error *err) {
    *out = (heap_blobs){0};
    size_t *lens = calloc(n ? n : 1, sizeof *lens);
    uint8_t **parts = calloc(n ? n : 1, sizeof *parts);
    hs_status st = lens && parts ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
    size_t total = 0;
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        int rc = lookup(s, q, keys[i], 0);
        if (rc != SQLITE_ROW) {
            st = missing(s, rc, err, what, keys[i]);
            break;
        }
        size_t len = (size_t)sqlite3_column_bytes(s->q[q], 0);
        const void *b = sqlite3_column_blob(s->q[q], 0);
        if (len < min_len || len > max_len)
            st = hs_fail(err, HS_ERR_PROTOCOL, "the snapshot's %s 0x%llx has %zu bytes", what,
                         (unsigned long long)keys[i], len);
        else if (!(parts[i] = malloc(len ? len : 1)))
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
        else if (len)
            memcpy(parts[i], b, len);
        lens[i] = len;
        total += len;
        sqlite3_reset(s->q[q]);
    }
    if (st == HS_OK) {
        out->items = malloc((n ? n : 1) * sizeof *out->items);
        out->storage = malloc(total ? total : 1);
        if (!out->items || !out->storage)
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0, off = 0; st == HS_OK && i < n; i++) {
        uint8_t *dst = (uint8_t *)out->storage + off;
        if (lens[i])
            memcpy(dst, parts[i], lens[i]);
        out->items[i] = (heap_blob){dst, lens[i]};
        off += lens[i];
    }
    if (st == HS_OK)
        out->count = n;
    for (size_t i = 0; parts && i < n; i++)
        free(parts[i]);
    free(parts);
    free(lens);
    if (st != HS_OK)
        heap_blobs_free(out);
    return st;
}

static hs_status snap_closures(void *self, const uint64_t *addrs, size_t n, heap_blobs *out,
                               hs_error *err) {
    return read_blobs(self, Q_STATIC, "closure", addrs, n, 8, STORE_MAX_GROUP_BYTES, out, err);
}

static hs_status snap_info_tables(void *self, const uint64_t *infos, size_t n, heap_blobs *out,
                                  hs_error *err) {
    return read_blobs(self, Q_INFO, "info table", infos, n, 16, 40, out, err);
}

static hs_status snap_srts(void *self, const uint64_t *infos, size_t n, uint64_t *out,
                           hs_error *err) {
    store_snapshot *s = self;
    for (size_t i = 0; i < n; i++) {
        int rc = lookup(s, Q_SRT, infos[i], 0);
        if (rc == SQLITE_ROW && sqlite3_column_type(s->q[Q_SRT], 0) == SQLITE_NULL)
            rc = SQLITE_DONE; /* the info table is there, its SRT was never asked */
        if (rc != SQLITE_ROW) {
            sqlite3_reset(s->q[Q_SRT]);
            return missing(s, rc, err, "the SRT of info table", infos[i]);
        }
        out[i] = store_column_u64(s->q[Q_SRT], 0);
        sqlite3_reset(s->q[Q_SRT]);
    }
    return HS_OK;
}

static hs_status read_bitmap(store_snapshot *s, int q, uint64_t k1, uint64_t k2,
                             size_t want, heap_bitmap *out, hs_error *err) {
    *out = (heap_bitmap){0};
    int rc = lookup(s, q, k1, k2);
    if (rc != SQLITE_ROW)
        return missing(s, rc, err, "the pointer map of", k2 ? k2 : k1);
    sqlite3_stmt *st = s->q[q];
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    const uint8_t *bits = sqlite3_column_blob(st, 0);
    hs_status x = store_bitmap_check(bits, n, MAX_BITMAP, err);
    if (x == HS_OK && want && n != want)
        x = hs_fail(err, HS_ERR_PROTOCOL, "the snapshot's pointer map of 0x%llx has %zu entries, "
                                          "not %zu", (unsigned long long)k1, n, want);
    if (x == HS_OK && !(out->bits = malloc(n ? n : 1)))
        x = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (x == HS_OK) {
        if (n)
            memcpy(out->bits, bits, n);
        out->count = n;
    }
    sqlite3_reset(st);
    return x;
}

static hs_status snap_frame_bitmap(void *self, uint64_t sp, uint32_t offset,
                                   const heap_info *frame_info, heap_bitmap *out,
                                   hs_error *err) {
    uint64_t frame = frame_info->type == HS_RET_FUN ? sp + offset : 0;
    return read_bitmap(self, Q_FRAME_BITMAP, frame_info->ptr, frame, 0, out, err);
}

static hs_status snap_fun_bitmap(void *self, uint64_t fun, const heap_info *fun_info,
                                 uint16_t n, heap_bitmap *out, hs_error *err) {
    (void)fun;
    return read_bitmap(self, Q_FUN_BITMAP, fun_info->ptr, n, n, out, err);
}

static hs_status snap_con_desc(void *self, uint64_t info, char **text, hs_error *err) {
    store_snapshot *s = self;
    *text = NULL;
    int rc = lookup(s, Q_CON_DESC, info, 0);
    if (rc == SQLITE_ROW && sqlite3_column_type(s->q[Q_CON_DESC], 0) == SQLITE_NULL)
        rc = SQLITE_DONE; /* the debuggee had none */
    if (rc != SQLITE_ROW) {
        sqlite3_reset(s->q[Q_CON_DESC]);
        return missing(s, rc, err, "a constructor description for", info);
    }
    *text = dup_text(s->q[Q_CON_DESC], 0);
    sqlite3_reset(s->q[Q_CON_DESC]);
    return *text ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

static hs_status snap_source_info(void *self, uint64_t info, wire_source_info *out,
                                  hs_error *err) {
    store_snapshot *s = self;
    *out = (wire_source_info){0};
    int rc = lookup(s, Q_SOURCE_INFO, info, 0);
    if (rc != SQLITE_ROW)
        return missing(s, rc, err, "a source location for", info);
    sqlite3_stmt *st = s->q[Q_SOURCE_INFO];
    out->found = sqlite3_column_int(st, 0) != 0;
    if (out->found) {
        sqlite3_int64 type = sqlite3_column_int64(st, 3);
        out->name = dup_text(st, 1);
        out->closure_type_text = dup_text(st, 2);
        out->closure_type = type >= 0 && type < HS_N_CLOSURE_TYPES ? (uint32_t)type : 0;
        out->type = dup_text(st, 4);
        out->label = dup_text(st, 5);
        out->module = dup_text(st, 6);
        out->position = dup_text(st, 7);
    }
    sqlite3_reset(st);
    return HS_OK;
}

static hs_status snap_ccs(void *self, uint64_t addr, wire_ccs *out, hs_error *err) {
    store_snapshot *s = self;
    int rc = lookup(s, Q_CCS, addr, 0);
    if (rc != SQLITE_ROW)
        return missing(s, rc, err, "cost-centre stack", addr);
    sqlite3_stmt *st = s->q[Q_CCS];
    uint64_t v[12];
    for (int i = 0; i < 12; i++)
        v[i] = store_column_u64(st, i);
    *out = (wire_ccs){(int64_t)v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                      v[10], v[11]};
    sqlite3_reset(st);
    return HS_OK;
}

static hs_status snap_cc(void *self, uint64_t addr, wire_cc *out, hs_error *err) {
    store_snapshot *s = self;
    *out = (wire_cc){0};
    int rc = lookup(s, Q_CC, addr, 0);
    if (rc != SQLITE_ROW)
        return missing(s, rc, err, "cost centre", addr);
    sqlite3_stmt *st = s->q[Q_CC];
    out->id = sqlite3_column_int64(st, 0);
    out->label = dup_text(st, 1);
    out->module = dup_text(st, 2);
    out->srcloc = dup_text(st, 3);
    out->mem_alloc = store_column_u64(st, 4);
    out->time_ticks = store_column_u64(st, 5);
    out->is_caf = sqlite3_column_int(st, 6) != 0;
    out->link = store_column_u64(st, 7);
    sqlite3_reset(st);
    return HS_OK;
}

static hs_status snap_index_entry(void *self, uint64_t addr, wire_index_entry *out,
                                  hs_error *err) {
    store_snapshot *s = self;
    int rc = lookup(s, Q_INDEX_ENTRY, addr, 0);
    if (rc != SQLITE_ROW)
        return missing(s, rc, err, "index-table entry", addr);
    sqlite3_stmt *st = s->q[Q_INDEX_ENTRY];
    *out = (wire_index_entry){store_column_u64(st, 0), store_column_u64(st, 1),
                              store_column_u64(st, 2), sqlite3_column_int(st, 3) != 0};
    sqlite3_reset(st);
    return HS_OK;
}

static hs_status snap_ccs_main(void *self, uint64_t *out, hs_error *err) {
    store_snapshot *s = self;
    int rc = lookup(s, Q_CCS_MAIN, 0, 0);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE
                   ? hs_fail(err, HEAP_UNAVAILABLE, "the snapshot has no cost-centre stacks")
                   : store_db_fail(s->db, rc, err, "reading the snapshot");
    *out = store_column_u64(s->q[Q_CCS_MAIN], 0);
    sqlite3_reset(s->q[Q_CCS_MAIN]);
    return HS_OK;
}

static const heap_source_ops snapshot_ops = {
    .version = snap_version,
    .roots = snap_roots,
    .saved_objects = snap_saved,
    .blocks = store_source_blocks,
    .load_block = store_source_load_block,
    .closures = snap_closures,
    .info_tables = snap_info_tables,
    .srts = snap_srts,
    .frame_bitmap = snap_frame_bitmap,
    .fun_bitmap = snap_fun_bitmap,
    .con_desc = snap_con_desc,
    .source_info = snap_source_info,
    .ccs = snap_ccs,
    .cc = snap_cc,
    .index_entry = snap_index_entry,
    .ccs_main = snap_ccs_main,
};

heap_source store_snapshot_source(store_snapshot *s) { return (heap_source){&snapshot_ops, s}; }
