/* The filter options of retainers and find (rows of the option table, each
 * also as --not-X), recorded in command-line order by the parser, made into
 * query filters here before anything connects (so a bad regex fails fast,
 * exit 2). */
#include <stdio.h>
#include <string.h>

#include "heapscope/cli.h"
#include "heapscope/closure_type.h"
#include "output.h"

/* Every closure type name, wrapped: more than an error message holds. */
static void print_type_names(FILE *out) {
    fputs("heapscope: the closure types are:", out);
    int col = 80;
    for (uint32_t t = 1; t < HS_N_CLOSURE_TYPES; t++) {
        const char *name = hs_closure_type_name(t);
        int len = (int)strlen(name) + 1;
        if (col + len > 78) {
            fputs("\n ", out);
            col = 1;
        }
        fprintf(out, " %s", name);
        col += len;
    }
    fputc('\n', out);
}

int cli_filters_build(const cli_common *common, query_filters **out) {
    hs_error err = {0};
    *out = NULL;
    if (query_filters_new(out, &err) != HS_OK) {
        fprintf(stderr, "heapscope: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < common->n_filters; i++) {
        const cli_filter_arg *a = &common->filters[i];
        hs_status st = query_filters_add(*out, a->kind, a->value, a->invert, &err);
        if (st == HS_ERR_USAGE && a->kind == QUERY_FILTER_TYPE) {
            fprintf(stderr, "heapscope: %s: unknown closure type '%s'\n", a->option, a->value);
            print_type_names(stderr);
        } else if (st != HS_OK) {
            fprintf(stderr, "heapscope: %s: %s\n", a->option, err.message);
        }
        if (st != HS_OK) {
            query_filters_free(*out);
            *out = NULL;
            return st == HS_ERR_USAGE ? 2 : 1;
        }
    }
    return 0;
}

int cli_open_with_filters(const char *target, const cli_common *common, query_filters **filters,
                          cli_session *s) {
    int rc = cli_filters_build(common, filters);
    if (rc != 0)
        return rc;
    hs_error err = {0};
    if (cli_session_open(target, common, s, &err) != HS_OK) {
        query_filters_free(*filters);
        *filters = NULL;
        return cli_session_open_failed(s, &err);
    }
    return 0;
}

void cli_json_filters(FILE *out, const query_filters *f) {
    char d[512];
    fputc('[', out);
    for (size_t i = 0; i < query_filters_count(f); i++) {
        query_filters_describe(f, i, d, sizeof d);
        fputs(i ? ", " : "", out);
        cli_json_string(out, d);
    }
    fputc(']', out);
}
