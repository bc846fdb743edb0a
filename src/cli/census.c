/* heapscope census TARGET [--by A[,B]] [--sort COLUMN] [FILTERS]: count and
 * bytes per bucket of everything reachable from the GC roots (of what
 * passes the filters), largest first, with a second level indented under
 * each row. */
#include <stdio.h>
#include <string.h>

#include "census.h"

static const char by_choices[] =
    "type, constructor, era, source, closure-name, cost-centre or thunk";

int cli_census_parse_by(const char *text, query_census_spec *spec) {
    char copy[64];
    if (strlen(text) >= sizeof copy) {
        fprintf(stderr, "heapscope: --by wants KIND or KIND,KIND, not '%.40s...'\n", text);
        return 2;
    }
    strcpy(copy, text);
    char *second = strchr(copy, ',');
    if (second)
        *second++ = '\0';
    if (second && strchr(second, ',')) {
        fprintf(stderr, "heapscope: --by takes at most two kinds (A,B), not '%s'\n", text);
        return 2;
    }
    const char *names[2] = {copy, second};
    spec->levels = second ? 2 : 1;
    for (size_t l = 0; l < spec->levels; l++) {
        if (!query_census_by_from_name(names[l], &spec->by[l])) {
            fprintf(stderr, "heapscope: --by wants %s (or two of them, A,B), not '%s'\n",
                    by_choices, names[l]);
            return 2;
        }
    }
    if (spec->levels == 2 && spec->by[0] == spec->by[1]) {
        fprintf(stderr, "heapscope: --by names '%s' twice\n", names[0]);
        return 2;
    }
    return 0;
}

/* The --sort column; 0, or 2 after a usage message. */
int cli_census_column(const cli_common *common, query_census_column *out) {
    const char *name = common->sort ? common->sort : "bytes";
    if (!query_census_column_from_name(name, out)) {
        fprintf(stderr,
                "heapscope: --sort wants count, bytes, max, avg, key or retained, not '%s'\n",
                name);
        return 2;
    }
    return 0;
}

int cli_census(const char *target, const cli_common *common) {
    const char *by = common->by ? common->by : "type";
    query_census_spec spec = {0};
    query_census_column column;
    int rc = cli_census_parse_by(by, &spec);
    if (rc == 0)
        rc = cli_census_column(common, &column);
    if (rc != 0)
        return rc;
    char title[96], heading[96];
    snprintf(title, sizeof title, "census by %s", by);
    snprintf(heading, sizeof heading, "%s%s%s", query_census_by_name(spec.by[0]),
             spec.levels > 1 ? " / " : "", spec.levels > 1 ? query_census_by_name(spec.by[1]) : "");
    cli_census_view v = {.title = title, .key_heading = heading};
    return cli_run_census(target, common, &spec, column, &v);
}
