/* heapscope dump TARGET ADDR -o FILE: the payload of one byte array
 * (ARR_WORDS), exactly its bytes, read a page at a time. Written as a
 * snapshot is (the store's atomic writer: no partial file is ever left,
 * an existing FILE is kept unless --force, checked before connecting). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/cli.h"
#include "heapscope/query.h"
#include "heapscope/store.h"
#include "output.h"

#define PAGE (1u << 20)

/* Progress of the traversal that checks a typed address: stops on a quit
 * signal. */
static bool cli_keep_going_progress(void *ctx, uint64_t visited) {
    (void)ctx, (void)visited;
    return cli_keep_going();
}

static hs_status write_payload(heap *h, uint64_t addr, FILE *f, uint64_t *total,
                               hs_error *err) {
    uint8_t *buf = malloc(PAGE);
    if (!buf)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    uint64_t off = 0;
    *total = 0;
    /* a closure of this pause, or nothing is asked about it */
    hs_status st = query_closure_of_pause(h, addr, cli_keep_going_progress, NULL, err);
    if (st != HS_OK) {
        free(buf);
        return st;
    }
    do {
        size_t got;
        st = heap_payload_read(h, addr, off, buf, PAGE, &got, total, err);
        if (st == HS_OK && got && fwrite(buf, 1, got, f) != got)
            st = hs_fail(err, HS_ERR_IO, "writing: %s", strerror(errno));
        off += got;
    } while (st == HS_OK && off < *total && cli_keep_going());
    if (st == HS_OK && off < *total)
        st = hs_fail(err, HS_ERR_CANCELLED, "cancelled");
    free(buf);
    return st;
}

/* The byte array named, read while the debuggee is paused (its first
 * byte: the closure is found, checked and its bytes kept). */
static hs_status prepare_payload(void *ctx, heap *h, hs_error *err) {
    uint8_t byte;
    size_t got;
    uint64_t total, addr = *(const uint64_t *)ctx;
    /* a closure of this pause, or nothing is asked about it */
    hs_status st = query_closure_of_pause(h, addr, cli_keep_going_progress, NULL, err);
    return st != HS_OK ? st : heap_payload_read(h, addr, 0, &byte, 1, &got, &total, err);
}

int cli_dump(const char *target, const char *addr_text, const cli_common *common) {
    uint64_t addr;
    if (!query_parse_hex_address(addr_text, &addr)) {
        fprintf(stderr, "heapscope: ADDR wants 0x followed by 1 to 16 hex digits, not '%s'\n",
                addr_text);
        return 2;
    }
    if (!common->output || !*common->output) {
        fputs("heapscope: dump needs -o FILE, the file to write the bytes to\n", stderr);
        return 2;
    }
    hs_error err = {0};
    if (store_target_check(common->output, common->force, &err) != HS_OK) /* before pausing */
        return cli_report(&err);
    cli_session s;
    if (cli_session_open_prepared(target, common, prepare_payload, &addr, false, &s, &err) != HS_OK)
        return cli_session_open_failed(&s, &err);
    uint64_t total = 0;
    store_tmpfile tmp;
    hs_status st = store_tmpfile_create(common->output, common->force, &tmp, &err);
    FILE *f = NULL;
    if (st == HS_OK && !(f = fopen(tmp.path, "wb")))
        st = hs_fail(&err, HS_ERR_IO, "cannot write %s: %s", common->output, strerror(errno));
    if (st == HS_OK)
        st = write_payload(s.heap, addr, f, &total, &err);
    if (f && fclose(f) != 0 && st == HS_OK)
        st = hs_fail(&err, HS_ERR_IO, "cannot write %s: %s", common->output, strerror(errno));
    if (st == HS_OK)
        st = store_tmpfile_commit(&tmp, &err);
    else
        store_tmpfile_abort(&tmp);
    if (st == HS_OK) {
        if (common->json) {
            fputs("{\"file\": ", stdout);
            cli_json_string(stdout, common->output);
            printf(", \"address\": \"0x%" PRIx64 "\", \"bytes\": %" PRIu64 ", ",
                   wire_untag(addr), total);
            cli_json_timing(stdout);
            puts("}");
        } else {
            printf("wrote %" PRIu64 " bytes of the byte array at 0x%" PRIx64 " to %s\n", total,
                   wire_untag(addr), common->output);
        }
    }
    return cli_session_finish(&s, common, st, &err);
}
