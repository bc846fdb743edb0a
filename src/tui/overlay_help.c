/* The ? overlay: every command of the table under its group, with its
 * keys, name and what it does (wrapped, never cut); the ones that cannot
 * run now are greyed. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "keys.h"
#include "overlay.h"
#include "term.h"
#include "tui_curses.h"

#define KEYS_COLS 18

typedef struct help_line {
    const char *heading; /* or NULL for a command */
    size_t cmd;
    size_t from, len;    /* the part of the command's help on this line */
} help_line;

#define MAX_LINES 768

/* Lines of the help overlay of a box whose text is cols wide: a long
 * description wraps at spaces onto lines of its own, under the name. */
static size_t lines(help_line *out, size_t cap, int cols) {
    size_t n = 0;
    const char *group = NULL;
    for (size_t i = 0; i < tui_n_commands && n + 2 < cap; i++) {
        if (!group || strcmp(group, tui_commands[i].group) != 0) {
            group = tui_commands[i].group;
            if (n > 0)
                out[n++] = (help_line){"", 0, 0, 0};
            out[n++] = (help_line){group, 0, 0, 0};
        }
        const char *help = tui_commands[i].help, *name = tui_commands[i].name;
        int first = cols - tui_text_cols(name, strlen(name)) - 2; /* after "name: " */
        size_t from = 0;
        do {
            size_t len =
                tui_text_wrap(help + from, from == 0 && first < 12 ? 0 : from == 0 ? first : cols);
            out[n++] = (help_line){NULL, i, from, len};
            from += len;
            while (help[from] == ' ')
                from++;
        } while (help[from] && n < cap);
    }
    return n;
}

static void box_size(int *y, int *x, int *h, int *w) {
    *h = LINES - 2 > 4 ? LINES - 2 : LINES;
    *w = COLS < 110 ? COLS : 110; /* whole rows: no stray text beside the box */
    *y = (LINES - *h) / 2;
    *x = (COLS - *w) / 2;
}

void tui_help_draw(tui_app *app) {
    static help_line ls[MAX_LINES];
    int y, x, h, w;
    box_size(&y, &x, &h, &w);
    size_t n = lines(ls, MAX_LINES, w - 4 - KEYS_COLS);
    int attr = tui_attr(TUI_ROLE_OVERLAY);
    bool ascii = !tui_term_caps_get()->utf8;
    tui_box(y, x, h, w,
            ascii ? "Keys (Esc closes, Up Down PgUp PgDn scroll)" : "Keys (Esc closes, ↑↓ PgUp PgDn scroll)",
            attr);
    size_t rows = h > 2 ? (size_t)h - 2 : 0;
    if (app->help_top + rows > n)
        app->help_top = n > rows ? n - rows : 0;
    for (size_t r = 0; r < rows && app->help_top + r < n; r++) {
        const help_line *l = &ls[app->help_top + r];
        int ly = y + 1 + (int)r, lx = x + 2, lw = w - 4;
        if (l->heading) {
            tui_put(ly, lx, l->heading, lw, attr | A_BOLD | A_UNDERLINE);
            continue;
        }
        const tui_command *cmd = &tui_commands[l->cmd];
        bool off = tui_command_unavailable(app, cmd) != NULL;
        int a = off ? tui_attr(TUI_ROLE_DISABLED) : attr;
        int cx = lx + KEYS_COLS;
        if (l->from == 0) { /* the command's first line: keys and name */
            char keys[96];
            tui_command_keys(cmd, ascii, " ", keys, sizeof keys);
            tui_put(ly, lx, keys[0] ? keys : "(palette)", KEYS_COLS - 1,
                    keys[0] ? a | (int)A_BOLD : a);
            cx += tui_put(ly, cx, cmd->name, lw - KEYS_COLS, a | A_BOLD);
            cx += tui_put(ly, cx, ": ", lx + lw - cx, a);
        }
        char part[512];
        snprintf(part, sizeof part, "%.*s", (int)l->len, cmd->help + l->from);
        tui_put(ly, cx, part, lx + lw - cx, a);
    }
}

void tui_help_key(tui_app *app, int key) {
    int y, x, h, w;
    box_size(&y, &x, &h, &w);
    size_t page = h > 3 ? (size_t)h - 3 : 1;
    switch (key) {
    case KEY_UP: case 'k': if (app->help_top) app->help_top--; break;
    case KEY_DOWN: case 'j': app->help_top++; break;
    case KEY_PPAGE: app->help_top = app->help_top > page ? app->help_top - page : 0; break;
    case KEY_NPAGE: case ' ': app->help_top += page; break;
    case KEY_HOME: case 'g': app->help_top = 0; break;
    case KEY_END: case 'G': app->help_top = (size_t)-1 / 2; break;
    case TUI_KEY_ESC: case 'q': case '?': case TUI_CTRL('c'): app->mode = TUI_MODE_NORMAL; break;
    default: break;
    }
}
