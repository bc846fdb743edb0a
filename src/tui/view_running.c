/* The running debuggee (or a paused one whose heap is not read yet): what
 * it is, and the keys that go on from here. */
#include <stdio.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "target.h"
#include "term.h"
#include "tui_curses.h"
#include "view.h"

/* ---- the running screen ---------------------------------------------- */

static const char *mode_text(int mode) {
    switch (mode) {
    case WIRE_PROF_NONE: return "not profiled";
    case WIRE_PROF_PLAIN: return "profiled, no heap profiling";
    case WIRE_PROF_RETAINER: return "retainer profiling (+RTS -hr)";
    case WIRE_PROF_LDV: return "biographical profiling (+RTS -hb)";
    case WIRE_PROF_ERA: return "era profiling (+RTS -he)";
    default: return "heap profiling";
    }
}

static void running_draw(tui_app *app, tui_view *view, int top, int bottom) {
    (void)view;
    (void)bottom;
    char line[700], k1[32], k2[32], k3[32];
    const session *s = app->sess;
    bool paused = session_paused(s);
    const wire_version *v = session_known_version(s);
    int y = LINES / 2 - 4 > top + 1 ? LINES / 2 - 4 : top + 1, x = 4;
    tui_put(y++, x, paused ? "The debuggee is paused." : "The debuggee is running.", COLS - x,
            tui_attr(TUI_ROLE_NORMAL) | A_BOLD);
    if (paused)
        tui_put(y++, x,
                session_ours(s) ? "heapscope paused it; its heap is not read."
                        : "It was paused before heapscope connected (another session, or the "
                          "program itself); heapscope leaves it so unless told.",
                COLS - x, tui_attr(TUI_ROLE_INFO));
    y++;
    snprintf(line, sizeof line, "Connected to %s", session_target(s));
    tui_put(y++, x, line, COLS - x, tui_attr(TUI_ROLE_NORMAL));
    if (v) {
        snprintf(line, sizeof line, "GHC %u.%u.%u, %s", v->major / 100, v->major % 100, v->patch,
                 mode_text(v->prof_mode));
        tui_put(y++, x, line, COLS - x, tui_attr(TUI_ROLE_INFO));
    }
    y++;
    if (paused)
        snprintf(line, sizeof line, "Press %s to explore its heap, %s to resume it.",
                 tui_command_key("Pause", k1, sizeof k1), tui_command_key("Resume", k2, sizeof k2));
    else
        snprintf(line, sizeof line, "Press %s to pause it and explore its heap.",
                 tui_command_key("Pause", k1, sizeof k1));
    tui_put(y++, x, line, COLS - x, tui_attr(TUI_ROLE_PROMPT));
    snprintf(line, sizeof line, "%s quits, %s lists every key, %s finds any command.",
             tui_command_key("Quit", k1, sizeof k1), tui_command_key("Help", k2, sizeof k2),
             tui_command_key("Command palette", k3, sizeof k3));
    tui_put(y++, x, line, COLS - x, tui_attr(TUI_ROLE_INFO));
}


static void running_title(tui_app *app, tui_view *v, char *buf, size_t cap) {
    (void)v;
    snprintf(buf, cap, "heapscope: %s: %s", tui_base_name(session_target(app->sess)),
             session_paused(app->sess) ? "paused" : "running");
}

static const tui_hint running_hints[] = {
    {"Pause", "pause"}, {"Help", "help"}, {"Command palette", "commands"}, {"Quit", "quit"},
    {NULL, NULL}};

static const tui_view_ops running_ops = {
    .kind = "debuggee",
    .scope = TUI_SCOPE_EXPLORER,
    .title = running_title,
    .draw = running_draw,
    .hints = running_hints,
};

tui_view tui_running_view = {.ops = &running_ops};
