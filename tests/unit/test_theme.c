/* theme: the shipped themes, every parse error with its line number, the
 * search path (user themes over shipped ones) and the fall-back to the
 * built-in default. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "heapscope/tui.h"

#ifndef HEAPSCOPE_THEMES_SRC
#error "the build passes the source tree's themes directory"
#endif

static const char *const shipped[] = {"default", "light", "high-contrast"};

static const char *const role_names[TUI_ROLE_COUNT] = {
#define NAME(id, name) name,
    TUI_ROLE_LIST(NAME)
#undef NAME
};

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void parse_shipped(const char *name, tui_theme *t) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.theme", HEAPSCOPE_THEMES_SRC, name);
    hs_error err = {0};
    cr_assert_eq(tui_theme_parse(slurp(path), path, t, &err), HS_OK, "%s", err.message);
}

static bool same_theme(const tui_theme *a, const tui_theme *b) {
    if (strcmp(a->name, b->name) != 0 || a->n_era != b->n_era)
        return false;
    for (int r = 0; r < TUI_ROLE_COUNT; r++)
        if (a->roles[r].fg != b->roles[r].fg || a->roles[r].bg != b->roles[r].bg ||
            a->roles[r].attrs != b->roles[r].attrs)
            return false;
    return memcmp(a->era_bg, b->era_bg, a->n_era * sizeof *a->era_bg) == 0;
}

/* ---- readability: WCAG contrast of xterm's 256 colours --------------- */

static void xterm_rgb(int c, double rgb[3]) {
    static const int base[16][3] = {
        {0, 0, 0},       {205, 0, 0},     {0, 205, 0},   {205, 205, 0},
        {0, 0, 238},     {205, 0, 205},   {0, 205, 205}, {229, 229, 229},
        {127, 127, 127}, {255, 0, 0},     {0, 255, 0},   {255, 255, 0},
        {92, 92, 255},   {255, 0, 255},   {0, 255, 255}, {255, 255, 255}};
    static const int level[6] = {0, 95, 135, 175, 215, 255};
    int v[3];
    if (c < 16) {
        memcpy(v, base[c], sizeof v);
    } else if (c < 232) {
        v[0] = level[(c - 16) / 36];
        v[1] = level[(c - 16) / 6 % 6];
        v[2] = level[(c - 16) % 6];
    } else {
        v[0] = v[1] = v[2] = 8 + 10 * (c - 232);
    }
    for (int i = 0; i < 3; i++)
        rgb[i] = v[i] / 255.0;
}

static double luminance(int c) {
    double rgb[3];
    xterm_rgb(c, rgb);
    for (int i = 0; i < 3; i++)
        rgb[i] = rgb[i] <= 0.03928 ? rgb[i] / 12.92 : pow((rgb[i] + 0.055) / 1.055, 2.4);
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

static double contrast(int a, int b) {
    double la = luminance(a), lb = luminance(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

static double rgb_distance(int a, int b) {
    double x[3], y[3];
    xterm_rgb(a, x);
    xterm_rgb(b, y);
    return 255.0 * sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                        (x[2] - y[2]) * (x[2] - y[2]));
}

/* ---- shipped themes -------------------------------------------------- */

Test(theme, every_shipped_theme_parses) {
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        tui_theme t;
        parse_shipped(shipped[i], &t);
        cr_assert_str_eq(t.name, shipped[i]);
        cr_assert_geq(t.n_era, 6, "%s: a useful era palette has several colours", t.name);
    }
}

Test(theme, builtin_default_is_default_theme_file) {
    tui_theme file, builtin;
    parse_shipped("default", &file);
    tui_theme_default(&builtin);
    cr_assert(same_theme(&file, &builtin),
              "themes/default.theme and tui_theme_default() disagree");
}

Test(theme, shipped_era_palettes_are_readable) {
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        tui_theme t;
        parse_shipped(shipped[i], &t);
        for (size_t e = 0; e < t.n_era; e++) {
            int bg = t.era_bg[e];
            /* the UI writes black or white text on an era, whichever reads better */
            double best = fmax(contrast(bg, 16), contrast(bg, 231));
            cr_assert_geq(best, 4.5, "%s: era colour %d: contrast %.2f", t.name, bg, best);
            /* neighbouring eras (the last wraps to the first) must be told apart */
            int next = t.era_bg[(e + 1) % t.n_era];
            cr_assert_geq(rgb_distance(bg, next), 50.0, "%s: eras %d and %d look alike",
                          t.name, bg, next);
            for (size_t f = 0; f < e; f++)
                cr_assert_neq(bg, t.era_bg[f], "%s: era colour %d repeats", t.name, bg);
        }
    }
}

Test(theme, shipped_role_colours_are_readable) {
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        tui_theme t;
        parse_shipped(shipped[i], &t);
        for (int r = 0; r < TUI_ROLE_COUNT; r++) {
            const tui_color *c = &t.roles[r];
            if (c->fg < 0 || c->bg < 0 || r == TUI_ROLE_DISABLED)
                continue; /* against the terminal's own colour: not known here */
            cr_assert_geq(contrast(c->fg, c->bg), 4.5, "%s: %s: %d on %d reads badly", t.name,
                          role_names[r], c->fg, c->bg);
        }
    }
}

/* ---- the format ------------------------------------------------------ */

/* A complete theme; tests replace or drop lines of it. */
static const char *const valid_lines[] = {
    "# a comment",
    "normal = default",
    "title = 15 on 24 bold",
    "footer = white on blue",
    "selected = black on cyan bold",
    "guide = bright-black",
    "label = yellow",
    "address = cyan",
    "type = green",
    "location = magenta",
    "details = default on default",
    "details-key = bold",
    "error = bright-white on red bold",
    "info = cyan",
    "prompt = on 238 underline",
    "filter = black on yellow",
    "match = black on bright-yellow bold underline reverse dim",
    "leak-edge = bright-red bold",
    "disabled = 243",
    "overlay = 252 on 236",
    "era-palette = 24 25 26",
};
enum { N_VALID = sizeof valid_lines / sizeof *valid_lines };

/* The valid theme with line `at` (1-based) replaced by `with` (NULL drops it). */
static char *theme_with(size_t at, const char *with) {
    static char text[8192];
    text[0] = '\0';
    for (size_t i = 0; i < N_VALID; i++) {
        const char *line = i + 1 == at ? with : valid_lines[i];
        if (line) {
            strcat(text, line);
            strcat(text, "\n");
        }
    }
    return text;
}

Test(theme, valid_theme_values) {
    tui_theme t;
    hs_error err = {0};
    cr_assert_eq(tui_theme_parse(theme_with(0, NULL), "my.theme", &t, &err), HS_OK, "%s",
                 err.message);
    cr_assert_str_eq(t.name, "my");
    cr_assert_eq(t.roles[TUI_ROLE_NORMAL].fg, -1);
    cr_assert_eq(t.roles[TUI_ROLE_NORMAL].bg, -1);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].fg, 15);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].bg, 24);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].attrs, TUI_ATTR_BOLD);
    cr_assert_eq(t.roles[TUI_ROLE_FOOTER].fg, 7);
    cr_assert_eq(t.roles[TUI_ROLE_FOOTER].bg, 4);
    cr_assert_eq(t.roles[TUI_ROLE_GUIDE].fg, 8);
    cr_assert_eq(t.roles[TUI_ROLE_ERROR].fg, 15);
    cr_assert_eq(t.roles[TUI_ROLE_ERROR].bg, 1);
    cr_assert_eq(t.roles[TUI_ROLE_DETAILS_KEY].fg, -1);
    cr_assert_eq(t.roles[TUI_ROLE_DETAILS_KEY].attrs, TUI_ATTR_BOLD);
    cr_assert_eq(t.roles[TUI_ROLE_PROMPT].fg, -1);
    cr_assert_eq(t.roles[TUI_ROLE_PROMPT].bg, 238);
    cr_assert_eq(t.roles[TUI_ROLE_PROMPT].attrs, TUI_ATTR_UNDERLINE);
    cr_assert_eq(t.roles[TUI_ROLE_MATCH].attrs,
                 TUI_ATTR_BOLD | TUI_ATTR_UNDERLINE | TUI_ATTR_REVERSE | TUI_ATTR_DIM);
    cr_assert_eq(t.n_era, 3);
    cr_assert_eq(t.era_bg[0], 24);
    cr_assert_eq(t.era_bg[2], 26);
}

Test(theme, comments_case_crlf_and_spacing) {
    char text[8192] = "";
    for (size_t i = 0; i < N_VALID; i++) {
        strcat(text, "   ");
        strcat(text, valid_lines[i]);
        strcat(text, "   # trailing comment\r\n\r\n");
    }
    strcat(text, "\t# the last line has no newline");
    /* names are case-insensitive and '=' needs no spaces */
    char *title = strstr(text, "title = 15 on 24 bold");
    cr_assert_not_null(title);
    memcpy(title, "TITLE =15 ON 24 BOLD ", 21);
    tui_theme t;
    hs_error err = {0};
    cr_assert_eq(tui_theme_parse(text, "x.theme", &t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].bg, 24);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].attrs, TUI_ATTR_BOLD);
    cr_assert_eq(t.n_era, 3);
}

struct bad_case {
    size_t line;        /* which line of the valid theme to replace (0: none) */
    const char *with;   /* NULL: drop the line */
    size_t error_line;  /* the line the message must name */
    const char *says;   /* and a part of what it says */
};

static void check_bad(const struct bad_case *c) {
    tui_theme t;
    hs_error err = {0};
    hs_status st = tui_theme_parse(theme_with(c->line, c->with), "t.theme", &t, &err);
    cr_assert_neq(st, HS_OK, "accepted line %zu: %s", c->line, c->with ? c->with : "(dropped)");
    char prefix[64];
    snprintf(prefix, sizeof prefix, "t.theme:%zu: ", c->error_line);
    cr_assert(strncmp(err.message, prefix, strlen(prefix)) == 0, "want '%s...', got '%s'",
              prefix, err.message);
    cr_assert(strstr(err.message, c->says), "want '%s' in '%s'", c->says, err.message);
    tui_theme def;
    tui_theme_default(&def);
    cr_assert(same_theme(&t, &def), "a bad theme leaves the default");
}

Test(theme, every_error_names_its_line) {
    static const struct bad_case cases[] = {
        {3, "title 15 on 24", 3, "expected 'ROLE = COLOURS'"},
        {3, " = 15", 3, "name is missing"},
        {4, "footr = white", 4, "unknown name 'footr'"},
        {4, "footr = white", 4, "roles: normal title footer"},
        {5, "selected =", 5, "needs a colour"},
        {5, "selected = # nothing", 5, "needs a colour"},
        {6, "guide = grey", 6, "'grey' is not a colour"},
        {6, "guide = 256", 6, "colour 256 is out of range"},
        {6, "guide = 99999999999", 6, "is not a colour"},
        {6, "guide = -1", 6, "'-1' is not a colour"},
        {7, "label = yellow on", 7, "'on' needs a background"},
        {7, "label = yellow on blue on red", 7, "two backgrounds"},
        {7, "label = yellow blue", 7, "unexpected colour 'blue'"},
        {7, "label = bold yellow", 7, "unexpected colour 'yellow'"},
        {7, "label = yellow on blue blinking", 7, "'blinking' is neither"},
        {8, "normal = red", 8, "'normal' is set twice (first on line 2)"},
        {21, "era-palette =", 21, "at least one colour"},
        {21, "era-palette = 24 25 24", 21, "colour 24 appears twice"},
        {21, "era-palette = 24 default", 21, "'default' would leave an era"},
        {21, "era-palette = 24 300", 21, "out of range"},
        {21, "era-palette = 24 puce", 21, "'puce' is not a colour"},
        {2, "era-palette = 1 2", 21, "era-palette is set twice (first on line 2)"},
        {9, NULL, 20, "no colour for 'type'"},
        {21, NULL, 20, "no era-palette"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_bad(&cases[i]);
}

Test(theme, palette_size_is_bounded) {
    char line[1024] = "era-palette =";
    for (int i = 0; i < TUI_ERA_PALETTE_MAX; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), " %d", i + 1);
    tui_theme t;
    hs_error err = {0};
    cr_assert_eq(tui_theme_parse(theme_with(21, line), "t.theme", &t, &err), HS_OK, "%s",
                 err.message);
    cr_assert_eq(t.n_era, TUI_ERA_PALETTE_MAX);
    strcat(line, " 200");
    struct bad_case c = {21, line, 21, "more than 64 colours"};
    check_bad(&c);
}

Test(theme, long_lines_and_empty_files) {
    char line[2048];
    memset(line, ' ', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    memcpy(line, "# long", 6);
    struct bad_case c = {1, line, 1, "longer than"};
    check_bad(&c);
    tui_theme t;
    hs_error err = {0};
    cr_assert_neq(tui_theme_parse("", "empty.theme", &t, &err), HS_OK);
    cr_assert(strncmp(err.message, "empty.theme:1: no colour for 'normal'", 37) == 0, "%s",
              err.message);
}

/* ---- finding themes -------------------------------------------------- */

static char home[64];

static void make_home(void) {
    snprintf(home, sizeof home, "/tmp/hs-theme-XXXXXX");
    cr_assert_not_null(mkdtemp(home));
    char config[128];
    snprintf(config, sizeof config, "%s/config", home);
    cr_assert_eq(setenv("XDG_CONFIG_HOME", config, 1), 0);
    cr_assert_eq(setenv("HOME", home, 1), 0);
}

static void remove_home(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(theme_load, .init = make_home, .fini = remove_home);

static void write_theme(const char *dir, const char *name, const char *text) {
    char cmd[512], path[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/%s.theme", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void user_theme(const char *name, const char *text) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/config/heapscope/themes", home);
    write_theme(dir, name, text);
}

Test(theme_load, shipped_themes_are_found) {
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        tui_theme t;
        hs_error err = {0};
        cr_assert_eq(tui_theme_load(shipped[i], &t, &err), HS_OK, "%s", err.message);
        cr_assert_str_eq(t.name, shipped[i]);
    }
    tui_theme t, def;
    cr_assert_eq(tui_theme_load(NULL, &t, NULL), HS_OK);
    tui_theme_default(&def);
    cr_assert(same_theme(&t, &def));
}

Test(theme_load, user_theme_wins_over_shipped) {
    user_theme("light", theme_with(3, "title = 1 on 2"));
    tui_theme t;
    hs_error err = {0};
    cr_assert_eq(tui_theme_load("light", &t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].fg, 1);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].bg, 2);
    cr_assert_eq(t.n_era, 3);
    user_theme("mine", theme_with(0, NULL));
    cr_assert_eq(tui_theme_load("mine", &t, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(t.name, "mine");
}

Test(theme_load, home_config_without_xdg) {
    unsetenv("XDG_CONFIG_HOME");
    char dir[256];
    snprintf(dir, sizeof dir, "%s/.config/heapscope/themes", home);
    write_theme(dir, "mine", theme_with(3, "title = 5 on 6"));
    tui_theme t;
    hs_error err = {0};
    cr_assert_eq(tui_theme_load("mine", &t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].fg, 5);
    setenv("XDG_CONFIG_HOME", "relative/config", 1); /* ignored, as XDG says */
    cr_assert_eq(tui_theme_load("mine", &t, &err), HS_OK, "%s", err.message);
    cr_assert_eq(t.roles[TUI_ROLE_TITLE].fg, 5);
}

Test(theme_load, bad_user_theme_falls_back_to_default) {
    user_theme("light", theme_with(7, "label = chartreuse"));
    tui_theme t, def;
    tui_theme_default(&def);
    hs_error err = {0};
    cr_assert_neq(tui_theme_load("light", &t, &err), HS_OK);
    char want[256];
    snprintf(want, sizeof want, "%s/config/heapscope/themes/light.theme:7: ", home);
    cr_assert(strncmp(err.message, want, strlen(want)) == 0, "want '%s...', got '%s'", want,
              err.message);
    cr_assert(same_theme(&t, &def), "the bad user theme gives the built-in default");
}

Test(theme_load, unknown_theme_falls_back_to_default) {
    tui_theme t, def;
    tui_theme_default(&def);
    hs_error err = {0};
    cr_assert_eq(tui_theme_load("no-such-theme", &t, &err), HS_ERR_NOT_FOUND);
    cr_assert(strstr(err.message, "no theme 'no-such-theme'"), "%s", err.message);
    cr_assert(strstr(err.message, HEAPSCOPE_THEMES_SRC), "names where it looked: %s",
              err.message);
    cr_assert(same_theme(&t, &def));
}

Test(theme_load, names_are_not_paths) {
    /* a file that a path-like name would reach must not be read */
    user_theme("evil", theme_with(3, "title = 1 on 2"));
    static const char *const bad[] = {"", "../themes/evil", "a/b", "..", "x..y", "/etc/passwd",
                                      "tab\tname"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tui_theme t, def;
        tui_theme_default(&def);
        hs_error err = {0};
        cr_assert_eq(tui_theme_load(bad[i], &t, &err), HS_ERR_USAGE, "%s", bad[i]);
        cr_assert(strstr(err.message, "is not a theme name"), "%s", err.message);
        cr_assert(same_theme(&t, &def));
    }
}

Test(theme_load, unreadable_and_odd_files) {
    char dir[256], path[512];
    snprintf(dir, sizeof dir, "%s/config/heapscope/themes", home);
    snprintf(path, sizeof path, "%s/dir.theme", dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path); /* a directory named like a theme */
    cr_assert_eq(system(cmd), 0);
    tui_theme t;
    hs_error err = {0};
    cr_assert_eq(tui_theme_load("dir", &t, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "dir.theme is a directory, not a theme file"), "%s",
              err.message);

    /* no writer ever comes: a plain open() would wait forever */
    snprintf(path, sizeof path, "%s/fifo.theme", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(tui_theme_load("fifo", &t, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "fifo.theme is a FIFO, not a theme file"), "%s",
              err.message);

    snprintf(path, sizeof path, "%s/nul.theme", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite("# one\n# two\nnormal\0= red\n", 1, 25, f);
    fclose(f);
    cr_assert_eq(tui_theme_load("nul", &t, &err), HS_ERR_USAGE);
    cr_assert(strstr(err.message, "nul.theme:3: a NUL byte"), "%s", err.message);

    snprintf(path, sizeof path, "%s/huge.theme", dir);
    f = fopen(path, "wb");
    cr_assert_not_null(f);
    for (int i = 0; i < 70000 / 10; i++)
        fputs("# padding\n", f);
    fclose(f);
    cr_assert_eq(tui_theme_load("huge", &t, &err), HS_ERR_TOO_LARGE);
    cr_assert(strstr(err.message, "huge.theme: larger than"), "%s", err.message);
}
