/* Running a search for retainers and find: filters from the options, a
 * paused session, matches printed as they are found (so a search with no
 * limit never holds its results), totals at the end. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "heapscope/plural.h"
#include "dominators_cli.h"
#include "merged_cli.h"
#include "output.h"
#include "search.h"

typedef struct print_ctx {
    const cli_search_view *v;
    bool json;
    query_merged *merged; /* --merged: matches go into the tree, printed at the end */
    const query_dominators *dom; /* --retained */
    hs_status st;
    hs_error err;
} print_ctx;

static bool print_match(void *ctx, heap *h, const query_match *m) {
    print_ctx *p = ctx;
    if (p->merged) {
        p->st = query_merged_add(p->merged, m, &p->err);
        return p->st == HS_OK && cli_keep_going();
    }
    if (p->json) {
        fputs(m->number > 1 ? ",\n  " : "\n  ", stdout);
        p->v->json(stdout, h, m, p->dom);
    } else {
        p->v->text(stdout, h, m, p->dom);
    }
    return cli_keep_going(); /* a quit signal: no more matches, nor paths to them */
}

/* Shows how far the search got (on a terminal); stops on a quit signal. */
static bool show_progress(void *ctx, uint64_t visited) {
    if (*(const bool *)ctx)
        fprintf(stderr, "\rheapscope: searching: %" PRIu64 " closures", visited);
    return cli_keep_going();
}

static void print_head(const query_filters *f, const cli_common *common,
                       const cli_search_view *v, bool merged) {
    char d[512];
    if (common->json) {
        fputs("{\"filters\": ", stdout);
        cli_json_filters(stdout, f);
        printf(", \"limit\": %ld, \"%s\": [", common->limit, merged ? "merged" : "matches");
        return;
    }
    if (!v->title)
        return;
    printf("%s", v->title);
    for (size_t i = 0; i < query_filters_count(f); i++) {
        query_filters_describe(f, i, d, sizeof d);
        printf("%s%s", i ? " AND " : " ", d);
    }
    if (query_filters_count(f) == 0)
        fputs(" every closure", stdout);
    puts("");
}

static void print_tail(const query_search_stats *st, const cli_common *common) {
    if (common->json) {
        printf("%s], \"count\": %" PRIu64 ", \"limit_reached\": %s, \"visited\": %" PRIu64
               ", \"unreadable\": ",
               st->matches ? "\n" : "", st->matches, st->limit_reached ? "true" : "false",
               st->traversal.visited);
        cli_json_unreadable(stdout, &st->traversal.unreadable);
        fputs(", ", stdout);
        cli_json_timing(stdout);
        puts("}");
        return;
    }
    printf("%" PRIu64 " %s", st->matches, hs_plural(st->matches, "match", "matches"));
    if (st->limit_reached)
        printf(", stopped at the limit of %ld (--limit 0 shows all)", common->limit);
    printf("; %" PRIu64 " %s visited\n", st->traversal.visited,
           hs_plural(st->traversal.visited, "closure", "closures"));
    cli_flush_output(); /* the note on stderr comes after the output */
    cli_note_unreadable(&st->traversal.unreadable);
}

int cli_run_search(const char *target, const cli_common *common, const cli_search_view *v) {
    if (common->merged && common->retained) {
        fprintf(stderr, "heapscope: --retained does not apply to --merged paths\n");
        return 2;
    }
    query_filters *filters;
    cli_session s;
    int rc = cli_open_with_filters(target, common, &filters, &s);
    if (rc != 0)
        return rc;
    hs_error err = {0};
    print_ctx pc = {v, common->json, NULL, NULL, HS_OK, {0}};
    query_dominators *dom = NULL;
    if (common->merged && v->paths && query_merged_new(&pc.merged, &err) != HS_OK) {
        cli_session_close(&s, common, &err);
        query_filters_free(filters);
        return cli_report(&err);
    }
    bool tty = isatty(STDERR_FILENO);
    query_search q = {.filters = filters, .limit = (uint64_t)common->limit, .paths = v->paths,
                      .prepared = true, .on_match = print_match, .ctx = &pc,
                      .progress = show_progress, .progress_ctx = &tty};
    query_search_stats stats;
    /* checked before printing anything, so an era filter on a debuggee
     * without eras gives just the error */
    hs_status st = query_filters_prepare(filters, s.heap, &err);
    if (st == HS_OK && common->retained)
        st = cli_dominators_compute(s.heap, &dom, &err);
    pc.dom = dom;
    if (st == HS_OK) {
        print_head(filters, common, v, pc.merged != NULL);
        st = query_search_run(s.heap, &q, &stats, &err);
    }
    if (st == HS_OK && pc.st != HS_OK) {
        st = pc.st;
        err = pc.err;
    }
    if (st == HS_OK && pc.merged) {
        st = query_merged_finish(pc.merged, &err);
        if (st == HS_OK)
            st = cli_print_merged(stdout, s.heap, pc.merged, common->json, &err);
    }
    query_merged_free(pc.merged);
    query_dominators_free(dom);
    if (tty)
        fputs("\r\033[K", cli_status_line());
    if (st == HS_OK)
        print_tail(&stats, common);
    if (st == HS_OK && stats.matches == 0 && query_filters_provenance_missing(filters))
        fputs("heapscope: no closure looked at has info-table provenance, so --closure-name "
              "cannot match: build the program with -finfo-table-map\n",
              stderr);
    cli_flush_output();
    query_filters_free(filters);
    return cli_session_finish(&s, common, st, &err);
}
