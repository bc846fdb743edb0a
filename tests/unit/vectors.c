#include "vectors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p;
    const char *end;
} parser;

static void skip_ws(parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static int expect(parser *ps, char ch) {
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != ch)
        return -1;
    ps->p++;
    return 0;
}

/* A JSON string with the simple escapes; \u is kept only for ASCII. */
static char *parse_string(parser *ps) {
    if (expect(ps, '"') != 0)
        return NULL;
    char *s = malloc((size_t)(ps->end - ps->p) + 1);
    size_t n = 0;
    while (s && ps->p < ps->end && *ps->p != '"') {
        char ch = *ps->p++;
        if (ch == '\\' && ps->p < ps->end) {
            char e = *ps->p++;
            switch (e) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                if (ps->end - ps->p < 4) {
                    free(s);
                    return NULL;
                }
                char hex[5] = {ps->p[0], ps->p[1], ps->p[2], ps->p[3], 0};
                ch = (char)strtol(hex, NULL, 16);
                ps->p += 4;
                break;
            }
            default: ch = e; break;
            }
        }
        s[n++] = ch;
    }
    if (!s || ps->p >= ps->end) {
        free(s);
        return NULL;
    }
    ps->p++; /* closing quote */
    s[n] = '\0';
    return s;
}

static int add(vector_set *v, const char *section, char *key, char *value) {
    vector_entry *items = realloc(v->items, (v->count + 1) * sizeof *items);
    if (!items)
        return -1;
    v->items = items;
    items[v->count++] = (vector_entry){strdup(section), key, value};
    return 0;
}

/* Members of an object; nested objects (one level) become sections. */
static int parse_object(parser *ps, vector_set *v, const char *section, int depth) {
    if (expect(ps, '{') != 0)
        return -1;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = parse_string(ps);
        if (!key || expect(ps, ':') != 0) {
            free(key);
            return -1;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == '{' && depth == 0) {
            int r = parse_object(ps, v, key, 1);
            free(key);
            if (r != 0)
                return -1;
        } else {
            char *value = parse_string(ps);
            if (!value || add(v, section, key, value) != 0) {
                free(key);
                free(value);
                return -1;
            }
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        return expect(ps, '}');
    }
}

int vectors_load(const char *path, vector_set *out) {
    *out = (vector_set){0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            char *t = realloc(text, cap);
            if (!t)
                break;
            text = t;
        }
        size_t n = fread(text + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    fclose(f);
    parser ps = {text, text + len};
    int r = text ? parse_object(&ps, out, "", 0) : -1;
    free(text);
    if (r != 0) {
        fprintf(stderr, "cannot parse %s\n", path);
        vectors_free(out);
    }
    return r;
}

void vectors_free(vector_set *v) {
    for (size_t i = 0; i < v->count; i++) {
        free(v->items[i].section);
        free(v->items[i].key);
        free(v->items[i].value);
    }
    free(v->items);
    *v = (vector_set){0};
}

const char *vectors_get(const vector_set *v, const char *section, const char *key) {
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->items[i].section, section) == 0 && strcmp(v->items[i].key, key) == 0)
            return v->items[i].value;
    return NULL;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t hex_decode(const char *hex, uint8_t **out) {
    *out = NULL;
    size_t n = strlen(hex);
    if (n % 2 != 0)
        return (size_t)-1;
    uint8_t *b = malloc(n / 2 + 1);
    if (!b)
        return (size_t)-1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return (size_t)-1;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    return n / 2;
}
