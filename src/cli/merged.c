/* retainers --merged: the prefix tree of the matches' paths, printed
 * depth first with an explicit stack (paths can be thousands deep, which
 * is also why the JSON is a flat list of nodes naming their parent rather
 * than nested objects that JSON readers would recurse into). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "heapscope/grow.h"
#include "heapscope/plural.h"
#include "merged_cli.h"
#include "output.h"

/* Indentation stops growing here; deeper lines say their depth. */
#define MAX_INDENT 40

typedef struct frame {
    size_t node;
    uint32_t depth;
    size_t parent; /* JSON: the parent's position in the list, SIZE_MAX for none */
} frame;

typedef struct frames {
    frame *items;
    size_t count, cap;
} frames;

static bool push(frames *f, frame x) {
    if (f->count == f->cap && !hs_grow((void **)&f->items, &f->cap, f->count + 1, sizeof x))
        return false;
    f->items[f->count++] = x;
    return true;
}

/* Pushes the children (or the starts) so the first pops first. */
static bool push_all(frames *f, const size_t *ids, size_t n, uint32_t depth, size_t parent) {
    for (size_t i = n; i-- > 0;)
        if (!push(f, (frame){ids[i], depth, parent}))
            return false;
    return true;
}

static void node_text(FILE *out, heap *h, const query_merged_node *n, uint32_t depth) {
    uint32_t indent = depth < MAX_INDENT ? depth : MAX_INDENT;
    fprintf(out, "%*s", (int)(2 * indent), "");
    if (depth > MAX_INDENT)
        fprintf(out, "(%" PRIu32 ") ", depth);
    const char *edge = n->step.edge ? n->step.edge
                                    : n->from_saved_object ? "saved object" : "GC root";
    fprintf(out, "%s: %" PRIu64 " %s, %" PRIu64 " B%s  ", edge, n->matches,
            hs_plural(n->matches, "match", "matches"), n->bytes, n->match ? " (a match)" : "");
    cli_print_step_text(out, h, &n->step);
    fputc('\n', out);
}

/* One node of the flat list: its parent by position (null for a start). */
static void node_json(FILE *out, heap *h, const query_merged_node *n, size_t at, size_t parent) {
    fputs(at ? ",\n  " : "\n  ", out);
    fprintf(out, "{\"id\": %zu, \"parent\": ", at);
    if (parent == SIZE_MAX)
        fputs("null", out);
    else
        fprintf(out, "%zu", parent);
    fprintf(out, ", \"matches\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"match\": %s", n->matches,
            n->bytes, n->match ? "true" : "false");
    if (!n->step.edge)
        fprintf(out, ", \"start\": \"%s\"", n->from_saved_object ? "saved-object" : "gc-root");
    fputs(", \"closure\": ", out);
    cli_print_step_json(out, h, &n->step, NULL, true);
    fputc('}', out);
}

hs_status cli_print_merged(FILE *out, heap *h, const query_merged *t, bool json, hs_error *err) {
    frames f = {0};
    size_t n_starts;
    const size_t *starts = query_merged_starts(t, &n_starts);
    bool ok = push_all(&f, starts, n_starts, 0, SIZE_MAX);
    for (size_t at = 0; ok && f.count > 0 && cli_keep_going(); at++) {
        frame x = f.items[--f.count];
        const query_merged_node *n = query_merged_node_at(t, x.node);
        if (json)
            node_json(out, h, n, at, x.parent);
        else
            node_text(out, h, n, x.depth);
        ok = push_all(&f, n->children, n->n_children, x.depth + 1, at);
    }
    free(f.items);
    return ok ? HS_OK : hs_fail(err, HS_ERR_NOMEM, "out of memory");
}
