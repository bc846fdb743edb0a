/* The cost-centre commands of a profiled RTS: CCS (§7.16), CC (§7.17),
 * INDEX_TABLE (§7.18), CCS_MAIN (§7.19). A non-profiled RTS answers
 * BAD_COMMAND to all four. The structs are the RTS's own (rts/prof/CCS.h),
 * copied field by field in the wire's order. */
#include <string.h>

#include "rts_private.h"
#include "stub.h"

#if defined(PROFILING)

static void out_u64le(out *o, uint64_t v) { out_ptr(o, (uintptr_t)v); }

static bool string_ok(const char *s, size_t *len) {
    size_t span = mem_readable_span((uintptr_t)s);
    *len = s ? strnlen(s, span) : 0;
    return s && span > 0 && *len < span && *len <= UINT32_MAX;
}

static void out_string(out *o, const char *s, size_t len) {
    out_u32be(o, (uint32_t)len);
    out_write(o, s, len);
}

uint16_t cmd_ccs(req *r, out *o) {
    uintptr_t p;
    if (!req_ptr(r, &p) || !mem_readable(p, sizeof(CostCentreStack)))
        return ST_BAD_COMMAND;
    const CostCentreStack *s = (const CostCentreStack *)p;
    out_u64le(o, (uint64_t)s->ccsID);
    out_ptr(o, (uintptr_t)s->cc);
    out_ptr(o, (uintptr_t)s->prevStack);
    out_ptr(o, (uintptr_t)s->indexTable);
    out_ptr(o, (uintptr_t)s->root);
    out_u64le(o, s->depth);
    out_u64le(o, s->scc_count);
    out_u64le(o, s->selected);
    out_u64le(o, s->time_ticks);
    out_u64le(o, s->mem_alloc);
    out_u64le(o, s->inherited_alloc);
    out_u64le(o, s->inherited_ticks);
    return ST_OKAY;
}

uint16_t cmd_cc(req *r, out *o) {
    uintptr_t p;
    if (!req_ptr(r, &p) || !mem_readable(p, sizeof(CostCentre)))
        return ST_BAD_COMMAND;
    const CostCentre *cc = (const CostCentre *)p;
    size_t label, module, srcloc;
    if (!string_ok(cc->label, &label) || !string_ok(cc->module, &module) ||
        !string_ok(cc->srcloc, &srcloc))
        return ST_BAD_COMMAND;
    out_u64le(o, (uint64_t)cc->ccID);
    out_string(o, cc->label, label);
    out_string(o, cc->module, module);
    out_string(o, cc->srcloc, srcloc);
    out_u64le(o, cc->mem_alloc);
    out_u64le(o, cc->time_ticks);
    out_u64le(o, cc->is_caf ? 1 : 0);
    out_ptr(o, (uintptr_t)cc->link);
    return ST_OKAY;
}

uint16_t cmd_index_table(req *r, out *o) {
    uintptr_t p;
    if (!req_ptr(r, &p) || !mem_readable(p, sizeof(IndexTable)))
        return ST_BAD_COMMAND;
    const IndexTable *t = (const IndexTable *)p;
    out_ptr(o, (uintptr_t)t->cc);
    out_ptr(o, (uintptr_t)t->ccs);
    out_ptr(o, (uintptr_t)t->next);
    out_u8(o, t->back_edge ? 1 : 0);
    return ST_OKAY;
}

uint16_t cmd_ccs_main(req *r, out *o) {
    (void)r;
    out_ptr(o, (uintptr_t)CCS_MAIN);
    return ST_OKAY;
}

#else

uint16_t cmd_ccs(req *r, out *o) { (void)r; (void)o; return ST_BAD_COMMAND; }
uint16_t cmd_cc(req *r, out *o) { (void)r; (void)o; return ST_BAD_COMMAND; }
uint16_t cmd_index_table(req *r, out *o) { (void)r; (void)o; return ST_BAD_COMMAND; }
uint16_t cmd_ccs_main(req *r, out *o) { (void)r; (void)o; return ST_BAD_COMMAND; }

#endif
