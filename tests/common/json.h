/* A small JSON reader for tests: parses plans of the synthetic debuggee and
 * the --json output of heapscope. Not used by heapscope itself. */
#ifndef TEST_JSON_H
#define TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value {
    json_kind kind;
    bool boolean;
    double number;
    int64_t integer; /* exact when the number has no fraction or exponent */
    char *string;
    size_t count;               /* array items or object members */
    char **keys;                /* object member names */
    struct json_value *items;   /* array items or object member values */
} json_value;

/* NULL on a syntax error, with a message in err. */
json_value *json_parse(const char *text, char *err, size_t errlen);
json_value *json_parse_file(const char *path, char *err, size_t errlen);
void json_free(json_value *v);

/* Member of an object, or NULL. */
const json_value *json_get(const json_value *obj, const char *key);
/* Follows a path of keys separated by '/', e.g. "leak/path". */
const json_value *json_path(const json_value *v, const char *path);
/* Integer of a number, or of a "0x..." string (addresses). */
int64_t json_int(const json_value *v);
uint64_t json_address(const json_value *v);

#endif
