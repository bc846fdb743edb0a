/* heapscope census TARGET: count and bytes per bucket of everything
 * reachable from the GC roots, largest first. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/query.h"
#include "output.h"

/* Shows how far the count got (on a terminal); stops on a quit signal. */
static bool show_progress(void *ctx, uint64_t visited) {
    if (*(const bool *)ctx)
        fprintf(stderr, "\rheapscope: counting: %" PRIu64 " closures", visited);
    return cli_keep_going();
}

static void print_census(const query_census *c, const char *by, const cli_common *common) {
    size_t shown = common->top > 0 && (size_t)common->top < c->n_rows ? (size_t)common->top
                                                                      : c->n_rows;
    if (common->json) {
        printf("{\"by\": \"%s\", \"total_count\": %" PRIu64 ", \"total_bytes\": %" PRIu64
               ", \"rows\": [",
               by, c->total_count, c->total_bytes);
        for (size_t i = 0; i < shown; i++) {
            const query_census_row *r = &c->rows[i];
            printf("%s\n  {\"key\": ", i ? "," : "");
            cli_json_string(stdout, r->key);
            printf(", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"max\": %" PRIu64 "}",
                   r->count, r->bytes, r->max);
        }
        printf("%s], \"unreadable\": ", shown ? "\n" : "");
        cli_json_unreadable(stdout, &c->unreadable);
        puts("}");
        return;
    }
    printf("census by %s: %" PRIu64 " closures, %" PRIu64 " bytes\n", by, c->total_count,
           c->total_bytes);
    printf("%14s %11s %9s  %s\n", "bytes", "count", "max", by);
    for (size_t i = 0; i < shown; i++)
        printf("%14" PRIu64 " %11" PRIu64 " %9" PRIu64 "  %s\n", c->rows[i].bytes,
               c->rows[i].count, c->rows[i].max, c->rows[i].key);
    if (shown < c->n_rows)
        printf("(%zu more rows; --top 0 shows all)\n", c->n_rows - shown);
    fflush(stdout); /* the note on stderr comes after the output */
    cli_note_unreadable(&c->unreadable);
}

int cli_census(const char *target, const cli_common *common) {
    const char *by_name = common->by ? common->by : "type";
    query_census_by by;
    if (!query_census_by_from_name(by_name, &by)) {
        fprintf(stderr, "heapscope: --by wants type, constructor, era or source, not '%s'\n",
                by_name);
        return 2;
    }
    hs_error err = {0};
    cli_session s;
    if (cli_session_open(target, common, &s, &err) != HS_OK)
        return cli_report(&err);
    bool tty = isatty(STDERR_FILENO);
    query_traversal progress = {.progress = show_progress, .progress_ctx = &tty};
    query_census census;
    hs_status st = query_census_run(s.heap, by, &progress, &census, &err);
    if (tty)
        fputs("\r\033[K", stderr);
    if (st == HS_OK) {
        print_census(&census, by_name, common);
        query_census_free(&census);
    }
    hs_error close_err = {0};
    hs_status cst = cli_session_close(&s, common, &close_err);
    if (st != HS_OK)
        return cli_report(&err);
    return cst == HS_OK ? 0 : cli_report(&close_err);
}
