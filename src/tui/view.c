/* Dispatch to the current view, and the list movement every view with a
 * selection shares. */
#include "view.h"

#include <stdlib.h>

#include "app.h"

tui_view *tui_app_view(tui_app *app) {
    if (app->ex.n_hist)
        return app->ex.hist[app->ex.pos];
    return app->sess ? &tui_running_view : &tui_picker_view;
}

void tui_view_request(tui_app *app, tui_request req) {
    tui_view *v = tui_app_view(app);
    if (!v->ops->request || !v->ops->request(app, v, req))
        tui_app_message(app, TUI_ROLE_INFO, "not in a %s view", v->ops->kind);
}

void tui_cmd_request(tui_app *app, int req) { tui_view_request(app, (tui_request)req); }

void tui_view_free(tui_view *v) {
    if (v && v->ops->free)
        v->ops->free(v);
}

void tui_list_scroll(size_t *sel, size_t *top, size_t n, size_t height) {
    if (height == 0)
        height = 1;
    if (*sel >= n)
        *sel = n ? n - 1 : 0;
    if (*sel < *top)
        *top = *sel;
    if (*sel >= *top + height)
        *top = *sel - height + 1;
    if (*top + height > n)
        *top = n > height ? n - height : 0;
}

bool tui_list_move(size_t *sel, size_t *top, size_t n, size_t page, tui_request req) {
    if (req > TUI_REQ_LAST)
        return false;
    if (n == 0)
        return true;
    switch (req) {
    case TUI_REQ_UP: if (*sel > 0) (*sel)--; break;
    case TUI_REQ_DOWN: if (*sel + 1 < n) (*sel)++; break;
    case TUI_REQ_PAGE_UP:
        *sel = *sel > page ? *sel - page : 0;
        if (top) /* the page turns with the selection */
            *top = *top > page ? *top - page : 0;
        break;
    case TUI_REQ_PAGE_DOWN:
        *sel = *sel + page < n ? *sel + page : n - 1;
        if (top)
            *top += page;
        break;
    case TUI_REQ_FIRST: *sel = 0; break;
    default: *sel = n - 1; break;
    }
    return true;
}

bool tui_list_find(size_t *sel, size_t n, const char *needle, tui_list_shows_fn shows,
                   const void *ctx) {
    for (size_t k = 1; k <= n; k++) {
        size_t i = (*sel + k) % n;
        if (shows(ctx, i, needle)) {
            *sel = i;
            return true;
        }
    }
    return false;
}
