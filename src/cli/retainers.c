/* heapscope retainers TARGET FILTERS: for each matching closure, a
 * shortest path from the GC roots (or a saved object), root first, each
 * step with the field that holds it, its era and source location, and the
 * edges where a newer era retains an older one marked. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/plural.h"
#include "dominators_cli.h"
#include "search.h"

/* What the match is: its constructor name, else its closure type. */
static const char *what(const query_step *s) {
    if (s->info && hs_closure_type_is_constructor(s->type) && s->info->con_name)
        return s->info->con_name;
    return hs_closure_type_name(s->type);
}

#define EDGE_COLUMN_MAX 32

static void match_text(FILE *out, heap *h, const query_match *m, const query_dominators *dom) {
    const query_step *last = &m->steps[m->n_steps - 1];
    const char *start = m->from_saved_object ? "saved object" : "GC root";
    fprintf(out, "#%" PRIu64 "  %s at 0x%" PRIx64 ", %" PRIu32 " %s from a %s", m->number,
            what(last), last->addr, m->depth, hs_plural(m->depth, "step", "steps"), start);
    if (m->n_newer_retains_older)
        fprintf(out, "; %zu %s where a newer era retains an older one",
                m->n_newer_retains_older, hs_plural(m->n_newer_retains_older, "edge", "edges"));
    cli_print_retained_text(out, dom, last->addr);
    fputc('\n', out);
    /* edges align in a column, but a long one (a stack frame with its
     * function and location) overflows its own row rather than pushing
     * every closure of the path to the right */
    int width = (int)strlen(start);
    for (size_t i = 1; i < m->n_steps; i++) {
        int n = (int)strlen(m->steps[i].edge);
        if (n > width && n <= EDGE_COLUMN_MAX)
            width = n;
    }
    for (size_t i = 0; i < m->n_steps; i++) {
        const query_step *s = &m->steps[i];
        fprintf(out, "  %-*s  ", width, i == 0 ? start : s->edge);
        cli_print_step_text(out, h, s);
        if (s->newer_retains_older)
            fprintf(out, "  <- newer retains older: era %" PRIu64 " holds era %" PRIu64,
                    m->steps[i - 1].era, s->era);
        fputc('\n', out);
    }
    fputc('\n', out);
}

static void match_json(FILE *out, heap *h, const query_match *m, const query_dominators *dom) {
    fprintf(out,
            "{\"number\": %" PRIu64 ", \"depth\": %" PRIu32 ", \"start\": \"%s\", "
            "\"newer_retains_older\": %zu",
            m->number, m->depth, m->from_saved_object ? "saved-object" : "gc-root",
            m->n_newer_retains_older);
    cli_print_retained_json(out, dom, m->steps[m->n_steps - 1].addr);
    fputs(", \"path\": [", out);
    for (size_t i = 0; i < m->n_steps; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        cli_print_step_json(out, h, &m->steps[i], NULL, true);
    }
    fputs("]}", out);
}

int cli_retainers(const char *target, const cli_common *common) {
    if (common->n_filters == 0) {
        fprintf(stderr, "heapscope: retainers needs at least one filter, e.g. --constructor "
                        "REGEX or --exact NAME (see heapscope --help)\n");
        return 2;
    }
    static const cli_search_view view = {
        .paths = true, .title = "retainers of closures with", .text = match_text,
        .json = match_json};
    return cli_run_search(target, common, &view);
}
