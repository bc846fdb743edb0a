/* heapscope strings TARGET: the strings and byte arrays reachable from the
 * GC roots grouped by value, the most bytes wasted by duplicates first. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/plural.h"
#include "heapscope/query.h"
#include "output.h"

#define TEXT_PREVIEW 48  /* characters of a value in a text row */
#define JSON_PREVIEW 1024 /* characters of a value in JSON */

static bool show_progress(void *ctx, uint64_t visited) {
    if (*(const bool *)ctx && visited) /* 0: between the phases of grouping */
        fprintf(stderr, "\rheapscope: reading strings: %" PRIu64 " closures", visited);
    return cli_keep_going();
}

/* The escaped value, cut at cap characters; true when all of it fitted. */
static bool preview(const query_strings_row *r, char *buf, size_t cap) {
    return query_strings_escape(r->value, (size_t)r->value_len, buf, cap) == r->value_len;
}

static void print_json(const query_strings *s, size_t shown) {
    printf("{\"total_count\": %" PRIu64 ", \"total_bytes\": %" PRIu64
           ", \"total_wasted\": %" PRIu64 ", \"distinct\": %zu, \"external\": %" PRIu64
           ", \"skipped\": %" PRIu64 ", \"rows\": [",
           s->total_count, s->total_bytes, s->total_wasted, s->n_rows, s->external, s->skipped);
    static char value[JSON_PREVIEW + 1];
    for (size_t i = 0; i < shown && cli_keep_going(); i++) {
        const query_strings_row *r = &s->rows[i];
        char kinds[64];
        query_strings_kinds_text(r->kinds, kinds, sizeof kinds);
        bool complete = preview(r, value, sizeof value);
        printf("%s\n  {\"kinds\": \"%s\", \"value\": ", i ? "," : "", kinds);
        cli_json_string(stdout, value);
        printf(", \"complete\": %s, \"length\": %" PRIu64 ", \"count\": %" PRIu64
               ", \"bytes\": %" PRIu64 ", \"wasted\": %" PRIu64 ", \"first\": \"0x%" PRIx64
               "\", \"first_array\": ",
               complete ? "true" : "false", r->value_len, r->count, r->bytes, r->wasted,
               r->first);
        if (r->first_array)
            printf("\"0x%" PRIx64 "\"}", r->first_array);
        else
            fputs("null}", stdout);
    }
    printf("%s], \"unreadable\": ", shown ? "\n" : "");
    cli_json_unreadable(stdout, &s->unreadable);
    fputs(", ", stdout);
    cli_json_timing(stdout);
    puts("}");
}

static void print_text(const query_strings *s, size_t shown) {
    printf("strings: %" PRIu64 " %s of %zu %s, %" PRIu64 " bytes, %" PRIu64
           " wasted by duplicates\n",
           s->total_count, hs_plural(s->total_count, "copy", "copies"), s->n_rows,
           hs_plural(s->n_rows, "value", "values"), s->total_bytes, s->total_wasted);
    printf("%12s %12s %9s %9s  %-16s %s\n", "wasted", "bytes", "count", "length", "kinds",
           "value");
    for (size_t i = 0; i < shown && cli_keep_going(); i++) {
        const query_strings_row *r = &s->rows[i];
        char kinds[64], value[TEXT_PREVIEW + 1];
        query_strings_kinds_text(r->kinds, kinds, sizeof kinds);
        bool complete = preview(r, value, sizeof value);
        printf("%12" PRIu64 " %12" PRIu64 " %9" PRIu64 " %9" PRIu64 "  %-16s \"%s\"%s\n",
               r->wasted, r->bytes, r->count, r->value_len, kinds, value, complete ? "" : "...");
    }
    if (shown < s->n_rows)
        printf("(%zu more values; --top 0 shows all)\n", s->n_rows - shown);
    if (s->external || s->skipped)
        printf("not counted: %" PRIu64 " ByteStrings over memory outside the GHC heap "
               "(malloc'd or static), %" PRIu64 " unevaluated or malformed strings\n",
               s->external, s->skipped);
    cli_flush_output(); /* the note on stderr comes after the output */
    cli_note_unreadable(&s->unreadable);
}

int cli_strings(const char *target, const cli_common *common) {
    query_filters *filters;
    int rc = cli_filters_build(common, &filters);
    if (rc != 0)
        return rc;
    hs_error err = {0};
    cli_session s;
    if (cli_session_open(target, common, &s, &err) != HS_OK) {
        query_filters_free(filters);
        return cli_session_open_failed(&s, &err);
    }
    bool tty = isatty(STDERR_FILENO);
    query_strings_spec spec = {.filters = filters, .progress = show_progress,
                               .progress_ctx = &tty};
    query_strings res;
    hs_status st = query_strings_run(s.heap, &spec, &res, &err);
    if (tty)
        fputs("\r\033[K", cli_status_line());
    if (st == HS_OK) {
        size_t shown = common->top > 0 && (size_t)common->top < res.n_rows ? (size_t)common->top
                                                                          : res.n_rows;
        if (common->json)
            print_json(&res, shown);
        else
            print_text(&res, shown);
        query_strings_free(&res);
    }
    query_filters_free(filters);
    return cli_session_finish(&s, common, st, &err);
}
