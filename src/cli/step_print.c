/* One closure as a line of text or a JSON object: a step of a search
 * result, or a closure of roots and show (describe.c makes it a step). */
#include <inttypes.h>

#include "heapscope/closure_type.h"
#include "output.h"
#include "search.h"

void cli_print_step_text(FILE *out, heap *h, const query_step *s) {
    fprintf(out, "0x%" PRIx64 "  %s  %" PRIu32 " B", s->addr, hs_closure_type_name(s->type),
            s->size);
    if (s->prof.present) {
        heap_prof_info p;
        heap_prof_describe(h, &s->prof, &p);
        char text[HS_ERROR_MESSAGE_MAX + 64];
        heap_prof_state_text(&p, HEAP_PROF_LINE, text, sizeof text);
        if (*text)
            fprintf(out, "  %s", text);
        heap_prof_cc_text(&p, HEAP_PROF_LINE, text, sizeof text);
        if (*text)
            fprintf(out, "  %s", text);
    }
    fprintf(out, "  %s", s->label);
    char where[512];
    heap_ipe_location(s->ipe, where, sizeof where);
    if (where[0])
        fprintf(out, "  %s", where);
}

static void json_field(FILE *out, const char *name, const char *value, bool comma) {
    fprintf(out, "\"%s\": ", name);
    cli_json_string(out, value ? value : "");
    if (comma)
        fputs(", ", out);
}

static void json_address(FILE *out, uint64_t addr) {
    if (addr)
        fprintf(out, "\"0x%" PRIx64 "\"", addr);
    else
        fputs("null", out);
}

/* "profiling": null without a header, else the header decoded by the
 * debuggee's mode with its cost centre (man page, JSON OUTPUT). */
static void prof_json(FILE *out, heap *h, const heap_prof_header *hdr) {
    fputs("\"profiling\": ", out);
    if (!hdr->present) {
        fputs("null, ", out);
        return;
    }
    heap_prof_info p;
    heap_prof_describe(h, hdr, &p);
    fprintf(out, "{\"mode\": \"%s\", \"word\": %" PRIu64 ", ",
            cli_prof_mode_name(heap_prof_mode(h)), p.word);
    switch (p.kind) {
    case HEAP_PROF_ERA: fprintf(out, "\"era\": %" PRIu64 ", ", p.era); break;
    case HEAP_PROF_LDV:
        fprintf(out, "\"ldv\": {\"created\": %" PRIu64 ", \"used\": %s, \"last_used\": ",
                p.ldv_created, p.ldv_used ? "true" : "false");
        if (p.ldv_used)
            fprintf(out, "%" PRIu64 "}, ", p.ldv_last_use);
        else
            fputs("null}, ", out);
        break;
    case HEAP_PROF_RETAINER:
        fputs("\"retainer\": {\"set\": ", out);
        json_address(out, p.retainer_set);
        fprintf(out, ", \"flag\": %d}, ", p.retainer_flag);
        break;
    default: break;
    }
    fputs("\"ccs\": ", out);
    json_address(out, p.ccs);
    fputs(", \"cost_centre\": ", out);
    if (p.cc) {
        fprintf(out, "{\"id\": %" PRId64 ", ", p.cc->id);
        json_field(out, "label", p.cc->label, true);
        json_field(out, "module", p.cc->module, true);
        json_field(out, "location", p.cc->srcloc, true);
        fprintf(out, "\"is_caf\": %s}", p.cc->is_caf ? "true" : "false");
    } else {
        fputs("null", out);
    }
    if (p.ccs && !p.cc) {
        fputs(", \"cost_centre_unreadable\": ", out);
        cli_json_string(out, p.problem);
    }
    fputs("}, ", out);
}

/* A source location as "location" holds it, null without one. */
static void location_json(FILE *out, const wire_source_info *ipe) {
    if (!ipe) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    json_field(out, "name", ipe->name, true);
    json_field(out, "type", ipe->type, true);
    json_field(out, "label", ipe->label, true);
    json_field(out, "module", ipe->module, true);
    /* a position without a file (the stub's ":") is no position */
    char where[512], file[512] = "", span[128] = "";
    bool real = heap_ipe_location(ipe, where, sizeof where);
    json_field(out, "position", real ? ipe->position : "", true);
    if (real)
        heap_position_split(ipe->position, file, sizeof file, span, sizeof span);
    json_field(out, "file", file, true);
    json_field(out, "span", span, true);
    json_field(out, "text", where, false);
    fputc('}', out);
}

void cli_print_frame_json(FILE *out, heap *h, uint32_t number, const heap_info *info) {
    uint32_t type = info ? info->type : 0;
    const char *kind = heap_frame_kind(type);
    fprintf(out, "{\"number\": %" PRIu32 ", ", number);
    json_field(out, "kind", kind ? kind : "", true);
    json_field(out, "type", type < HS_N_CLOSURE_TYPES ? hs_closure_type_name(type) : "", true);
    fputs("\"info\": ", out);
    json_address(out, info ? info->ptr : 0);
    fputs(", \"location\": ", out);
    location_json(out, heap_frame_source(h, info));
    fputc('}', out);
}

/* "frames": a stack's frames, the first CLI_MAX_FRAMES of them, then
 * "frames_more": how many more. */
#define CLI_MAX_FRAMES 100
static void frames_json(FILE *out, heap *h, const heap_closure *c) {
    size_t shown = c->n_frames < CLI_MAX_FRAMES ? c->n_frames : CLI_MAX_FRAMES;
    fputs(", \"frames\": [", out);
    for (size_t i = 0; i < shown; i++) {
        if (i > 0)
            fputs(", ", out);
        cli_print_frame_json(out, h, (uint32_t)i, c->frames[i].info);
    }
    fprintf(out, "], \"frames_more\": %zu", c->n_frames - shown);
}

void cli_print_step_json(FILE *out, heap *h, const query_step *s, const heap_closure *c,
                         bool on_path) {
    fputc('{', out);
    if (on_path) {
        fputs("\"edge\": ", out);
        if (s->edge)
            cli_json_string(out, s->edge);
        else
            fputs("null", out);
        fputs(", ", out);
    }
    fprintf(out, "\"address\": \"0x%" PRIx64 "\", \"info\": \"0x%" PRIx64 "\", ", s->addr,
            s->info_ptr);
    json_field(out, "type", hs_closure_type_name(s->type), true);
    fprintf(out, "\"size\": %" PRIu32 ", ", s->size);
    json_field(out, "label", s->label, true);
    if (s->info && hs_closure_type_is_constructor(s->type)) {
        fputs("\"constructor\": {", out);
        json_field(out, "package", s->info->con_package, true);
        json_field(out, "module", s->info->con_module, true);
        json_field(out, "name", s->info->con_name, false);
        fputs("}, ", out);
    }
    if (s->has_era)
        fprintf(out, "\"era\": %" PRIu64 ", ", s->era);
    prof_json(out, h, &s->prof);
    fputs("\"location\": ", out);
    location_json(out, s->ipe);
    if (s->type == HS_TSO) {
        fprintf(out, ", \"thread_id\": %" PRIu64 ", \"thread_label\": ", s->thread_id);
        if (s->thread_label)
            cli_json_string(out, s->thread_label);
        else
            fputs("null", out);
    }
    if (c && (c->type == HS_STACK || c->type == HS_AP_STACK))
        frames_json(out, h, c);
    if (on_path) {
        fputs(", \"frame\": ", out);
        if (s->in_frame)
            cli_print_frame_json(out, h, s->frame_number, s->frame_info);
        else
            fputs("null", out);
        fprintf(out, ", \"newer_retains_older\": %s", s->newer_retains_older ? "true" : "false");
    }
    fputc('}', out);
}
