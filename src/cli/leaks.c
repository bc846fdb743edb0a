/* heapscope leaks TARGET: the era-boundary report (query_leaks_run): where
 * closures of a newer era retain older ones, grouped by the names of the
 * retainer and the retained closure and by the retainer's kind, ranked as
 * query.h says (what computations hold before what values contain); each
 * group with the command that lists its edges. With --group N, that list:
 * group N's edges (query_leaks_group_edges), each retainer and the older
 * closure it holds printed as roots prints closures. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "describe.h"
#include "dominators_cli.h"
#include "heapscope/cli.h"
#include "heapscope/query.h"
#include "output.h"

#define LEAKS_TOP 20 /* groups when --top is not given */

static char clean(char c) {
    return (unsigned char)c < 0x20 || c == 0x7f ? '?' : c;
}

/* Text from the debuggee on a line: control bytes as '?' (they cannot
 * drive the terminal). */
static void put_clean(const char *s) {
    for (; *s; s++)
        putchar(clean(*s));
}

/* A command line built in a fixed buffer (cut when too long). */
typedef struct line {
    char text[2600];
    size_t len;
} line;

static void add_text(line *l, const char *s) {
    for (; *s && l->len + 1 < sizeof l->text; s++)
        l->text[l->len++] = *s;
    l->text[l->len] = '\0';
}

/* s as one shell word: in single quotes, a quote inside as '\'', control
 * bytes as '?'. */
static void add_word(line *l, const char *s) {
    add_text(l, "'");
    for (; *s; s++) {
        char c[2] = {clean(*s), '\0'};
        add_text(l, *s == '\'' ? "'\\''" : c);
    }
    add_text(l, "'");
}

/* The command listing group number (1 = the first) of the report. */
static void group_command(const char *target, size_t number, line *l) {
    char n[32];
    snprintf(n, sizeof n, "%zu", number);
    l->len = 0;
    add_text(l, "heapscope leaks ");
    add_word(l, target);
    add_text(l, " --group ");
    add_text(l, n);
}

static void print_text(const char *target, const query_leaks *l, size_t top) {
    printf("leaks: %" PRIu64 " edges from a newer era to an older one in %zu groups; "
           "%" PRIu64 " bytes retained only through them (%" PRIu64 " reachable closures)\n",
           l->edges, l->n_groups, l->bytes, l->closures);
    if (l->n_groups)
        printf("%14s %10s %10s  %-11s  retainer -> retained\n", "bytes", "older", "edges",
               "kind");
    for (size_t i = 0; i < l->n_groups && i < top && cli_keep_going(); i++) {
        const query_leak_group *g = &l->groups[i];
        printf("%14" PRIu64 " %10" PRIu64 " %10" PRIu64 "  %-11s  ", g->bytes, g->older, g->edges,
               query_leak_kind_name(g->kind));
        put_clean(g->retainer);
        fputs(" -> ", stdout);
        put_clean(g->retained);
        printf("\n%51sexample 0x%" PRIx64 " (era %" PRIu64 ") -> 0x%" PRIx64 " (era %" PRIu64
               ")\n%51s",
               "", g->from, g->from_era, g->to, g->to_era, "");
        line cmd;
        group_command(target, i + 1, &cmd);
        puts(cmd.text);
    }
    if (l->n_groups > top)
        printf("… %zu more groups (--top)\n", l->n_groups - top);
}

/* A group as a JSON object, the number it has in the report first. */
static void group_json(const char *target, const query_leaks *l, size_t i) {
    const query_leak_group *g = &l->groups[i];
    printf("{\"group\": %zu, \"retainer\": ", i + 1);
    cli_json_string(stdout, g->retainer);
    fputs(", \"retained\": ", stdout);
    cli_json_string(stdout, g->retained);
    printf(", \"kind\": \"%s\", \"holds\": %s", query_leak_kind_name(g->kind),
           query_leak_kind_holds(g->kind) ? "true" : "false");
    printf(", \"bytes\": %" PRIu64 ", \"older\": %" PRIu64 ", \"edges\": %" PRIu64
           ", \"example\": {\"from\": \"0x%" PRIx64 "\", \"from_era\": %" PRIu64
           ", \"to\": \"0x%" PRIx64 "\", \"to_era\": %" PRIu64 "}, \"command\": ",
           g->bytes, g->older, g->edges, g->from, g->from_era, g->to, g->to_era);
    line cmd;
    group_command(target, i + 1, &cmd);
    cli_json_string(stdout, cmd.text);
    putchar('}');
}

static void json_end(const query_unreadable *unreadable) {
    fputs(", \"unreadable\": ", stdout);
    cli_json_unreadable(stdout, unreadable);
    fputs(", ", stdout);
    cli_json_timing(stdout);
    puts("}");
}

static void print_json(const char *target, const query_leaks *l, size_t top,
                       const query_unreadable *unreadable) {
    printf("{\"edges\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"closures\": %" PRIu64
           ", \"groups\": %zu, \"top\": [",
           l->edges, l->bytes, l->closures, l->n_groups);
    for (size_t i = 0; i < l->n_groups && i < top && cli_keep_going(); i++) {
        fputs(i ? ",\n  " : "\n  ", stdout);
        group_json(target, l, i);
    }
    printf("%s]", l->n_groups && top ? "\n" : "");
    json_end(unreadable);
}

/* ---- --group N: the group's edges --------------------------------------- */

static hs_status edge_text(heap *h, heap_closure *c, const query_leak_edge *e, hs_error *err) {
    char field[64];
    query_leak_edge_label(h, e, field, sizeof field);
    printf("%14" PRIu64 "  ", e->bytes);
    hs_status st = cli_print_address_text(stdout, h, c, e->from, err);
    if (st != HS_OK)
        return st;
    printf("\n%14s    %s -> ", "", field);
    st = cli_print_address_text(stdout, h, c, e->to, err);
    if (st == HS_OK)
        putchar('\n');
    return st;
}

static hs_status edge_json(heap *h, heap_closure *c, const query_leak_edge *e, hs_error *err) {
    char field[64];
    query_leak_edge_label(h, e, field, sizeof field);
    printf("{\"bytes\": %" PRIu64 ", \"edge\": ", e->bytes);
    cli_json_string(stdout, field);
    fputs(", \"from\": ", stdout);
    hs_status st = cli_print_address_json(stdout, h, c, e->from, err);
    if (st != HS_OK)
        return st;
    fputs(", \"to\": ", stdout);
    st = cli_print_address_json(stdout, h, c, e->to, err);
    if (st == HS_OK)
        putchar('}');
    return st;
}

static hs_status print_edges(const char *target, heap *h, const query_leaks *l, size_t i,
                             const query_leak_edges *edges, uint64_t limit, bool json,
                             const query_unreadable *unreadable, hs_error *err) {
    const query_leak_group *g = &l->groups[i];
    bool cut = edges->count < edges->total;
    if (json) {
        fputs("{\"group\": ", stdout);
        group_json(target, l, i);
        printf(", \"total\": %" PRIu64 ", \"limit\": %" PRIu64 ", \"limit_reached\": %s"
               ", \"items\": [",
               edges->total, limit, cut ? "true" : "false");
    } else {
        printf("leaks: group %zu of %zu, %s: ", i + 1, l->n_groups,
               query_leak_kind_name(g->kind));
        put_clean(g->retainer);
        fputs(" -> ", stdout);
        put_clean(g->retained);
        printf("\n%" PRIu64 " edges, %" PRIu64 " older closures, %" PRIu64
               " bytes retained only through them\n%14s  newer retainer, then its field "
               "holding the older closure\n",
               g->edges, g->older, g->bytes, "bytes");
    }
    heap_closure c = {0};
    hs_status st = HS_OK;
    for (size_t k = 0; st == HS_OK && k < edges->count && cli_keep_going(); k++) {
        if (json)
            fputs(k ? ",\n  " : "\n  ", stdout);
        st = json ? edge_json(h, &c, &edges->items[k], err)
                  : edge_text(h, &c, &edges->items[k], err);
    }
    heap_closure_free(&c);
    if (st != HS_OK)
        return st;
    if (json) {
        printf("%s]", edges->count ? "\n" : "");
        json_end(unreadable);
    } else if (cut) {
        printf("… %" PRIu64 " more edges (--limit)\n", edges->total - edges->count);
    }
    return HS_OK;
}

static hs_status report(const char *target, heap *h, const query_dominators *d,
                        const query_dominators_info *info, size_t top,
                        const cli_common *common, hs_error *err) {
    query_leaks l = {0};
    query_leak_edges edges = {0};
    cli_progress p = cli_progress_start("leaks");
    hs_status st = query_leaks_run(h, d, cli_progress_show, &p, &l, err);
    size_t group = (size_t)common->group - 1;
    uint64_t limit = (uint64_t)common->limit;
    if (st == HS_OK && common->group)
        st = query_leaks_group_edges(h, d, &l, group, limit, cli_progress_show, &p, &edges,
                                     err);
    cli_progress_end(&p);
    if (st == HS_OK && common->group)
        st = print_edges(target, h, &l, group, &edges, limit, common->json, &info->unreadable,
                         err);
    else if (st == HS_OK && common->json)
        print_json(target, &l, top, &info->unreadable);
    else if (st == HS_OK)
        print_text(target, &l, top);
    query_leak_edges_free(&edges);
    query_leaks_free(&l);
    return st;
}

int cli_leaks(const char *target, const cli_common *common) {
    /* refused before the whole heap's dominator tree is computed */
    static const cli_dominators_command cmd = {
        .default_top = LEAKS_TOP, .usable = query_leaks_usable, .report = report};
    return cli_dominators_run(target, common, &cmd);
}
