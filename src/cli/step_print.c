/* One closure as a line of text or a JSON object: a step of a search
 * result, or a closure of roots and show (describe.c makes it a step). */
#include <inttypes.h>

#include "heapscope/closure_type.h"
#include "output.h"
#include "search.h"

void cli_print_step_text(FILE *out, const query_step *s) {
    fprintf(out, "0x%" PRIx64 "  %s  %" PRIu32 " B", s->addr, hs_closure_type_name(s->type),
            s->size);
    if (s->has_era)
        fprintf(out, "  era %" PRIu64, s->era);
    fprintf(out, "  %s", s->label);
    if (s->ipe && s->ipe->position && *s->ipe->position)
        fprintf(out, "  %s", s->ipe->position);
}

static void json_field(FILE *out, const char *name, const char *value, bool comma) {
    fprintf(out, "\"%s\": ", name);
    cli_json_string(out, value ? value : "");
    if (comma)
        fputs(", ", out);
}

void cli_print_step_json(FILE *out, const query_step *s, bool on_path) {
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
    fputs("\"location\": ", out);
    if (s->ipe) {
        fputc('{', out);
        json_field(out, "name", s->ipe->name, true);
        json_field(out, "type", s->ipe->type, true);
        json_field(out, "label", s->ipe->label, true);
        json_field(out, "module", s->ipe->module, true);
        json_field(out, "position", s->ipe->position, true);
        char file[512], span[128];
        heap_position_split(s->ipe->position ? s->ipe->position : "", file, sizeof file, span,
                            sizeof span);
        json_field(out, "file", file, true);
        json_field(out, "span", span, false);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    if (on_path)
        fprintf(out, ", \"newer_retains_older\": %s", s->newer_retains_older ? "true" : "false");
    fputc('}', out);
}
