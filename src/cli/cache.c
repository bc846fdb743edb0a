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

static void print_json(const cache *c, const cache_usage *u, const cache_pause_list *l,
                       const cache_pause_list *foreign) {
    printf("{\"dir\": ");
    cli_json_string(stdout, cache_dir(c));
    printf(", \"db_bytes\": %" PRIu64 ", \"pause_bytes\": %" PRIu64 ", \"max_bytes\": %" PRIu64
           ", \"programs\": %" PRIu64 ", \"tmp_bytes\": %" PRIu64 ", \"tmp_files\": %" PRIu64
           ", \"foreign_files\": [",
           u->db_bytes, u->pause_bytes, u->max_bytes, u->programs, u->tmp_bytes, u->tmp_files);
    for (size_t i = 0; i < foreign->count; i++) {
        printf("%s", i ? ", " : "");
        cli_json_string(stdout, foreign->items[i].file);
    }
    printf("], \"pauses\": [");
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

/* A time as local date and hour; one localtime cannot represent (a row's
 * value is untrusted) is said so. */
static void format_time(int64_t when, char *buf, size_t cap) {
    time_t t = (time_t)when;
    struct tm tm;
    if ((int64_t)t != when || !localtime_r(&t, &tm) ||
        strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(buf, cap, "(time out of range)");
}

static void print_text(const cache *c, const cache_usage *u, const cache_pause_list *l,
                       const cache_pause_list *foreign) {
    printf("cache %s: %.1f MB of %.1f MB (%" PRIu64 " recorded %s; answers of %" PRIu64
           " %s, %.1f MB)\n",
           cache_dir(c), (double)(u->db_bytes + u->pause_bytes) / 1e6,
           (double)u->max_bytes / 1e6, u->pauses, hs_plural(u->pauses, "pause", "pauses"),
           u->programs, hs_plural(u->programs, "program", "programs"), (double)u->db_bytes / 1e6);
    if (u->tmp_files)
        printf("%" PRIu64 " unfinished %s being written: %.1f MB\n", u->tmp_files,
               hs_plural(u->tmp_files, "recording", "recordings"), (double)u->tmp_bytes / 1e6);
    for (size_t i = 0; i < foreign->count; i++)
        printf("ignored: a row names %s, not a file of this cache\n", foreign->items[i].file);
    if (l->count == 0)
        return;
    printf("%-9s %-19s  %-20s %8s %12s %10s %10s  %s\n", "name", "paused at", "program", "pid",
           "closures", "heap MB", "file MB", "file");
    for (size_t i = 0; i < l->count; i++) {
        const cache_pause *p = &l->items[i];
        char when[32];
        format_time(p->paused_at, when, sizeof when);
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
    cache_pause_list l = {0}, foreign = {0};
    hs_status st = cache_usage_get(c, &u, &err);
    if (st == HS_OK)
        st = cache_list_pauses(c, &l, &err);
    if (st == HS_OK)
        st = cache_list_foreign(c, &foreign, &err);
    if (st == HS_OK && common->json)
        print_json(c, &u, &l, &foreign);
    else if (st == HS_OK)
        print_text(c, &u, &l, &foreign);
    cache_pause_list_free(&l);
    cache_pause_list_free(&foreign);
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
