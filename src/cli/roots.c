/* heapscope roots TARGET: saved objects and GC roots, one closure each. */
#include <inttypes.h>
#include <stdio.h>

#include "describe.h"
#include "heapscope/cli.h"
#include "output.h"

/* A root that cannot be read is listed with why, counted, and skipped. */
static void print_unreadable(uint64_t addr, const hs_error *why, bool json) {
    if (json) {
        printf("{\"address\": \"0x%" PRIx64 "\", \"unreadable\": ", addr);
        cli_json_string(stdout, why->message);
        putchar('}');
    } else {
        printf("  0x%" PRIx64 "  <could not be read: %s>\n", addr, why->message);
    }
}

/* Read while the debuggee is paused: what printing the roots and saved
 * objects asks, asked by printing them to a null stream. */
static hs_status prepare_set(FILE *null, heap *h, const wire_ptr_list *set, hs_error *err) {
    heap_closure c = {0};
    hs_status st = heap_prefetch_statics(h, set->items, set->count, err);
    for (size_t i = 0; st == HS_OK && i < set->count; i++) {
        hs_error why;
        hs_status dst = heap_decode(h, wire_untag(set->items[i]), &c, &why);
        if (dst == HS_OK)
            st = cli_prepare_closure(null, h, &c, err);
        else if (!query_unreadable_status(dst))
            *err = why, st = dst;
    }
    heap_closure_free(&c);
    return st;
}

static hs_status prepare_roots(void *ctx, heap *h, hs_error *err) {
    hs_status st = prepare_set(ctx, h, heap_saved_objects(h), err);
    return st == HS_OK ? prepare_set(ctx, h, heap_roots(h), err) : st;
}

static hs_status print_set(cli_session *s, const cli_common *common, const char *title,
                           const char *json_key, const wire_ptr_list *set,
                           query_unreadable *unreadable, hs_error *err) {
    heap_closure c = {0};
    hs_status st = heap_prefetch_statics(s->heap, set->items, set->count, err);
    if (common->json)
        printf("  \"%s\": [", json_key);
    else
        printf("%s (%zu)\n", title, set->count);
    for (size_t i = 0; st == HS_OK && i < set->count && cli_keep_going(); i++) {
        if (common->json)
            printf(i ? ",\n    " : "\n    ");
        uint64_t addr = wire_untag(set->items[i]);
        hs_error why = {0};
        st = heap_decode(s->heap, addr, &c, &why);
        if (query_unreadable_status(st)) {
            query_unreadable_add(unreadable, addr, why.message);
            print_unreadable(addr, &why, common->json);
            st = HS_OK;
            continue;
        }
        if (st != HS_OK) {
            *err = why;
            break;
        }
        if (common->json) {
            st = cli_print_closure_json(stdout, s->heap, &c, err);
        } else {
            fputs("  ", stdout);
            st = cli_print_closure_text(stdout, s->heap, &c, err);
            putchar('\n');
        }
    }
    if (common->json)
        printf("%s],\n", set->count ? "\n  " : "");
    heap_closure_free(&c);
    return st;
}

int cli_roots(const char *target, const cli_common *common) {
    hs_error err = {0};
    cli_session s;
    FILE *null = fopen("/dev/null", "w");
    if (!null) {
        fprintf(stderr, "heapscope: cannot open /dev/null\n");
        return 1;
    }
    hs_status ost = cli_session_open_prepared(target, common, prepare_roots, null, false, &s, &err);
    fclose(null);
    if (ost != HS_OK)
        return cli_session_open_failed(&s, &err);
    if (common->json)
        puts("{");
    query_unreadable unreadable = {0};
    hs_status st = print_set(&s, common, "Saved objects", "saved_objects",
                             heap_saved_objects(s.heap), &unreadable, &err);
    if (st == HS_OK && !common->json)
        putchar('\n');
    if (st == HS_OK)
        st = print_set(&s, common, "GC roots", "roots", heap_roots(s.heap), &unreadable, &err);
    if (st == HS_OK && common->json) {
        fputs("  \"unreadable\": ", stdout);
        cli_json_unreadable(stdout, &unreadable);
        fputs(",\n  ", stdout);
        cli_json_timing(stdout);
        puts("\n}");
    }
    cli_flush_output();
    if (st == HS_OK && !common->json)
        cli_note_unreadable(&unreadable);
    return cli_session_finish(&s, common, st, &err);
}
