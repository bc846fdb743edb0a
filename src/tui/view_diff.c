/* The diff view: the census buckets (by constructor, or the keys chosen
 * with b, one or two levels) that grew or shrank from pause A to the pause
 * on screen (B), grown first, then the eras B has and A does not, as
 * `heapscope diff A B --by K` lists them. A is a snapshot or recorded
 * pause marked in the picker's Snapshots tab (or the pause before, P): it
 * is opened beside B only for its census and closed again, so one heap
 * stays in memory. Enter searches B for the retainers of a bucket or of
 * an era's closures. */
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
#include "footer.h"
#include "heapscope/cache.h"
#include "heapscope/plural.h"
#include "picker.h"
#include "search.h"
#include "term.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

typedef enum diff_line_kind {
    LINE_ROW,     /* a changed bucket (row; parent on the second level) */
    LINE_NOTE,    /* "No bucket changed." */
    LINE_ERAS,    /* the heading of the eras B has and A does not */
    LINE_ERA      /* one of them (row: its era in the diff by era) */
} diff_line_kind;

typedef struct diff_line {
    diff_line_kind kind;
    const query_census_diff_row *row, *parent;
} diff_line;

typedef struct diff_view {
    tui_view base;
    query_census_by by[QUERY_CENSUS_MAX_LEVELS];
    size_t levels;
    char a_path[4096], a_name[512]; /* A, to diff again by other keys */
    query_census_diff diff;
    query_census_diff eras;         /* by era, when both sides have eras */
    bool eras_ok;
    char why_no_eras[600];          /* else why not ("A: ...") */
    const query_census_diff_row **new_eras; /* the eras B has and A does not */
    size_t n_new;
    uint64_t new_count, new_bytes;
    diff_line *lines;
    size_t n_lines;
    size_t sel, top;
    int height;
} diff_view;

/* The snapshot marked in the picker (the diff's A), "" for none. */
static struct {
    char path[4096];
    char name[512];
} marked;

/* The keys of the last diff (b), which the next one uses too. */
static char last_by[TUI_INPUT_MAX] = "constructor";

static void diff_free(tui_view *base) {
    diff_view *v = (diff_view *)base;
    query_census_diff_free(&v->diff);
    if (v->eras_ok)
        query_census_diff_free(&v->eras);
    free(v->new_eras);
    free(v->lines);
    free(v);
}

static bool build_lines(diff_view *v) {
    size_t n = v->diff.n_rows + 2 + v->n_new;
    for (size_t i = 0; i < v->diff.n_rows; i++)
        n += v->diff.rows[i].n_children;
    diff_line *l = calloc(n, sizeof *l);
    if (!l)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < v->diff.n_rows; i++) {
        const query_census_diff_row *r = &v->diff.rows[i];
        l[k++] = (diff_line){.kind = LINE_ROW, .row = r};
        for (size_t c = 0; c < r->n_children; c++)
            l[k++] = (diff_line){.kind = LINE_ROW, .row = &r->children[c], .parent = r};
    }
    if (v->diff.n_rows == 0)
        l[k++] = (diff_line){.kind = LINE_NOTE};
    l[k++] = (diff_line){.kind = LINE_ERAS};
    for (size_t i = 0; i < v->n_new; i++)
        l[k++] = (diff_line){.kind = LINE_ERA, .row = v->new_eras[i]};
    v->lines = l;
    v->n_lines = k;
    return true;
}

/* ---- drawing ---------------------------------------------------------- */

static void by_text(const diff_view *v, const char *sep, char *buf, size_t cap) {
    snprintf(buf, cap, "%s%s%s", query_census_by_name(v->by[0]), v->levels > 1 ? sep : "",
             v->levels > 1 ? query_census_by_name(v->by[1]) : "");
}

/* What a line says, apart from a bucket's numbers. */
static void line_text(const diff_view *v, const diff_line *l, char *buf, size_t cap) {
    switch (l->kind) {
    case LINE_ROW: snprintf(buf, cap, "%s%s", l->parent ? "    " : "", l->row->key); break;
    case LINE_NOTE: snprintf(buf, cap, "No bucket changed."); break;
    case LINE_ERA:
        snprintf(buf, cap, "  era %s: %" PRIu64 " %s, %" PRIu64 " bytes", l->row->key,
                 l->row->count_b, hs_plural(l->row->count_b, "closure", "closures"),
                 l->row->bytes_b);
        break;
    case LINE_ERAS:
        if (!v->eras_ok)
            snprintf(buf, cap, "Eras not compared: %s", v->why_no_eras);
        else if (v->n_new == 0)
            snprintf(buf, cap, "Eras B has and A does not: none");
        else
            snprintf(buf, cap, "Eras B has and A does not: %zu, %" PRIu64 " %s, %" PRIu64 " bytes",
                     v->n_new, v->new_count, hs_plural(v->new_count, "closure", "closures"),
                     v->new_bytes);
        break;
    }
}

static void draw_line(const diff_view *v, size_t i, int y) {
    const diff_line *l = &v->lines[i];
    bool sel = i == v->sel;
    int attr = tui_attr(sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
    tui_fill(y, 0, COLS, attr);
    char buf[640];
    int x = 1;
    if (l->kind == LINE_ROW) {
        const query_census_diff_row *d = l->row;
        snprintf(buf, sizeof buf,
                 "%+12" PRId64 " %+10" PRId64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64
                 " %12" PRIu64 "  ",
                 d->bytes_delta, d->count_delta, d->count_a, d->count_b, d->bytes_a, d->bytes_b);
        x += tui_put(y, x, buf, COLS - x,
                     sel ? attr : tui_attr(d->bytes_delta > 0 ? TUI_ROLE_LEAK_EDGE
                                                              : TUI_ROLE_NORMAL));
    }
    line_text(v, l, buf, sizeof buf);
    int role = l->kind == LINE_NOTE ? TUI_ROLE_INFO : TUI_ROLE_NORMAL;
    tui_put(y, x, buf, COLS - x,
            (sel ? attr : tui_attr(role)) | (l->kind == LINE_ERAS ? (int)A_BOLD : 0));
}

static void diff_draw(tui_app *app, tui_view *base, int top, int bottom) {
    (void)app;
    diff_view *v = (diff_view *)base;
    char keys[64], buf[192];
    by_text(v, " / ", keys, sizeof keys);
    snprintf(buf, sizeof buf, "%12s %10s %10s %14s %12s %12s  %s", "Δbytes", "Δcount", "count A",
             "count B", "bytes A", "bytes B", keys);
    tui_fill(top, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    tui_put(top++, 1, buf, COLS - 1, tui_attr(TUI_ROLE_LABEL) | A_BOLD);
    v->height = bottom - top > 1 ? bottom - top : 1;
    tui_list_scroll(&v->sel, &v->top, v->n_lines, (size_t)v->height);
    for (int r = 0; r < v->height && v->top + (size_t)r < v->n_lines; r++)
        draw_line(v, v->top + (size_t)r, top + r);
}

/* ---- requests ----------------------------------------------------------- */

static bool diff_line_shows(const void *ctx, size_t i, const char *needle) {
    const diff_view *v = ctx;
    char text[640];
    line_text(v, &v->lines[i], text, sizeof text);
    return tui_find_ci(text, needle) >= 0;
}

static void find_next(tui_app *app, diff_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->n_lines, needle, diff_line_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the diff", needle);
}

/* Enter: B's closures of the selected bucket, or of the selected era, with their retainers. */
static void retainers(tui_app *app, const diff_view *v) {
    const diff_line *l = v->sel < v->n_lines ? &v->lines[v->sel] : NULL;
    if (l && l->kind == LINE_ROW) {
        tui_census_retainers(app, v->by, l->row->key, l->parent ? l->parent->key : NULL);
    } else if (l && l->kind == LINE_ERA) {
        tui_filter_spec era = {.kind = QUERY_FILTER_ERA};
        snprintf(era.text, sizeof era.text, "%s", l->row->key);
        tui_search_run(app, &era, 1, NULL);
    }
}

static bool diff_request(tui_app *app, tui_view *base, tui_request req) {
    diff_view *v = (diff_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->n_lines, page, req))
        return true;
    switch (req) {
    case TUI_REQ_OPEN: retainers(app, v); return true;
    case TUI_REQ_FIND_NEXT: find_next(app, v, app->ex.find); return true;
    default: return false;
    }
}

static const tui_hint diff_hints[] = {
    {"Expand", "retainers"}, {"Diff by", "keys"}, {"Back", "back"}, {"Help", "help"},
    {"Command palette", "commands"}, {"Quit", "quit"}, {NULL, NULL}};

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

/* One side counted: by the view's keys, and by era when it has eras. */
typedef struct side {
    query_census census, eras;
    bool eras_ok;
    char why[512];
} side;

static void side_free(side *s) {
    query_census_free(&s->census);
    if (s->eras_ok)
        query_census_free(&s->eras);
}

static hs_status count_side(heap *h, const diff_view *v, const char *doing, side *out,
                            hs_error *err) {
    query_census_spec spec = {.levels = v->levels, .progress = on_progress,
                              .progress_ctx = (void *)doing};
    memcpy(spec.by, v->by, v->levels * sizeof *v->by);
    tui_progress_begin(doing);
    return query_census_and_eras(h, &spec, &out->census, &out->eras, &out->eras_ok, out->why,
                                 sizeof out->why, err);
}

/* The census of the snapshot at path, opened read-only and closed again. */
static hs_status count_file(tui_app *app, const diff_view *v, side *out, hs_error *err) {
    session_options o = {.timeout_ms = app->opts.timeout_ms, .cache = tui_app_cache(app)};
    session *s = NULL;
    tui_progress_begin("opening A");
    hs_status st = session_open(v->a_path, &o, &s, err);
    if (st == HS_OK)
        st = session_pause(s, err);
    if (st == HS_OK)
        st = session_read_heap(s, err);
    if (st == HS_OK)
        st = count_side(session_heap(s), v, "counting A", out, err);
    session_close(s);
    return st;
}

/* The eras B has and A does not, from both sides' censuses by era. */
static hs_status compare_eras(diff_view *v, const side *a, const side *b, hs_error *err) {
    if (!a->eras_ok || !b->eras_ok) {
        snprintf(v->why_no_eras, sizeof v->why_no_eras, "%s: %s", a->eras_ok ? "B" : "A",
                 a->eras_ok ? b->why : a->why);
        return HS_OK;
    }
    hs_status st = query_census_diff_compute(&a->eras, &b->eras, &v->eras, err);
    if (st != HS_OK)
        return st;
    v->eras_ok = true;
    v->new_eras = query_census_diff_new_eras(&v->eras, &v->n_new);
    if (!v->new_eras)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < v->n_new; i++) {
        v->new_count += v->new_eras[i]->count_b;
        v->new_bytes += v->new_eras[i]->bytes_b;
    }
    return HS_OK;
}

static hs_status compute(tui_app *app, diff_view *v, hs_error *err) {
    side a = {0}, b = {0};
    hs_status st = count_file(app, v, &a, err);
    if (st == HS_OK)
        st = count_side(session_heap(app->sess), v, "counting B", &b, err);
    if (st == HS_OK)
        st = query_census_diff_compute(&a.census, &b.census, &v->diff, err);
    if (st == HS_OK)
        st = compare_eras(v, &a, &b, err);
    if (st == HS_OK && !build_lines(v))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    side_free(&a);
    side_free(&b);
    return st;
}

/* Pushes the diff from the snapshot at a_path (named a_name) to the pause
 * on screen, by the census keys keys ("A" or "A,B"), which the next diffs
 * keep once it succeeded. */
static void diff_push(tui_app *app, const char *a_path, const char *a_name, const char *keys) {
    hs_error err = {0};
    diff_view *v = calloc(1, sizeof *v);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    v->base.ops = &diff_ops;
    snprintf(v->a_path, sizeof v->a_path, "%s", a_path);
    snprintf(v->a_name, sizeof v->a_name, "%s", a_name);
    if (!tui_census_parse_by(app, keys, v->by, &v->levels)) {
        diff_free(&v->base);
        return;
    }
    hs_status st = compute(app, v, &err);
    if (st != HS_OK) {
        if (tui_progress_cancelled())
            err.status = HS_ERR_CANCELLED;
        diff_free(&v->base);
        tui_app_error(app, "diff", &err);
        return;
    }
    if (keys != last_by) /* a census by era of a heap without eras is not kept */
        snprintf(last_by, sizeof last_by, "%s", keys);
    char by[64], k_by[32], eras[96];
    by_text(v, ", ", by, sizeof by);
    if (!v->eras_ok)
        snprintf(eras, sizeof eras, "eras not compared");
    else
        snprintf(eras, sizeof eras, "%zu new %s", v->n_new, hs_plural(v->n_new, "era", "eras"));
    snprintf(v->base.title, sizeof v->base.title, "Diff by %.40s from %.200s", by, a_name);
    snprintf(v->base.summary, sizeof v->base.summary, "%zu changed, %zu unchanged",
             v->diff.n_rows, v->diff.unchanged);
    tui_explorer_push(app, &v->base);
    tui_app_message(app, TUI_ROLE_INFO,
                    "%zu %s changed from %s (grown first), %zu unchanged; %s; %s: other keys",
                    v->diff.n_rows, hs_plural(v->diff.n_rows, "bucket", "buckets"), a_name,
                    v->diff.unchanged, eras, tui_command_key("Diff by", k_by, sizeof k_by));
}

static void by_submitted(tui_app *app, const char *text) {
    tui_view *cur = tui_app_view(app);
    if (cur->ops != &diff_ops)
        return;
    const diff_view *old = (const diff_view *)cur;
    char a_path[sizeof old->a_path], a_name[sizeof old->a_name];
    memcpy(a_path, old->a_path, sizeof a_path);
    memcpy(a_name, old->a_name, sizeof a_name);
    char keys[TUI_INPUT_MAX]; /* the prompt's text: what the diff keeps, not where it was typed */
    snprintf(keys, sizeof keys, "%s", text);
    diff_push(app, a_path, a_name, keys);
}

void tui_cmd_diff_by(tui_app *app, int arg) {
    (void)arg;
    if (tui_app_view(app)->ops != &diff_ops) {
        char mark[32], prev[32];
        tui_app_message(app, TUI_ROLE_ERROR,
                        "not in a diff view (%s in the Snapshots tab, or %s after a pause, opens one)",
                        tui_command_key("Diff with the marked snapshot", mark, sizeof mark),
                        tui_command_key("Diff with the previous pause", prev, sizeof prev));
        return;
    }
    tui_prompt_ask(app, "diff by (A or A,B): ", last_by, by_submitted);
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
    diff_push(app, path, label, last_by);
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
    diff_push(app, a_path, a_name, last_by);
}
