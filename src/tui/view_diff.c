/* The diff view: the census buckets (by constructor) that grew or shrank
 * from pause A to the pause on screen (B), grown first, as `heapscope
 * diff A B` lists them. A is a snapshot or recorded pause marked in the
 * picker's Snapshots tab: it is opened beside B only for its census and
 * closed again, so one heap stays in memory. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "explorer.h"
#include "file.h"
#include "heapscope/cache.h"
#include "heapscope/plural.h"
#include "picker.h"
#include "term.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

typedef struct diff_view {
    tui_view base;
    query_census_diff diff;
    size_t sel, top;
    int height;
} diff_view;

/* The snapshot marked in the picker (the diff's A), "" for none. */
static struct {
    char path[4096];
    char name[512];
} marked;

static void diff_free(tui_view *base) {
    diff_view *v = (diff_view *)base;
    query_census_diff_free(&v->diff);
    free(v);
}

static void diff_draw(tui_app *app, tui_view *base, int top, int bottom) {
    (void)app;
    diff_view *v = (diff_view *)base;
    char buf[192];
    snprintf(buf, sizeof buf, "%12s %10s %10s %14s %12s %12s  %s", "Δbytes", "Δcount", "count A",
             "count B", "bytes A", "bytes B", "constructor");
    tui_fill(top, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    tui_put(top++, 1, buf, COLS - 1, tui_attr(TUI_ROLE_LABEL) | A_BOLD);
    v->height = bottom - top > 1 ? bottom - top : 1;
    tui_list_scroll(&v->sel, &v->top, v->diff.n_rows, (size_t)v->height);
    for (int r = 0; r < v->height && v->top + (size_t)r < v->diff.n_rows; r++) {
        size_t i = v->top + (size_t)r;
        const query_census_diff_row *d = &v->diff.rows[i];
        bool sel = i == v->sel;
        int y = top + r, attr = tui_attr(sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
        tui_fill(y, 0, COLS, attr);
        snprintf(buf, sizeof buf,
                 "%+12" PRId64 " %+10" PRId64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64
                 " %12" PRIu64 "  ",
                 d->bytes_delta, d->count_delta, d->count_a, d->count_b, d->bytes_a, d->bytes_b);
        int x = 1 + tui_put(y, 1, buf, COLS - 1,
                            sel ? attr : tui_attr(d->bytes_delta > 0 ? TUI_ROLE_LEAK_EDGE
                                                                     : TUI_ROLE_NORMAL));
        tui_put(y, x, d->key, COLS - x, attr);
    }
    if (v->diff.n_rows == 0)
        tui_put(top + 1, 2, "No bucket changed.", COLS - 4, tui_attr(TUI_ROLE_INFO));
}

static bool diff_row_shows(const void *ctx, size_t i, const char *needle) {
    const diff_view *v = ctx;
    return tui_find_ci(v->diff.rows[i].key, needle) >= 0;
}

static void find_next(tui_app *app, diff_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->diff.n_rows, needle, diff_row_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the diff", needle);
}

static bool diff_request(tui_app *app, tui_view *base, tui_request req) {
    diff_view *v = (diff_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->diff.n_rows, page, req))
        return true;
    if (req == TUI_REQ_FIND_NEXT) {
        find_next(app, v, app->ex.find);
        return true;
    }
    return false;
}

static const tui_hint diff_hints[] = {
    {"Back", "back"}, {"Help", "help"}, {"Command palette", "commands"}, {"Quit", "quit"},
    {NULL, NULL}};

static const tui_view_ops diff_ops = {
    .kind = "diff",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = diff_draw,
    .request = diff_request,
    .hints = diff_hints,
    .free = diff_free,
};

/* ---- computing --------------------------------------------------------- */

static bool on_progress(void *ctx, uint64_t visited) {
    return tui_progress(ctx, visited, "closures visited");
}

static hs_status census_of(heap *h, const char *doing, query_census *out, hs_error *err) {
    query_census_spec spec = {.by = {QUERY_CENSUS_BY_CONSTRUCTOR}, .levels = 1,
                              .progress = on_progress, .progress_ctx = (void *)doing};
    tui_progress_begin(doing);
    return query_census_compute(h, &spec, out, err);
}

/* The census of the snapshot at path, opened read-only and closed again. */
static hs_status census_of_file(tui_app *app, const char *path, query_census *out,
                                hs_error *err) {
    session_options o = {.timeout_ms = app->opts.timeout_ms, .cache = tui_app_cache(app)};
    session *s = NULL;
    tui_progress_begin("opening A");
    hs_status st = session_open(path, &o, &s, err);
    if (st == HS_OK)
        st = session_pause(s, err);
    if (st == HS_OK)
        st = session_read_heap(s, err);
    if (st == HS_OK)
        st = census_of(session_heap(s), "counting A", out, err);
    session_close(s);
    return st;
}

/* Pushes the diff from the snapshot at a_path (named a_name) to the pause on screen. */
static void diff_push(tui_app *app, const char *a_path, const char *a_name) {
    hs_error err = {0};
    query_census a = {0}, b = {0};
    diff_view *v = calloc(1, sizeof *v);
    hs_status st = v ? census_of_file(app, a_path, &a, &err)
                     : hs_fail(&err, HS_ERR_NOMEM, "out of memory");
    if (st == HS_OK)
        st = census_of(session_heap(app->sess), "counting B", &b, &err);
    if (st == HS_OK)
        st = query_census_diff_compute(&a, &b, &v->diff, &err);
    query_census_free(&a);
    query_census_free(&b);
    if (st != HS_OK) {
        if (tui_progress_cancelled())
            err.status = HS_ERR_CANCELLED;
        free(v);
        tui_app_error(app, "diff", &err);
        return;
    }
    v->base.ops = &diff_ops;
    snprintf(v->base.title, sizeof v->base.title, "Diff by constructor from %.200s", a_name);
    snprintf(v->base.summary, sizeof v->base.summary, "%zu changed, %zu unchanged",
             v->diff.n_rows, v->diff.unchanged);
    tui_explorer_push(app, &v->base);
    tui_app_message(app, TUI_ROLE_INFO, "%zu %s changed from %s (grown first), %zu unchanged",
                    v->diff.n_rows, hs_plural(v->diff.n_rows, "bucket", "buckets"), a_name,
                    v->diff.unchanged);
}

/* ---- the previous pause of a live debuggee ---------------------------------- */

/* The pause recorded last before the latest resume (the cache records
 * every pause the explorer reads), and the debuggee it is of. */
static struct {
    char path[4096];
    char target[512];
    int64_t paused_at;
} previous;

void tui_diff_note_resumed(tui_app *app) {
    cache *c = tui_app_cache(app);
    cache_pause_list l = {0};
    hs_error err = {0};
    if (!c || cache_list_pauses(c, &l, &err) != HS_OK)
        return;
    const char *target = session_target(app->sess);
    for (size_t i = 0; i < l.count; i++) /* newest first */
        if (strcmp(l.items[i].target, target) == 0 && strlen(target) < sizeof previous.target) {
            snprintf(previous.path, sizeof previous.path, "%s", l.items[i].file);
            snprintf(previous.target, sizeof previous.target, "%s", target);
            previous.paused_at = l.items[i].paused_at;
            break;
        }
    cache_pause_list_free(&l);
}

void tui_cmd_diff_previous(tui_app *app, int arg) {
    (void)arg;
    if (!previous.path[0] || strcmp(previous.target, session_target(app->sess)) != 0) {
        tui_app_message(app, TUI_ROLE_ERROR,
                        "no recorded pause of this debuggee before the last resume (the cache "
                        "records each pause; resume, then pause again)");
        return;
    }
    char label[96];
    time_t t = (time_t)previous.paused_at;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(label, sizeof label, "the previous pause (%H:%M:%S)", &tm);
    else
        snprintf(label, sizeof label, "the previous pause");
    char path[sizeof previous.path];
    memcpy(path, previous.path, sizeof path);
    diff_push(app, path, label);
}

/* ---- the picker's commands ------------------------------------------------- */

static const tui_snap *selected_snap(tui_app *app) {
    tui_picker *p = &app->picker;
    if (p->tab != 1 || p->snaps.count == 0) {
        tui_app_message(app, TUI_ROLE_ERROR, "select a snapshot first (Tab: the snapshots)");
        return NULL;
    }
    const tui_snap *s = &p->snaps.items[p->sel[1]];
    if (!s->ok) {
        tui_app_message(app, TUI_ROLE_ERROR, "%s: %s", s->name, s->why);
        return NULL;
    }
    return s;
}

void tui_cmd_diff_mark(tui_app *app, int arg) {
    (void)arg;
    const tui_snap *s = selected_snap(app);
    if (!s)
        return;
    if (strlen(s->path) >= sizeof marked.path) {
        tui_app_message(app, TUI_ROLE_ERROR, "its path is too long");
        return;
    }
    snprintf(marked.path, sizeof marked.path, "%s", s->path);
    snprintf(marked.name, sizeof marked.name, "%s", s->name);
    char key[32];
    tui_app_message(app, TUI_ROLE_INFO, "marked %s as A; select B and press %s", s->name,
                    tui_command_key("Diff with the marked snapshot", key, sizeof key));
}

void tui_cmd_diff_open(tui_app *app, int arg) {
    (void)arg;
    if (!marked.path[0]) {
        char key[32];
        tui_app_message(app, TUI_ROLE_ERROR, "mark a snapshot first (%s)",
                        tui_command_key("Mark snapshot for diff", key, sizeof key));
        return;
    }
    const tui_snap *s = selected_snap(app);
    if (!s)
        return;
    char name[512], a_path[sizeof marked.path], a_name[sizeof marked.name];
    snprintf(name, sizeof name, "%s", s->name); /* opening refreshes the list: s may go */
    memcpy(a_path, marked.path, sizeof a_path);
    memcpy(a_name, marked.name, sizeof a_name);
    tui_explorer_open_file(app, s->path, name);
    if (!app->sess || app->ex.n_hist == 0) { /* still the list */
        tui_picker_refresh(app, true);
        return;
    }
    diff_push(app, a_path, a_name);
}
