/* heapscope roots TARGET: saved objects and GC roots, one closure each. */
#include <stdio.h>

#include "describe.h"
#include "heapscope/cli.h"
#include "output.h"

static hs_status print_set(cli_session *s, const cli_common *common, const char *title,
                           const char *json_key, const wire_ptr_list *set, bool last,
                           hs_error *err) {
    heap_closure c = {0};
    hs_status st = heap_prefetch_statics(s->heap, set->items, set->count, err);
    if (common->json)
        printf("  \"%s\": [", json_key);
    else
        printf("%s (%zu)\n", title, set->count);
    for (size_t i = 0; st == HS_OK && i < set->count; i++) {
        st = heap_decode(s->heap, set->items[i], &c, err);
        if (st != HS_OK)
            break;
        if (common->json) {
            printf(i ? ",\n    " : "\n    ");
            st = cli_print_closure_json(stdout, s->heap, &c, err);
        } else {
            fputs("  ", stdout);
            st = cli_print_closure_text(stdout, s->heap, &c, err);
            putchar('\n');
        }
    }
    if (common->json)
        printf("%s]%s\n", set->count ? "\n  " : "", last ? "" : ",");
    heap_closure_free(&c);
    return st;
}

int cli_roots(const char *target, const cli_common *common) {
    hs_error err = {0};
    cli_session s;
    if (cli_session_open(target, common, &s, &err) != HS_OK)
        return cli_report(&err);
    if (common->json)
        puts("{");
    hs_status st = print_set(&s, common, "Saved objects", "saved_objects",
                             heap_saved_objects(s.heap), false, &err);
    if (st == HS_OK && !common->json)
        putchar('\n');
    if (st == HS_OK)
        st = print_set(&s, common, "GC roots", "roots", heap_roots(s.heap), true, &err);
    if (st == HS_OK && common->json)
        puts("}");
    hs_error close_err = {0};
    hs_status cst = cli_session_close(&s, common, &close_err);
    if (st != HS_OK)
        return cli_report(&err);
    return cst == HS_OK ? 0 : cli_report(&close_err);
}
