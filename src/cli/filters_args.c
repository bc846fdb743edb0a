/* The filter options of retainers and find: one --X and one --not-X per
 * filter kind, recorded in command-line order, parsed into query filters
 * before anything connects (so a bad regex fails fast, exit 2). */
#include <stdio.h>
#include <string.h>

#include "heapscope/cli.h"
#include "heapscope/closure_type.h"

#define OPT(name, kind)                                                             \
    {name, required_argument, NULL, CLI_FILTER_OPT_BASE + 2 * (kind)},              \
    {"not-" name, required_argument, NULL, CLI_FILTER_OPT_BASE + 2 * (kind) + 1}

const struct option cli_filter_options[CLI_FILTER_OPTION_COUNT] = {
    OPT("constructor", QUERY_FILTER_CONSTRUCTOR),
    OPT("exact", QUERY_FILTER_EXACT),
    OPT("closure-name", QUERY_FILTER_CLOSURE_NAME),
    OPT("address", QUERY_FILTER_ADDRESS),
    OPT("info", QUERY_FILTER_INFO),
    OPT("type", QUERY_FILTER_TYPE),
    OPT("min-size", QUERY_FILTER_MIN_SIZE),
    OPT("era", QUERY_FILTER_ERA),
    OPT("cost-centre", QUERY_FILTER_COST_CENTRE),
};

bool cli_is_filter_option(int opt) {
    return opt >= CLI_FILTER_OPT_BASE && opt < CLI_FILTER_OPT_BASE + CLI_FILTER_OPTION_COUNT;
}

/* "--not-era" for an option value (the table's strings live forever). */
static const char *option_text(int opt, char *buf, size_t cap) {
    for (size_t i = 0; i < CLI_FILTER_OPTION_COUNT; i++)
        if (cli_filter_options[i].val == opt) {
            snprintf(buf, cap, "--%s", cli_filter_options[i].name);
            return buf;
        }
    return "--?";
}

int cli_filter_option(cli_common *common, int opt, const char *value) {
    static char names[CLI_FILTER_OPTION_COUNT][24]; /* "--not-closure-name" */
    int k = opt - CLI_FILTER_OPT_BASE;
    if (common->n_filters == CLI_MAX_FILTERS) {
        fprintf(stderr, "heapscope: at most %d filter options\n", CLI_MAX_FILTERS);
        return 2;
    }
    common->filters[common->n_filters++] = (cli_filter_arg){
        .kind = (query_filter_kind)(k / 2),
        .invert = k % 2 == 1,
        .option = option_text(opt, names[k], sizeof names[k]),
        .value = value,
    };
    common->given |= CLI_OPT_FILTER;
    return 0;
}

void cli_filter_usage(FILE *out) {
    fputs("Filters (retainers, find; each also as --not-X, e.g. --not-type THUNK;\n"
          "all must hold, checked in the order given):\n"
          "  --constructor REGEX    constructor name matches a PCRE2 regex (UTF-8)\n"
          "  --exact NAME           constructor name is NAME\n"
          "  --closure-name NAME    info-table name from IPE data is NAME\n"
          "  --address 0xA          closure at address A\n"
          "  --info 0xP             info-table pointer P\n"
          "  --type TYPE            closure type, e.g. THUNK_2_0, ARR_WORDS\n"
          "  --min-size N           at least N bytes\n"
          "  --era RANGE            era in N, A-B, A- or -B (era profiling only)\n"
          "  --cost-centre ID       under cost centre ID (profiled debuggees)\n"
          "  --limit N              stop after N matches (default 100, 0 = all)\n",
          out);
}

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
