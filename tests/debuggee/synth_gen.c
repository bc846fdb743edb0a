/* synth_generate: option checks, the order of the generation phases
 * (synth_gen_internal.h), and handing the result over as a synth_process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"

#define SG_MAX_CLOSURES UINT64_C(50000000)
#define SG_MAX_ERAS 10000u

void synth_options_default(synth_options *o) {
    *o = (synth_options){.closures = 10000, .eras = 5, .profiled = false,
                         .leak_constructor = "Leak", .leak_count = 1000, .leak_era = 1,
                         .seed = 1, .ghc_version = 910};
}

unsigned sg_last_era(const synth_options *o) {
    return o->eras + (o->grow_per_pause ? (unsigned)o->grow_rounds : 0);
}

/* The leak constructor must be a plain Haskell constructor name that no
 * other constructor of the heap shares (searches match by name only). */
static int check_leak_name(const char *s, char *err, size_t errlen) {
    size_t n = s ? strlen(s) : 0;
    bool ok = n > 0 && n <= 100 && s[0] >= 'A' && s[0] <= 'Z';
    for (size_t i = 1; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
             (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '\'';
    if (!ok) {
        snprintf(err, errlen, "leak constructor \"%s\" is not a constructor name", s ? s : "");
        return -1;
    }
    for (int t = 0; t < SG_T_FIXED_COUNT; t++) {
        char key[512], name[256];
        if (t == SG_T_LEAK || !sg_catalog[t].con)
            continue;
        sg_con_key(sg_catalog[t].con, key, sizeof key, name, sizeof name);
        if (!strcmp(name, s)) {
            snprintf(err, errlen, "leak constructor \"%s\" clashes with %s", s,
                     sg_catalog[t].con);
            return -1;
        }
    }
    return 0;
}

static int check_options(const synth_options *o, char *err, size_t errlen) {
    if (o->eras < 2 || o->eras > SG_MAX_ERAS) {
        snprintf(err, errlen, "eras must be in 2..%u", SG_MAX_ERAS);
        return -1;
    }
    if (o->leak_era < 1 || o->leak_era >= o->eras) {
        snprintf(err, errlen, "leak_era must be in 1..eras-1");
        return -1;
    }
    if (o->leak_count < 1 || o->leak_count > SG_MAX_CLOSURES / 2) {
        snprintf(err, errlen, "leak_count must be in 1..%llu",
                 (unsigned long long)(SG_MAX_CLOSURES / 2));
        return -1;
    }
    if (o->grow_per_pause > SG_MAX_CLOSURES / 2 ||
        (o->grow_per_pause && o->grow_rounds > (SG_MAX_CLOSURES / 2) / o->grow_per_pause) ||
        o->grow_rounds > SG_MAX_ERAS) {
        snprintf(err, errlen, "the growth (%llu closures a pause, %llu pauses) passes %llu "
                 "closures or %u rounds", (unsigned long long)o->grow_per_pause,
                 (unsigned long long)o->grow_rounds, (unsigned long long)(SG_MAX_CLOSURES / 2),
                 SG_MAX_ERAS);
        return -1;
    }
    if (o->closures > SG_MAX_CLOSURES) {
        snprintf(err, errlen, "at most %llu closures", (unsigned long long)SG_MAX_CLOSURES);
        return -1;
    }
    if (o->ghc_version != 910 && o->ghc_version != 912 && o->ghc_version != 914) {
        snprintf(err, errlen, "GHC %u is not 910, 912 or 914", o->ghc_version);
        return -1;
    }
    if (o->unknown_type &&
        (o->unknown_type < sg_closure_types_of(o->ghc_version) || o->unknown_type > 0xFFFF)) {
        snprintf(err, errlen, "closure type %u is one GHC %u.%u has (the unknown type must be "
                 "%u to 65535)", o->unknown_type, o->ghc_version / 100, o->ghc_version % 100,
                 sg_closure_types_of(o->ghc_version));
        return -1;
    }
    return check_leak_name(o->leak_constructor, err, errlen);
}

static void push_region(synth_process *out, uint64_t base, uint64_t size, uint8_t *bytes) {
    out->regions[out->n_regions++] = (synth_region){.base = base, .size = size, .bytes = bytes};
}

/* Moves everything the process owns out of the context. */
static void assemble(sg_ctx *c, synth_process *out) {
    /* VERSION: 9.10.1, 9.12.2 or 9.14.1 */
    out->ghc_major = c->opt->ghc_version;
    out->ghc_patch = c->opt->ghc_version == 912 ? 2 : 1;
    out->prof_mode = c->prof_mode;
    out->duplicate_pinned = c->opt->duplicate_pinned;
    out->regions = sg_alloc_mem(c, (2 + c->heap.n_runs) * sizeof *out->regions);

    sg_buf_align(c, &c->strs, 8, 0);
    size_t text_size = SG_TEXT_TABLES_CAP + c->strs.len;
    if (text_size > SYNTH_DATA_BASE - SYNTH_TEXT_BASE)
        sg_fail(c, "internal: text region overlaps the data region");
    uint8_t *text = sg_alloc_mem(c, text_size);
    memcpy(text, c->text.b, c->text.len);
    memset(text + c->text.len, 0xcc, SG_TEXT_TABLES_CAP - c->text.len); /* int3 padding */
    memcpy(text + SG_TEXT_TABLES_CAP, c->strs.b, c->strs.len);
    push_region(out, SYNTH_TEXT_BASE, text_size, text);
    push_region(out, SYNTH_DATA_BASE, c->data.len, c->data.b);
    c->data = (sg_buf){0};
    for (size_t i = 0; i < c->heap.n_runs; i++) {
        sg_run *r = &c->heap.runs[i];
        push_region(out, r->base, r->size, r->bytes);
        r->bytes = NULL;
    }
    c->heap.n_runs = 0;

    out->group_starts = c->heap.groups;
    out->n_groups = c->heap.n_groups;
    c->heap.groups = NULL;
    out->roots = c->roots;
    out->n_roots = c->n_roots;
    c->roots = NULL;
    if (c->n_saved > SYNTH_MAX_SAVED)
        sg_fail(c, "internal: too many saved objects");
    memcpy(out->saved, c->saved, c->n_saved * sizeof *c->saved);
    out->n_saved = c->n_saved;

    out->ipes = sg_alloc_mem(c, (c->n_ipes ? c->n_ipes : 1) * sizeof *out->ipes);
    out->n_ipes = c->opt->no_ipe ? 0 : c->n_ipes; /* --no-ipe: SOURCE_INFO finds nothing */
    out->ipe_text = (char *)c->ipe_text.b;
    c->ipe_text = (sg_buf){0};
    for (size_t i = 0; i < c->n_ipes; i++) {
        out->ipes[i].info = c->ipes[i].info;
        for (int k = 0; k < 6; k++)
            out->ipes[i].strings[k] = out->ipe_text + c->ipes[i].str[k];
    }
    out->ccs_main = c->prof ? c->ccs[SG_CC_MAIN] : 0;
}

static void ctx_free(sg_ctx *c) {
    sg_plan_cleanup(c);
    free(c->text.b);
    free(c->strs.b);
    free(c->ipes);
    free(c->ipe_text.b);
    free(c->data.b);
    for (size_t i = 0; i < c->heap.n_runs; i++)
        free(c->heap.runs[i].bytes);
    free(c->heap.runs);
    free(c->heap.groups);
    free(c->heap.starts);
    free(c->batch);
    free(c->scratch);
    free(c->roots);
    free(c->json.b);
    free(c);
}

int synth_generate(const synth_options *o, synth_process *out, char *err, size_t errlen) {
    *out = (synth_process){0};
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (check_options(o, err, errlen) < 0)
        return -1;
    sg_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->opt = o;
    c->err = err;
    c->errlen = errlen;
    if (setjmp(c->fail)) {
        ctx_free(c);
        synth_process_free(out);
        return -1;
    }
    c->prof = o->profiled;
    c->prof_mode = !c->prof ? SYNTH_PROF_NONE : o->prof_mode ? o->prof_mode : SYNTH_PROF_ERA;
    c->H = c->prof ? 24 : 8;
    c->Hw = c->H / 8;
    c->S = c->prof ? 32 : 16;
    c->rng = sg_mix64(o->seed ^ UINT64_C(0x6a09e667f3bcc908));

    sg_heap_init(c);
    sg_static_reserve(c);
    sg_text_build(c);
    sg_static_fill(c);
    c->cur_era = 1;
    c->cur_ccs = c->ccs[SG_CC_MAIN_FN];
    sg_threads_reserve(c);
    sg_rts_build(c);
    sg_leak_build(c);
    if (o->strings)
        sg_strings_build(c);
    /* the threads still to come add a few dozen closures */
    sg_shapes_build(c, o->closures > 64 ? o->closures - 64 : 0);
    sg_threads_build(c);
    if (o->grow_per_pause)
        sg_grow_build(c);
    sg_heap_finish(c);
    assemble(c, out);
    sg_plan_build(c, out);
    ctx_free(c);
    return 0;
}
