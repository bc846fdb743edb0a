/* Running and printing a census for census and thunks: filters from the
 * options, a paused session, progress on a terminal, the rows as text
 * (second level indented) or JSON (rows with children), each row with
 * the bucket filter that selects its closures. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "census.h"
#include "dominators_cli.h"
#include "heapscope/plural.h"
#include "output.h"

/* Shows how far the count got (on a terminal); stops on a quit signal. */
static bool show_progress(void *ctx, uint64_t visited) {
    if (*(const bool *)ctx)
        fprintf(stderr, "\rheapscope: counting: %" PRIu64 " closures", visited);
    return cli_keep_going();
}

static size_t shown_of(size_t n, long top) {
    return top > 0 && (size_t)top < n ? (size_t)top : n;
}

static double average(const query_census_row *r) {
    return r->count ? (double)r->bytes / (double)r->count : 0;
}

/* One row (level 0 or 1) with its children, as a JSON object; retained:
 * the first level's retained bytes are shown. */
static void row_json(const query_census_row *r, const query_census_spec *spec, size_t level,
                     long top, bool retained) {
    fputs("{\"key\": ", stdout);
    cli_json_string(stdout, r->key);
    printf(", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"max\": %" PRIu64
           ", \"avg\": %.1f, ",
           r->count, r->bytes, r->max, average(r));
    if (retained && level == 0)
        printf("\"retained\": %" PRIu64 ", ", r->retained);
    fputs("\"bucket\": ", stdout);
    char bucket[600];
    snprintf(bucket, sizeof bucket, "%s=%s", query_census_by_name(spec->by[level]), r->key);
    cli_json_string(stdout, bucket);
    if (level + 1 < spec->levels) {
        fputs(", \"children\": [", stdout);
        size_t shown = shown_of(r->n_children, top);
        for (size_t k = 0; k < shown; k++) {
            fputs(k ? ",\n    " : "\n    ", stdout);
            row_json(&r->children[k], spec, level + 1, top, retained);
        }
        fputs("]", stdout);
    }
    fputs("}", stdout);
}

static void print_json(const query_census *c, const query_census_spec *spec,
                       query_census_column column, const cli_common *common, bool retained) {
    fputs("{\"by\": \"", stdout);
    for (size_t l = 0; l < spec->levels; l++)
        printf("%s%s", l ? "," : "", query_census_by_name(spec->by[l]));
    fputs("\", \"levels\": [", stdout);
    for (size_t l = 0; l < spec->levels; l++)
        printf("%s\"%s\"", l ? ", " : "", query_census_by_name(spec->by[l]));
    printf("], \"sort\": \"%s\", \"filters\": ", query_census_column_name(column));
    cli_json_filters(stdout, spec->filters);
    printf(", \"total_count\": %" PRIu64 ", \"total_bytes\": %" PRIu64 ", \"visited\": %" PRIu64
           ", \"rows\": [",
           c->total_count, c->total_bytes, c->visited);
    size_t shown = shown_of(c->n_rows, common->top);
    for (size_t i = 0; i < shown && cli_keep_going(); i++) {
        fputs(i ? ",\n  " : "\n  ", stdout);
        row_json(&c->rows[i], spec, 0, common->top, retained);
    }
    printf("%s], \"unreadable\": ", shown ? "\n" : "");
    cli_json_unreadable(stdout, &c->unreadable);
    fputs(", ", stdout);
    cli_json_timing(stdout);
    puts("}");
}

void cli_census_print_filters(const query_filters *f) {
    char d[512];
    for (size_t i = 0; i < query_filters_count(f); i++) {
        query_filters_describe(f, i, d, sizeof d);
        printf("%s%s", i ? " AND " : "counting closures with ", d);
    }
    if (query_filters_count(f))
        putchar('\n');
}

/* retained: the column is shown (blank on the second level). */
static void row_text(const query_census_row *r, int indent, bool retained) {
    if (retained && indent)
        printf("%14s ", "");
    else if (retained)
        printf("%14" PRIu64 " ", r->retained);
    printf("%14" PRIu64 " %11" PRIu64 " %9" PRIu64 " %9.1f  %*s%s\n", r->bytes, r->count, r->max,
           average(r), indent, "", r->key);
}

static void print_text(const query_census *c, const query_census_spec *spec,
                       const cli_census_view *v, const cli_common *common, bool retained) {
    printf("%s: %" PRIu64 " %s, %" PRIu64 " bytes", v->title, c->total_count,
           hs_plural(c->total_count, v->one ? v->one : "closure", v->many ? v->many : "closures"),
           c->total_bytes);
    if (c->total_count != c->visited)
        printf(" (of %" PRIu64 " %s visited)", c->visited,
               hs_plural(c->visited, "closure", "closures"));
    putchar('\n');
    cli_census_print_filters(spec->filters);
    if (retained)
        printf("%14s ", "retained");
    printf("%14s %11s %9s %9s  %s\n", "bytes", "count", "max", "avg", v->key_heading);
    size_t shown = shown_of(c->n_rows, common->top);
    for (size_t i = 0; i < shown && cli_keep_going(); i++) {
        const query_census_row *r = &c->rows[i];
        row_text(r, 0, retained);
        size_t kids = shown_of(r->n_children, common->top);
        for (size_t k = 0; k < kids; k++)
            row_text(&r->children[k], 2, retained);
        if (kids < r->n_children)
            printf("%*s(%zu more)\n", retained ? 62 : 47, "", r->n_children - kids);
    }
    if (shown < c->n_rows)
        printf("(%zu more rows; --top 0 shows all)\n", c->n_rows - shown);
    if (v->hint_bucket && c->n_rows)
        printf("retainers of a row: heapscope retainers TARGET --bucket '%s=%s'\n",
               query_census_by_name(spec->by[0]), c->rows[0].key);
    cli_flush_output(); /* the note on stderr comes after the output */
    cli_note_unreadable(&c->unreadable);
}

int cli_run_census(const char *target, const cli_common *common, query_census_spec *spec,
                   query_census_column column, const cli_census_view *v) {
    query_filters *filters;
    cli_session s;
    int rc = cli_open_with_filters(target, common, &filters, &s);
    if (rc != 0)
        return rc;
    hs_error err = {0};
    bool tty = isatty(STDERR_FILENO);
    spec->filters = filters;
    spec->progress = show_progress;
    spec->progress_ctx = &tty;
    /* --sort retained implies --retained */
    bool retained = common->retained || column == QUERY_CENSUS_COL_RETAINED;
    query_census census;
    query_dominators *dom = NULL;
    hs_status st = query_census_compute(s.heap, spec, &census, &err);
    if (tty)
        fputs("\r\033[K", cli_status_line());
    if (st == HS_OK && retained) {
        st = cli_dominators_compute(s.heap, &dom, &err);
        if (st == HS_OK)
            st = query_census_retained(s.heap, dom, spec, &census, &err); /* counts again */
        if (tty)
            fputs("\r\033[K", cli_status_line());
        if (st != HS_OK)
            query_census_free(&census);
    }
    if (st == HS_OK) {
        query_census_sort(&census, column, column != QUERY_CENSUS_COL_KEY);
        if (common->json)
            print_json(&census, spec, column, common, retained);
        else
            print_text(&census, spec, v, common, retained);
        query_census_free(&census);
    }
    query_dominators_free(dom);
    cli_flush_output();
    query_filters_free(filters);
    return cli_session_finish(&s, common, st, &err);
}
