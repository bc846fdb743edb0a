/* The state of the running UI (private to src/tui). The screen shows the
 * current view (view.h): the debuggee list, the connected debuggee, or one
 * of a paused heap's views; prompts and overlays sit on top of it and take
 * the keys. Each part's functions are in its own header. */
#ifndef HEAPSCOPE_TUI_APP_H
#define HEAPSCOPE_TUI_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "explorer.h"
#include "footer.h"
#include "heapscope/cache.h"
#include "heapscope/session.h"
#include "heapscope/tui.h"
#include "input.h"
#include "picker.h"

typedef struct tui_app tui_app;

typedef enum tui_mode {
    TUI_MODE_NORMAL,
    TUI_MODE_PROMPT,   /* the footer's input line */
    TUI_MODE_HELP,     /* the ? overlay */
    TUI_MODE_PALETTE,  /* the Ctrl-P overlay */
    TUI_MODE_QUIT_ASK, /* q while paused: resume first? */
    TUI_MODE_REPLACE_ASK /* Ctrl-X onto an existing file: replace it? */
} tui_mode;

/* ---- the app ---- */

typedef struct tui_app {
    tui_options opts;
    tui_theme theme;
    tui_mode mode;
    bool quit;
    int status;
    tui_picker picker;
    session *sess; /* the TARGET looked at; NULL on the picker */
    cache *cache;  /* tui_app_cache: NULL when --no-cache or it could not be opened */
    bool cache_tried;
    char cache_error[HS_ERROR_MESSAGE_MAX]; /* why it could not be opened */
    char cache_note[HS_ERROR_MESSAGE_MAX + 64]; /* a cache problem, to say once */
    tui_explorer ex;
    tui_prompt prompt;
    int key; /* the key being dispatched, for handlers bound to several */
    struct {
        char text[HS_ERROR_MESSAGE_MAX + 64];
        tui_role role;
    } msg;
    struct {
        tui_input in;
        size_t *order; /* command indexes, best match first */
        size_t n, sel, top;
    } palette;
    size_t help_top;
    char save_path[4096]; /* the file Ctrl-X asks to replace */
} tui_app;

void tui_app_message(tui_app *app, tui_role role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Shows an error; a lost connection also drops the session and goes back
 * to the debuggee list. */
void tui_app_error(tui_app *app, const char *what, const hs_error *err);
/* Redraws everything (the main loop, and progress after a resize). */
void tui_app_draw(tui_app *app);
void tui_app_go_picker(tui_app *app);

/* The rows of the screen: title, tree or list, footer. */
#define TUI_TITLE_ROWS 1
#define TUI_FOOTER_ROWS 1

/* The cache of the whole run (the explorer's answers and recordings, the
 * Snapshots tab's recorded pauses), opened the first time it is wanted;
 * NULL with --no-cache, or when it cannot be opened (cache_error says why,
 * and the footer once). */
cache *tui_app_cache(tui_app *app);

void tui_cmd_quit(tui_app *app, int arg);
void tui_cmd_cancel(tui_app *app, int arg);
void tui_cmd_redraw(tui_app *app, int arg);

#endif
