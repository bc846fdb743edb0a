/* The terminal UI (ncursesw). The UI is a view: it asks query/ and heap/
 * and renders; it holds no heap logic.
 *
 * Layers inside src/tui:
 *   term      ncurses set-up and restore (also on signals), resize, keys,
 *             colour pairs by role, UTF-8 or ASCII line drawing
 *   theme     theme files -> colours for every role and the era palette
 *   commands  ONE table of commands (name, keys, help, availability,
 *             handler) feeding the key map, the Ctrl-P palette, the ?
 *             overlay and the man page's KEYS section
 *   widgets   footer input line, messages, progress with Esc to cancel,
 *             help overlay, palette
 *   screens   picker (debuggees and snapshots), explorer (tree + details)
 * The app loop owns one current screen and switches between them. */
#ifndef HEAPSCOPE_TUI_H
#define HEAPSCOPE_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "heapscope/status.h"

/* ---- colours --------------------------------------------------------- */

/* Every colour the UI uses has a role; themes give each role fg/bg/attrs. */
#define TUI_ROLE_LIST(X)                                                   \
    X(NORMAL, "normal")             /* text */                             \
    X(TITLE, "title")               /* top bar */                          \
    X(FOOTER, "footer")             /* bottom bar: keys, status */         \
    X(SELECTED, "selected")         /* the selected row */                 \
    X(GUIDE, "guide")               /* tree guides */                      \
    X(LABEL, "label")               /* edge label in the parent */         \
    X(ADDRESS, "address")                                                  \
    X(TYPE, "type")                 /* closure type */                     \
    X(LOCATION, "location")         /* source location */                  \
    X(DETAILS, "details")           /* details pane */                     \
    X(DETAILS_KEY, "details-key")                                          \
    X(ERROR, "error")               /* error messages */                   \
    X(INFO, "info")                 /* informational messages */           \
    X(PROMPT, "prompt")             /* footer input */                     \
    X(FILTER, "filter")             /* active filters bar */               \
    X(MATCH, "match")               /* search matches, find-in-tree hits */\
    X(LEAK_EDGE, "leak-edge")       /* newer-era retains older-era marker */\
    X(DISABLED, "disabled")         /* unavailable commands */             \
    X(OVERLAY, "overlay")           /* help and palette boxes */

typedef enum tui_role {
#define TUI_ROLE_ENUM(id, name) TUI_ROLE_##id,
    TUI_ROLE_LIST(TUI_ROLE_ENUM)
#undef TUI_ROLE_ENUM
    TUI_ROLE_COUNT
} tui_role;

#define TUI_ERA_PALETTE_MAX 64

typedef struct tui_color {
    int fg, bg;      /* 0-255, or -1 = terminal default */
    unsigned attrs;  /* TUI_ATTR_* */
} tui_color;

enum { TUI_ATTR_BOLD = 1, TUI_ATTR_UNDERLINE = 2, TUI_ATTR_REVERSE = 4, TUI_ATTR_DIM = 8 };

typedef struct tui_theme {
    char name[64];
    tui_color roles[TUI_ROLE_COUNT];
    int era_bg[TUI_ERA_PALETTE_MAX]; /* background per era, cycled: era % n */
    size_t n_era;
} tui_theme;

/* Loads theme NAME from $XDG_CONFIG_HOME/heapscope/themes (default
 * ~/.config/...), then the installed data directory, then the source tree's
 * themes/. On a bad file: err says "FILE:LINE: what" and *out is the
 * built-in default (the caller shows the message and carries on). */
hs_status tui_theme_load(const char *name, tui_theme *out, hs_error *err);
void tui_theme_default(tui_theme *out);
/* Parses theme text (for tests); path names the source in messages. */
hs_status tui_theme_parse(const char *text, const char *path, tui_theme *out, hs_error *err);

/* ---- terminal -------------------------------------------------------- */

typedef struct tui_term_caps {
    int colors;    /* 0 (NO_COLOR or monochrome), 8, 16 or 256 */
    bool utf8;     /* line drawing with Unicode, else ASCII */
} tui_term_caps;

/* Starts curses; installs handlers so that the terminal is restored on
 * exit, on SIGINT/SIGTERM/SIGHUP and on fatal signals. */
hs_status tui_term_start(const tui_theme *theme, hs_error *err);
void tui_term_stop(void);
const tui_term_caps *tui_term_caps_get(void);
/* The curses attribute for a role, and for an era's row background
 * (text colour chosen for contrast); 0 when colours are off. */
int tui_attr(tui_role role);
int tui_era_attr(uint64_t era);
/* Tree guides: "├─ ", "└─ ", "│  " or their ASCII forms. */
const char *tui_glyph_branch(void);
const char *tui_glyph_last(void);
const char *tui_glyph_pipe(void);

/* Keys beyond curses' own (Alt-x arrives as ESC x). */
enum {
    TUI_KEY_ALT_LEFT = 0x10000,
    TUI_KEY_ALT_RIGHT,
    TUI_KEY_SHIFT_LEFT,
    TUI_KEY_NONE /* no key within the wait */
};
/* Next key, waiting at most timeout_ms (-1 forever); TUI_KEY_NONE on
 * time-out. Resizes arrive as KEY_RESIZE after the screen was resized. */
int tui_read_key(int timeout_ms);
/* tui_read_key that also returns TUI_KEY_NONE as soon as fd is readable
 * (fd < 0: none), so other work can be done between keypresses. */
int tui_read_key_or_fd(int timeout_ms, int fd);
/* Puts keys back to be read first, in order (at most TUI_UNREAD_MAX are kept). */
#define TUI_UNREAD_MAX 16
void tui_unread_keys(const int *keys, size_t n);
/* True when a key was typed that curses has not read yet (bytes waiting
 * on the terminal): work the user did not ask for can make way for it. */
bool tui_key_typed(void);

/* ---- long work ------------------------------------------------------- */

/* Shows "<what>: <done>" in the footer; returns false when the user
 * pressed Esc (the caller cancels). Cheap to call often: redraws at most
 * ten times a second. */
bool tui_progress(const char *what, uint64_t done, const char *unit);

/* ---- entry ----------------------------------------------------------- */

typedef struct tui_options {
    const char *target;     /* skip the picker and connect (NULL = picker) */
    const char *theme;      /* theme name (NULL = "default") */
    int timeout_ms;
    uint64_t max_answer;    /* cap on one answer in bytes (0 = the wire default) */
    const char *snapshot_dir; /* --snapshot-dir: listed with the snapshots */
    bool no_cache;          /* --no-cache */
    uint64_t cache_size;    /* --cache-size, 0 = default */
} tui_options;

/* Runs the UI until the user quits; returns the process exit status. */
int tui_run(const tui_options *opts);

/* The key table of the command table (`heapscope --keys`): one command per
 * line, KEYS<TAB>WHERE<TAB>NEEDS<TAB>COMMAND<TAB>WHAT IT DOES, keys in
 * ASCII ("Ctrl-E", "Alt-Left", "-" for palette-only commands). */
void tui_commands_print(FILE *out);
/* The same as roff (.SS per group, .TP per command) for the man page's
 * KEYS section (`heapscope --keys=man`). */
void tui_commands_print_man(FILE *out);

#endif
