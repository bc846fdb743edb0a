/* The debuggee picker: the sockets of running debuggees (and links to
 * them; no other files), newest first, re-read every second so that new
 * ones appear and gone ones vanish; Tab shows the snapshots instead (files
 * and recorded pauses, picker_snaps.c), re-read as often. Enter connects,
 * or opens a snapshot in the explorer; a socket nobody answers on or a
 * file that cannot be read leaves the picker where it was with a message. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "file.h"
#include "keys.h"
#include "picker.h"
#include "target.h"
#include "term.h"
#include "tui_curses.h"
#include "view.h"

#define REFRESH_NS 1000000000LL
#define LIST_Y 3 /* title, tabs, column heads */

static long long since_ns(const struct timespec *t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - t->tv_sec) * 1000000000LL + (now.tv_nsec - t->tv_nsec);
}

static size_t tab_count(const tui_picker *p, int tab) {
    return tab == 0 ? p->debuggees.count : p->snaps.count;
}

static const char *tab_path(const tui_picker *p, int tab, size_t i) {
    return tab == 0 ? p->debuggees.items[i].path : p->snaps.items[i].path;
}

/* The path of the selected entry (a copy, or NULL), to find it again. */
static char *selected_path(const tui_picker *p, int tab) {
    size_t n = tab_count(p, tab);
    return n && p->sel[tab] < n ? strdup(tab_path(p, tab, p->sel[tab])) : NULL;
}

/* Keeps the same entry selected when the list changes under it. */
static void reselect(tui_picker *p, int tab, const char *path) {
    size_t n = tab_count(p, tab);
    if (path) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(tab_path(p, tab, i), path) == 0) {
                p->sel[tab] = i;
                return;
            }
        }
    }
    if (p->sel[tab] >= n)
        p->sel[tab] = n ? n - 1 : 0;
}

/* Only sockets (or links to them) are debuggees: a program's log or any
 * other file in the sockets directory is left out. GHC_DEBUG_SOCKET's
 * entry stays, whatever it is, since the user named it. */
static void keep_sockets(discover_list *l) {
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (l->items[i].is_socket || l->items[i].from_env) {
            l->items[n++] = l->items[i];
        } else {
            free(l->items[i].path);
            free(l->items[i].name);
        }
    }
    l->count = n;
}

void tui_picker_refresh(tui_app *app, bool force) {
    tui_picker *p = &app->picker;
    if (!force && p->refreshed.tv_sec && since_ns(&p->refreshed) < REFRESH_NS)
        return;
    clock_gettime(CLOCK_MONOTONIC, &p->refreshed);
    hs_error err;
    if (discover_socket_dir(p->dir[0], sizeof p->dir[0], &err) != HS_OK)
        p->dir[0][0] = 0;
    if (discover_snapshot_dir(p->dir[1], sizeof p->dir[1], &err) != HS_OK)
        p->dir[1][0] = 0;
    discover_list fresh = {0};
    char *keep = selected_path(p, 0);
    if (discover_sockets(&fresh, &err) == HS_OK) { /* else keep the last list */
        keep_sockets(&fresh);
        discover_list_free(&p->debuggees);
        p->debuggees = fresh;
        reselect(p, 0, keep);
    }
    free(keep);
    keep = selected_path(p, 1);
    if (tui_snaps_refresh(app, &err) == HS_OK)
        reselect(p, 1, keep);
    free(keep);
}

void tui_picker_free(tui_picker *p) {
    discover_list_free(&p->debuggees);
    tui_snaps_free(&p->snaps);
}

static int list_height(void) {
    int h = LINES - LIST_Y - TUI_FOOTER_ROWS;
    return h > 0 ? h : 0;
}

static bool picker_request(tui_app *app, tui_view *v, tui_request req) {
    (void)v;
    tui_picker *p = &app->picker;
    int tab = p->tab;
    size_t n = tab_count(p, tab), page = (size_t)(list_height() > 1 ? list_height() - 1 : 1);
    return tui_list_move(&p->sel[tab], NULL, n, page, req);
}

void tui_cmd_picker_tab(tui_app *app, int arg) {
    (void)arg;
    app->picker.tab = !app->picker.tab;
    tui_picker_refresh(app, true);
}

/* A snapshot opens read-only, straight into its pause. */
static void open_snapshot(tui_app *app, const tui_snap *s) {
    if (!s->ok) {
        tui_app_message(app, TUI_ROLE_ERROR, "%s: %s", s->name, s->why);
        return;
    }
    char name[512];
    snprintf(name, sizeof name, "%s", s->name); /* the refresh below may free s */
    tui_explorer_open_file(app, s->path, name);
    if (!app->sess) /* still the list */
        tui_picker_refresh(app, true);
}

void tui_cmd_picker_open(tui_app *app, int arg) {
    (void)arg;
    tui_picker *p = &app->picker;
    if (tab_count(p, p->tab) == 0)
        return;
    if (p->tab == 1) {
        open_snapshot(app, &p->snaps.items[p->sel[1]]);
        return;
    }
    const discover_entry *e = &p->debuggees.items[p->sel[0]];
    if (!e->is_socket) {
        tui_app_message(app, TUI_ROLE_ERROR, "%s is not a socket (a stale file?)", e->name);
        return;
    }
    tui_progress_begin("connecting");
    hs_error err = {0};
    if (tui_target_connect(app, e->path, &err) != HS_OK) {
        size_t pl = strlen(e->path);
        if (err.status == HS_ERR_CANCELLED)
            tui_app_message(app, TUI_ROLE_INFO, "connecting to %s: cancelled", e->name);
        else if (strncmp(err.message, e->path, pl) == 0) /* the name says it in less room */
            tui_app_message(app, TUI_ROLE_ERROR, "%s%s", e->name, err.message + pl);
        else
            tui_app_message(app, TUI_ROLE_ERROR, "cannot connect to %s: %s", e->name,
                            err.message);
        tui_picker_refresh(app, true);
        return;
    }
    tui_app_message(app, TUI_ROLE_INFO, "connected to %s%s", e->name,
                    session_paused(app->sess) ? ": it is paused (heapscope did not pause it)" : "");
}

/* ---- drawing --------------------------------------------------------- */

static void draw_tabs(tui_picker *p) {
    char t[2][64];
    snprintf(t[0], sizeof t[0], " Debuggees (%zu) ", p->debuggees.count);
    snprintf(t[1], sizeof t[1], " Snapshots (%zu) ", p->snaps.count);
    int x = 1;
    for (int i = 0; i < 2; i++) {
        int attr = i == p->tab ? tui_attr(TUI_ROLE_SELECTED) | (int)A_BOLD
                               : tui_attr(TUI_ROLE_NORMAL);
        x += tui_put(1, x, t[i], COLS - x, attr) + 1;
    }
    tui_put(1, x + 1, "Tab switches", COLS - x - 1, tui_attr(TUI_ROLE_INFO));
}

static void draw_empty(tui_picker *p) {
    int y = LIST_Y + 1, a = tui_attr(TUI_ROLE_INFO);
    char line[700];
    if (p->tab == 0) {
        tui_put(y++, 2, "No debuggees are running.", COLS - 4, tui_attr(TUI_ROLE_NORMAL));
        snprintf(line, sizeof line, "Sockets appear in %s", p->dir[0][0] ? p->dir[0] : "(no home)");
        tui_put(y++, 2, line, COLS - 4, a);
        tui_put(y++, 2, "when a program built with ghc-debug-stub starts; this list follows them.",
                COLS - 4, a);
    } else {
        tui_put(y++, 2, "No snapshots.", COLS - 4, tui_attr(TUI_ROLE_NORMAL));
        snprintf(line, sizeof line, "Snapshot files are kept in %s",
                 p->dir[1][0] ? p->dir[1] : "(no home)");
        tui_put(y++, 2, line, COLS - 4, a);
        char key[32];
        snprintf(line, sizeof line,
                 "(%s in the explorer saves one); the pauses the cache recorded show here too.",
                 tui_command_key("Save snapshot", key, sizeof key));
        tui_put(y++, 2, line, COLS - 4, a);
    }
}

/* Keeps the selection on screen; the first of n rows to draw. */
static size_t first_shown(tui_picker *p, size_t n, size_t h) {
    size_t *top = &p->top[p->tab], sel = p->sel[p->tab];
    if (sel < *top)
        *top = sel;
    if (h && sel >= *top + h)
        *top = sel - h + 1;
    if (*top + h > n)
        *top = n > h ? n - h : 0;
    return *top;
}

static void draw_snapshots(tui_picker *p) {
    tui_snaps_draw_head(2);
    tui_snaps *l = &p->snaps;
    size_t h = (size_t)list_height();
    if (l->cache_why[0] && h > 1) /* the last row says why recorded pauses are missing */
        tui_put(LIST_Y + (int)--h, 2, l->cache_why, COLS - 4, tui_attr(TUI_ROLE_ERROR));
    if (l->count == 0) {
        draw_empty(p);
        return;
    }
    size_t top = first_shown(p, l->count, h);
    for (size_t r = 0; r < h && top + r < l->count; r++)
        tui_snaps_draw_row(&l->items[top + r], LIST_Y + (int)r, top + r == p->sel[1]);
}

static void picker_draw(tui_app *app, tui_view *v, int area_top, int area_bottom) {
    (void)v;
    (void)area_top; /* the list fills the screen below the title */
    (void)area_bottom;
    tui_picker *p = &app->picker;
    draw_tabs(p);
    if (p->tab == 1) {
        draw_snapshots(p);
        return;
    }
    discover_list *l = &p->debuggees;
    int name_w = COLS - 30 > 12 ? COLS - 30 : 12;
    int head = tui_attr(TUI_ROLE_LABEL) | A_BOLD;
    tui_put(2, 2, "NAME", name_w, head);
    tui_put(2, 2 + name_w + 1, "STARTED", COLS - name_w - 3, head);
    if (l->count == 0) {
        draw_empty(p);
        return;
    }
    size_t h = (size_t)list_height(), top = first_shown(p, l->count, h), sel = p->sel[0];
    for (size_t r = 0; r < h && top + r < l->count; r++) {
        const discover_entry *e = &l->items[top + r];
        int y = LIST_Y + (int)r;
        bool is_sel = top + r == sel;
        int attr = is_sel ? tui_attr(TUI_ROLE_SELECTED) : tui_attr(TUI_ROLE_NORMAL);
        tui_fill(y, 0, COLS, attr);
        tui_put(y, 0, is_sel ? ">" : " ", 1, attr);
        char when[64], name[300];
        discover_format_time(e->mtime, when, sizeof when);
        snprintf(name, sizeof name, "%s%s%s", e->name, e->from_env ? "  (GHC_DEBUG_SOCKET)" : "",
                 !e->is_socket ? "  (not a socket)" : "");
        tui_put(y, 2, name, name_w, attr);
        tui_put(y, 2 + name_w + 1, when, COLS - name_w - 3, attr);
    }
}

static void picker_title(tui_app *app, tui_view *v, char *buf, size_t cap) {
    (void)app;
    (void)v;
    snprintf(buf, cap, "heapscope: pick a debuggee");
}

static const tui_hint picker_hints[] = {
    {"Connect", "connect"}, {"Debuggees or snapshots", "snapshots"}, {"Help", "help"},
    {"Command palette", "commands"}, {"Quit", "quit"}, {NULL, NULL}};

static const tui_view_ops picker_ops = {
    .kind = "debuggee list",
    .scope = TUI_SCOPE_PICKER,
    .title = picker_title,
    .draw = picker_draw,
    .request = picker_request,
    .hints = picker_hints,
};

tui_view tui_picker_view = {.ops = &picker_ops};
