/* Theme files: "ROLE = [TEXT] [on BACKGROUND] [ATTRIBUTE...]" lines and one
 * "era-palette = BG BG ..." line (the format is described at the top of
 * every file in themes/ and in heapscope(1), THEMES). Every mistake is
 * reported as "FILE:LINE: what", so a person can fix their theme. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "heapscope/tui.h"

static const char *const role_names[TUI_ROLE_COUNT] = {
#define TUI_ROLE_NAME(id, name) name,
    TUI_ROLE_LIST(TUI_ROLE_NAME)
#undef TUI_ROLE_NAME
};

static const char *const color_names[16] = {
    "black",        "red",        "green",        "yellow",
    "blue",         "magenta",    "cyan",         "white",
    "bright-black", "bright-red", "bright-green", "bright-yellow",
    "bright-blue",  "bright-magenta", "bright-cyan", "bright-white"};

static const struct {
    const char *name;
    unsigned bit;
} attr_names[] = {{"bold", TUI_ATTR_BOLD},
                  {"underline", TUI_ATTR_UNDERLINE},
                  {"reverse", TUI_ATTR_REVERSE},
                  {"dim", TUI_ATTR_DIM}};

#define LINE_MAX_CHARS 1024

typedef struct parser {
    const char *path;
    size_t line;
    hs_error *err;
    size_t role_line[TUI_ROLE_COUNT]; /* where each role was set, 0 = not yet */
    size_t palette_line;
} parser;

__attribute__((format(printf, 2, 3))) static hs_status bad(parser *p, const char *fmt, ...) {
    char what[HS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return hs_fail(p->err, HS_ERR_USAGE, "%s:%zu: %s", p->path, p->line, what);
}

/* -1 for default, 0-255, or -2 when the word is not a colour. */
static int color_value(const char *word) {
    if (strcasecmp(word, "default") == 0)
        return -1;
    for (int i = 0; i < 16; i++)
        if (strcasecmp(word, color_names[i]) == 0)
            return i;
    size_t n = strlen(word);
    if (n == 0 || n > 9 || strspn(word, "0123456789") != n)
        return -2;
    long v = strtol(word, NULL, 10);
    return v <= 255 ? (int)v : -3; /* -3: a number out of range */
}

static hs_status color_or_fail(parser *p, const char *word, int *out) {
    int v = color_value(word);
    if (v == -3)
        return bad(p, "colour %s is out of range (0-255)", word);
    if (v == -2)
        return bad(p,
                   "'%s' is not a colour (black red green yellow blue magenta cyan white, "
                   "bright-NAME, default, or 0-255)",
                   word);
    *out = v;
    return HS_OK;
}

static bool is_attr(const char *word, unsigned *bit) {
    for (size_t i = 0; i < sizeof attr_names / sizeof *attr_names; i++)
        if (strcasecmp(word, attr_names[i].name) == 0) {
            *bit = attr_names[i].bit;
            return true;
        }
    return false;
}

/* Splits s in place into at most max whitespace-separated words. */
static size_t split(char *s, char **words, size_t max) {
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " \t\r\v\f", &save); tok && n < max;
         tok = strtok_r(NULL, " \t\r\v\f", &save))
        words[n++] = tok;
    return n;
}

static hs_status parse_role(parser *p, const char *role, char *value, tui_color *out) {
    char *w[16];
    size_t n = split(value, w, sizeof w / sizeof *w);
    if (n == 0)
        return bad(p, "'%s' needs a colour, e.g. 'white on blue bold' or 'default'", role);
    if (n == sizeof w / sizeof *w)
        return bad(p, "'%s' has too many words", role);
    tui_color c = {.fg = -1, .bg = -1};
    bool have_fg = false, have_bg = false;
    for (size_t i = 0; i < n; i++) {
        unsigned bit;
        if (strcasecmp(w[i], "on") == 0) {
            if (have_bg)
                return bad(p, "'%s' has two backgrounds", role);
            if (i + 1 == n)
                return bad(p, "'on' needs a background colour after it");
            hs_status st = color_or_fail(p, w[++i], &c.bg);
            if (st != HS_OK)
                return st;
            have_bg = true;
        } else if (is_attr(w[i], &bit)) {
            c.attrs |= bit;
        } else if (!have_fg && !have_bg && c.attrs == 0) {
            hs_status st = color_or_fail(p, w[i], &c.fg);
            if (st != HS_OK)
                return st;
            have_fg = true;
        } else if (color_value(w[i]) != -2) {
            return bad(p, "unexpected colour '%s': the text colour comes first, then "
                          "'on BACKGROUND', then attributes", w[i]);
        } else {
            return bad(p, "'%s' is neither a colour nor an attribute (bold underline "
                          "reverse dim)", w[i]);
        }
    }
    *out = c;
    return HS_OK;
}

static hs_status parse_palette(parser *p, char *value, tui_theme *t) {
    char *w[TUI_ERA_PALETTE_MAX + 1];
    size_t n = split(value, w, sizeof w / sizeof *w);
    if (n == 0)
        return bad(p, "era-palette needs at least one colour");
    if (n > TUI_ERA_PALETTE_MAX)
        return bad(p, "era-palette has more than %d colours", TUI_ERA_PALETTE_MAX);
    for (size_t i = 0; i < n; i++) {
        int v = 0;
        hs_status st = color_or_fail(p, w[i], &v);
        if (st != HS_OK)
            return st;
        if (v < 0)
            return bad(p, "era-palette: 'default' would leave an era uncoloured");
        for (size_t j = 0; j < i; j++)
            if (t->era_bg[j] == v)
                return bad(p, "era-palette: colour %s appears twice (eras must differ)", w[i]);
        t->era_bg[i] = v;
    }
    t->n_era = n;
    return HS_OK;
}

static hs_status parse_line(parser *p, char *line, tui_theme *t) {
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return HS_OK;
    char *eq = strchr(s, '=');
    if (!eq)
        return bad(p, "expected 'ROLE = COLOURS' or 'era-palette = COLOURS'");
    *eq = '\0';
    char *key = s, *end = eq;
    while (end > key && isspace((unsigned char)end[-1]))
        *--end = '\0';
    if (!*key)
        return bad(p, "a name is missing before '='");
    if (strcasecmp(key, "era-palette") == 0) {
        if (p->palette_line)
            return bad(p, "era-palette is set twice (first on line %zu)", p->palette_line);
        p->palette_line = p->line;
        return parse_palette(p, eq + 1, t);
    }
    for (int r = 0; r < TUI_ROLE_COUNT; r++) {
        if (strcasecmp(key, role_names[r]) != 0)
            continue;
        if (p->role_line[r])
            return bad(p, "'%s' is set twice (first on line %zu)", role_names[r],
                       p->role_line[r]);
        p->role_line[r] = p->line;
        return parse_role(p, role_names[r], eq + 1, &t->roles[r]);
    }
    char known[HS_ERROR_MESSAGE_MAX / 2] = "";
    for (int r = 0; r < TUI_ROLE_COUNT; r++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", r ? " " : "", role_names[r]);
    }
    return bad(p, "unknown name '%.40s' (roles: %s; and era-palette)", key, known);
}

/* "themes/light.theme" -> "light". */
static void name_from_path(const char *path, char *name, size_t cap) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 6 && strcmp(base + n - 6, ".theme") == 0)
        n -= 6;
    snprintf(name, cap, "%.*s", (int)n, base);
}

hs_status tui_theme_parse(const char *text, const char *path, tui_theme *out, hs_error *err) {
    tui_theme_default(out);
    tui_theme t = {0};
    name_from_path(path, t.name, sizeof t.name);
    parser p = {.path = path, .err = err};
    const char *at = text;
    while (*at) {
        p.line++;
        const char *nl = strchr(at, '\n');
        size_t len = nl ? (size_t)(nl - at) : strlen(at);
        if (len >= LINE_MAX_CHARS)
            return bad(&p, "line longer than %d characters", LINE_MAX_CHARS - 1);
        char line[LINE_MAX_CHARS];
        memcpy(line, at, len);
        line[len] = '\0';
        hs_status st = parse_line(&p, line, &t);
        if (st != HS_OK)
            return st;
        at = nl ? nl + 1 : at + len;
    }
    /* what is missing is reported at the end of the file */
    if (p.line == 0)
        p.line = 1;
    for (int r = 0; r < TUI_ROLE_COUNT; r++)
        if (!p.role_line[r])
            return bad(&p, "no colour for '%s' (every role needs one)", role_names[r]);
    if (!p.palette_line)
        return bad(&p, "no era-palette");
    *out = t;
    return HS_OK;
}
