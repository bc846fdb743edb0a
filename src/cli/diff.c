/* heapscope diff A B [--by A[,B]] [--top N] [FILTERS]: the census buckets
 * that grew or shrank from pause A to pause B, and the closures of the
 * eras B has and A does not. A and B are each a snapshot file, a recorded
 * pause of the cache (cache:N, the Nth row of `heapscope cache list`,
 * newest first) or a live debuggee, paused for its census and given back
 * before the other side is read: one heap in memory at a time. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "diff_cli.h"
#include "output.h"

#define CACHE_PREFIX "cache:"

/* cache:N into the file of the Nth recorded pause (1: the newest). */
static hs_status resolve_cache(const char *given, const cli_common *common, char *out,
                               size_t cap, hs_error *err) {
    const char *digits = given + strlen(CACHE_PREFIX);
    char *end;
    errno = 0;
    unsigned long long n = strtoull(digits, &end, 10);
    if (*digits < '1' || *digits > '9' || *end || errno || n > 1000000)
        return hs_fail(err, HS_ERR_USAGE,
                       "a recorded pause is named cache:N, N counting the rows of "
                       "'heapscope cache list' from 1 (the newest)");
    if (common->no_cache)
        return hs_fail(err, HS_ERR_USAGE, "a recorded pause of the cache, which --no-cache "
                       "turns off");
    cache_options o = {.max_bytes = common->cache_size};
    cache *c = NULL;
    cache_pause_list l = {0};
    hs_status st = cache_open(&o, &c, err);
    if (st == HS_OK)
        st = cache_list_pauses(c, &l, err);
    if (st == HS_OK && n > l.count)
        st = hs_fail(err, HS_ERR_NOT_FOUND, "the cache holds %zu recorded %s "
                     "('heapscope cache list')", l.count,
                     l.count == 1 ? "pause" : "pauses");
    if (st == HS_OK && strlen(l.items[n - 1].file) >= cap)
        st = hs_fail(err, HS_ERR_TOO_LARGE, "its file name is too long");
    if (st == HS_OK)
        strcpy(out, l.items[n - 1].file);
    cache_pause_list_free(&l);
    cache_close(c);
    return st;
}

/* What side names, resolved, and whether it can be opened: a file is
 * opened and closed (checked; a ghc-debug one is left to the real open,
 * which converts it), a debuggee connected to and left (not paused). One
 * line on stderr when it cannot; returns the exit status. */
static int check_side(diff_side *side, const cli_common *common) {
    hs_error err = {0};
    hs_status st = HS_OK;
    if (strncmp(side->given, CACHE_PREFIX, strlen(CACHE_PREFIX)) == 0)
        st = resolve_cache(side->given, common, side->target, sizeof side->target, &err);
    else if (strlen(side->given) >= sizeof side->target)
        st = hs_fail(&err, HS_ERR_TOO_LARGE, "the name is too long");
    else
        strcpy(side->target, side->given);
    if (st == HS_OK && !session_target_is_ghcdebug_file(side->target)) {
        session_options o;
        cli_session_options(common, &o);
        session *s = NULL;
        st = session_open(side->target, &o, &s, &err);
        session_close(s);
    }
    if (st == HS_OK)
        return 0;
    fprintf(stderr, "heapscope: %s (%s): %s\n", side->label, side->given, err.message);
    return st == HS_ERR_USAGE ? 2 : 1;
}

static bool show_progress(void *ctx, uint64_t visited) {
    const diff_side *side = ctx;
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\rheapscope: counting %s: %" PRIu64 " closures", side->label, visited);
    return cli_keep_going();
}

/* The census of one side's heap by spec, and by era when it has eras. */
static hs_status count_side(heap *h, const query_census_spec *spec, diff_side *side,
                            hs_error *err) {
    query_census_spec s = *spec;
    s.progress = show_progress;
    s.progress_ctx = side;
    hs_status st = query_census_and_eras(h, &s, &side->census, &side->eras, &side->eras_ok,
                                         side->why_no_eras, sizeof side->why_no_eras, err);
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", cli_status_line());
    return st;
}

/* Opens one side, counts it and gives it back; 0 or the exit status. */
static int read_side(diff_side *side, const query_census_spec *spec, const cli_common *common) {
    hs_error err = {0};
    cli_session s;
    if (cli_session_open(side->target, common, &s, &err) != HS_OK) {
        fprintf(stderr, "heapscope: %s (%s): %s\n", side->label, side->given, err.message);
        return 1;
    }
    hs_status st = count_side(s.heap, spec, side, &err);
    if (st == HS_OK && !common->json) /* JSON has it in the side's object */
        cli_note_unreadable(&side->census.unreadable);
    hs_error close_err = {0};
    hs_status cst = cli_session_close(&s, common, &close_err);
    if (st != HS_OK || cst != HS_OK) {
        fprintf(stderr, "heapscope: %s (%s): %s\n", side->label, side->given,
                st != HS_OK ? err.message : close_err.message);
        return 1;
    }
    return 0;
}

static void side_free(diff_side *side) {
    query_census_free(&side->census);
    if (side->eras_ok)
        query_census_free(&side->eras);
}

static int compare(diff_result *d, const cli_common *common) {
    hs_error err = {0};
    if (query_census_diff_compute(&d->a->census, &d->b->census, &d->rows, &err) != HS_OK)
        return cli_report(&err);
    if (d->a->eras_ok && d->b->eras_ok &&
        query_census_diff_compute(&d->a->eras, &d->b->eras, &d->eras, &err) != HS_OK) {
        query_census_diff_free(&d->rows);
        return cli_report(&err);
    }
    if (common->json)
        cli_diff_print_json(d);
    else
        cli_diff_print_text(d);
    cli_flush_output();
    query_census_diff_free(&d->rows);
    query_census_diff_free(&d->eras);
    return 0;
}

int cli_diff(const char *a, const char *b, const cli_common *common) {
    query_census_spec spec = {0};
    int rc = cli_census_parse_by(common->by ? common->by : "constructor", &spec);
    if (rc != 0)
        return rc;
    rc = cli_filters_build(common, &spec.filters); /* usage errors before any target */
    if (rc != 0)
        return rc;
    diff_side sides[2] = {{.label = "A", .given = a}, {.label = "B", .given = b}};
    int rc_a = check_side(&sides[0], common), rc_b = check_side(&sides[1], common);
    if (rc_a || rc_b) {
        query_filters_free(spec.filters);
        return rc_a > rc_b ? rc_a : rc_b;
    }
    rc = read_side(&sides[0], &spec, common);
    if (rc == 0)
        rc = read_side(&sides[1], &spec, common);
    diff_result d = {.spec = &spec, .a = &sides[0], .b = &sides[1],
                     .top = (size_t)common->top};
    if (rc == 0)
        rc = compare(&d, common);
    side_free(&sides[0]);
    side_free(&sides[1]);
    query_filters_free(spec.filters);
    return rc;
}
