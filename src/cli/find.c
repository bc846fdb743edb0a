/* heapscope find TARGET [FILTERS]: the closures matching the filters, one
 * line (or JSON object) each, in breadth-first order from the GC roots,
 * without paths (so nothing is recorded per closure); with --retained each
 * with its retained size. */
#include <inttypes.h>
#include <stdio.h>

#include "dominators_cli.h"
#include "search.h"

static void match_text(FILE *out, heap *h, const query_match *m, const query_dominators *dom) {
    cli_print_step_text(out, h, &m->steps[0]);
    cli_print_retained_text(out, dom, m->steps[0].addr);
    fputc('\n', out);
}

static void match_json(FILE *out, heap *h, const query_match *m, const query_dominators *dom) {
    fprintf(out, "{\"number\": %" PRIu64 ", \"depth\": %" PRIu32, m->number, m->depth);
    cli_print_retained_json(out, dom, m->steps[0].addr);
    fputs(", \"closure\": ", out);
    cli_print_step_json(out, h, &m->steps[0], NULL, false);
    fputc('}', out);
}

int cli_find(const char *target, const cli_common *common) {
    static const cli_search_view view = {
        .paths = false, .title = NULL, .text = match_text, .json = match_json};
    return cli_run_search(target, common, &view);
}
