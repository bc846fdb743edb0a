/* The one table of TUI commands. Each entry says what a command is called,
 * which keys run it, where and when it applies, and what it does; the key
 * dispatch, the ? overlay, the Ctrl-P palette, `heapscope --keys` and the
 * man page's KEYS section are all read from it, so they cannot disagree. */
#ifndef HEAPSCOPE_TUI_COMMANDS_H
#define HEAPSCOPE_TUI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct tui_app tui_app;

/* Where a command applies: the debuggee list, or a connected debuggee
 * (running or paused); or while typing in the footer's prompt (those are
 * listed in the help and the man page, not in the palette). */
enum { TUI_SCOPE_PICKER = 1, TUI_SCOPE_EXPLORER = 2, TUI_SCOPE_ANY = 3, TUI_SCOPE_PROMPT = 4 };
/* What it needs beyond its scope (checked in the explorer only). */
enum {
    TUI_NEED_PAUSED = 1,
    TUI_NEED_RUNNING = 2,
    TUI_NEED_ERA = 4,      /* era profiling: VERSION mode 4 (+RTS -he) */
    TUI_NEED_PROFILED = 8, /* a profiled RTS: mode non-zero */
    TUI_NEED_STOPPED = 16, /* the debuggee is paused, its heap read or not */
    TUI_NEED_LIVE = 32,    /* a debuggee, not a snapshot file */
    TUI_NEED_LEAVABLE = 64 /* running, or a snapshot file: nothing to give back */
};

#define TUI_COMMAND_KEYS 4

typedef struct tui_command {
    const char *group;              /* heading in the help overlay and man page */
    const char *name;               /* what the palette lists */
    int keys[TUI_COMMAND_KEYS];     /* 0-terminated; none: palette only */
    unsigned scope, needs;
    const char *help;
    void (*run)(tui_app *app, int arg);
    int arg;
} tui_command;

extern const tui_command tui_commands[];
extern const size_t tui_n_commands;

/* Why cmd cannot run now (scope or needs), or NULL when it can. */
const char *tui_command_unavailable(const tui_app *app, const tui_command *cmd);
/* Runs the command bound to key in the current screen (or prompt); false
 * when no command has that key here (a disabled one says why in the
 * footer and counts as handled). The key is in app->key for the handler. */
bool tui_command_dispatch(tui_app *app, int key);
/* The command called name, or NULL. */
const tui_command *tui_command_named(const char *name);
/* The first key of the command called name ("p" for "Pause"), for hints;
 * "" when it has none. */
const char *tui_command_key(const char *name, char *buf, size_t cap);
/* "^E", "↑ k", "Alt-←": the keys of a command, joined by sep. */
void tui_command_keys(const tui_command *cmd, bool ascii, const char *sep, char *buf, size_t cap);

#endif
