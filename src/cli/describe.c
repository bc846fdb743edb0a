/* Closures printed by roots and show: made into the same query_step that a
 * search reports, so every command prints closures one way (step_print.c). */
#include "describe.h"

#include <inttypes.h>

#include "heapscope/closure_type.h"
#include "heapscope/query.h"
#include "output.h"
#include "search.h"

/* label (cap bytes) and thread (QUERY_THREAD_LABEL_MAX) hold its texts. */
static hs_status step_of(heap *h, const heap_closure *c, char *label, size_t cap, char *thread,
                         query_step *s, hs_error *err) {
    const wire_source_info *ipe = NULL;
    if (c->info) {
        hs_status st = heap_info_source(h, c->info, &ipe, err);
        if (st != HS_OK)
            return st;
    }
    heap_closure_label(h, c, label, cap);
    *s = (query_step){
        .addr = c->addr,
        .info_ptr = c->info_ptr,
        .info = c->info,
        .type = c->type,
        .size = c->size,
        .label = label,
        .ipe = ipe,
        .prof = c->prof,
    };
    s->has_era = heap_closure_era(h, c, &s->era);
    if (c->type == HS_TSO) {
        query_thread_label(h, c, thread, QUERY_THREAD_LABEL_MAX);
        s->thread_id = c->thread_id;
        s->thread_label = *thread ? thread : NULL;
    }
    return HS_OK;
}

hs_status cli_print_closure_text(FILE *out, heap *h, const heap_closure *c, hs_error *err) {
    char label[1024], thread[QUERY_THREAD_LABEL_MAX];
    query_step s;
    hs_status st = step_of(h, c, label, sizeof label, thread, &s, err);
    if (st == HS_OK)
        cli_print_step_text(out, h, &s);
    return st;
}

hs_status cli_print_closure_json(FILE *out, heap *h, const heap_closure *c, hs_error *err) {
    char label[1024], thread[QUERY_THREAD_LABEL_MAX];
    query_step s;
    hs_status st = step_of(h, c, label, sizeof label, thread, &s, err);
    if (st == HS_OK)
        cli_print_step_json(out, h, &s, c, false);
    return st;
}

hs_status cli_prepare_closure(FILE *out, heap *h, const heap_closure *c, hs_error *err) {
    hs_status st = cli_print_closure_text(out, h, c, err);
    return st == HS_OK ? cli_print_closure_json(out, h, c, err) : st;
}

hs_status cli_print_address_text(FILE *out, heap *h, heap_closure *scratch, uint64_t addr,
                                 hs_error *err) {
    hs_status st = heap_decode(h, addr, scratch, err);
    if (query_unreadable_status(st)) {
        fprintf(out, "0x%" PRIx64 "  <could not be read: %s>", addr, err->message);
        return HS_OK;
    }
    return st == HS_OK ? cli_print_closure_text(out, h, scratch, err) : st;
}

hs_status cli_print_address_json(FILE *out, heap *h, heap_closure *scratch, uint64_t addr,
                                 hs_error *err) {
    hs_status st = heap_decode(h, addr, scratch, err);
    if (query_unreadable_status(st)) {
        fprintf(out, "{\"address\": \"0x%" PRIx64 "\", \"unreadable\": ", addr);
        cli_json_string(out, err->message);
        fputc('}', out);
        return HS_OK;
    }
    return st == HS_OK ? cli_print_closure_json(out, h, scratch, err) : st;
}
