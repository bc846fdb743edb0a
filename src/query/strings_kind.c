/* What the strings analysis recognises, by constructor description
 * (package:module:name, the libraries' own data types): text's Text,
 * bytestring's BS (0.11 and later) and PS (0.10), GHC.ForeignPtr's
 * (GHC.Internal.ForeignPtr's from GHC 9.10) PlainPtr and MallocPtr (bytes
 * in the heap) and PlainForeignPtr and FinalPtr (bytes outside it), and
 * GHC.Types' (:), C# and []; by closure type, byte arrays and the
 * indirections an evaluated thunk leaves. The field counts are checked
 * too, so a same-named type of another shape is left alone.
 * Plus the UTF-8/UTF-16 conversions and the escaping of values. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "strings_internal.h"

/* text before 2.0 stores UTF-16: its package is "text-0.…" or "text-1.…". */
static bool text_is_utf16(const char *package) {
    return strncmp(package, "text-", 5) == 0 && (package[5] == '0' || package[5] == '1') &&
           package[6] == '.';
}

strings_role strings_role_of(const heap_info *info) {
    if (info->type == HS_ARR_WORDS)
        return ROLE_BYTES;
    if (info->type == HS_IND || info->type == HS_IND_STATIC || info->type == HS_BLACKHOLE)
        return ROLE_IND;
    if (!hs_closure_type_is_constructor(info->type) || !info->con_name || !info->con_module)
        return ROLE_NONE;
    const char *m = info->con_module, *n = info->con_name;
    const char *p = info->con_package ? info->con_package : "";
    uint32_t ptrs = info->ptrs, nptrs = info->nptrs;
    if (strcmp(m, "GHC.Types") == 0) {
        if (strcmp(n, ":") == 0 && ptrs == 2 && nptrs == 0)
            return ROLE_CONS;
        if (strcmp(n, "C#") == 0 && ptrs == 0 && nptrs == 1)
            return ROLE_CHAR;
        if (strcmp(n, "[]") == 0)
            return ROLE_NIL;
        return ROLE_NONE;
    }
    if (strcmp(n, "Text") == 0 && strcmp(m, "Data.Text.Internal") == 0 && ptrs == 1 &&
        nptrs == 2)
        return text_is_utf16(p) ? ROLE_TEXT16 : ROLE_TEXT8;
    if (strncmp(m, "Data.ByteString.Internal", 24) == 0 && ptrs == 1) {
        if (strcmp(n, "BS") == 0 && nptrs == 2)
            return ROLE_BS;
        if (strcmp(n, "PS") == 0 && nptrs == 3)
            return ROLE_PS;
        return ROLE_NONE;
    }
    /* base's module until GHC 9.8; ghc-internal's from GHC 9.10 */
    if (strcmp(m, "GHC.ForeignPtr") != 0 && strcmp(m, "GHC.Internal.ForeignPtr") != 0)
        return ROLE_NONE;
    if (ptrs >= 1 && (strcmp(n, "PlainPtr") == 0 || strcmp(n, "MallocPtr") == 0))
        return ROLE_CONTENTS;
    if (strcmp(n, "PlainForeignPtr") == 0 || strcmp(n, "FinalPtr") == 0)
        return ROLE_FOREIGN;
    return ROLE_NONE;
}

static size_t role_slot(uint64_t ptr) {
    return (size_t)(ptr >> 3 ^ ptr >> 13) & (STRINGS_ROLE_SLOTS - 1);
}

strings_role strings_roles_get(strings_roles *r, const heap_info *info) {
    size_t slot = role_slot(info->ptr);
    if (r->keys[slot] != info->ptr) {
        r->keys[slot] = info->ptr;
        r->vals[slot] = (uint8_t)strings_role_of(info);
    }
    return (strings_role)r->vals[slot];
}

bool strings_roles_peek(const strings_roles *r, uint64_t ptr, strings_role *out) {
    size_t slot = role_slot(ptr);
    if (!ptr || r->keys[slot] != ptr)
        return false;
    *out = (strings_role)r->vals[slot];
    return true;
}

bool strings_slice(const heap *h, strings_role role, const uint64_t *words, size_t n_words,
                   const heap_closure *arr, uint64_t *off, uint64_t *len) {
    uint64_t o, n;
    switch (role) {
    case ROLE_TEXT8:
    case ROLE_TEXT16:
        if (n_words < 2 || words[0] > UINT64_MAX / 2 || words[1] > UINT64_MAX / 2)
            return false;
        o = role == ROLE_TEXT16 ? 2 * words[0] : words[0];
        n = role == ROLE_TEXT16 ? 2 * words[1] : words[1];
        break;
    case ROLE_BS:
        if (n_words < 2 || !heap_payload_index(h, arr, words[0], &o))
            return false;
        n = words[1];
        break;
    case ROLE_PS:
        if (n_words < 3 || !heap_payload_index(h, arr, words[0], &o) ||
            words[1] > arr->count - o)
            return false;
        o += words[1];
        n = words[2];
        break;
    default: return false;
    }
    if (o > arr->count || n > arr->count - o)
        return false;
    *off = o;
    *len = n;
    return true;
}

size_t strings_utf8(uint32_t cp, uint8_t out[4]) {
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp > 0x10FFFF)
        return 0;
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

size_t strings_utf16_to_utf8(const uint8_t *src, size_t units, uint8_t *dst) {
    size_t w = 0;
    for (size_t i = 0; i < units; i++) {
        uint32_t u = (uint32_t)src[2 * i] | (uint32_t)src[2 * i + 1] << 8;
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < units) {
            uint32_t lo = (uint32_t)src[2 * i + 2] | (uint32_t)src[2 * i + 3] << 8;
            if (lo >= 0xDC00 && lo < 0xE000) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                u = 0xFFFD;
            }
        } else if (u >= 0xD800 && u < 0xE000) {
            u = 0xFFFD;
        }
        w += strings_utf8(u, dst + w);
    }
    return w;
}

/* Length of the valid, printable UTF-8 sequence at v (2 to 4 bytes), or 0:
 * overlong forms, surrogates and C1 controls are escaped instead. */
static size_t utf8_printable(const uint8_t *v, size_t n) {
    uint8_t b = v[0];
    size_t len = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
    if (len == 0 || len > n || b > 0xF4)
        return 0;
    uint32_t cp = b & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((v[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (v[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000) || cp < 0xA0)
        return 0;
    return len;
}

size_t query_strings_escape(const uint8_t *v, size_t n, char *buf, size_t cap) {
    static const char hex[] = "0123456789abcdef";
    size_t i = 0, w = 0;
    if (cap == 0)
        return 0;
    while (i < n) {
        char tmp[4];
        const uint8_t *src = (const uint8_t *)tmp;
        size_t in = 1, out;
        size_t u = v[i] >= 0x80 ? utf8_printable(v + i, n - i) : 0;
        if (u) {
            src = v + i;
            in = out = u;
        } else if (v[i] == '\\') {
            tmp[0] = tmp[1] = '\\';
            out = 2;
        } else if (v[i] >= 0x20 && v[i] < 0x7F) {
            tmp[0] = (char)v[i];
            out = 1;
        } else {
            tmp[0] = '\\', tmp[1] = 'x', tmp[2] = hex[v[i] >> 4], tmp[3] = hex[v[i] & 15];
            out = 4;
        }
        if (w + out > cap - 1)
            break;
        memcpy(buf + w, src, out);
        w += out;
        i += in;
    }
    buf[w] = '\0';
    return i;
}

char *query_strings_escape_all(const uint8_t *v, size_t n) {
    if (n > (SIZE_MAX - 1) / 4)
        return NULL;
    char *s = malloc(4 * n + 1);
    if (s)
        query_strings_escape(v, n, s, 4 * n + 1);
    return s;
}

void query_strings_kinds_text(unsigned kinds, char *buf, size_t cap) {
    static const char *const names[] = {"ARR_WORDS", "Text", "ByteString", "String"};
    size_t w = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    for (unsigned k = 0; k < 4; k++) {
        if (!(kinds & 1u << k))
            continue;
        size_t need = strlen(names[k]) + (w ? 1 : 0);
        if (w + need >= cap)
            break;
        if (w)
            buf[w++] = ',';
        memcpy(buf + w, names[k], strlen(names[k]) + 1);
        w += strlen(names[k]);
    }
}
