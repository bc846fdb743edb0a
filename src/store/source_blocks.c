/* Block groups from a snapshot: the directories of every chunk when the
 * heap opens (a few bytes per group), a chunk's data when one of its
 * groups is first needed. Both are checked against their checksums and
 * bounds before the heap sees a byte. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"
#include "store_internal.h"

#define MAX_GROUPS (UINT64_C(1) << 28) /* far beyond any heap: a guard */

typedef struct listing {
    heap_block_list *out;
    size_t cap;
    size_t chunks_cap, of_cap;
} listing;

static hs_status add_chunk(store_snapshot *s, listing *l, sqlite3_stmt *q, hs_error *err) {
    int64_t rowid = sqlite3_column_int64(q, 0);
    const uint8_t *dir = sqlite3_column_blob(q, 1);
    size_t dir_len = (size_t)sqlite3_column_bytes(q, 1);
    uint64_t dir_sum = store_column_u64(q, 2);
    uint64_t data_sum = store_column_u64(q, 3);
    sqlite3_int64 data_len = sqlite3_column_int64(q, 4);
    if (sqlite3_column_type(q, 4) != SQLITE_INTEGER || data_len < 0 || data_len > INT32_MAX)
        return hs_fail(err, HS_ERR_PROTOCOL, "heap chunk %lld has no data", (long long)rowid);
    hs_status st = store_dir_check(dir, dir_len, dir_sum, (uint64_t)data_len, err);
    if (st != HS_OK)
        return hs_fail_context(err, "heap chunk %lld", (long long)rowid);
    heap_block_list *out = l->out;
    size_t n = dir_len / STORE_DIR_ENTRY_BYTES;
    if (out->count + n > MAX_GROUPS)
        return hs_fail(err, HS_ERR_TOO_LARGE, "the snapshot lists too many block groups");
    if (!hs_grow((void **)&out->items, &l->cap, out->count + n, sizeof *out->items) ||
        !hs_grow((void **)&s->chunk_of, &l->of_cap, out->count + n, sizeof *s->chunk_of) ||
        !hs_grow((void **)&s->chunks, &l->chunks_cap, s->n_chunks + 1, sizeof *s->chunks))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory listing block groups");
    s->chunks[s->n_chunks] = (store_chunk_ref){rowid, (uint64_t)data_len, data_sum, out->count, n};
    for (size_t i = 0; i < n; i++) {
        store_dir_entry e = store_dir_get(dir + i * STORE_DIR_ENTRY_BYTES);
        s->chunk_of[out->count] = s->n_chunks;
        out->items[out->count++] = (heap_block){e.start, e.len, e.flags, NULL};
    }
    s->n_chunks++;
    return HS_OK;
}

hs_status store_source_blocks(void *self, heap_block_list *out, hs_error *err) {
    store_snapshot *s = self;
    *out = (heap_block_list){0};
    s->n_chunks = 0;
    s->n_items = 0;
    listing l = {.out = out};
    sqlite3_stmt *q = s->q[Q_CHUNKS];
    hs_status st = HS_OK;
    int rc;
    while (st == HS_OK && (rc = store_read_step(s, q)) == SQLITE_ROW)
        st = add_chunk(s, &l, q, err);
    if (st == HS_OK && rc != SQLITE_DONE)
        st = store_source_fail(s, q, rc, err, "listing the heap blocks");
    sqlite3_reset(q);
    if (st != HS_OK) {
        heap_block_list_free(out);
        return st;
    }
    s->n_items = out->count;
    return HS_OK;
}

/* Reads chunk c's data into memory the list adopts, and points all its
 * groups into it. */
hs_status store_source_load_block(void *self, heap_block_list *out, size_t i, hs_error *err) {
    store_snapshot *s = self;
    if (i >= out->count || i >= s->n_items || out->count != s->n_items)
        return hs_fail(err, HS_ERR_INTERNAL, "block group %zu is not one the snapshot listed", i);
    const store_chunk_ref *c = &s->chunks[s->chunk_of[i]];
    sqlite3_blob *blob = NULL;
    int rc = sqlite3_blob_open(s->db, "main", "heap_chunks", "data", c->rowid, 0, &blob);
    if (rc != SQLITE_OK) {
        sqlite3_blob_close(blob);
        return store_db_fail(s->db, rc, err, "reading the heap blocks");
    }
    if ((uint64_t)sqlite3_blob_bytes(blob) != c->data_len) {
        sqlite3_blob_close(blob);
        return hs_fail(err, HS_ERR_PROTOCOL, "heap chunk %lld changed size",
                       (long long)c->rowid);
    }
    uint8_t *data = malloc(c->data_len ? c->data_len : 1);
    if (!data) {
        sqlite3_blob_close(blob);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory loading %llu bytes of heap",
                       (unsigned long long)c->data_len);
    }
    rc = sqlite3_blob_read(blob, data, (int)c->data_len, 0);
    sqlite3_blob_close(blob);
    if (rc != SQLITE_OK) {
        free(data);
        return store_db_fail(s->db, rc, err, "reading the heap blocks");
    }
    if (store_checksum(data, c->data_len) != c->data_checksum) {
        free(data);
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "the snapshot is damaged: heap chunk %lld fails its checksum",
                       (long long)c->rowid);
    }
    if (!heap_block_list_adopt(out, data))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    size_t off = 0;
    for (size_t g = c->first_group; g < c->first_group + c->n_groups; g++) {
        if (!out->items[g].data)
            out->items[g].data = data + off;
        off += out->items[g].len;
    }
    return HS_OK;
}
