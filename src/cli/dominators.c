/* heapscope dominators TARGET: the closures that retain most (the bytes
 * that would become unreachable without them), each with what it
 * immediately dominates. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "describe.h"
#include "dominators_cli.h"
#include "heapscope/cli.h"
#include "heapscope/query.h"
#include "output.h"

#define DOMINATORS_TOP 20      /* rows when --top is not given */
#define DOMINATORS_CHILDREN 5  /* dominated children shown per row */

cli_progress cli_progress_start(const char *what) {
    return (cli_progress){.what = what, .tty = isatty(STDERR_FILENO)};
}

bool cli_progress_show(void *ctx, uint64_t done) {
    const cli_progress *p = ctx;
    if (p->tty)
        fprintf(stderr, "\rheapscope: %s: %" PRIu64 " closures", p->what, done);
    return cli_keep_going();
}

void cli_progress_end(const cli_progress *p) {
    if (p->tty)
        fputs("\r\033[K", cli_status_line());
}

hs_status cli_dominators_compute(heap *h, query_dominators **out, hs_error *err) {
    cli_progress p = cli_progress_start("dominators");
    hs_status st = query_dominators_run(h, cli_progress_show, &p, out, err);
    cli_progress_end(&p);
    return st;
}

int cli_dominators_run(const char *target, const cli_common *common,
                       const cli_dominators_command *cmd) {
    size_t top = common->top > 0 ? (size_t)common->top : cmd->default_top;
    hs_error err = {0};
    cli_session s;
    if (cli_session_open(target, common, &s, &err) != HS_OK)
        return cli_session_open_failed(&s, &err);
    query_dominators *d = NULL;
    hs_status st = cmd->usable ? cmd->usable(s.heap, &err) : HS_OK;
    if (st == HS_OK)
        st = cli_dominators_compute(s.heap, &d, &err);
    if (st == HS_OK) {
        query_dominators_info info;
        query_dominators_stats(d, &info);
        st = cmd->report(target, s.heap, d, &info, top, common, &err);
        cli_flush_output();
        if (st == HS_OK && !common->json)
            cli_note_unreadable(&info.unreadable);
    }
    query_dominators_free(d);
    return cli_session_finish(&s, common, st, &err);
}

void cli_print_retained_text(FILE *out, const query_dominators *d, uint64_t addr) {
    query_dominated q;
    if (!d)
        return;
    if (query_dominators_get(d, addr, &q))
        fprintf(out, "  [retains %" PRIu64 " B]", q.retained);
    else
        fputs("  [not reachable]", out);
}

void cli_print_retained_json(FILE *out, const query_dominators *d, uint64_t addr) {
    query_dominated q;
    if (!d)
        return;
    if (query_dominators_get(d, addr, &q))
        fprintf(out, ", \"retained\": %" PRIu64, q.retained);
    else
        fputs(", \"retained\": null", out);
}

/* One closure: its retained size, then the closure as roots shows it. */
static hs_status print_text(heap *h, heap_closure *c, const query_dominated *q,
                            const char *indent, hs_error *err) {
    printf("%s%14" PRIu64 "  ", indent, q->retained);
    hs_status st = cli_print_address_text(stdout, h, c, q->addr, err);
    if (st == HS_OK)
        putchar('\n');
    return st;
}

static hs_status print_json(heap *h, heap_closure *c, const query_dominated *q, hs_error *err) {
    printf("{\"retained\": %" PRIu64 ", \"dominator\": ", q->retained);
    if (q->idom)
        printf("\"0x%" PRIx64 "\"", q->idom);
    else
        fputs("null", stdout);
    fputs(", \"closure\": ", stdout);
    return cli_print_address_json(stdout, h, c, q->addr, err);
}

static hs_status print_rows(heap *h, const query_dominators_info *info,
                            const query_dominator_row *rows, size_t n, bool json,
                            hs_error *err) {
    heap_closure c = {0};
    hs_status st = HS_OK;
    if (json)
        printf("{\"closures\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"top\": [", info->closures,
               info->bytes);
    else
        printf("dominators: %" PRIu64 " reachable closures, %" PRIu64 " bytes\n"
               "%14s  closure (the closures it dominates indented below)\n",
               info->closures, info->bytes, "retained");
    for (size_t i = 0; st == HS_OK && i < n && cli_keep_going(); i++) {
        const query_dominator_row *r = &rows[i];
        if (json) {
            printf("%s\n  ", i ? "," : "");
            st = print_json(h, &c, &r->closure, err);
            fputs(", \"dominated\": [", stdout);
            for (size_t k = 0; st == HS_OK && k < r->n_children; k++) {
                fputs(k ? ",\n    " : "\n    ", stdout);
                st = print_json(h, &c, &r->children[k], err);
                putchar('}');
            }
            printf("], \"more_dominated\": %" PRIu64 "}", r->more_children);
            continue;
        }
        st = print_text(h, &c, &r->closure, "", err);
        for (size_t k = 0; st == HS_OK && k < r->n_children; k++)
            st = print_text(h, &c, &r->children[k], "  ", err);
        if (st == HS_OK && r->more_children)
            printf("  %14s  … %" PRIu64 " more dominated\n", "", r->more_children);
    }
    if (st == HS_OK && json) {
        printf("%s], \"unreadable\": ", n ? "\n" : "");
        cli_json_unreadable(stdout, &info->unreadable);
        fputs(", ", stdout);
        cli_json_timing(stdout);
        puts("}");
    }
    heap_closure_free(&c);
    return st;
}

static hs_status report(const char *target, heap *h, const query_dominators *d,
                        const query_dominators_info *info, size_t top,
                        const cli_common *common, hs_error *err) {
    (void)target;
    query_dominator_row *rows = NULL;
    size_t n_rows = 0;
    hs_status st = query_dominators_top(d, top, DOMINATORS_CHILDREN, &rows, &n_rows, err);
    if (st == HS_OK)
        st = print_rows(h, info, rows, n_rows, common->json, err);
    query_dominator_rows_free(rows, n_rows);
    return st;
}

int cli_dominators(const char *target, const cli_common *common) {
    static const cli_dominators_command cmd = {.default_top = DOMINATORS_TOP, .report = report};
    return cli_dominators_run(target, common, &cmd);
}
