/* The constructor-name regex: PCRE2, compiled once, JIT when available.
 * Results are cached per info table by the filter, so a match runs once
 * per constructor, not once per closure. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_internal.h"

struct query_regex {
    pcre2_code *code;
    pcre2_match_data *md;
};

/* Length of the valid UTF-8 sequence at s (1-4), or 0. */
static size_t utf8_len(const unsigned char *s) {
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
             : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* The pattern for an error message: control bytes and bytes that are not
 * UTF-8 shown as \xHH, so the message itself is clean text. */
static void printable(const char *pattern, char *buf, size_t cap) {
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)pattern; *p && used + 5 < cap;) {
        size_t n = utf8_len(p);
        if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
            used += (size_t)snprintf(buf + used, cap - used, "\\x%02x", *p);
            p++;
        } else {
            if (used + n >= cap)
                break;
            memcpy(buf + used, p, n);
            used += n;
            p += n;
        }
    }
    buf[used] = '\0';
}

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
        char shown[256];
        printable(pattern, shown, sizeof shown);
        return hs_fail(err, HS_ERR_USAGE, "bad regex '%s': %s at offset %zu", shown,
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
    char shown[256];
    printable(subject, shown, sizeof shown);
    hs_fail(err, HS_ERR_USAGE, "regex matching failed on '%s': %s", shown, (const char *)msg);
    return -1;
}

void query_regex_free(query_regex *re) {
    if (!re)
        return;
    pcre2_match_data_free(re->md);
    pcre2_code_free(re->code);
    free(re);
}
