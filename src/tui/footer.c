/* The footer line: the prompt being typed (with its cursor), the quit or
 * replace question, the last message, or the current view's main keys
 * that work at the moment, their keys read from the command table. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "heapscope/plural.h"
#include "commands.h"
#include "draw.h"
#include "explorer.h"
#include "file.h"
#include "footer.h"
#include "keys.h"
#include "search.h"
#include "term.h"
#include "tui_curses.h"
#include "view.h"

/* The current view's hints. */
static void draw_hints(tui_app *app, int y) {
    const tui_hint *h = tui_app_view(app)->ops->hints;
    int x = 1, attr = tui_attr(TUI_ROLE_FOOTER);
    for (; h && h->command && x < COLS; h++) {
        const tui_command *cmd = tui_command_named(h->command);
        if (!cmd || tui_command_unavailable(app, cmd))
            continue; /* only what works here (a snapshot cannot be resumed) */
        char key[32], item[96];
        const char *k = tui_command_key(h->command, key, sizeof key);
        snprintf(item, sizeof item, "%s %s", k, h->text);
        int need = tui_text_cols(item, strlen(item));
        if (x + need > COLS)
            break;
        x += tui_put(y, x, k, COLS - x, attr | A_BOLD);
        x += tui_put(y, x, " ", COLS - x, attr);
        x += tui_put(y, x, h->text, COLS - x, attr) + 2;
    }
}

/* A message longer than the line takes up to three lines, over the
 * bottom of the screen: an error is read whole or not at all. */
static void draw_message(tui_app *app, int y) {
    enum { MAX_LINES = 3 };
    int attr = tui_attr(app->msg.role), w = COLS - 2;
    const char *parts[MAX_LINES];
    size_t lens[MAX_LINES];
    int n = 0;
    const char *s = app->msg.text;
    while (*s && n < MAX_LINES && w > 0) {
        size_t len = n == MAX_LINES - 1 ? strlen(s) : tui_text_fit(s, w);
        parts[n] = s;
        lens[n++] = len;
        s += len;
    }
    if (n > y)
        n = y > 0 ? y : 1;
    for (int i = 0; i < n; i++) {
        char line[sizeof app->msg.text];
        snprintf(line, sizeof line, "%.*s", (int)lens[i], parts[i]);
        int ly = y - (n - 1) + i;
        tui_fill(ly, 0, COLS, attr);
        tui_put(ly, 1, line, w, attr);
    }
}

static void draw_prompt(tui_app *app, int y) {
    tui_prompt *p = &app->prompt;
    int attr = tui_attr(TUI_ROLE_PROMPT);
    char label[120];
    snprintf(label, sizeof label, "%s%s", p->invert ? "!" : "", p->label);
    int x = tui_put(y, 0, label, COLS, attr | A_BOLD);
    int avail = COLS - x - 1;
    /* scroll the text so that the cursor stays on screen */
    size_t start = 0;
    while (start < p->in.cursor &&
           tui_text_cols(p->in.text + start, p->in.cursor - start) > avail) {
        start++;
        while (start < p->in.cursor && ((unsigned char)p->in.text[start] & 0xc0) == 0x80)
            start++;
    }
    /* a pre-filled default shows selected: typing replaces it */
    tui_put(y, x, p->in.text + start, avail,
            p->in.selected ? tui_attr(TUI_ROLE_SELECTED) : tui_attr(TUI_ROLE_NORMAL));
    int cx = x + tui_text_cols(p->in.text + start, p->in.cursor - start);
    move(y, cx < COLS ? cx : COLS - 1);
    curs_set(1);
}

void tui_footer_draw(tui_app *app) {
    int y = LINES - 1;
    tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_FOOTER));
    if (app->mode == TUI_MODE_PROMPT) {
        tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
        draw_prompt(app, y);
        return;
    }
    if (app->mode == TUI_MODE_QUIT_ASK) {
        tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_PROMPT));
        tui_put(y, 0,
                "Resume the debuggee before quitting?  y: resume and quit   n: quit, leave it "
                "paused   Esc: stay",
                COLS, tui_attr(TUI_ROLE_PROMPT) | A_BOLD);
        return;
    }
    if (app->mode == TUI_MODE_REPLACE_ASK) {
        char ask[4200];
        snprintf(ask, sizeof ask, "%s exists. Replace it?  y: replace   n or Esc: keep it",
                 app->save_path);
        tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_PROMPT));
        tui_put(y, 0, ask, COLS, tui_attr(TUI_ROLE_PROMPT) | A_BOLD);
        return;
    }
    if (app->msg.text[0]) {
        draw_message(app, y);
        return;
    }
    draw_hints(app, y);
}

void tui_prompt_open(tui_app *app, tui_prompt_kind kind, query_filter_kind filter, bool invert,
                     const char *label) {
    tui_prompt *p = &app->prompt;
    p->kind = kind;
    p->filter = filter;
    p->invert = invert;
    snprintf(p->label, sizeof p->label, "%s", label);
    p->on_submit = NULL;
    tui_input_clear(&p->in);
    app->mode = TUI_MODE_PROMPT;
    app->msg.text[0] = 0;
}

void tui_prompt_ask(tui_app *app, const char *label, const char *default_text,
                    void (*on_submit)(tui_app *app, const char *text)) {
    tui_prompt_open(app, TUI_PROMPT_ASK, 0, false, label);
    app->prompt.on_submit = on_submit;
    tui_input_set_default(&app->prompt.in, default_text);
}

static bool invertible(tui_prompt_kind k) {
    return k == TUI_PROMPT_FILTER_FIND || k == TUI_PROMPT_FILTER_ADD;
}

static void submit(tui_app *app) {
    app->mode = TUI_MODE_NORMAL;
    switch (app->prompt.kind) {
    case TUI_PROMPT_FIND: tui_explorer_find(app, app->prompt.in.text); break;
    case TUI_PROMPT_FILTER_FIND:
    case TUI_PROMPT_FILTER_ADD: tui_search_submit_filter(app); break;
    case TUI_PROMPT_LIMIT: tui_search_submit_limit(app); break;
    case TUI_PROMPT_REMOVE: tui_search_submit_remove(app); break;
    case TUI_PROMPT_LARGE_ARR: tui_search_submit_large(app); break;
    case TUI_PROMPT_SAVE: tui_save_submit(app); break;
    case TUI_PROMPT_ASK: app->prompt.on_submit(app, app->prompt.in.text); break;
    }
}

void tui_cmd_prompt_accept(tui_app *app, int arg) {
    (void)arg;
    submit(app);
}

void tui_cmd_prompt_cancel(tui_app *app, int arg) {
    (void)arg;
    app->mode = TUI_MODE_NORMAL;
}

void tui_cmd_prompt_invert(tui_app *app, int arg) {
    (void)arg;
    if (invertible(app->prompt.kind))
        app->prompt.invert = !app->prompt.invert;
}

void tui_cmd_prompt_edit(tui_app *app, int arg) {
    (void)arg;
    tui_input_key(&app->prompt.in, app->key);
}

/* The prompt's keys come from the command table; anything else is text. */
void tui_prompt_key(tui_app *app, int key) {
    if (!tui_command_dispatch(app, key))
        tui_input_key(&app->prompt.in, key);
}

void tui_unreadable_note(const query_unreadable *u, char *buf, size_t cap) {
    if (cap == 0)
        return;
    buf[0] = '\0';
    if (u->count)
        snprintf(buf, cap, "; %" PRIu64 " %s could not be read (0x%" PRIx64 ": %s)", u->count,
                 hs_plural(u->count, "closure", "closures"), u->first, u->problem);
}
