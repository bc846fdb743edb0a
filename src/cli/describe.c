#include "describe.h"

#include <inttypes.h>

#include "heapscope/closure_type.h"
#include "output.h"

static hs_status location_of(heap *h, const heap_closure *c, const wire_source_info **ipe,
                             hs_error *err) {
    *ipe = NULL;
    if (!c->info)
        return HS_OK;
    return heap_info_source(h, c->info, ipe, err);
}

hs_status cli_print_closure_text(FILE *out, heap *h, const heap_closure *c, hs_error *err) {
    const wire_source_info *ipe;
    hs_status st = location_of(h, c, &ipe, err);
    if (st != HS_OK)
        return st;
    char label[1024];
    heap_closure_label(h, c, label, sizeof label);
    fprintf(out, "0x%" PRIx64 "  %s  %" PRIu32 " B", c->addr, hs_closure_type_name(c->type),
            c->size);
    if (c->prof.present && heap_version(h)->prof_mode == WIRE_PROF_ERA)
        fprintf(out, "  era %" PRIu64, c->prof.word);
    fprintf(out, "  %s", label);
    if (ipe && ipe->position && *ipe->position)
        fprintf(out, "  %s", ipe->position);
    return HS_OK;
}

static void json_field(FILE *out, const char *name, const char *value, bool comma) {
    fprintf(out, "\"%s\": ", name);
    cli_json_string(out, value ? value : "");
    if (comma)
        fputs(", ", out);
}

hs_status cli_print_closure_json(FILE *out, heap *h, const heap_closure *c, hs_error *err) {
    const wire_source_info *ipe;
    hs_status st = location_of(h, c, &ipe, err);
    if (st != HS_OK)
        return st;
    char label[1024];
    heap_closure_label(h, c, label, sizeof label);
    fprintf(out, "{\"address\": \"0x%" PRIx64 "\", \"info\": \"0x%" PRIx64 "\", ", c->addr,
            c->info_ptr);
    json_field(out, "type", hs_closure_type_name(c->type), true);
    fprintf(out, "\"size\": %" PRIu32 ", ", c->size);
    json_field(out, "label", label, true);
    if (c->info && hs_closure_type_is_constructor(c->type)) {
        fputs("\"constructor\": {", out);
        json_field(out, "package", c->info->con_package, true);
        json_field(out, "module", c->info->con_module, true);
        json_field(out, "name", c->info->con_name, false);
        fputs("}, ", out);
    }
    if (c->prof.present && heap_version(h)->prof_mode == WIRE_PROF_ERA)
        fprintf(out, "\"era\": %" PRIu64 ", ", c->prof.word);
    fputs("\"location\": ", out);
    if (ipe) {
        fputc('{', out);
        json_field(out, "name", ipe->name, true);
        json_field(out, "type", ipe->type, true);
        json_field(out, "label", ipe->label, true);
        json_field(out, "module", ipe->module, true);
        json_field(out, "position", ipe->position, true);
        char file[512], span[128];
        heap_position_split(ipe->position ? ipe->position : "", file, sizeof file, span,
                            sizeof span);
        json_field(out, "file", file, true);
        json_field(out, "span", span, false);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
    return HS_OK;
}
