/* leaks_info_name (leaks_internal.h): what a group of the era-boundary
 * report calls its retainers and the closures they retain. The census's
 * keys name one side each (source location, constructor); a group needs one
 * name that says the most for any closure: a constructor by its
 * description, a thunk or function by its IPE label and location, anything
 * else by its type and info table. */
#include <inttypes.h>
#include <stdio.h>

#include "heapscope/closure_type.h"
#include "leaks_internal.h"

static bool given(const char *s) {
    return s && *s;
}

hs_status leaks_info_name(heap *h, uint64_t info_ptr, char *buf, size_t cap, bool *from_ipe,
                          hs_error *err) {
    *from_ipe = false;
    const heap_info *info;
    hs_status st = heap_info_get(h, info_ptr, &info, err);
    if (st != HS_OK)
        return st;
    if (heap_info_is_srt(info)) /* the RTS's, not a constructor of an empty module */
        return heap_info_display_name(h, info, buf, cap, err);
    if (hs_closure_type_is_constructor(info->type) && given(info->con_name)) {
        snprintf(buf, cap, "%s:%s:%s", info->con_package ? info->con_package : "",
                 info->con_module ? info->con_module : "", info->con_name);
        return HS_OK;
    }
    const wire_source_info *ipe;
    st = heap_info_source(h, info, &ipe, err);
    if (st != HS_OK)
        return st;
    /* the symbol (sat_s1Ab_info) names one info table; a location with its
     * binding's label names what a person wrote, and keeps the info tables
     * built there in one group */
    const char *label = ipe && given(ipe->label) ? ipe->label : NULL;
    char position[512]; /* never the stub's ":" of an entry without file */
    const char *where = heap_ipe_location(ipe, position, sizeof position) ? position : NULL;
    const char *symbol = ipe && given(ipe->name) ? ipe->name : NULL;
    *from_ipe = label || where || symbol;
    if (label && where)
        snprintf(buf, cap, "%s %s", label, where);
    else if (*from_ipe)
        snprintf(buf, cap, "%s", where ? where : label ? label : symbol);
    else
        snprintf(buf, cap, "%s <info 0x%" PRIx64 ">", hs_closure_type_name(info->type),
                 info_ptr);
    return HS_OK;
}
