/* CLOSURES (§7.5), INFO_TABLES (§7.6), CON_DESC (§7.10) and SRT (§7.15).
 * Every address is checked before anything is written, so a refused
 * request leaves an empty error frame as the spec's error frames are. */
#include <stdlib.h>
#include <string.h>

#include "rts_private.h"
#include "stub.h"

/* Reads the u16 count and that many pointers of a CLOSURES, INFO_TABLES or
 * SRT request into a new array; NULL (with *n = 0) when there are none. */
static bool read_ptr_list(req *r, uintptr_t **ptrs, uint16_t *n) {
    *ptrs = NULL;
    if (!req_u16be(r, n))
        return false;
    if (r->len - r->pos < (size_t)*n * 8)
        return false;
    if (*n == 0)
        return true;
    *ptrs = malloc((size_t)*n * sizeof **ptrs);
    if (!*ptrs)
        return false;
    for (uint16_t i = 0; i < *n; i++)
        req_ptr(r, &(*ptrs)[i]);
    return true;
}

uint16_t cmd_closures(req *r, out *o) {
    uintptr_t *ptrs;
    uint16_t n;
    if (!read_ptr_list(r, &ptrs, &n))
        return ST_BAD_COMMAND;
    uint32_t *sizes = n ? malloc(n * sizeof *sizes) : NULL;
    bool ok = n == 0 || sizes;
    for (uint16_t i = 0; ok && i < n; i++) {
        ptrs[i] = (uintptr_t)UNTAG_CLOSURE((StgClosure *)ptrs[i]);
        size_t bytes = heap_closure_bytes(ptrs[i]);
        ok = bytes > 0 && bytes <= UINT32_MAX;
        if (ok)
            sizes[i] = (uint32_t)bytes;
        else
            stub_log("CLOSURES: no closure at %p", (void *)ptrs[i]);
    }
    for (uint16_t i = 0; ok && i < n; i++) {
        out_u32be(o, sizes[i]);
        out_write(o, (const void *)ptrs[i], sizes[i]);
    }
    free(sizes);
    free(ptrs);
    return ok ? ST_OKAY : ST_BAD_COMMAND;
}

uint16_t cmd_info_tables(req *r, out *o) {
    uintptr_t *ptrs;
    uint16_t n;
    if (!read_ptr_list(r, &ptrs, &n))
        return ST_BAD_COMMAND;
    bool ok = true;
    for (uint16_t i = 0; ok && i < n; i++)
        ok = heap_info_at(ptrs[i], 0) != NULL;
    for (uint16_t i = 0; ok && i < n; i++) {
        out_u32be(o, sizeof(StgInfoTable));
        out_write(o, heap_info_at(ptrs[i], 0), sizeof(StgInfoTable));
    }
    free(ptrs);
    return ok ? ST_OKAY : ST_BAD_COMMAND;
}

static bool is_constructor(StgHalfWord type) { return type >= CONSTR && type <= CONSTR_NOCAF; }

/* The description the compiler stores with a constructor's info table:
 * "package:Module.Con" (e.g. main:Main.Leak). */
uint16_t cmd_con_desc(req *r, out *o) {
    uintptr_t p;
    if (!req_ptr(r, &p))
        return ST_BAD_COMMAND;
    const StgInfoTable *info =
        heap_info_at(p, sizeof(StgConInfoTable) - sizeof(StgInfoTable));
    if (!info || !is_constructor(info->type))
        return ST_BAD_COMMAND;
    const char *desc = GET_CON_DESC((const StgConInfoTable *)p - 1);
    size_t span = mem_readable_span((uintptr_t)desc);
    size_t len = strnlen(desc, span);
    if (span == 0 || len == span || len > UINT32_MAX)
        return ST_BAD_COMMAND;
    out_u32be(o, (uint32_t)len);
    out_write(o, desc, len);
    return ST_OKAY;
}

/* Functions, thunks and stack frames carry an SRT; on x86_64 with tables
 * next to code the info table's srt field is its offset from the info
 * pointer (0: none). Constructors keep their tag there instead. */
static bool may_have_srt(StgHalfWord type) {
    return (type >= FUN && type <= THUNK_STATIC) || (type >= RET_BCO && type <= STOP_FRAME) ||
           (type >= ATOMICALLY_FRAME && type <= CATCH_STM_FRAME);
}

uint16_t cmd_srt(req *r, out *o) {
    uintptr_t *ptrs;
    uint16_t n;
    if (!read_ptr_list(r, &ptrs, &n))
        return ST_BAD_COMMAND;
    bool ok = true;
    for (uint16_t i = 0; ok && i < n; i++)
        ok = heap_info_at(ptrs[i], 0) != NULL;
    for (uint16_t i = 0; ok && i < n; i++) {
        const StgInfoTable *info = heap_info_at(ptrs[i], 0);
        uintptr_t srt = 0;
        if (may_have_srt(info->type) && info->srt != 0)
            srt = ptrs[i] + (uintptr_t)(intptr_t)info->srt;
        out_ptr(o, srt);
    }
    free(ptrs);
    return ok ? ST_OKAY : ST_BAD_COMMAND;
}
