/* Info tables, their SRTs, constructor descriptions and source locations:
 * immutable for the life of the process, fetched once per info pointer, in
 * batches where the protocol allows. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"
#include "heap_internal.h"


static bool may_have_srt(uint32_t type) {
    return (type >= HS_FUN && type <= HS_THUNK_STATIC) ||
           (type >= HS_RET_BCO && type <= HS_STOP_FRAME) ||
           (type >= HS_ATOMICALLY_FRAME && type <= HS_CATCH_STM_FRAME) || type == HS_ANN_FRAME;
}

static hs_status parse_info(heap *h, uint64_t ptr, heap_blob raw, info_entry *e, hs_error *err) {
    size_t want = h->info_bytes;
    if (raw.len != want && !(!h->version.tntc && raw.len == want + 8))
        return hs_fail(err, HS_ERR_PROTOCOL, "info table 0x%llx: %zu bytes, expected %zu",
                       (unsigned long long)ptr, raw.len, want);
    _Static_assert(sizeof e->raw >= 40, "room for the largest info table");
    memcpy(e->raw, raw.data, raw.len);
    e->raw_len = (uint8_t)raw.len;
    const uint8_t *p = raw.data + raw.len - 16;
    e->pub.ptr = ptr;
    e->pub.layout = hs_load_le64(p);
    e->pub.ptrs = hs_load_le32(p);
    e->pub.nptrs = hs_load_le32(p + 4);
    /* a number this GHC has no closure type for is named and decoded as unknown */
    e->pub.type = hs_closure_type_of(hs_load_le32(p + 8), h->version.major);
    e->pub.srt_field = (int32_t)hs_load_le32(p + 12);
    return HS_OK;
}

/* CON_DESC for a constructor; a debuggee that refuses leaves the name
 * unknown rather than failing the whole decode. */
static hs_status fetch_con_desc(heap *h, info_entry *e, hs_error *err) {
    hs_error local = {0};
    char *text = NULL;
    hs_status st = h->src.ops->con_desc(h->src.self, e->pub.ptr, &text, &local);
    if (st == HS_OK)
        st = text ? wire_parse_con_desc(text, strlen(text), &e->desc, &local)
                  : hs_fail(&local, HS_ERR_INTERNAL, "the source answered no description");
    free(text);
    if (st == HEAP_UNAVAILABLE) {
        e->pub.con_package = e->pub.con_module = "";
        e->pub.con_name = "?";
        return HS_OK;
    }
    if (st != HS_OK) {
        if (err)
            *err = local;
        return st;
    }
    e->pub.con_package = e->desc.package;
    e->pub.con_module = e->desc.module;
    e->pub.con_name = e->desc.name;
    return HS_OK;
}

/* Keeps e as the entry of ptr; e is freed on failure. */
static hs_status keep(heap *h, uint64_t ptr, info_entry *e, hs_error *err) {
    if (e && u64map_put(&h->infos, ptr, (uintptr_t)e))
        return HS_OK;
    if (e) {
        wire_con_desc_free(&e->desc);
        free(e->why);
    }
    free(e);
    return hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

/* An info pointer the source has no (sensible) info table for: every
 * closure using it is unreadable, and it is not asked for again. */
static hs_status keep_failure(heap *h, uint64_t ptr, const hs_error *why, hs_error *err) {
    info_entry *e = calloc(1, sizeof *e);
    if (e) {
        e->pub.ptr = ptr;
        e->failed = why->status ? why->status : HS_ERR_PROTOCOL;
        e->why = strdup(why->message);
    }
    if (e && !e->why) {
        free(e);
        e = NULL;
    }
    return keep(h, ptr, e, err);
}

/* Info tables, then the SRTs of those that may have one, then constructor
 * descriptions. A refusal of either batched request refuses the batch
 * (heap_fetch_split then splits it); an info table that makes no sense
 * fails only its own pointer. */
static hs_status fetch_batch(heap *h, const uint64_t *ptrs, size_t n, hs_error *err) {
    heap_blobs blobs = {0};
    info_entry **made = calloc(n, sizeof *made);
    uint64_t *srt_ptrs = malloc(n * sizeof *srt_ptrs), *srts = malloc(n * sizeof *srts);
    size_t n_srt = 0;
    hs_status st = made && srt_ptrs && srts ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (st == HS_OK)
        st = h->src.ops->info_tables(h->src.self, ptrs, n, &blobs, err);
    if (st == HS_OK && blobs.count != n)
        st = hs_fail(err, HS_ERR_INTERNAL, "the source answered %zu info tables for %zu",
                     blobs.count, n);
    for (size_t i = 0; st == HS_OK && i < n; i++) {
        made[i] = calloc(1, sizeof *made[i]);
        if (!made[i]) {
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
            break;
        }
        hs_error bad = {0};
        if (parse_info(h, ptrs[i], blobs.items[i], made[i], &bad) != HS_OK) {
            made[i]->failed = bad.status;
            if (!(made[i]->why = strdup(bad.message)))
                st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
        } else if (may_have_srt(made[i]->pub.type) && made[i]->pub.srt_field != 0) {
            srt_ptrs[n_srt++] = ptrs[i];
        }
    }
    if (st == HS_OK && n_srt > 0)
        st = h->src.ops->srts(h->src.self, srt_ptrs, n_srt, srts, err);
    for (size_t i = 0; st == HS_OK && i < n; i++)
        if (!made[i]->failed && hs_closure_type_is_constructor(made[i]->pub.type))
            st = fetch_con_desc(h, made[i], err);
    for (size_t i = 0, k = 0; st == HS_OK && i < n; i++) {
        if (k < n_srt && srt_ptrs[k] == ptrs[i]) {
            made[i]->pub.srt = wire_untag(srts[k++]);
            made[i]->srt_asked = true;
        }
        if (!made[i]->failed)
            heap_guard_note_info(h, ptrs[i]);
        st = keep(h, ptrs[i], made[i], err);
        made[i] = NULL; /* owned by the map now, or freed */
    }
    for (size_t i = 0; made && i < n; i++) {
        if (made[i]) {
            wire_con_desc_free(&made[i]->desc);
            free(made[i]->why);
        }
        free(made[i]);
    }
    free(made);
    free(srt_ptrs);
    free(srts);
    heap_blobs_free(&blobs);
    return st;
}

hs_status heap_info_prefetch(heap *h, const uint64_t *ptrs, size_t n, hs_error *err) {
    /* sized by the call: most ask for one or a few (a batch is 512 KiB) */
    uint64_t *batch = malloc((n < HEAP_MAX_BATCH ? n + 1 : HEAP_MAX_BATCH) * sizeof *batch);
    if (!batch)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    u64map pending = {0};
    hs_status st = HS_OK;
    size_t k = 0;
    for (size_t i = 0; st == HS_OK && i <= n; i++) {
        if (i < n) {
            uint64_t p = ptrs[i];
            if (p == 0 || u64map_find(&h->infos, p) || u64map_find(&pending, p))
                continue;
            hs_error why = {0};
            if (!heap_guard_info(h, p, &why)) { /* never asked: unreadable, with the reason */
                st = keep_failure(h, p, &why, err);
                continue;
            }
            if (!u64map_put(&pending, p, 1)) {
                st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
                break;
            }
            batch[k++] = p;
        }
        if (k == HEAP_MAX_BATCH || (i == n && k > 0)) {
            st = heap_fetch_split(h, batch, k, fetch_batch, keep_failure, err);
            k = 0;
        }
    }
    u64map_free(&pending);
    free(batch);
    return st;
}

bool heap_info_cached(const heap *h, uint64_t info_ptr) {
    return u64map_find(&h->infos, info_ptr) != NULL;
}

const heap_info *heap_info_lookup(const heap *h, uint64_t info_ptr) {
    uint64_t *found = u64map_find(&h->infos, info_ptr);
    const info_entry *e = found ? (const info_entry *)(uintptr_t)*found : NULL;
    return e && !e->failed ? &e->pub : NULL;
}

hs_status heap_info_get(heap *h, uint64_t info_ptr, const heap_info **out, hs_error *err) {
    uint64_t *found = u64map_find(&h->infos, info_ptr);
    if (!found) {
        if (info_ptr == 0)
            return hs_fail(err, HS_ERR_PROTOCOL, "null info pointer");
        hs_status st = heap_info_prefetch(h, &info_ptr, 1, err);
        if (st != HS_OK)
            return hs_fail_context(err, "info table 0x%llx", (unsigned long long)info_ptr);
        found = u64map_find(&h->infos, info_ptr);
        if (!found)
            return hs_fail(err, HS_ERR_INTERNAL, "info table 0x%llx not kept",
                           (unsigned long long)info_ptr);
    }
    const info_entry *e = (const info_entry *)(uintptr_t)*found;
    if (e->failed)
        return hs_fail(err, e->failed, "info table 0x%llx: %s", (unsigned long long)info_ptr,
                       e->why);
    *out = &e->pub;
    return HS_OK;
}

hs_status heap_info_source(heap *h, const heap_info *info, const wire_source_info **out,
                           hs_error *err) {
    info_entry *e = (info_entry *)info;
    if (!e->pub.ipe_fetched) {
        hs_status st = h->src.ops->source_info(h->src.self, e->pub.ptr, &e->ipe, err);
        if (st != HS_OK && st != HEAP_UNAVAILABLE)
            return st;
        e->pub.ipe_fetched = true;
        e->pub.ipe = st == HS_OK && e->ipe.found ? &e->ipe : NULL;
    }
    *out = e->pub.ipe;
    return HS_OK;
}

void heap_infos_free(heap *h) {
    for (size_t i = 0; i < h->infos.cap; i++) {
        if (!h->infos.keys[i])
            continue;
        info_entry *e = (info_entry *)(uintptr_t)h->infos.values[i];
        wire_con_desc_free(&e->desc);
        wire_source_info_free(&e->ipe);
        free(e->why);
        free(e);
    }
    u64map_free(&h->infos);
}
