/* The profiling header word of the profiled flavours (heap-layout.md §4):
 * what a closure of an era carries in each profiling mode, and the era
 * read back from it (the plan's census by era). The era mode keeps the
 * era itself; the others make values a client must decode exactly:
 *   LDV:      created = era; used or not, and the era of the last use,
 *             chosen from the address;
 *   retainer: a RetainerSet address per era (runtime memory, never read)
 *             and the traversal flag from the address;
 *   plain:    the era as a raw word (no meaning to show).
 * Static closures (era 0) carry 0 in every mode, as GHC's static headers. */
#include <inttypes.h>
#include <stdio.h>

#include "synth_gen_internal.h"

#define LDV_USED UINT64_C(0x1000000000000000)
#define LDV_CREATED UINT64_C(0x0FFFFFFFC0000000)
#define RSET_BASE UINT64_C(0x7f3a00000000)
#define RSET_BYTES 32u

uint64_t sg_prof_word(uint8_t mode, uint64_t era, uint64_t addr) {
    if (era == 0)
        return 0;
    uint64_t mix = addr >> 3;
    switch (mode) {
    case SYNTH_PROF_LDV:
        if (mix % 3 == 0)
            return era << 30; /* created, never used */
        return LDV_USED | (era << 30) | (era + mix % 3);
    case SYNTH_PROF_RETAINER: return (RSET_BASE + RSET_BYTES * era) | (mix & 1);
    default: return era;
    }
}

uint64_t sg_prof_era(uint8_t mode, uint64_t word) {
    if (word == 0)
        return 0;
    switch (mode) {
    case SYNTH_PROF_LDV: return (word & LDV_CREATED) >> 30;
    case SYNTH_PROF_RETAINER: return ((word & ~UINT64_C(1)) - RSET_BASE) / RSET_BYTES;
    default: return word;
    }
}

const char *sg_prof_mode_name(uint8_t mode) {
    switch (mode) {
    case SYNTH_PROF_PLAIN: return "profiled";
    case SYNTH_PROF_RETAINER: return "retainer";
    case SYNTH_PROF_LDV: return "ldv";
    case SYNTH_PROF_ERA: return "era";
    default: return "none";
    }
}

/* The plan's profiling items of a path step, decoded from the word by
 * the generator's own rules ("cost_centre" from its cost-centre table). */
void sg_prof_plan_items(sg_ctx *c, const sg_closure *cl, char *buf, size_t cap) {
    size_t n = 0;
    const char *label, *module, *srcloc;
    if (sg_cost_centre_of(c, cl->ccs, &label, &module, &srcloc))
        n += (size_t)snprintf(buf + n, cap - n,
                              ", \"ccs\": \"0x%" PRIx64 "\", \"cost_centre\": {\"label\": \"%s\", "
                              "\"module\": \"%s\", \"location\": \"%s\"}",
                              cl->ccs, label, module, srcloc);
    else
        n += (size_t)snprintf(buf + n, cap - n, ", \"ccs\": \"0x%" PRIx64 "\"", cl->ccs);
    if (n >= cap)
        return;
    uint64_t w = cl->word;
    if (c->prof_mode == SYNTH_PROF_LDV) {
        bool used = w & LDV_USED;
        snprintf(buf + n, cap - n,
                 ", \"ldv\": {\"created\": %" PRIu64 ", \"used\": %s, \"last_used\": %" PRIu64 "}",
                 (w & LDV_CREATED) >> 30, used ? "true" : "false",
                 used ? w & UINT64_C(0x3FFFFFFF) : 0);
    } else if (c->prof_mode == SYNTH_PROF_RETAINER) {
        char set[32] = "null";
        if (w & ~UINT64_C(1))
            snprintf(set, sizeof set, "\"0x%" PRIx64 "\"", w & ~UINT64_C(1));
        snprintf(buf + n, cap - n, ", \"retainer\": {\"set\": %s, \"flag\": %u}", set,
                 (unsigned)(w & 1));
    }
}
