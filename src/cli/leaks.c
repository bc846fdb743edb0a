/* heapscope leaks TARGET: the era-boundary report (query_leaks_run): where
 * closures of a newer era retain older ones, grouped by retainer, retained
 * constructor and retainer kind, ranked as query.h says (what computations
 * hold before what values contain); each group with the retainer search
 * that leads to its merged root paths. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* The filter that finds a group's retainers: their source location as a
 * census bucket, else their info table (the key then names one). */
static const char *filter_of(const query_leak_group *g, char *value, size_t cap) {
    if (g->has_position) {
        snprintf(value, cap, "source=%s", g->retainer);
        return "--bucket";
    }
    snprintf(value, cap, "0x%" PRIx64, g->info_ptr);
    return "--info";
}

/* The retainer search of a group's retainers, with merged paths. */
static void group_command(const char *target, const query_leak_group *g, line *l) {
    char value[1100];
    const char *option = filter_of(g, value, sizeof value);
    l->len = 0;
    add_text(l, "heapscope retainers ");
    add_word(l, target);
    add_text(l, " ");
    add_text(l, option);
    add_text(l, " ");
    add_word(l, value);
    add_text(l, " --merged");
}

static void print_text(const char *target, const query_leaks *l, size_t top) {
    printf("leaks: %" PRIu64 " edges from a newer era to an older one in %zu groups; "
           "%" PRIu64 " bytes retained only through them (%" PRIu64 " reachable closures)\n",
           l->edges, l->n_groups, l->bytes, l->closures);
    if (l->n_groups)
        printf("%14s %10s %10s  %-11s  retainer -> retained constructor\n", "bytes", "older",
               "edges", "kind");
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
        group_command(target, g, &cmd);
        puts(cmd.text);
    }
    if (l->n_groups > top)
        printf("… %zu more groups (--top)\n", l->n_groups - top);
}

static void print_json(const char *target, const query_leaks *l, size_t top,
                       const query_unreadable *unreadable) {
    printf("{\"edges\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"closures\": %" PRIu64
           ", \"groups\": %zu, \"top\": [",
           l->edges, l->bytes, l->closures, l->n_groups);
    for (size_t i = 0; i < l->n_groups && i < top && cli_keep_going(); i++) {
        const query_leak_group *g = &l->groups[i];
        fputs(i ? ",\n  {\"retainer\": " : "\n  {\"retainer\": ", stdout);
        cli_json_string(stdout, g->retainer);
        fputs(", \"retained\": ", stdout);
        cli_json_string(stdout, g->retained);
        printf(", \"kind\": \"%s\", \"holds\": %s", query_leak_kind_name(g->kind),
               query_leak_kind_holds(g->kind) ? "true" : "false");
        printf(", \"bytes\": %" PRIu64 ", \"older\": %" PRIu64 ", \"edges\": %" PRIu64
               ", \"example\": {\"from\": \"0x%" PRIx64 "\", \"from_era\": %" PRIu64
               ", \"to\": \"0x%" PRIx64 "\", \"to_era\": %" PRIu64 "}, \"filter\": [",
               g->bytes, g->older, g->edges, g->from, g->from_era, g->to, g->to_era);
        char value[1100];
        cli_json_string(stdout, filter_of(g, value, sizeof value));
        fputs(", ", stdout);
        cli_json_string(stdout, value);
        fputs("], \"command\": ", stdout);
        line cmd;
        group_command(target, g, &cmd);
        cli_json_string(stdout, cmd.text);
        putchar('}');
    }
    printf("%s], \"unreadable\": ", l->n_groups && top ? "\n" : "");
    cli_json_unreadable(stdout, unreadable);
    fputs(", ", stdout);
    cli_json_timing(stdout);
    puts("}");
}

static hs_status report(const char *target, heap *h, const query_dominators *d,
                        const query_dominators_info *info, size_t top, bool json,
                        hs_error *err) {
    query_leaks l = {0};
    cli_progress p = cli_progress_start("leaks");
    hs_status st = query_leaks_run(h, d, cli_progress_show, &p, &l, err);
    cli_progress_end(&p);
    if (st == HS_OK && json)
        print_json(target, &l, top, &info->unreadable);
    else if (st == HS_OK)
        print_text(target, &l, top);
    query_leaks_free(&l);
    return st;
}

int cli_leaks(const char *target, const cli_common *common) {
    /* refused before the whole heap's dominator tree is computed */
    static const cli_dominators_command cmd = {
        .default_top = LEAKS_TOP, .usable = query_leaks_usable, .report = report};
    return cli_dominators_run(target, common, &cmd);
}
