/* The output of heapscope diff: the changed buckets (second level
 * indented), the totals of both sides, and the eras B has and A does not,
 * as text or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "census.h"
#include "diff_cli.h"
#include "heapscope/plural.h"
#include "output.h"

static size_t shown_of(size_t n, size_t top) { return top && top < n ? top : n; }

static uint64_t era_of(const query_census_diff_row *r) { return strtoull(r->key, NULL, 10); }

/* Why eras were not compared, or NULL when they were. */
static const char *why_no_eras(const diff_result *d, char *buf, size_t cap) {
    if (d->a->eras_ok && d->b->eras_ok)
        return NULL;
    const diff_side *s = d->a->eras_ok ? d->b : d->a;
    snprintf(buf, cap, "%s: %s", s->label, s->why_no_eras);
    return buf;
}

/* ---- text ---- */

static void row_text(const query_census_diff_row *r, int indent) {
    printf("%14" PRIu64 " %14" PRIu64 " %+14" PRId64 " %11" PRIu64 " %11" PRIu64 " %+11" PRId64
           "  %*s%s\n",
           r->bytes_a, r->bytes_b, r->bytes_delta, r->count_a, r->count_b, r->count_delta,
           indent, "", r->key);
}

static void side_text(const diff_side *s) {
    const query_census *c = &s->census;
    printf("%s: %" PRIu64 " %s, %" PRIu64 " bytes", s->label, c->total_count,
           hs_plural(c->total_count, "closure", "closures"), c->total_bytes);
    if (c->total_count != c->visited)
        printf(" (of %" PRIu64 " visited)", c->visited);
    printf("  %s\n", s->target);
}

static void eras_text(const diff_result *d) {
    char why[600];
    if (why_no_eras(d, why, sizeof why)) {
        printf("eras not compared: %s\n", why);
        return;
    }
    size_t n;
    const query_census_diff_row **p = query_census_diff_new_eras(&d->eras, &n);
    uint64_t count = 0, bytes = 0;
    for (size_t i = 0; i < n; i++)
        count += p[i]->count_b, bytes += p[i]->bytes_b;
    if (n == 0)
        puts("eras B has and A does not: none");
    else
        printf("eras B has and A does not: %zu, %" PRIu64 " %s, %" PRIu64 " bytes\n", n, count,
               hs_plural(count, "closure", "closures"), bytes);
    for (size_t i = 0; i < n; i++)
        printf("  era %s: %" PRIu64 " %s, %" PRIu64 " bytes\n", p[i]->key, p[i]->count_b,
               hs_plural(p[i]->count_b, "closure", "closures"), p[i]->bytes_b);
    free(p);
}

void cli_diff_print_text(const diff_result *d) {
    const query_census_spec *spec = d->spec;
    printf("diff by %s%s%s\n", query_census_by_name(spec->by[0]), spec->levels > 1 ? "," : "",
           spec->levels > 1 ? query_census_by_name(spec->by[1]) : "");
    side_text(d->a);
    side_text(d->b);
    const query_census *a = &d->a->census, *b = &d->b->census;
    printf("change: %+" PRId64 " closures, %+" PRId64 " bytes\n",
           (int64_t)(b->total_count - a->total_count), (int64_t)(b->total_bytes - a->total_bytes));
    cli_census_print_filters(spec->filters);
    printf("%14s %14s %14s %11s %11s %11s  %s%s%s\n", "bytes A", "bytes B", "change", "count A",
           "count B", "change", query_census_by_name(spec->by[0]), spec->levels > 1 ? " / " : "",
           spec->levels > 1 ? query_census_by_name(spec->by[1]) : "");
    size_t shown = shown_of(d->rows.n_rows, d->top);
    for (size_t i = 0; i < shown; i++) {
        const query_census_diff_row *r = &d->rows.rows[i];
        row_text(r, 0);
        size_t kids = shown_of(r->n_children, d->top);
        for (size_t k = 0; k < kids; k++)
            row_text(&r->children[k], 2);
        if (kids < r->n_children)
            printf("%84s(%zu more)\n", "", r->n_children - kids);
    }
    if (shown < d->rows.n_rows)
        printf("(%zu more changed rows; --top 0 shows all)\n", d->rows.n_rows - shown);
    printf("%zu %s changed, %zu unchanged\n", d->rows.n_rows,
           hs_plural(d->rows.n_rows, "bucket", "buckets"), d->rows.unchanged);
    eras_text(d);
}

/* ---- JSON ---- */

static void row_json(const query_census_diff_row *r, const query_census_spec *spec,
                     size_t level, size_t top) {
    fputs("{\"key\": ", stdout);
    cli_json_string(stdout, r->key);
    char bucket[600];
    snprintf(bucket, sizeof bucket, "%s=%s", query_census_by_name(spec->by[level]), r->key);
    fputs(", \"bucket\": ", stdout);
    cli_json_string(stdout, bucket);
    printf(", \"count_a\": %" PRIu64 ", \"bytes_a\": %" PRIu64 ", \"count_b\": %" PRIu64
           ", \"bytes_b\": %" PRIu64 ", \"count_delta\": %" PRId64 ", \"bytes_delta\": %" PRId64,
           r->count_a, r->bytes_a, r->count_b, r->bytes_b, r->count_delta, r->bytes_delta);
    if (level + 1 < spec->levels) {
        fputs(", \"children\": [", stdout);
        size_t kids = shown_of(r->n_children, top);
        for (size_t k = 0; k < kids; k++) {
            fputs(k ? ",\n    " : "\n    ", stdout);
            row_json(&r->children[k], spec, level + 1, top);
        }
        printf("], \"more_children\": %zu", r->n_children - kids);
    }
    putchar('}');
}

static void side_json(const diff_side *s) {
    const query_census *c = &s->census;
    fputs("{\"given\": ", stdout);
    cli_json_string(stdout, s->given);
    fputs(", \"target\": ", stdout);
    cli_json_string(stdout, s->target);
    printf(", \"total_count\": %" PRIu64 ", \"total_bytes\": %" PRIu64 ", \"visited\": %" PRIu64
           ", \"unreadable\": ",
           c->total_count, c->total_bytes, c->visited);
    cli_json_unreadable(stdout, &c->unreadable);
    putchar('}');
}

static void eras_json(const diff_result *d) {
    char why[600];
    if (why_no_eras(d, why, sizeof why)) {
        fputs("{\"compared\": false, \"reason\": ", stdout);
        cli_json_string(stdout, why);
        putchar('}');
        return;
    }
    size_t n;
    const query_census_diff_row **p = query_census_diff_new_eras(&d->eras, &n);
    fputs("{\"compared\": true, \"new\": [", stdout);
    for (size_t i = 0; i < n; i++)
        printf("%s{\"era\": %" PRIu64 ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
               i ? ", " : "", era_of(p[i]), p[i]->count_b, p[i]->bytes_b);
    fputs("]}", stdout);
    free(p);
}

void cli_diff_print_json(const diff_result *d) {
    const query_census_spec *spec = d->spec;
    fputs("{\"by\": [", stdout);
    for (size_t l = 0; l < spec->levels; l++)
        printf("%s\"%s\"", l ? ", " : "", query_census_by_name(spec->by[l]));
    fputs("], \"filters\": ", stdout);
    cli_json_filters(stdout, spec->filters);
    fputs(", \"a\": ", stdout);
    side_json(d->a);
    fputs(", \"b\": ", stdout);
    side_json(d->b);
    const query_census *a = &d->a->census, *b = &d->b->census;
    printf(", \"count_delta\": %" PRId64 ", \"bytes_delta\": %" PRId64
           ", \"changed\": %zu, \"unchanged\": %zu, \"rows\": [",
           (int64_t)(b->total_count - a->total_count), (int64_t)(b->total_bytes - a->total_bytes),
           d->rows.n_rows, d->rows.unchanged);
    size_t shown = shown_of(d->rows.n_rows, d->top);
    for (size_t i = 0; i < shown; i++) {
        fputs(i ? ",\n  " : "\n  ", stdout);
        row_json(&d->rows.rows[i], spec, 0, d->top);
    }
    printf("%s], \"more_rows\": %zu, \"eras\": ", shown ? "\n" : "", d->rows.n_rows - shown);
    eras_json(d);
    fputs(", ", stdout);
    cli_json_timing(stdout); /* both sides' pauses */
    puts("}");
}
