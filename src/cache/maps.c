/* The caching source's answers in memory, and their rows in the database:
 * read all at once for a program, written back in one transaction. A row
 * is outside input: sizes are capped, bitmaps hold only 0 and 1, and text
 * has no NUL; a row that fails is skipped (its request goes to the
 * debuggee) rather than trusted. */
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"

#define MAX_INFO_TABLE_BYTES 256
#define MAX_BITMAP_WORDS (1u << 24)
#define MAX_TEXT_BYTES (64u << 10)

cache_text *cache_text_new(const char *text) {
    size_t len = text ? strlen(text) : 0;
    cache_text *t = malloc(sizeof *t + len + 1);
    if (t) {
        t->available = text != NULL;
        memcpy(t->text, text ? text : "", len + 1);
    }
    return t;
}

static bool dup_field(const char *from, char **to) {
    *to = from ? strdup(from) : NULL;
    return !from || *to;
}

bool cache_source_info_copy(const wire_source_info *from, wire_source_info *to) {
    *to = (wire_source_info){.found = from->found, .closure_type = from->closure_type};
    if (dup_field(from->name, &to->name) &&
        dup_field(from->closure_type_text, &to->closure_type_text) &&
        dup_field(from->type, &to->type) && dup_field(from->label, &to->label) &&
        dup_field(from->module, &to->module) && dup_field(from->position, &to->position))
        return true;
    wire_source_info_free(to);
    return false;
}

cache_ipe *cache_ipe_new(const wire_source_info *si) {
    cache_ipe *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->available = si != NULL;
    if (si && !cache_source_info_copy(si, &c->si)) {
        free(c);
        return NULL;
    }
    return c;
}

static void free_ipes(u64map *m) {
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            cache_ipe *c = (cache_ipe *)(uintptr_t)m->values[i];
            wire_source_info_free(&c->si);
            free(c);
        }
    u64map_free(m);
}

static void free_values(u64map *m) {
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            free((void *)(uintptr_t)m->values[i]);
    u64map_free(m);
}

void cache_maps_free(cache_maps *m) {
    free_values(&m->infos);
    u64map_free(&m->srts); /* values are the SRTs themselves */
    free_values(&m->con_descs);
    free_ipes(&m->source_infos);
    free_values(&m->frame_bitmaps);
    free_values(&m->fun_bitmaps);
    *m = (cache_maps){0};
}

/* ---- reading rows ---- */

/* Column i as text that is safe to keep: NULL column -> *out NULL, true. */
static bool column_text(sqlite3_stmt *st, int i, const char **out) {
    *out = NULL;
    if (sqlite3_column_type(st, i) == SQLITE_NULL)
        return true;
    const char *t = (const char *)sqlite3_column_text(st, i);
    int n = sqlite3_column_bytes(st, i);
    if (!t || n < 0 || (size_t)n > MAX_TEXT_BYTES || strlen(t) != (size_t)n)
        return false;
    *out = t;
    return true;
}

static bool bits_ok(const uint8_t *p, size_t n) {
    if (n > MAX_BITMAP_WORDS)
        return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] > 1)
            return false;
    return true;
}

/* One row into its map; false only when out of memory (a bad row is
 * skipped and counts as done). */
typedef bool (*row_fn)(cache_maps *m, sqlite3_stmt *st);

static bool put_or_free(u64map *m, uint64_t key, void *value) {
    if (!value)
        return false;
    if (key == 0 || u64map_find(m, key)) {
        free(value);
        return true;
    }
    if (u64map_put(m, key, (uintptr_t)value))
        return true;
    free(value);
    return false;
}

static cache_blob *column_blob(sqlite3_stmt *st, int i) {
    const uint8_t *p = sqlite3_column_blob(st, i);
    size_t n = (size_t)sqlite3_column_bytes(st, i);
    cache_blob *b = malloc(sizeof *b + (n ? n : 1));
    if (b) {
        b->len = n;
        if (n)
            memcpy(b->bytes, p, n);
    }
    return b;
}

static bool row_info(cache_maps *m, sqlite3_stmt *st) {
    int n = sqlite3_column_bytes(st, 1);
    if (n <= 0 || n > MAX_INFO_TABLE_BYTES)
        return true;
    return put_or_free(&m->infos, (uint64_t)sqlite3_column_int64(st, 0), column_blob(st, 1));
}

static bool row_srt(cache_maps *m, sqlite3_stmt *st) {
    uint64_t key = (uint64_t)sqlite3_column_int64(st, 0);
    return key == 0 || u64map_find(&m->srts, key) ||
           u64map_put(&m->srts, key, (uint64_t)sqlite3_column_int64(st, 1));
}

static bool row_con_desc(cache_maps *m, sqlite3_stmt *st) {
    const char *text;
    if (!column_text(st, 1, &text))
        return true;
    return put_or_free(&m->con_descs, (uint64_t)sqlite3_column_int64(st, 0), cache_text_new(text));
}

static bool row_source_info(cache_maps *m, sqlite3_stmt *st) {
    uint64_t key = (uint64_t)sqlite3_column_int64(st, 0);
    bool available = sqlite3_column_int(st, 1) != 0;
    int64_t type = sqlite3_column_int64(st, 3);
    const char *f[6];
    for (int i = 0; i < 6; i++)
        if (!column_text(st, 4 + i, &f[i]))
            return true;
    if (key == 0 || u64map_find(&m->source_infos, key) || type < 0 || type > UINT32_MAX)
        return true;
    wire_source_info si = {.found = sqlite3_column_int(st, 2) != 0,
                           .closure_type = (uint32_t)type,
                           .name = (char *)f[0],
                           .closure_type_text = (char *)f[1],
                           .type = (char *)f[2],
                           .label = (char *)f[3],
                           .module = (char *)f[4],
                           .position = (char *)f[5]};
    cache_ipe *c = cache_ipe_new(available ? &si : NULL);
    if (!c)
        return false;
    if (u64map_put(&m->source_infos, key, (uintptr_t)c))
        return true;
    wire_source_info_free(&c->si);
    free(c);
    return false;
}

static bool row_frame_bitmap(cache_maps *m, sqlite3_stmt *st) {
    const uint8_t *p = sqlite3_column_blob(st, 1);
    if (!bits_ok(p, (size_t)sqlite3_column_bytes(st, 1)))
        return true;
    return put_or_free(&m->frame_bitmaps, (uint64_t)sqlite3_column_int64(st, 0),
                       column_blob(st, 1));
}

static bool row_fun_bitmap(cache_maps *m, sqlite3_stmt *st) {
    int64_t n = sqlite3_column_int64(st, 1);
    const uint8_t *p = sqlite3_column_blob(st, 2);
    size_t len = (size_t)sqlite3_column_bytes(st, 2);
    if (n < 0 || n > UINT16_MAX || len != (size_t)n || !bits_ok(p, len))
        return true;
    uint64_t key = cache_fun_bitmap_key((uint64_t)sqlite3_column_int64(st, 0), (uint16_t)n);
    return put_or_free(&m->fun_bitmaps, key, column_blob(st, 2));
}

static hs_status load_table(cache *c, int64_t program, const char *sql, row_fn fn,
                            cache_maps *m, hs_error *err) {
    sqlite3_stmt *st;
    hs_status s = cache_db_prepare(c, sql, &st, err);
    if (s != HS_OK)
        return s;
    sqlite3_bind_int64(st, 1, program);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (!fn(m, st)) {
            sqlite3_finalize(st);
            return hs_fail(err, HS_ERR_NOMEM, "out of memory reading the cache");
        }
    if (rc != SQLITE_DONE)
        s = cache_db_fail(c->db, rc, err, "reading the cache");
    sqlite3_finalize(st);
    return s;
}

static const struct {
    const char *select;
    row_fn fn;
    const char *insert;
} tables[] = {
    [CACHE_INFO_TABLE] = {"SELECT info, bytes FROM info_tables WHERE program = ?1", row_info,
                          "INSERT OR REPLACE INTO info_tables VALUES (?1, ?2, ?3)"},
    [CACHE_SRT] = {"SELECT info, srt FROM srts WHERE program = ?1", row_srt,
                   "INSERT OR REPLACE INTO srts VALUES (?1, ?2, ?3)"},
    [CACHE_CON_DESC] = {"SELECT info, text FROM con_descs WHERE program = ?1", row_con_desc,
                        "INSERT OR REPLACE INTO con_descs VALUES (?1, ?2, ?3)"},
    [CACHE_SOURCE_INFO] = {"SELECT info, available, found, closure_type, name, closure_type_text,"
                           " type, label, module, position FROM source_infos WHERE program = ?1",
                           row_source_info,
                           "INSERT OR REPLACE INTO source_infos(program, info, available, found,"
                           " closure_type, name, closure_type_text, type, label, module, position)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"},
    [CACHE_FRAME_BITMAP] = {"SELECT info, bits FROM frame_bitmaps WHERE program = ?1",
                            row_frame_bitmap,
                            "INSERT OR REPLACE INTO frame_bitmaps VALUES (?1, ?2, ?3)"},
    [CACHE_FUN_BITMAP] = {"SELECT info, n, bits FROM fun_bitmaps WHERE program = ?1",
                          row_fun_bitmap,
                          "INSERT OR REPLACE INTO fun_bitmaps VALUES (?1, ?2, ?3, ?4)"},
};
#define N_KINDS (sizeof tables / sizeof tables[0])

hs_status cache_maps_load(cache *c, int64_t program, cache_maps *m, hs_error *err) {
    *m = (cache_maps){0};
    hs_status st = HS_OK;
    for (size_t k = 0; st == HS_OK && k < N_KINDS; k++)
        st = load_table(c, program, tables[k].select, tables[k].fn, m, err);
    if (st != HS_OK)
        cache_maps_free(m);
    return st;
}

/* ---- writing rows ---- */

static void bind_text(sqlite3_stmt *st, int i, const char *t) {
    if (t)
        sqlite3_bind_text(st, i, t, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static const void *value_of(const u64map *m, uint64_t key) {
    uint64_t *v = u64map_find(m, key);
    return v ? (const void *)(uintptr_t)*v : NULL;
}

/* Binds the answer's columns after (program, key); false if it is gone. */
static bool bind_answer(sqlite3_stmt *st, const cache_maps *m, cache_pending p) {
    sqlite3_bind_int64(st, 2, (sqlite3_int64)(p.kind == CACHE_FUN_BITMAP
                                                  ? p.key & ((UINT64_C(1) << 48) - 1)
                                                  : p.key));
    switch (p.kind) {
    case CACHE_SRT: {
        uint64_t *v = u64map_find(&m->srts, p.key);
        if (v)
            sqlite3_bind_int64(st, 3, (sqlite3_int64)*v);
        return v != NULL;
    }
    case CACHE_CON_DESC: {
        const cache_text *t = value_of(&m->con_descs, p.key);
        if (t)
            bind_text(st, 3, t->available ? t->text : NULL);
        return t != NULL;
    }
    case CACHE_SOURCE_INFO: {
        const cache_ipe *c = value_of(&m->source_infos, p.key);
        if (!c)
            return false;
        sqlite3_bind_int(st, 3, c->available);
        sqlite3_bind_int(st, 4, c->si.found);
        sqlite3_bind_int64(st, 5, c->si.closure_type);
        const char *f[6] = {c->si.name, c->si.closure_type_text, c->si.type, c->si.label,
                            c->si.module, c->si.position};
        for (int i = 0; i < 6; i++)
            bind_text(st, 6 + i, f[i]);
        return true;
    }
    case CACHE_FUN_BITMAP: {
        const cache_blob *b = value_of(&m->fun_bitmaps, p.key);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)(p.key >> 48));
        if (b)
            sqlite3_bind_blob(st, 4, b->bytes, (int)b->len, SQLITE_STATIC);
        return b != NULL;
    }
    case CACHE_INFO_TABLE:
    case CACHE_FRAME_BITMAP: {
        const cache_blob *b =
            value_of(p.kind == CACHE_INFO_TABLE ? &m->infos : &m->frame_bitmaps, p.key);
        if (b)
            sqlite3_bind_blob(st, 3, b->bytes, (int)b->len, SQLITE_STATIC);
        return b != NULL;
    }
    }
    return false;
}

hs_status cache_maps_write(cache *c, int64_t program, const cache_maps *m,
                           const cache_pending *p, size_t n, hs_error *err) {
    sqlite3_stmt *ins[N_KINDS] = {0};
    hs_status st = cache_begin(c, err);
    if (st != HS_OK)
        return st;
    for (size_t k = 0; st == HS_OK && k < N_KINDS; k++)
        st = cache_db_prepare(c, tables[k].insert, &ins[k], err);
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        sqlite3_stmt *s = ins[p[i].kind];
        sqlite3_bind_int64(s, 1, program);
        if (bind_answer(s, m, p[i]))
            st = cache_db_step_done(c, s, err, "writing the cache");
        sqlite3_clear_bindings(s);
    }
    for (size_t k = 0; k < N_KINDS; k++)
        sqlite3_finalize(ins[k]);
    return cache_commit(c, st, err);
}
