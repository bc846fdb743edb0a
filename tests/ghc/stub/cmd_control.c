/* VERSION (§7.1), PAUSE (§7.2), RESUME (§7.3) and SOURCE_INFO (§7.11). */
#include "rts_private.h"
#include "stub.h"

/* Profiling-mode byte: 0 on a non-profiled RTS; else the heap-profiling
 * mode, tested in the reference's order (1 none, 2 retainer, 3 LDV,
 * 5 anything else; 9.0 has no era profiling, so never 4). */
static uint8_t prof_mode(void) {
#if defined(PROFILING)
    const PROFILING_FLAGS *p = &RtsFlags.ProfFlags;
    if (p->doHeapProfile == NO_HEAP_PROFILING)
        return 1;
    if (p->doHeapProfile == HEAP_BY_RETAINER || p->retainerSelector)
        return 2;
    if (p->doHeapProfile == HEAP_BY_LDV || p->bioSelector)
        return 3;
    return 5;
#else
    return 0;
#endif
}

uint16_t cmd_version(req *r, out *o) {
    (void)r;
    out_u32be(o, __GLASGOW_HASKELL__);
    out_u32be(o, __GLASGOW_HASKELL_PATCHLEVEL1__);
    out_u8(o, prof_mode());
    out_u8(o, 1); /* tables next to code */
    return ST_OKAY;
}

/* Fork mode (a non-zero byte) is treated as a pause in place, as the spec
 * recommends for test servers (§8.2). */
uint16_t cmd_pause(req *r, out *o) {
    (void)o;
    uint8_t mode;
    if (!req_u8(r, &mode))
        return ST_BAD_COMMAND;
    if (stub_paused())
        return ST_ALREADY_PAUSED;
    stub_pause();
    return ST_OKAY;
}

uint16_t cmd_resume(req *r, out *o) {
    (void)r;
    (void)o;
    if (!stub_paused())
        return ST_NOT_PAUSED;
    stub_resume();
    return ST_OKAY;
}

/* GHC 9.0 has no info-table provenance map: every answer is "not found". */
uint16_t cmd_source_info(req *r, out *o) {
    uintptr_t info;
    if (!req_ptr(r, &info))
        return ST_BAD_COMMAND;
    out_u32be(o, 0);
    return ST_OKAY;
}
