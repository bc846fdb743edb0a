/* heapscope snapshot TARGET -o FILE: one pause into a snapshot file. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/store.h"
#include "output.h"

/* Progress on a terminal; a quit signal cancels the write (which then
 * leaves no file behind). */
static bool show_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    bool tty = *(bool *)ctx;
    if (tty && total)
        fprintf(cli_status_line(), "\r\033[Kheapscope: %s: %.0f%%", phase, 100.0 * (double)done / (double)total);
    else if (tty)
        fprintf(cli_status_line(), "\r\033[Kheapscope: %s: %" PRIu64, phase, done);
    return cli_keep_going();
}

int cli_snapshot(const char *target, const cli_common *common) {
    const char *output = common->output;
    if (!output) {
        fprintf(stderr, "heapscope: snapshot needs the file to write: -o FILE\n");
        return 2;
    }
    hs_error err = {0};
    if (store_target_check(output, common->force, &err) != HS_OK) /* before pausing anything */
        return cli_report(&err);
    cli_session s;
    if (cli_session_open(target, common, &s, &err) != HS_OK)
        return cli_session_open_failed(&s, &err);
    store_meta meta = {0};
    if (session_snapshot_meta(s.sess)) /* a copy keeps where and when the pause was taken */
        meta = *session_snapshot_meta(s.sess);
    else { /* program and pid as the cache knows them, else from the socket's name */
        const cache_link *link = session_cache_link(s.sess);
        cache_link none = {0};
        cache_link_meta(link ? link : &none, target, &meta);
    }
    bool tty = isatty(STDERR_FILENO);
    query_unreadable unreadable = {0};
    store_write_options opts = {.replace = common->force, .progress = show_progress,
                                .progress_ctx = &tty, .unreadable = &unreadable};
    hs_status st = store_snapshot_write(s.heap, output, &meta, &opts, &err);
    if (tty)
        fputs("\r\033[K", cli_status_line());
    uint64_t heap_bytes = heap_block_bytes(s.heap);
    hs_error close_err = {0};
    hs_status cst = cli_session_close(&s, common, &close_err);
    if (st != HS_OK)
        return cli_report(&err);
    if (cst != HS_OK)
        return cli_report(&close_err);
    store_snapshot *written;
    if (store_snapshot_open(output, &written, &err) != HS_OK)
        return cli_report(&err);
    const store_meta *m = store_snapshot_meta(written);
    FILE *f = fopen(output, "rb");
    long size = 0;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (f)
        fclose(f);
    if (common->json) {
        printf("{\"file\": ");
        cli_json_string(stdout, output);
        printf(", \"closures\": %" PRIu64 ", \"closure_bytes\": %" PRIu64
               ", \"heap_bytes\": %" PRIu64 ", \"file_bytes\": %ld, \"unreadable\": ",
               m->closures, m->closure_bytes, heap_bytes, size);
        cli_json_unreadable(stdout, &unreadable);
        fputs(", ", stdout);
        cli_json_timing(stdout);
        printf("}\n");
    } else {
        printf("wrote %s: %" PRIu64 " closures (%" PRIu64 " bytes) from %.1f MB of heap, "
               "%.1f MB\n",
               output, m->closures, m->closure_bytes, (double)heap_bytes / 1e6,
               (double)size / 1e6);
        cli_note_unreadable(&unreadable);
    }
    store_snapshot_close(written);
    return 0;
}
