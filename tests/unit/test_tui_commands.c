/* The command table: complete, without clashing keys, and the same in
 * `heapscope --keys`, the man-page section and the availability rules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/tui/app.h"
#include "../../src/tui/commands.h"
#include "../../src/tui/keys.h"
#include "../../src/tui/tui_curses.h"
#include "fake_source.h"

static const tui_command *by_name(const char *name) {
    for (size_t i = 0; i < tui_n_commands; i++)
        if (strcmp(tui_commands[i].name, name) == 0)
            return &tui_commands[i];
    return NULL;
}

static bool bound(const tui_command *c, int key) {
    for (int i = 0; i < TUI_COMMAND_KEYS && c->keys[i]; i++)
        if (c->keys[i] == key)
            return true;
    return false;
}

Test(tui_commands, every_entry_is_whole) {
    for (size_t i = 0; i < tui_n_commands; i++) {
        const tui_command *c = &tui_commands[i];
        cr_assert(c->name && *c->name, "command %zu has a name", i);
        cr_assert(c->help && *c->help, "%s has help", c->name);
        cr_assert(c->group && *c->group, "%s has a group", c->name);
        cr_assert(c->run, "%s has a handler", c->name);
        cr_assert(c->scope, "%s has a scope", c->name);
        for (size_t k = i + 1; k < tui_n_commands; k++)
            cr_assert_str_neq(c->name, tui_commands[k].name, "names are unique");
    }
}

Test(tui_commands, no_key_runs_two_commands) {
    for (size_t i = 0; i < tui_n_commands; i++)
        for (size_t k = i + 1; k < tui_n_commands; k++) {
            const tui_command *a = &tui_commands[i], *b = &tui_commands[k];
            if (!(a->scope & b->scope))
                continue;
            /* running and paused are never true together */
            if ((a->needs & TUI_NEED_RUNNING && b->needs & TUI_NEED_PAUSED) ||
                (a->needs & TUI_NEED_PAUSED && b->needs & TUI_NEED_RUNNING))
                continue;
            for (int j = 0; j < TUI_COMMAND_KEYS && a->keys[j]; j++)
                cr_assert_not(bound(b, a->keys[j]), "%s and %s share a key", a->name, b->name);
        }
}

Test(tui_commands, the_issue_keys_are_bound) {
    struct {
        const char *name;
        int key;
    } want[] = {
        {"Move up", KEY_UP}, {"Move up", 'k'}, {"Move down", KEY_DOWN}, {"Move down", 'j'},
        {"Expand", KEY_RIGHT}, {"Expand", 'l'}, {"Expand", '\n'},
        {"Collapse or go to parent", KEY_LEFT}, {"Collapse or go to parent", 'h'},
        {"Collapse all", TUI_KEY_SHIFT_LEFT}, {"Collapse all", 'H'},
        {"Page up", KEY_PPAGE}, {"Page down", KEY_NPAGE}, {"First row", KEY_HOME},
        {"First row", 'g'}, {"Last row", KEY_END}, {"Last row", 'G'}, {"Find text", '/'},
        {"Find next", 'n'}, {"Back", TUI_KEY_ALT_LEFT}, {"Forward", TUI_KEY_ALT_RIGHT},
        {"Resume", 'r'}, {"Help", '?'}, {"Command palette", TUI_CTRL('p')},
        {"Cancel or close", TUI_KEY_ESC}, {"Quit", 'q'}, {"Pause", 'p'},
        {"Find retainers", TUI_CTRL('e')}, {"Clear filters", TUI_CTRL('w')},
        {"Search with filters", TUI_CTRL('f')}, {"Set search limit", TUI_CTRL('l')},
        {"Saved objects and GC roots", TUI_CTRL('s')}, {"Era colours", 'e'},
        {"Invert the filter", TUI_CTRL('g')}, {"Delete to the start", TUI_CTRL('u')},
        {"Connect", '\n'}, {"Debuggees or snapshots", TUI_KEY_TAB},
        {"Save snapshot", TUI_CTRL('x')},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tui_command *c = by_name(want[i].name);
        cr_assert(c, "there is a command %s", want[i].name);
        cr_assert(bound(c, want[i].key), "%s is on key %d", want[i].name, want[i].key);
    }
}

Test(tui_commands, palette_finds_the_searches) {
    const char *names[] = {"Find retainers (exact name)", "Find retainers (closure name)",
                           "Find address", "Find info table", "Add filter: era range",
                           "Add exclusion: closure type", "Remove a filter",
                           "Add filter: cost centre id", "Add filter: closure size"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        cr_assert(by_name(names[i]), "%s", names[i]);
}

static char *capture(void (*print)(FILE *)) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    print(f);
    fclose(f);
    return buf;
}

Test(tui_commands, keys_listing_has_every_command) {
    char *text = capture(tui_commands_print);
    size_t lines = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        lines++;
        int tabs = 0;
        for (char *p = line; *p; p++)
            tabs += *p == '\t';
        cr_assert_eq(tabs, 4, "five columns: %s", line);
    }
    cr_assert_eq(lines, tui_n_commands);
    free(text);
    text = capture(tui_commands_print);
    cr_assert(strstr(text, "Ctrl-E\tpaused\t-\tFind retainers\t"));
    cr_assert(strstr(text, "Alt-Left\tpaused\t-\tBack\t"));
    cr_assert(strstr(text, "Ctrl-V\tpaused\tera profiling\t"));
    free(text);
}

Test(tui_commands, man_section_has_every_command) {
    char *text = capture(tui_commands_print_man);
    size_t tp = 0;
    for (char *p = text; (p = strstr(p, ".TP\n")); p += 4)
        tp++;
    cr_assert_eq(tp, tui_n_commands);
    for (size_t i = 0; i < tui_n_commands; i++)
        cr_assert(strstr(text, tui_commands[i].name), "%s", tui_commands[i].name);
    cr_assert(strstr(text, ".B Ctrl-E\n"));
    cr_assert(strstr(text, ".SS Search\n"));
    free(text);
}

/* Gives app a session on an empty pause of a debuggee with this VERSION
 * profiling mode (held in memory); -1 closes it. */
static void profile(tui_app *app, int prof_mode) {
    static fake_source *f;
    session_close(app->sess);
    app->sess = NULL;
    fake_free(f);
    f = NULL;
    if (prof_mode < 0)
        return;
    f = fake_new(910, 0, (uint8_t)prof_mode);
    hs_error err = {0};
    cr_assert_eq(session_open_source("fake", fake_heap_source(f), &app->sess, &err), HS_OK, "%s",
                 err.message);
}

/* The state is what the app holds: no session is the debuggee list, a
 * session the connected debuggee, and a heap's views in the explorer's
 * history a paused heap. */
static void show_heap(tui_app *app, bool shown) {
    static tui_tree_view *v;
    tui_view_free(v ? &v->base : NULL);
    v = NULL;
    app->ex.n_hist = app->ex.pos = 0;
    if (!shown)
        return;
    v = tui_tree_view_new("No roots.");
    cr_assert_not_null(v);
    app->ex.hist[0] = &v->base;
    app->ex.n_hist = 1;
}

Test(tui_commands, availability_follows_the_state) {
    static tui_app app; /* zeroed: picker, nothing connected */
    cr_assert_null(tui_command_unavailable(&app, by_name("Connect")));
    cr_assert_null(tui_command_unavailable(&app, by_name("Move down")));
    cr_assert_str_eq(tui_command_unavailable(&app, by_name("Pause")),
                     "connect to a debuggee first");
    profile(&app, WIRE_PROF_NONE); /* connected (to a snapshot: no pausing) */
    cr_assert_str_neq(tui_command_unavailable(&app, by_name("Pause")),
                      "connect to a debuggee first");
    cr_assert_str_eq(tui_command_unavailable(&app, by_name("Find retainers")),
                     "pause the debuggee first (p)");
    cr_assert_not_null(tui_command_unavailable(&app, by_name("Move down")));
    cr_assert_str_eq(tui_command_unavailable(&app, by_name("Connect")),
                     "only in the debuggee list");
    show_heap(&app, true);
    cr_assert_null(tui_command_unavailable(&app, by_name("Find retainers")));
    cr_assert_not_null(tui_command_unavailable(&app, by_name("Pause")));
    cr_assert_not_null(tui_command_unavailable(&app, by_name("Find closures by era")));
    cr_assert_not_null(tui_command_unavailable(&app, by_name("Add filter: cost centre id")));
    profile(&app, WIRE_PROF_PLAIN);
    cr_assert_null(tui_command_unavailable(&app, by_name("Add filter: cost centre id")));
    cr_assert_not_null(tui_command_unavailable(&app, by_name("Add filter: era range")));
    profile(&app, WIRE_PROF_ERA);
    cr_assert_null(tui_command_unavailable(&app, by_name("Add filter: era range")));
    cr_assert_not_null(tui_command_unavailable(&app, by_name("Invert the filter")));
    app.mode = TUI_MODE_PROMPT;
    cr_assert_null(tui_command_unavailable(&app, by_name("Invert the filter")));
    show_heap(&app, false);
    profile(&app, -1);
}

Test(tui_commands, disabled_key_says_why_and_runs_nothing) {
    static tui_app app;
    profile(&app, WIRE_PROF_NONE);
    show_heap(&app, true);
    cr_assert(tui_command_dispatch(&app, TUI_CTRL('v')));
    cr_assert(strstr(app.msg.text, "era profiling"), "%s", app.msg.text);
    cr_assert_eq(app.mode, TUI_MODE_NORMAL, "no prompt opened");
    cr_assert_not(tui_command_dispatch(&app, 'Z'), "an unbound key");
    show_heap(&app, false);
    profile(&app, -1);
}
