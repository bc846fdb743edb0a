/* The debuggee picker: the sockets of running debuggees (and links to
 * them; no other files), newest first, re-read every second so that new
 * ones appear and gone ones vanish; Tab shows the snapshot files instead.
 * Enter connects; a socket nobody answers on leaves the picker where it
 * was with a message. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "keys.h"
#include "term.h"
#include "tui_curses.h"

#define REFRESH_NS 1000000000LL
#define LIST_Y 3 /* title, tabs, column heads */

static long long since_ns(const struct timespec *t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - t->tv_sec) * 1000000000LL + (now.tv_nsec - t->tv_nsec);
}

/* Keeps the same entry selected when the list changes under it. */
static void reselect(tui_picker *p, int tab, const char *path) {
    discover_list *l = &p->lists[tab];
    if (path) {
        for (size_t i = 0; i < l->count; i++) {
            if (strcmp(l->items[i].path, path) == 0) {
                p->sel[tab] = i;
                return;
            }
        }
    }
    if (p->sel[tab] >= l->count)
        p->sel[tab] = l->count ? l->count - 1 : 0;
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
    for (int tab = 0; tab < 2; tab++) {
        discover_list fresh = {0};
        hs_status st = tab == 0 ? discover_sockets(&fresh, &err) : discover_snapshots(&fresh, &err);
        if (st != HS_OK)
            continue; /* keep the last list; the directory may come back */
        if (tab == 0)
            keep_sockets(&fresh);
        discover_list *l = &p->lists[tab];
        char *keep = l->count && p->sel[tab] < l->count ? strdup(l->items[p->sel[tab]].path) : NULL;
        discover_list_free(l);
        *l = fresh;
        reselect(p, tab, keep);
        free(keep);
    }
}

void tui_picker_free(tui_picker *p) {
    discover_list_free(&p->lists[0]);
    discover_list_free(&p->lists[1]);
}

static int list_height(void) {
    int h = LINES - LIST_Y - TUI_FOOTER_ROWS;
    return h > 0 ? h : 0;
}

void tui_picker_move(tui_app *app, int how) {
    tui_picker *p = &app->picker;
    int tab = p->tab;
    size_t n = p->lists[tab].count, page = (size_t)(list_height() > 1 ? list_height() - 1 : 1);
    if (n == 0)
        return;
    size_t *s = &p->sel[tab];
    switch (how) {
    case TUI_MOVE_UP: if (*s > 0) (*s)--; break;
    case TUI_MOVE_DOWN: if (*s + 1 < n) (*s)++; break;
    case TUI_MOVE_PAGE_UP: *s = *s > page ? *s - page : 0; break;
    case TUI_MOVE_PAGE_DOWN: *s = *s + page < n ? *s + page : n - 1; break;
    case TUI_MOVE_FIRST: *s = 0; break;
    default: *s = n - 1; break;
    }
}

void tui_cmd_picker_tab(tui_app *app, int arg) {
    (void)arg;
    app->picker.tab = !app->picker.tab;
    tui_picker_refresh(app, true);
}

void tui_cmd_picker_open(tui_app *app, int arg) {
    (void)arg;
    tui_picker *p = &app->picker;
    discover_list *l = &p->lists[p->tab];
    if (l->count == 0)
        return;
    const discover_entry *e = &l->items[p->sel[p->tab]];
    if (p->tab == 1) {
        tui_app_message(app, TUI_ROLE_INFO,
                        "%s: opening snapshots comes with a later version of heapscope", e->name);
        return;
    }
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
    app->screen = TUI_SCREEN_RUNNING;
    tui_app_message(app, TUI_ROLE_INFO, "connected to %s%s", e->name,
                    session_paused(app->sess) ? ": it is paused (heapscope did not pause it)" : "");
}

/* ---- drawing --------------------------------------------------------- */

static void draw_tabs(tui_picker *p) {
    char t[2][64];
    snprintf(t[0], sizeof t[0], " Debuggees (%zu) ", p->lists[0].count);
    snprintf(t[1], sizeof t[1], " Snapshots (%zu) ", p->lists[1].count);
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
    }
}

void tui_picker_draw(tui_app *app) {
    tui_picker *p = &app->picker;
    draw_tabs(p);
    discover_list *l = &p->lists[p->tab];
    int name_w = COLS - 30 > 12 ? COLS - 30 : 12;
    int head = tui_attr(TUI_ROLE_LABEL) | A_BOLD;
    tui_put(2, 2, p->tab == 0 ? "NAME" : "FILE", name_w, head);
    tui_put(2, 2 + name_w + 1, p->tab == 0 ? "STARTED" : "SAVED", COLS - name_w - 3, head);
    if (l->count == 0) {
        draw_empty(p);
        return;
    }
    size_t h = (size_t)list_height(), *top = &p->top[p->tab], sel = p->sel[p->tab];
    if (sel < *top)
        *top = sel;
    if (h && sel >= *top + h)
        *top = sel - h + 1;
    if (*top + h > l->count)
        *top = l->count > h ? l->count - h : 0;
    for (size_t r = 0; r < h && *top + r < l->count; r++) {
        const discover_entry *e = &l->items[*top + r];
        int y = LIST_Y + (int)r;
        bool is_sel = *top + r == sel;
        int attr = is_sel ? tui_attr(TUI_ROLE_SELECTED) : tui_attr(TUI_ROLE_NORMAL);
        tui_fill(y, 0, COLS, attr);
        tui_put(y, 0, is_sel ? ">" : " ", 1, attr);
        char when[64], name[300];
        discover_format_time(e->mtime, when, sizeof when);
        snprintf(name, sizeof name, "%s%s%s", e->name, e->from_env ? "  (GHC_DEBUG_SOCKET)" : "",
                 p->tab == 0 && !e->is_socket ? "  (not a socket)" : "");
        tui_put(y, 2, name, name_w, attr);
        tui_put(y, 2 + name_w + 1, when, COLS - name_w - 3, attr);
    }
}
