/* The value filter: a closure matches when it is a byte array, Text,
 * ByteString or String cell whose value (as the strings analysis reads
 * it) equals the filter's bytes. The text is the value with \xNN escapes
 * (and "\\" for a backslash), as query_strings_escape writes it. A Text or
 * ByteString is followed to its array, a String cell along its list (up to
 * the value's length plus one cell), with a closure of scratch space, and
 * through the indirections evaluated thunks leave on the way.
 *
 * As in the strings analysis, a byte array under a Text or ByteString is
 * part of that value, not a value of its own: the filter remembers the
 * arrays of the Texts and ByteStrings it was shown that hold exactly its
 * bytes (so few are kept), and such an array does not match. A traversal
 * shows a holder before the array it reached it through, so a search
 * finds a Text's value once, as a Text. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/u64map.h"
#include "strings_internal.h"

struct strings_value_filter {
    uint8_t *bytes;
    size_t len;
    heap_closure scratch, scratch2;
    strings_roles roles;
    u64map held; /* arrays equal to the value under the Texts and ByteStrings seen */
};

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

hs_status strings_value_filter_new(const char *text, strings_value_filter **out, hs_error *err) {
    strings_value_filter *f = calloc(1, sizeof *f);
    size_t n = strlen(text);
    if (!f || !(f->bytes = malloc(n + 1))) {
        free(f);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '\\') {
            f->bytes[f->len++] = (uint8_t)text[i];
            continue;
        }
        int hi, lo;
        if (text[i + 1] == '\\') {
            f->bytes[f->len++] = '\\';
            i++;
        } else if (text[i + 1] == 'x' && (hi = hex_digit(text[i + 2])) >= 0 &&
                   (lo = hex_digit(text[i + 3])) >= 0) {
            f->bytes[f->len++] = (uint8_t)(hi << 4 | lo);
            i += 3;
        } else {
            strings_value_filter_free(f);
            return hs_fail(err, HS_ERR_USAGE,
                           "a backslash at offset %zu starts neither \\\\ nor \\xNN "
                           "(two hex digits)",
                           i);
        }
    }
    *out = f;
    return HS_OK;
}

void strings_value_filter_free(strings_value_filter *f) {
    if (!f)
        return;
    free(f->bytes);
    heap_closure_free(&f->scratch);
    heap_closure_free(&f->scratch2);
    u64map_free(&f->held);
    free(f);
}

void strings_value_filter_forget(strings_value_filter *f) {
    memset(&f->roles, 0, sizeof f->roles);
    u64map_free(&f->held);
    memset(&f->held, 0, sizeof f->held);
}

static strings_role role_of(strings_value_filter *f, const heap_info *info) {
    return strings_roles_get(&f->roles, info);
}

/* Decodes the closure at addr, or the value the indirections from there
 * lead to, into *out; *role is ROLE_NONE when it cannot be read (or the
 * chain is too long). */
static hs_status decode_value(strings_value_filter *f, heap *h, uint64_t addr, heap_closure *out,
                              strings_role *role, hs_error *err) {
    *role = ROLE_NONE;
    for (int hop = 0; hop <= STRINGS_MAX_HOPS; hop++) {
        hs_error local;
        hs_status st = heap_decode(h, addr, out, &local);
        if (st != HS_OK) {
            if (query_unreadable_status(st))
                return HS_OK;
            if (err)
                *err = local;
            return st;
        }
        strings_role r = out->info ? role_of(f, out->info) : ROLE_NONE;
        if (r != ROLE_IND) {
            *role = r;
            return HS_OK;
        }
        if (out->n_edges < 1)
            return HS_OK;
        addr = out->edges[0].addr;
    }
    return HS_OK;
}

/* Decodes the value at addr into *out; false (no match) when it cannot
 * be read or is not of role want. */
static hs_status decode_role(strings_value_filter *f, heap *h, uint64_t addr, heap_closure *out,
                             strings_role want, bool *ok, hs_error *err) {
    strings_role r;
    hs_status st = decode_value(f, h, addr, out, &r, err);
    *ok = st == HS_OK && r == want;
    return st;
}

static bool utf16_equals(const strings_value_filter *f, const uint8_t *v, uint64_t bytes) {
    uint8_t *u = malloc((size_t)(bytes / 2 * 3 + 1));
    if (!u)
        return false;
    size_t n = strings_utf16_to_utf8(v, (size_t)(bytes / 2), u);
    bool eq = n == f->len && memcmp(u, f->bytes, n) == 0;
    free(u);
    return eq;
}

/* A Text, BS or PS: its slice of its array. */
static hs_status holder_match(strings_value_filter *f, heap *h, const heap_closure *c,
                              strings_role role, bool *out, hs_error *err) {
    bool ok;
    uint64_t arr = c->edges[0].addr;
    hs_status st;
    if (role == ROLE_BS || role == ROLE_PS) {
        st = decode_role(f, h, arr, &f->scratch, ROLE_CONTENTS, &ok, err);
        if (st != HS_OK || !ok || f->scratch.n_edges < 1)
            return st;
        arr = f->scratch.edges[0].addr;
    }
    st = decode_role(f, h, arr, &f->scratch, ROLE_BYTES, &ok, err);
    if (st == HS_OK && ok && f->scratch.count == f->len &&
        memcmp(f->scratch.bytes, f->bytes, f->len) == 0 && !u64map_put(&f->held, arr, 1))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory matching values");
    uint64_t off, len;
    if (st != HS_OK || !ok ||
        !strings_slice(h, role, c->words, c->n_words, &f->scratch, &off, &len))
        return st;
    if (role == ROLE_TEXT16)
        *out = len <= (uint64_t)f->len * 2 && utf16_equals(f, f->scratch.bytes + off, len);
    else
        *out = len == f->len && memcmp(f->scratch.bytes + off, f->bytes, f->len) == 0;
    return HS_OK;
}

/* A (:) cell: the characters of its list, which must end in [] right
 * after the value. */
static hs_status list_match(strings_value_filter *f, heap *h, const heap_closure *c, bool *out,
                            hs_error *err) {
    size_t at = 0;
    uint64_t head = c->edges[0].addr, tail = c->edges[1].addr;
    for (;;) {
        bool ok;
        hs_status st = decode_role(f, h, head, &f->scratch, ROLE_CHAR, &ok, err);
        if (st != HS_OK || !ok || f->scratch.n_words < 1 || f->scratch.words[0] > 0x10FFFF)
            return st;
        uint8_t u[4];
        size_t n = strings_utf8((uint32_t)f->scratch.words[0], u);
        if (n > f->len - at || memcmp(f->bytes + at, u, n) != 0)
            return HS_OK;
        at += n;
        strings_role r;
        if ((st = decode_value(f, h, tail, &f->scratch2, &r, err)) != HS_OK)
            return st;
        if (r == ROLE_NIL) {
            *out = at == f->len;
            return HS_OK;
        }
        if (r != ROLE_CONS || f->scratch2.n_edges < 2 || at == f->len)
            return HS_OK;
        head = f->scratch2.edges[0].addr;
        tail = f->scratch2.edges[1].addr;
    }
}

hs_status strings_value_filter_match(strings_value_filter *f, heap *h, const heap_closure *c,
                                     bool *out, hs_error *err) {
    *out = false;
    strings_role role = c->info ? role_of(f, c->info) : ROLE_NONE;
    switch (role) {
    case ROLE_BYTES:
        *out = c->count == f->len && !u64map_find(&f->held, c->addr) &&
               memcmp(c->bytes, f->bytes, f->len) == 0;
        return HS_OK;
    case ROLE_TEXT8:
    case ROLE_TEXT16:
    case ROLE_BS:
    case ROLE_PS:
        return c->n_edges >= 1 ? holder_match(f, h, c, role, out, err) : HS_OK;
    case ROLE_CONS: return c->n_edges >= 2 ? list_match(f, h, c, out, err) : HS_OK;
    default: return HS_OK;
    }
}
