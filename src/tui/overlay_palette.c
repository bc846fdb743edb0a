/* The Ctrl-P palette: every command of the table, filtered fuzzily by
 * name as you type, best match first. Commands that cannot run now are
 * greyed with the reason, and Enter on one does nothing. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "fuzzy.h"
#include "keys.h"
#include "overlay.h"
#include "term.h"
#include "tui_curses.h"

static void refilter(tui_app *app) {
    static const char *names[256];
    static size_t index[256];
    size_t n = 0;
    for (size_t i = 0; i < tui_n_commands && n < 256; i++) {
        if (tui_commands[i].scope == TUI_SCOPE_PROMPT)
            continue; /* keys of the prompt, not commands to run from here */
        index[n] = i;
        names[n++] = tui_commands[i].name;
    }
    if (!app->palette.order)
        app->palette.order = calloc(256, sizeof *app->palette.order);
    if (!app->palette.order) {
        app->palette.n = 0;
        return;
    }
    app->palette.n = tui_fuzzy_filter(app->palette.in.text, names, n, app->palette.order);
    /* what can run now first, the greyed rest after it, each in score order */
    size_t runnable[256], rest[256], nr = 0, nd = 0;
    for (size_t k = 0; k < app->palette.n; k++) {
        size_t c = index[app->palette.order[k]];
        if (tui_command_unavailable(app, &tui_commands[c]))
            rest[nd++] = c;
        else
            runnable[nr++] = c;
    }
    memcpy(app->palette.order, runnable, nr * sizeof runnable[0]);
    memcpy(app->palette.order + nr, rest, nd * sizeof rest[0]);
    app->palette.sel = 0;
    app->palette.top = 0;
}

void tui_palette_open(tui_app *app) {
    tui_input_clear(&app->palette.in);
    app->mode = TUI_MODE_PALETTE;
    app->msg.text[0] = 0;
    refilter(app);
}

static void box_size(int *y, int *x, int *h, int *w) {
    *w = COLS - 4 < 80 ? COLS - 4 : 80;
    *h = LINES - 2 < 22 ? LINES - 2 : 22;
    if (*w < 20)
        *w = COLS;
    if (*h < 5)
        *h = LINES;
    *y = (LINES - *h) / 3;
    *x = (COLS - *w) / 2;
}

static size_t list_rows(void) {
    int y, x, h, w;
    box_size(&y, &x, &h, &w);
    return h > 5 ? (size_t)h - 5 : 1; /* borders, input, rule, reason */
}

void tui_palette_draw(tui_app *app) {
    int y, x, h, w;
    box_size(&y, &x, &h, &w);
    int attr = tui_attr(TUI_ROLE_OVERLAY);
    tui_box(y, x, h, w, "Commands (type to filter, Enter runs, Esc closes)", attr);
    size_t rows = list_rows();
    if (app->palette.sel < app->palette.top)
        app->palette.top = app->palette.sel;
    if (app->palette.sel >= app->palette.top + rows)
        app->palette.top = app->palette.sel - rows + 1;
    bool ascii = !tui_term_caps_get()->utf8;
    const char *reason = NULL;
    for (size_t r = 0; r < rows && app->palette.top + r < app->palette.n; r++) {
        size_t k = app->palette.top + r;
        const tui_command *cmd = &tui_commands[app->palette.order[k]];
        const char *why = tui_command_unavailable(app, cmd);
        bool sel = k == app->palette.sel;
        if (sel)
            reason = why;
        int a = sel ? tui_attr(TUI_ROLE_SELECTED) : why ? tui_attr(TUI_ROLE_DISABLED) : attr;
        if (sel && why)
            a = tui_attr(TUI_ROLE_SELECTED) | A_DIM;
        int ly = y + 3 + (int)r;
        tui_fill(ly, x + 1, w - 2, a);
        char keys[96];
        tui_command_keys(cmd, ascii, " ", keys, sizeof keys);
        int kw = tui_text_cols(keys, strlen(keys));
        tui_put(ly, x + 2, cmd->name, w - 6 - kw, a);
        tui_put(ly, x + w - 2 - kw, keys, kw, a);
    }
    if (app->palette.n == 0)
        tui_put(y + 3, x + 2, "no command has that in its name", w - 4, tui_attr(TUI_ROLE_INFO));
    tui_hline(y + 2, x + 1, w - 2, attr);
    if (reason)
        tui_put(y + h - 2, x + 2, reason, w - 4, tui_attr(TUI_ROLE_DISABLED));
    else if (app->palette.n && app->palette.sel < app->palette.n)
        tui_put(y + h - 2, x + 2, tui_commands[app->palette.order[app->palette.sel]].help, w - 4,
                tui_attr(TUI_ROLE_INFO));
    int px = x + 2 + tui_put(y + 1, x + 2, "> ", w - 4, attr | A_BOLD);
    tui_put(y + 1, px, app->palette.in.text, x + w - 2 - px, attr);
    int cx = px + tui_input_cursor_cols(&app->palette.in);
    move(y + 1, cx < x + w - 1 ? cx : x + w - 2);
    curs_set(1);
}

void tui_palette_key(tui_app *app, int key) {
    size_t page = list_rows();
    size_t *sel = &app->palette.sel, n = app->palette.n;
    switch (key) {
    case TUI_KEY_ESC: case TUI_CTRL('c'): app->mode = TUI_MODE_NORMAL; return;
    case KEY_UP: case TUI_CTRL('p'): if (*sel) (*sel)--; return;
    case KEY_DOWN: case TUI_CTRL('n'): if (*sel + 1 < n) (*sel)++; return;
    case KEY_PPAGE: *sel = *sel > page ? *sel - page : 0; return;
    case KEY_NPAGE: *sel = *sel + page < n ? *sel + page : (n ? n - 1 : 0); return;
    default: break;
    }
    if (tui_key_is_enter(key)) {
        if (n == 0)
            return;
        const tui_command *cmd = &tui_commands[app->palette.order[*sel]];
        if (tui_command_unavailable(app, cmd))
            return; /* greyed: ignored, the reason is on screen */
        app->mode = TUI_MODE_NORMAL;
        cmd->run(app, cmd->arg);
        return;
    }
    if (tui_input_key(&app->palette.in, key))
        refilter(app);
}
