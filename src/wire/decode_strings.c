/* Decoders of the answers that carry strings: CON_DESC (§7.10),
 * SOURCE_INFO (§7.11) and CC (§7.17). Strings become NUL-terminated copies,
 * so an embedded NUL is rejected rather than silently cutting them short.
 * The copies are shown on terminals, so control characters become '?':
 * a name holding ESC [ 2 J must be displayed, never obeyed. */
#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

/* C0 controls and DEL, and the C1 controls U+0080..U+009F in their UTF-8
 * form (C2 80..C2 9F), which some terminals obey too, become '?'. GHC
 * never puts them in a name; a corrupt or hostile process might. */
static void scrub_controls(char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            s[i] = '?';
        else if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
                 (unsigned char)s[i + 1] <= 0x9f)
            s[i] = s[i + 1] = '?';
    }
}

static char *copy_str(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (d) {
        if (n > 0)
            memcpy(d, s, n);
        d[n] = '\0';
        scrub_controls(d, n);
    }
    return d;
}

/* Reads one u32 BE length + bytes string into *out. `what` names it in
 * messages. */
static hs_status read_string(wire_reader *r, const char *what, char **out, hs_error *err) {
    if (!wire_rd_has(r, 4))
        return hs_fail(err, HS_ERR_PROTOCOL, "answer ends inside the length of the %s", what);
    uint32_t n = hs_load_be32(wire_rd_take(r, 4));
    if (!wire_rd_has(r, n))
        return hs_fail(err, HS_ERR_PROTOCOL, "the %s announces %u bytes but only %zu are left",
                       what, n, r->left);
    const char *s = (const char *)wire_rd_take(r, n);
    if (memchr(s, '\0', n))
        return hs_fail(err, HS_ERR_PROTOCOL, "the %s contains a NUL byte", what);
    if (!(*out = copy_str(s, n)))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for a string of %u bytes", n);
    return HS_OK;
}

/* The reference tests each byte as a Latin-1 character with isUpper:
 * A-Z and À-Þ except the multiplication sign ×. */
static bool latin1_upper(unsigned char ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 0xC0 && ch <= 0xDE && ch != 0xD7);
}

hs_status wire_parse_con_desc(const char *raw, size_t len, wire_con_desc *out, hs_error *err) {
    *out = (wire_con_desc){0};
    if (len > 0 && !raw)
        return hs_fail(err, HS_ERR_USAGE, "constructor description is NULL");
    if (len > 0 && memchr(raw, '\0', len))
        return hs_fail(err, HS_ERR_PROTOCOL, "constructor description contains a NUL byte");

    /* Step 1: package before the first ':'; no ':' leaves the rest empty. */
    const char *colon = len > 0 ? memchr(raw, ':', len) : NULL;
    size_t pkg_len = colon ? (size_t)(colon - raw) : len;
    const char *rest = colon ? colon + 1 : raw + len;
    const char *end = raw + len;

    /* Steps 2-4: cut module components while the rest starts upper case and
     * still contains a '.'. The components are contiguous, so the module is
     * the text from `rest` up to the last '.' cut. */
    const char *name = rest;
    size_t mod_len = 0;
    while (name < end && latin1_upper((unsigned char)*name)) {
        const char *dot = memchr(name, '.', (size_t)(end - name));
        if (!dot)
            break;
        mod_len = (size_t)(dot - rest);
        name = dot + 1;
    }
    size_t name_len = (size_t)(end - name);

    /* Step 5: any empty part means the string is not in the usual form. */
    bool whole = pkg_len == 0 || mod_len == 0 || name_len == 0;
    out->raw = copy_str(raw, len);
    out->package = whole ? copy_str("", 0) : copy_str(raw, pkg_len);
    out->module = whole ? copy_str("", 0) : copy_str(rest, mod_len);
    out->name = whole ? copy_str(raw, len) : copy_str(name, name_len);
    if (!out->raw || !out->package || !out->module || !out->name) {
        wire_con_desc_free(out);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for a constructor description");
    }
    return HS_OK;
}

hs_status wire_decode_con_desc(const uint8_t *body, size_t len, wire_con_desc *out,
                               hs_error *err) {
    *out = (wire_con_desc){0};
    wire_reader r = {body, len};
    if (!wire_rd_has(&r, 4))
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "constructor description answer of %zu bytes has no length", len);
    uint32_t n = hs_load_be32(wire_rd_take(&r, 4));
    if (n != r.left)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "constructor description announces %u bytes but the answer carries %zu", n,
                       r.left);
    return wire_parse_con_desc((const char *)r.p, n, out, err);
}

/* String 2 of SOURCE_INFO: "0" is CONSTR (1); a decimal 1..65 is that
 * closure type; anything else is 0 (invalid), the text being kept. */
static uint32_t parse_closure_type(const char *s) {
    if (strcmp(s, "0") == 0)
        return 1;
    if (*s == '\0')
        return 0;
    uint32_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (uint32_t)(*p - '0');
        if (v > 65)
            return 0;
    }
    return v;
}

hs_status wire_decode_source_info(const uint8_t *body, size_t len, wire_source_info *out,
                                  hs_error *err) {
    *out = (wire_source_info){0};
    wire_reader r = {body, len};
    if (!wire_rd_has(&r, 4))
        return hs_fail(err, HS_ERR_PROTOCOL, "source-info answer of %zu bytes has no count", len);
    uint32_t count = hs_load_be32(wire_rd_take(&r, 4));
    if (count != 0 && count != 6)
        return hs_fail(err, HS_ERR_PROTOCOL, "source-info count is %u (expected 0 or 6)", count);
    if (count == 6) {
        char **fields[6] = {&out->name,  &out->closure_type_text, &out->type,
                            &out->label, &out->module,            &out->position};
        static const char *const names[6] = {"info-table name", "closure type", "type",
                                             "label",           "module",       "position"};
        for (int i = 0; i < 6; i++) {
            hs_status st = read_string(&r, names[i], fields[i], err);
            if (st != HS_OK) {
                wire_source_info_free(out);
                return st;
            }
        }
        out->found = true;
        out->closure_type = parse_closure_type(out->closure_type_text);
    }
    if (r.left != 0) {
        wire_source_info_free(out);
        return hs_fail(err, HS_ERR_PROTOCOL, "%zu unexpected bytes after the source info", r.left);
    }
    return HS_OK;
}

hs_status wire_decode_cc(const uint8_t *body, size_t len, wire_cc *out, hs_error *err) {
    *out = (wire_cc){0};
    wire_reader r = {body, len};
    if (!wire_rd_has(&r, 8))
        return hs_fail(err, HS_ERR_PROTOCOL, "cost-centre answer of %zu bytes has no id", len);
    out->id = (int64_t)hs_load_le64(wire_rd_take(&r, 8));
    hs_status st = read_string(&r, "cost-centre label", &out->label, err);
    if (st == HS_OK)
        st = read_string(&r, "cost-centre module", &out->module, err);
    if (st == HS_OK)
        st = read_string(&r, "cost-centre source location", &out->srcloc, err);
    if (st == HS_OK && r.left != 32)
        st = hs_fail(err, HS_ERR_PROTOCOL,
                     "cost-centre answer has %zu bytes after its strings, expected 32", r.left);
    if (st != HS_OK) {
        wire_cc_free(out);
        return st;
    }
    /* The stub sends these LE; the 0.6 client reads mem_alloc and
     * time_ticks BE by mistake. We keep the true values (§7.17). */
    out->mem_alloc = hs_load_le64(r.p);
    out->time_ticks = hs_load_le64(r.p + 8);
    out->is_caf = hs_load_le64(r.p + 16) != 0;
    out->link = wire_untag(hs_load_le64(r.p + 24));
    return HS_OK;
}
