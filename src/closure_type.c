#include "heapscope/closure_type.h"

#include <string.h>

static const char *const type_names[HS_N_CLOSURE_TYPES] = {
#define HS_CLOSURE_TYPE_NAME(name, num) [num] = #name,
    HS_CLOSURE_TYPE_LIST(HS_CLOSURE_TYPE_NAME)
#undef HS_CLOSURE_TYPE_NAME
};

const char *hs_closure_type_name(uint32_t type) {
    return type < HS_N_CLOSURE_TYPES ? type_names[type] : "UNKNOWN";
}

int hs_closure_type_from_name(const char *name) {
    for (int i = 0; i < HS_N_CLOSURE_TYPES; i++)
        if (strcmp(type_names[i], name) == 0)
            return i;
    return -1;
}
