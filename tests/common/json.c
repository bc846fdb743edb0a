#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *p;
    const char *start;
    char *err;
    size_t errlen;
    bool failed;
} parser;

static void fail(parser *ps, const char *what) {
    if (!ps->failed)
        snprintf(ps->err, ps->errlen, "JSON: %s at offset %ld", what, (long)(ps->p - ps->start));
    ps->failed = true;
}

static void skip_ws(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t')
        ps->p++;
}

static void put_utf8(char **o, unsigned cp) {
    if (cp < 0x80) {
        *(*o)++ = (char)cp;
    } else if (cp < 0x800) {
        *(*o)++ = (char)(0xC0 | cp >> 6);
        *(*o)++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *(*o)++ = (char)(0xE0 | cp >> 12);
        *(*o)++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *(*o)++ = (char)(0x80 | (cp & 0x3F));
    }
}

static char *parse_string(parser *ps) {
    ps->p++; /* opening quote */
    const char *q = ps->p;
    while (*q && *q != '"')
        q += (*q == '\\' && q[1]) ? 2 : 1;
    if (*q != '"') {
        fail(ps, "unterminated string");
        return NULL;
    }
    char *out = malloc((size_t)(q - ps->p) * 3 + 1), *o = out;
    while (ps->p < q) {
        char c = *ps->p++;
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        c = *ps->p++;
        switch (c) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'u': {
            unsigned cp = 0;
            for (int i = 0; i < 4; i++) {
                char h = *ps->p++;
                cp = cp * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
            }
            put_utf8(&o, cp);
            break;
        }
        default: *o++ = c;
        }
    }
    *o = '\0';
    ps->p = q + 1;
    return out;
}

static void parse_value(parser *ps, json_value *v);

static void append(json_value *v, size_t *cap, char *key, parser *ps) {
    if (v->count == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        v->items = realloc(v->items, *cap * sizeof *v->items);
        if (v->kind == JSON_OBJECT)
            v->keys = realloc(v->keys, *cap * sizeof *v->keys);
    }
    if (v->kind == JSON_OBJECT)
        v->keys[v->count] = key;
    memset(&v->items[v->count], 0, sizeof v->items[0]);
    parse_value(ps, &v->items[v->count]);
    v->count++;
}

static void parse_container(parser *ps, json_value *v, char close) {
    size_t cap = 0;
    ps->p++;
    skip_ws(ps);
    if (*ps->p == close) {
        ps->p++;
        return;
    }
    while (!ps->failed) {
        skip_ws(ps);
        char *key = NULL;
        if (v->kind == JSON_OBJECT) {
            if (*ps->p != '"') {
                fail(ps, "expected a member name");
                return;
            }
            key = parse_string(ps);
            skip_ws(ps);
            if (*ps->p != ':') {
                free(key);
                fail(ps, "expected ':'");
                return;
            }
            ps->p++;
        }
        append(v, &cap, key, ps);
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
        } else if (*ps->p == close) {
            ps->p++;
            return;
        } else {
            fail(ps, "expected ',' or a closing bracket");
        }
    }
}

static void parse_value(parser *ps, json_value *v) {
    skip_ws(ps);
    char c = *ps->p;
    if (c == '{') {
        v->kind = JSON_OBJECT;
        parse_container(ps, v, '}');
    } else if (c == '[') {
        v->kind = JSON_ARRAY;
        parse_container(ps, v, ']');
    } else if (c == '"') {
        v->kind = JSON_STRING;
        v->string = parse_string(ps);
    } else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        v->kind = JSON_BOOL;
        v->boolean = c == 't';
        ps->p += v->boolean ? 4 : 5;
    } else if (!strncmp(ps->p, "null", 4)) {
        v->kind = JSON_NULL;
        ps->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        v->kind = JSON_NUMBER;
        v->number = strtod(ps->p, &end);
        v->integer = strtoll(ps->p, NULL, 10);
        ps->p = end;
    } else {
        fail(ps, "unexpected character");
    }
}

json_value *json_parse(const char *text, char *err, size_t errlen) {
    parser ps = {text, text, err, errlen, false};
    json_value *v = calloc(1, sizeof *v);
    parse_value(&ps, v);
    skip_ws(&ps);
    if (!ps.failed && *ps.p)
        fail(&ps, "trailing text");
    if (ps.failed) {
        json_free(v);
        return NULL;
    }
    return v;
}

json_value *json_parse_file(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    fclose(f);
    json_value *v = json_parse(text, err, errlen);
    free(text);
    return v;
}

static void free_members(json_value *v) {
    for (size_t i = 0; i < v->count; i++) {
        free_members(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

void json_free(json_value *v) {
    if (!v)
        return;
    free_members(v);
    free(v);
}

const json_value *json_get(const json_value *obj, const char *key) {
    if (!obj || obj->kind != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const json_value *json_path(const json_value *v, const char *path) {
    char key[256];
    while (v && *path) {
        size_t n = strcspn(path, "/");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        v = json_get(v, key);
        path += n + (path[n] == '/');
    }
    return v;
}

int64_t json_int(const json_value *v) {
    if (!v)
        return -1;
    if (v->kind == JSON_STRING)
        return (int64_t)strtoull(v->string, NULL, 0);
    return v->kind == JSON_NUMBER ? v->integer : -1;
}

uint64_t json_address(const json_value *v) {
    return v && v->kind == JSON_STRING ? strtoull(v->string, NULL, 16) : 0;
}
