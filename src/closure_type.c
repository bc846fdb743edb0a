#include "heapscope/closure_type.h"

#include <string.h>

static const char *const type_names[HS_N_CLOSURE_TYPES] = {
#define HS_CLOSURE_TYPE_NAME(name, num) [num] = #name,
    HS_CLOSURE_TYPE_LIST(HS_CLOSURE_TYPE_NAME)
#undef HS_CLOSURE_TYPE_NAME
};

/* Names of the numbers no GHC heapscope knows has, as static strings:
 * callers keep the pointer (census keys, snapshot rows). */
#define U(n) [n] = "UNKNOWN_TYPE_" #n
#define U10(d) U(d##0), U(d##1), U(d##2), U(d##3), U(d##4), U(d##5), U(d##6), U(d##7), \
               U(d##8), U(d##9)
static const char *const unknown_names[256] = {
    U(65), U(66), U(67), U(68), U(69), U10(7), U10(8), U10(9), U10(10), U10(11), U10(12),
    U10(13), U10(14), U10(15), U10(16), U10(17), U10(18), U10(19), U10(20), U10(21),
    U10(22), U10(23), U10(24), U(250), U(251), U(252), U(253), U(254), U(255),
};
#undef U10
#undef U

uint32_t hs_closure_types_of(uint32_t ghc_major) {
    return ghc_major == 0 || ghc_major >= 913 ? HS_N_CLOSURE_TYPES : HS_ANN_FRAME;
}

uint32_t hs_closure_type_of(uint32_t raw, uint32_t ghc_major) {
    if (raw >= HS_CLOSURE_TYPE_UNKNOWN) /* keeps the flag's meaning: "UNKNOWN_TYPE_LARGE" */
        return UINT32_MAX;
    return raw < hs_closure_types_of(ghc_major) ? raw : raw | HS_CLOSURE_TYPE_UNKNOWN;
}

const char *hs_closure_type_name(uint32_t type) {
    if (type < HS_N_CLOSURE_TYPES)
        return type_names[type];
    uint32_t n = type & ~HS_CLOSURE_TYPE_UNKNOWN;
    if (n < sizeof unknown_names / sizeof *unknown_names && unknown_names[n])
        return unknown_names[n];
    return "UNKNOWN_TYPE_LARGE";
}

int hs_closure_type_from_name(const char *name) {
    for (int i = 0; i < HS_N_CLOSURE_TYPES; i++)
        if (strcmp(type_names[i], name) == 0)
            return i;
    return -1;
}

bool hs_closure_type_parse(const char *name, uint32_t *type) {
    int known = hs_closure_type_from_name(name);
    if (known > 0) {
        *type = (uint32_t)known;
        return true;
    }
    for (uint32_t n = HS_ANN_FRAME; n < sizeof unknown_names / sizeof *unknown_names; n++)
        if (unknown_names[n] && strcmp(unknown_names[n], name) == 0) {
            *type = n | HS_CLOSURE_TYPE_UNKNOWN;
            return true;
        }
    return false;
}
