/* tui_run: the main loop. It draws the current screen, reads one key,
 * and hands it to whatever has the keyboard: a prompt, an overlay, the
 * quit question, or the command table. The general commands (help,
 * palette, quit, cancel) live here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "explorer.h"
#include "file.h"
#include "footer.h"
#include "heapscope/interrupt.h"
#include "keys.h"
#include "overlay.h"
#include "picker.h"
#include "record.h"
#include "target.h"
#include "term.h"
#include "tui_curses.h"
#include "view.h"

#define IDLE_WAIT_MS 1000 /* the picker re-reads its directory this often */
/* The longest the loop answers a recording's requests before it looks at
 * the keyboard again. */
#define RECORD_SLICE_MS 20

void tui_app_message(tui_app *app, tui_role role, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->msg.text, sizeof app->msg.text, fmt, ap);
    va_end(ap);
    app->msg.role = role;
}

void tui_app_go_picker(tui_app *app) {
    tui_explorer_reset(&app->ex);
    app->mode = TUI_MODE_NORMAL;
    tui_picker_refresh(app, true);
}

/* A request took the stream with it (a timeout: a cancel finishes its
 * answer and keeps the stream): connect again, keeping the views while the
 * debuggee stays paused. */
static bool reconnect(tui_app *app) {
    hs_error err;
    if (tui_target_revive(app, &err) != HS_OK)
        return false;
    if (!session_heap(app->sess)) /* the heap's views go; the running debuggee shows */
        tui_explorer_reset(&app->ex);
    return true;
}

static void go_picker_lost(tui_app *app, const char *why) {
    char target[1024];
    snprintf(target, sizeof target, "%s", session_target(app->sess));
    tui_target_close(app, false);
    tui_app_go_picker(app);
    tui_app_message(app, TUI_ROLE_ERROR, "lost the connection to %s: %s", target, why);
}

void tui_app_error(tui_app *app, const char *what, const hs_error *err) {
    if (hs_interrupt_signal())
        return; /* the loop leaves, and gives the debuggee back */
    bool cut_short = err->status == HS_ERR_CANCELLED || err->status == HS_ERR_TIMEOUT;
    if (app->sess && session_lost(app->sess)) {
        if (!cut_short || !reconnect(app)) {
            go_picker_lost(app, err->message);
            return;
        }
    }
    if (err->status == HS_ERR_CANCELLED)
        tui_app_message(app, TUI_ROLE_INFO, "%s: cancelled", what);
    else
        tui_app_message(app, TUI_ROLE_ERROR, "%s: %s", what, err->message);
}

/* ---- drawing --------------------------------------------------------- */

static void draw_title(tui_app *app, tui_view *v) {
    int attr = tui_attr(TUI_ROLE_TITLE);
    tui_fill(0, 0, COLS, attr);
    char left[1024] = " ", right[64] = "";
    v->ops->title(app, v, left + 1, sizeof left - 1);
    if (app->ex.n_hist > 1)
        snprintf(right, sizeof right, " view %zu/%zu ", app->ex.pos + 1, app->ex.n_hist);
    char rec[32];
    if (tui_record_status(app, rec, sizeof rec)) {
        size_t n = strlen(right);
        snprintf(right + n, sizeof right - n, "%s", rec);
    }
    int rw = tui_text_cols(right, strlen(right));
    tui_put(0, 0, left, COLS - rw - 1, attr | A_BOLD);
    if (rw)
        tui_put(0, COLS - rw, right, rw, attr);
}

/* Below this size the screens do not fit: say so, centred, until the
 * terminal grows again (every resize redraws). */
#define MIN_COLS 40
#define MIN_LINES 6

static void draw_too_small(void) {
    static const char *const says[] = {"terminal too small", "too small", "small"};
    const char *lines[2] = {says[2], "(40x6 at least)"};
    for (size_t i = 0; i < sizeof says / sizeof *says; i++)
        if ((int)strlen(says[i]) <= COLS) { /* the longest that fits */
            lines[0] = says[i];
            break;
        }
    int y = LINES > 2 ? (LINES - 2) / 2 : 0;
    for (int i = 0; i < 2 && y + i < LINES; i++) {
        int w = (int)strlen(lines[i]);
        if (i > 0 && w > COLS)
            break;
        tui_put(y + i, COLS > w ? (COLS - w) / 2 : 0, lines[i], COLS, i == 0 ? A_BOLD : A_NORMAL);
    }
}

void tui_app_draw(tui_app *app) {
    curs_set(0);
    erase();
    if (LINES < MIN_LINES || COLS < MIN_COLS) {
        draw_too_small();
        refresh();
        return;
    }
    tui_view *v = tui_app_view(app);
    draw_title(app, v);
    v->ops->draw(app, v, TUI_TITLE_ROWS, LINES - TUI_FOOTER_ROWS);
    tui_footer_draw(app);
    if (app->mode == TUI_MODE_HELP)
        tui_help_draw(app);
    else if (app->mode == TUI_MODE_PALETTE)
        tui_palette_draw(app);
    refresh();
}

static void redraw_hook(void *ctx) { tui_app_draw(ctx); }

/* ---- general commands ------------------------------------------------ */

void tui_cmd_help(tui_app *app, int arg) {
    (void)arg;
    app->help_top = 0;
    app->mode = TUI_MODE_HELP;
}

void tui_cmd_palette(tui_app *app, int arg) {
    (void)arg;
    tui_palette_open(app);
}

void tui_cmd_cancel(tui_app *app, int arg) {
    (void)arg;
    app->msg.text[0] = 0; /* nothing else: Esc never resumes or leaves */
    app->ex.find_shown = false;
}

void tui_cmd_redraw(tui_app *app, int arg) {
    (void)arg;
    (void)app;
    clearok(curscr, TRUE);
}

void tui_cmd_quit(tui_app *app, int arg) {
    (void)arg;
    if (app->sess && session_paused(app->sess) &&
        session_caps_of(app->sess).live) {
        app->mode = TUI_MODE_QUIT_ASK;
        app->msg.text[0] = 0;
        return;
    }
    app->quit = true;
}

static void quit_answer(tui_app *app, int key) {
    if (key == 'y' || key == 'Y') {
        tui_explorer_reset(&app->ex);
        hs_error err = {0};
        if (tui_target_resume(app, &err) != HS_OK) {
            /* say so and stay: quitting now would leave it paused unasked */
            app->mode = TUI_MODE_NORMAL;
            tui_app_error(app, "cannot resume", &err);
            return;
        }
        app->quit = true;
    } else if (key == 'n' || key == 'N') {
        app->quit = true;
    } else if (key == TUI_KEY_ESC) {
        app->mode = TUI_MODE_NORMAL;
    }
}

static void handle_key(tui_app *app, int key) {
    switch (app->mode) {
    case TUI_MODE_PROMPT: tui_prompt_key(app, key); return;
    case TUI_MODE_HELP: tui_help_key(app, key); return;
    case TUI_MODE_PALETTE: tui_palette_key(app, key); return;
    case TUI_MODE_QUIT_ASK: quit_answer(app, key); return;
    case TUI_MODE_REPLACE_ASK: tui_save_answer(app, key); return;
    case TUI_MODE_NORMAL: break;
    }
    app->msg.text[0] = 0;
    if (!tui_command_dispatch(app, key) && tui_key_char(key) >= 0) {
        char help[32];
        tui_app_message(app, TUI_ROLE_INFO, "no command on that key (%s lists them)",
                        tui_command_key("Help", help, sizeof help));
    }
}

/* ---- entry ----------------------------------------------------------- */

/* The stream died while drawing (rows are read as they show): connect
 * again, or go back to the list. */
static void lost(tui_app *app) {
    /* keys typed before (one may have cut a recording's wait short) act
       after: the wait of connecting again would drop them */
    int typed[TUI_UNREAD_MAX];
    size_t n = 0;
    while (n < TUI_UNREAD_MAX && (typed[n] = tui_read_key(0)) != TUI_KEY_NONE)
        n++;
    if (!reconnect(app))
        go_picker_lost(app, "the program may have exited");
    tui_unread_keys(typed, n);
}

static void start(tui_app *app) {
    const char *target = app->opts.target;
    if (!target || !*target) {
        const char *env = getenv("GHC_DEBUG_SOCKET");
        target = env && *env ? env : NULL;
    }
    if (!target) {
        tui_app_go_picker(app);
        return;
    }
    tui_progress_begin("connecting");
    hs_error err = {0};
    if (tui_target_connect(app, target, &err) != HS_OK) {
        tui_app_go_picker(app);
        if (strstr(err.message, target)) /* it names the target already: once is enough */
            tui_app_message(app, TUI_ROLE_ERROR, "%s", err.message);
        else
            tui_app_message(app, TUI_ROLE_ERROR, "cannot connect to %s: %s", target, err.message);
        return;
    }
    if (!session_caps_of(app->sess).live) /* a file is its pause: shown at once */
        tui_explorer_show_file(app, tui_base_name(target));
}

int tui_run(const tui_options *opts) {
    tui_app *app = calloc(1, sizeof *app);
    if (!app) {
        fputs("heapscope: out of memory\n", stderr);
        return 1;
    }
    app->opts = *opts;
    app->cache = NULL;
    if (app->opts.timeout_ms <= 0)
        app->opts.timeout_ms = 30000;
    hs_error theme_err = {0};
    bool theme_ok =
        tui_theme_load(opts->theme ? opts->theme : "default", &app->theme, &theme_err) == HS_OK;
    tui_explorer_init(&app->ex);
    if (opts->snapshot_dir && opts->snapshot_dir[0])
        tui_snaps_add_dir(&app->picker.snaps, opts->snapshot_dir);
    hs_error err = {0};
    if (tui_term_start(&app->theme, &err) != HS_OK) {
        fprintf(stderr, "heapscope: %s\n", err.message);
        free(app);
        return 1;
    }
    tui_progress_set_redraw(redraw_hook, app);
    start(app);
    if (!theme_ok)
        tui_app_message(app, TUI_ROLE_ERROR, "%s (using the default theme)", theme_err.message);
    while (!app->quit && !hs_interrupt_signal()) {
        tui_progress_reset(); /* an Esc that cancelled earlier work is spent */
        if (!app->sess)
            tui_picker_refresh(app, false);
        else if (session_lost(app->sess))
            lost(app); /* noticed while drawing or opening rows */
        if (app->cache_note[0] && !app->msg.text[0]) { /* said once */
            tui_app_message(app, TUI_ROLE_ERROR, "%s", app->cache_note);
            app->cache_note[0] = '\0';
        }
        tui_app_draw(app);
        int key = tui_read_key_or_fd(IDLE_WAIT_MS, tui_record_fd(app));
        if (key == TUI_KEY_NONE) /* keys typed ahead go first */
            tui_record_serve(app, RECORD_SLICE_MS);
        if (key == TUI_KEY_NONE || key == KEY_RESIZE || hs_interrupt_signal())
            continue; /* curses already knows the new size: the next draw uses it */
        handle_key(app, key);
    }
    if (!hs_interrupt_signal()) /* the pause it records is still there: finish it */
        tui_record_settle(app);
    /* a quit signal: the terminal first, then the debuggee we paused */
    tui_term_stop();
    tui_explorer_reset(&app->ex);
    query_filters_free(app->ex.built);
    tui_target_close(app, hs_interrupt_signal() != 0);
    cache_close(app->cache);
    tui_picker_free(&app->picker);
    free(app->palette.order);
    int status = app->status;
    free(app);
    return status;
}
