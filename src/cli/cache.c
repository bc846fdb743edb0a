/* heapscope cache list|clear: the recorded pauses and the cache's size, or
 * a fresh start. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "heapscope/cache.h"
#include "heapscope/plural.h"
#include "heapscope/cli.h"
#include "output.h"

static void print_json(const cache *c, const cache_usage *u, const cache_pause_list *l) {
    printf("{\"dir\": ");
    cli_json_string(stdout, cache_dir(c));
    printf(", \"db_bytes\": %" PRIu64 ", \"pause_bytes\": %" PRIu64 ", \"max_bytes\": %" PRIu64
           ", \"programs\": %" PRIu64 ", \"pauses\": [",
           u->db_bytes, u->pause_bytes, u->max_bytes, u->programs);
    for (size_t i = 0; i < l->count; i++) {
        const cache_pause *p = &l->items[i];
        printf("%s\n  {\"file\": ", i ? "," : "");
        cli_json_string(stdout, p->file);
        printf(", \"program\": ");
        cli_json_string(stdout, p->program);
        printf(", \"exe\": ");
        cli_json_string(stdout, p->exe);
        printf(", \"pid\": %" PRId64 ", \"target\": ", p->pid);
        cli_json_string(stdout, p->target);
        printf(", \"paused_at\": %" PRId64 ", \"closures\": %" PRIu64 ", \"heap_bytes\": %" PRIu64
               ", \"file_bytes\": %" PRIu64 "}",
               p->paused_at, p->closures, p->heap_bytes, p->file_bytes);
    }
    printf("%s]}\n", l->count ? "\n" : "");
}

static void print_text(const cache *c, const cache_usage *u, const cache_pause_list *l) {
    printf("cache %s: %.1f MB of %.1f MB (%" PRIu64 " recorded %s; answers of %" PRIu64
           " %s, %.1f MB)\n",
           cache_dir(c), (double)(u->db_bytes + u->pause_bytes) / 1e6,
           (double)u->max_bytes / 1e6, u->pauses, hs_plural(u->pauses, "pause", "pauses"),
           u->programs, hs_plural(u->programs, "program", "programs"), (double)u->db_bytes / 1e6);
    if (l->count == 0)
        return;
    printf("%-9s %-19s  %-20s %8s %12s %10s %10s  %s\n", "name", "paused at", "program", "pid",
           "closures", "heap MB", "file MB", "file");
    for (size_t i = 0; i < l->count; i++) {
        const cache_pause *p = &l->items[i];
        char when[32];
        time_t t = (time_t)p->paused_at;
        struct tm tm;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
        char name[32]; /* what diff takes for it */
        snprintf(name, sizeof name, "cache:%zu", i + 1);
        printf("%-9s %-19s  %-20.20s %8" PRId64 " %12" PRIu64 " %10.1f %10.1f  %s\n", name, when,
               p->program[0] ? p->program : "?", p->pid, p->closures,
               (double)p->heap_bytes / 1e6, (double)p->file_bytes / 1e6, p->file);
    }
}

static int list(const cli_common *common) {
    cache_options o = {.max_bytes = common->cache_size};
    cache *c;
    hs_error err = {0};
    if (cache_open(&o, &c, &err) != HS_OK)
        return cli_report(&err);
    cache_usage u;
    cache_pause_list l = {0};
    hs_status st = cache_usage_get(c, &u, &err);
    if (st == HS_OK)
        st = cache_list_pauses(c, &l, &err);
    if (st == HS_OK && common->json)
        print_json(c, &u, &l);
    else if (st == HS_OK)
        print_text(c, &u, &l);
    cache_pause_list_free(&l);
    cache_close(c);
    return st == HS_OK ? 0 : cli_report(&err);
}

int cli_cache(const char *what, const cli_common *common) {
    if (strcmp(what, "list") == 0)
        return list(common);
    if (strcmp(what, "clear") != 0) {
        fprintf(stderr, "heapscope: usage: heapscope cache list|clear (not '%s')\n", what);
        return 2;
    }
    hs_error err = {0};
    if (cache_clear(NULL, &err) != HS_OK)
        return cli_report(&err);
    return 0;
}
