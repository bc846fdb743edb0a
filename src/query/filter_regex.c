/* The constructor-name regex: PCRE2, compiled once, JIT when available.
 * Results are cached per info table by the filter, so a match runs once
 * per constructor, not once per closure. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "filter_internal.h"

struct query_regex {
    pcre2_code *code;
    pcre2_match_data *md;
};

hs_status query_regex_compile(const char *pattern, query_regex **out, hs_error *err) {
    *out = NULL;
    int code;
    PCRE2_SIZE offset;
    /* MATCH_INVALID_UTF: a constructor name that is not valid UTF-8 must
     * not make matching fail, it just cannot match where it is invalid */
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &offset, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
            strcpy((char *)msg, "unknown error");
        return hs_fail(err, HS_ERR_USAGE, "bad regex '%s': %s at offset %zu", pattern,
                       (const char *)msg, (size_t)offset);
    }
    query_regex *r = calloc(1, sizeof *r);
    pcre2_match_data *md = r ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
    if (!md) {
        free(r);
        pcre2_code_free(re);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory compiling regex '%s'", pattern);
    }
    (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* when it fails, matching interprets */
    r->code = re;
    r->md = md;
    *out = r;
    return HS_OK;
}

int query_regex_match(query_regex *re, const char *subject, hs_error *err) {
    int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, strlen(subject), 0, 0, re->md, NULL);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    PCRE2_UCHAR msg[256];
    if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
        strcpy((char *)msg, "unknown error");
    hs_fail(err, HS_ERR_USAGE, "regex matching failed on '%s': %s", subject, (const char *)msg);
    return -1;
}

void query_regex_free(query_regex *re) {
    if (!re)
        return;
    pcre2_match_data_free(re->md);
    pcre2_code_free(re->code);
    free(re);
}
