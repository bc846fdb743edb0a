/* heapscope thunks TARGET [FILTERS]: the thunks reachable from the GC roots
 * grouped by the source location of their info table (or the info table
 * when it has none), largest first; each row names the bucket filter
 * (--bucket thunk=KEY) that finds its retainers. */
#include "census.h"

int cli_thunks(const char *target, const cli_common *common) {
    query_census_column column;
    int rc = cli_census_column(common, &column);
    if (rc != 0)
        return rc;
    query_census_spec spec = {.by = {QUERY_CENSUS_BY_THUNK}, .levels = 1};
    cli_census_view v = {.title = "thunks", .key_heading = "location (or info table)",
                         .hint_bucket = true, .one = "thunk", .many = "thunks"};
    return cli_run_census(target, common, &spec, column, &v);
}
