/* The census view: the reachable closures that pass the active filters,
 * counted by one or two keys (type, constructor, source, closure name,
 * era, cost centre, thunk) with count, bytes, max and average columns,
 * sortable by each, and a bar of each row's share. Two levels list each
 * first-level row with its second-level rows under it. Once the pause's
 * dominator tree exists (R, or sorting by retained computes it), a
 * retained column: the bytes a first-level row's closures keep alive
 * together (query_census_retained, as census --retained). Enter runs the
 * retainer search of exactly the selected row's closures (the active
 * filters and one bucket filter per level) as a new view. The thunks
 * view is the census by thunk. The counting is query/'s. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "heapscope/plural.h"
#include "search.h"
#include "term.h"
#include "tree_view.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

#define BAR_COLS 10
#define RETAINED_COLS 14
#define DEFAULT_BY "constructor"

/* One line on screen: a first-level row, or a second-level row under parent. */
typedef struct census_line {
    const query_census_row *row;
    const query_census_row *parent; /* NULL on the first level */
} census_line;

typedef struct census_view {
    tui_view base;
    query_census census;
    query_census_by by[QUERY_CENSUS_MAX_LEVELS];
    size_t levels;
    query_census_column column;
    bool descending;
    census_line *lines;
    size_t n_lines;
    size_t sel, top;
    int height;
    tui_app *app;
    /* the filters it counted with: the retained sizes, later, count the same closures */
    tui_filter_spec filters[TUI_MAX_FILTERS];
    size_t n_filters;
    bool retained;       /* the rows have their retained bytes */
    uint64_t heap_bytes; /* the dominator tree's: the whole of a retained share */
} census_view;

static void census_free(tui_view *base) {
    census_view *v = (census_view *)base;
    query_census_free(&v->census);
    free(v->lines);
    free(v);
}

static bool build_lines(census_view *v) {
    size_t n = v->census.n_rows;
    for (size_t i = 0; i < v->census.n_rows; i++)
        n += v->census.rows[i].n_children;
    census_line *lines = calloc(n ? n : 1, sizeof *lines);
    if (!lines)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < v->census.n_rows; i++) {
        const query_census_row *r = &v->census.rows[i];
        lines[k++] = (census_line){.row = r};
        for (size_t c = 0; c < r->n_children; c++)
            lines[k++] = (census_line){.row = &r->children[c], .parent = r};
    }
    free(v->lines);
    v->lines = lines;
    v->n_lines = k;
    return true;
}

/* ---- drawing ---------------------------------------------------------- */

/* A line's share of the whole: of the closures when sorted by count, of
 * the heap's bytes its first-level row keeps alive when sorted by
 * retained, else of the bytes. */
static double share(const census_view *v, const census_line *l) {
    const query_census_row *r = l->row;
    uint64_t total = v->census.total_bytes, part = r->bytes;
    if (v->column == QUERY_CENSUS_COL_COUNT)
        total = v->census.total_count, part = r->count;
    else if (v->column == QUERY_CENSUS_COL_RETAINED && !l->parent)
        total = v->heap_bytes, part = r->retained;
    return total ? (double)part / (double)total : 0;
}

static void draw_head(const census_view *v, int y) {
    static const query_census_column cols[] = {QUERY_CENSUS_COL_COUNT, QUERY_CENSUS_COL_BYTES,
                                               QUERY_CENSUS_COL_MAX, QUERY_CENSUS_COL_AVG,
                                               QUERY_CENSUS_COL_RETAINED};
    static const int widths[] = {11, 11, 10, 10, RETAINED_COLS};
    bool utf8 = tui_term_caps_get()->utf8;
    const char *mark = v->descending ? (utf8 ? "▼" : "v") : (utf8 ? "▲" : "^");
    int attr = tui_attr(TUI_ROLE_LABEL) | A_BOLD;
    tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    tui_put(y, 1, "share", BAR_COLS + 8, attr);
    int x = 1 + BAR_COLS + 8;
    char label[48];
    size_t n_cols = sizeof cols / sizeof *cols - (v->retained ? 0 : 1);
    for (size_t i = 0; i < n_cols; i++) {
        snprintf(label, sizeof label, "%s%s", v->column == cols[i] ? mark : "",
                 query_census_column_name(cols[i]));
        int w = tui_text_cols(label, strlen(label));
        tui_put(y, x + widths[i] - w, label, w, attr);
        x += widths[i];
    }
    char keys[96];
    snprintf(keys, sizeof keys, "  %s%s%s%s", v->column == QUERY_CENSUS_COL_KEY ? mark : "",
             query_census_by_name(v->by[0]), v->levels > 1 ? " / " : "",
             v->levels > 1 ? query_census_by_name(v->by[1]) : "");
    tui_put(y, x, keys, COLS - x, attr);
}

static void draw_line(const census_view *v, size_t i, int y) {
    const census_line *l = &v->lines[i];
    const query_census_row *r = l->row;
    bool sel = i == v->sel;
    int base = tui_attr(sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
    tui_fill(y, 0, COLS, base);
    double s = share(v, l);
    int cells = (int)(s * BAR_COLS + 0.5);
    const char *full = tui_term_caps_get()->utf8 ? "█" : "#";
    for (int c = 0; c < cells && c < BAR_COLS; c++)
        tui_put(y, 1 + c, full, 1, sel ? base : tui_attr(TUI_ROLE_TYPE));
    char buf[96];
    snprintf(buf, sizeof buf, "%6.1f%%", s * 100);
    tui_put(y, 1 + BAR_COLS + 1, buf, 7, base);
    snprintf(buf, sizeof buf, "%11" PRIu64 "%11" PRIu64 "%10" PRIu64 "%10" PRIu64, r->count,
             r->bytes, r->max, r->count ? r->bytes / r->count : 0);
    int x = 1 + BAR_COLS + 8;
    x += tui_put(y, x, buf, COLS - x, base);
    if (v->retained && !l->parent) /* the first level's: children have none */
        snprintf(buf, sizeof buf, "%*" PRIu64, RETAINED_COLS, r->retained);
    else
        snprintf(buf, sizeof buf, "%*s", v->retained ? RETAINED_COLS : 0, "");
    x += tui_put(y, x, buf, COLS - x, base);
    x += tui_put(y, x, l->parent ? "      " : "  ", COLS - x, base);
    int key_attr = l->parent || v->levels == 1 ? base : base | (int)A_BOLD;
    tui_put(y, x, r->key, COLS - x, key_attr);
}

static void census_draw(tui_app *app, tui_view *base, int top, int bottom) {
    census_view *v = (census_view *)base;
    if (app->ex.n_filters > 0 && bottom - top > 3)
        tui_filters_draw(app, top++);
    draw_head(v, top++);
    v->height = bottom - top > 1 ? bottom - top : 1;
    tui_list_scroll(&v->sel, &v->top, v->n_lines, (size_t)v->height);
    for (int i = 0; i < v->height && v->top + (size_t)i < v->n_lines; i++)
        draw_line(v, v->top + (size_t)i, top + i);
    if (v->n_lines == 0)
        tui_put(top + 1, 2, "Nothing counted.", COLS - 4, tui_attr(TUI_ROLE_INFO));
}

/* ---- requests ----------------------------------------------------------- */

/* A bucket filter matching exactly the closures whose key under by is key. */
static bool bucket(query_census_by by, const char *key, tui_filter_spec *out) {
    *out = (tui_filter_spec){.kind = QUERY_FILTER_BUCKET};
    int n = snprintf(out->text, sizeof out->text, "%s=%s", query_census_by_name(by), key);
    return n > 0 && (size_t)n < sizeof out->text;
}

void tui_census_retainers(tui_app *app, const query_census_by *by, const char *key,
                          const char *parent_key) {
    tui_filter_spec specs[QUERY_CENSUS_MAX_LEVELS];
    size_t n = parent_key ? 2 : 1;
    bool fits = bucket(by[n - 1], key, &specs[n - 1]);
    if (parent_key)
        fits = bucket(by[0], parent_key, &specs[0]) && fits;
    if (!fits) {
        tui_app_message(app, TUI_ROLE_ERROR, "the row's key is too long for a bucket filter");
        return;
    }
    tui_search_run(app, specs, n, NULL);
}

static void retainers(tui_app *app, census_view *v) {
    if (v->sel >= v->n_lines)
        return;
    const census_line *l = &v->lines[v->sel];
    tui_census_retainers(app, v->by, l->row->key, l->parent ? l->parent->key : NULL);
}

static bool census_line_shows(const void *ctx, size_t i, const char *needle) {
    const census_view *v = ctx;
    return tui_find_ci(v->lines[i].row->key, needle) >= 0;
}

static void find_next(tui_app *app, census_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->n_lines, needle, census_line_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not in the census", needle);
}

static bool retained_progress(void *ctx, uint64_t visited) {
    (void)ctx;
    return tui_progress("retained sizes", visited, "closures visited");
}

/* Each first-level row's retained bytes, the dominator tree computed
 * first when the pause has none (both show progress; Esc cancels).
 * filters: the view's, prepared, or NULL to compile them again. */
static hs_status add_retained(tui_app *app, census_view *v, query_filters *filters,
                              hs_error *err) {
    query_filters *own = NULL;
    hs_status st = tui_dominators_compute(app, err);
    if (st == HS_OK && !filters) {
        st = tui_filters_of(app, v->filters, v->n_filters, &own, err);
        filters = own;
    }
    if (st == HS_OK) {
        query_census_spec spec = {.levels = v->levels, .filters = filters, .prepared = true,
                                  .progress = retained_progress};
        memcpy(spec.by, v->by, v->levels * sizeof *v->by);
        tui_progress_begin("retained sizes");
        st = query_census_retained(session_heap(app->sess), app->ex.dominators, &spec,
                                   &v->census, err);
    }
    query_filters_free(own);
    if (st != HS_OK && tui_progress_cancelled())
        err->status = HS_ERR_CANCELLED;
    if (st == HS_OK) {
        query_dominators_info info;
        query_dominators_stats(app->ex.dominators, &info);
        v->heap_bytes = info.bytes;
        v->retained = true;
    }
    return st;
}

/* Sorts by the next column (bytes, count, max, avg, key, retained),
 * keeping the selected row. Retained sizes are computed when first
 * needed; cancelled, the sort goes on to bytes. */
static void sort_next(tui_app *app, census_view *v) {
    static const query_census_column order[] = {QUERY_CENSUS_COL_BYTES, QUERY_CENSUS_COL_COUNT,
                                                QUERY_CENSUS_COL_MAX, QUERY_CENSUS_COL_AVG,
                                                QUERY_CENSUS_COL_KEY, QUERY_CENSUS_COL_RETAINED};
    size_t n = sizeof order / sizeof *order, at = 0;
    while (at < n && order[at] != v->column)
        at++;
    v->column = order[(at + 1) % n];
    hs_error err = {0};
    bool failed = v->column == QUERY_CENSUS_COL_RETAINED && !v->retained &&
                  add_retained(app, v, NULL, &err) != HS_OK;
    if (failed)
        v->column = order[0];
    v->descending = v->column != QUERY_CENSUS_COL_KEY;
    /* sorting moves the rows, not their keys' text: the key pointer finds the row again */
    const char *key = NULL, *parent = NULL; /* (second-level keys may be one text) */
    if (v->sel < v->n_lines) {
        key = v->lines[v->sel].row->key;
        parent = v->lines[v->sel].parent ? v->lines[v->sel].parent->key : NULL;
    }
    query_census_sort(&v->census, v->column, v->descending);
    if (!build_lines(v)) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    for (size_t i = 0; key && i < v->n_lines; i++) {
        const census_line *l = &v->lines[i];
        if (l->row->key == key && (l->parent ? l->parent->key : NULL) == parent)
            v->sel = i;
    }
    if (failed) /* "sorted by bytes; retained sizes: cancelled" */
        tui_app_error(app, "sorted by bytes; retained sizes", &err);
    else
        tui_app_message(app, TUI_ROLE_INFO, "sorted by %s",
                        query_census_column_name(v->column));
}

/* R: the pause's dominator tree is there now; the column follows. */
static void show_retained(tui_app *app, census_view *v) {
    hs_error err = {0};
    if (!v->retained && add_retained(app, v, NULL, &err) != HS_OK) {
        tui_app_error(app, "retained sizes", &err);
        return;
    }
    char k_sort[32];
    tui_app_message(app, TUI_ROLE_INFO,
                    "retained: the bytes each row's closures keep alive together; %s sorts",
                    tui_command_key("Sort", k_sort, sizeof k_sort));
}

static bool census_request(tui_app *app, tui_view *base, tui_request req) {
    census_view *v = (census_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->n_lines, page, req))
        return true;
    switch (req) {
    case TUI_REQ_OPEN: retainers(app, v); return true;
    case TUI_REQ_CLOSE: /* to the first-level row above */
    case TUI_REQ_CLOSE_ALL:
        while (v->sel > 0 && v->sel < v->n_lines && v->lines[v->sel].parent)
            v->sel--;
        return true;
    case TUI_REQ_FIND_NEXT: find_next(app, v, app->ex.find); return true;
    case TUI_REQ_SORT: sort_next(app, v); return true;
    case TUI_REQ_RETAINED: show_retained(app, v); return true;
    default: return false;
    }
}

static const tui_hint census_hints[] = {
    {"Expand", "retainers"}, {"Sort", "sort"}, {"Census", "census"}, {"Back", "back"},
    {"Help", "help"}, {"Command palette", "commands"}, {"Quit", "quit"}, {NULL, NULL}};

static const tui_view_ops census_ops = {
    .kind = "census",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = census_draw,
    .request = census_request,
    .hints = census_hints,
    .free = census_free,
};

/* ---- opening ------------------------------------------------------------ */

static hs_status count(void *ctx, heap *h, query_filters *filters, query_progress_fn progress,
                       void *progress_ctx, hs_error *err) {
    census_view *v = ctx;
    query_census_spec spec = {.levels = v->levels, .filters = filters, .prepared = true,
                              .progress = progress, .progress_ctx = progress_ctx};
    memcpy(spec.by, v->by, v->levels * sizeof *v->by);
    hs_status st = query_census_compute(h, &spec, &v->census, err);
    hs_error ignored = {0}; /* without them the census stands: R or s try again */
    if (st == HS_OK && v->app->ex.dominators && add_retained(v->app, v, filters, &ignored) != HS_OK)
        tui_progress_reset(); /* an Esc that stopped them leaves the census */
    if (st == HS_OK && !build_lines(v))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return st;
}

/* Counts into a new view and shows it; what is wrong goes to the footer. */
static void census_open(tui_app *app, const query_census_by *by, size_t levels,
                        const char *name) {
    hs_error err = {0};
    for (size_t i = 0; i < levels; i++)
        if (query_census_by_usable(by[i], session_heap(app->sess), &err) != HS_OK) {
            tui_app_message(app, TUI_ROLE_ERROR, "%s", err.message);
            return;
        }
    census_view *v = calloc(1, sizeof *v);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    v->base.ops = &census_ops;
    v->app = app;
    memcpy(v->filters, app->ex.filters, app->ex.n_filters * sizeof *v->filters);
    v->n_filters = app->ex.n_filters;
    memcpy(v->by, by, levels * sizeof *by);
    v->levels = levels;
    v->column = QUERY_CENSUS_COL_BYTES;
    v->descending = true;
    char what[200];
    if (tui_analysis_run(app, "census", "counting", count, v, what, sizeof what) != HS_OK) {
        census_free(&v->base);
        return;
    }
    char by_text[64];
    if (levels == 1 && by[0] == QUERY_CENSUS_BY_THUNK) /* the key says it all */
        snprintf(by_text, sizeof by_text, "source location");
    else
        snprintf(by_text, sizeof by_text, "%s%s%s", query_census_by_name(by[0]),
                 levels > 1 ? ", " : "", levels > 1 ? query_census_by_name(by[1]) : "");
    int n = snprintf(v->base.title, sizeof v->base.title, "%s by %s of ", name, by_text);
    if (n > 0 && (size_t)n < sizeof v->base.title) /* the filters, as much as fits */
        snprintf(v->base.title + n, sizeof v->base.title - (size_t)n, "%.*s",
                 (int)(sizeof v->base.title - (size_t)n - 1), what);
    snprintf(v->base.summary, sizeof v->base.summary, "%zu %s, %" PRIu64 " %s",
             v->census.n_rows, hs_plural(v->census.n_rows, "row", "rows"), v->census.total_count,
             hs_plural(v->census.total_count, "closure", "closures"));
    tui_explorer_push(app, &v->base);
    char k_sort[32], k_retained[32], retained[64] = "";
    if (!v->retained)
        snprintf(retained, sizeof retained, ", %s: retained sizes",
                 tui_command_key("Retained sizes", k_retained, sizeof k_retained));
    char skipped[HS_ERROR_MESSAGE_MAX + 96];
    tui_unreadable_note(&v->census.unreadable, skipped, sizeof skipped);
    tui_app_message(app, TUI_ROLE_INFO,
                    "%" PRIu64 " %s, %" PRIu64 " bytes; Enter: retainers of a row, %s: sort%s%s",
                    v->census.total_count, hs_plural(v->census.total_count, "closure", "closures"),
                    v->census.total_bytes, tui_command_key("Sort", k_sort, sizeof k_sort),
                    retained, skipped);
}

/* "constructor" or "constructor,era" (spaces allowed) into by[]. */
static bool parse_by(const char *text, query_census_by *by, size_t *levels, char *why,
                     size_t cap) {
    char copy[TUI_INPUT_MAX];
    snprintf(copy, sizeof copy, "%s", text);
    *levels = 0;
    char *save = NULL;
    for (char *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        if (*levels == QUERY_CENSUS_MAX_LEVELS) {
            snprintf(why, cap, "a census has at most %d levels", QUERY_CENSUS_MAX_LEVELS);
            return false;
        }
        if (!query_census_by_from_name(w, &by[(*levels)++])) {
            snprintf(why, cap,
                     "census by '%s'? type, constructor, source, closure-name, era, cost-centre "
                     "or thunk, and optionally a second one after a comma",
                     w);
            return false;
        }
    }
    if (*levels == 0)
        snprintf(why, cap, "no key: nothing counted");
    return *levels > 0;
}

bool tui_census_parse_by(tui_app *app, const char *text, query_census_by *by, size_t *levels) {
    char why[256];
    bool ok = parse_by(text, by, levels, why, sizeof why);
    if (!ok)
        tui_app_message(app, TUI_ROLE_ERROR, "%s", why);
    return ok;
}

static char last_by[TUI_INPUT_MAX] = DEFAULT_BY;

static void by_submitted(tui_app *app, const char *text) {
    query_census_by by[QUERY_CENSUS_MAX_LEVELS];
    size_t levels;
    if (!tui_census_parse_by(app, text, by, &levels))
        return;
    snprintf(last_by, sizeof last_by, "%s", text);
    census_open(app, by, levels, "Census");
}

void tui_cmd_census(tui_app *app, int arg) {
    (void)arg;
    tui_prompt_ask(app, "census by (A or A,B): ", last_by, by_submitted);
}

void tui_cmd_thunks(tui_app *app, int arg) {
    (void)arg;
    query_census_by by = QUERY_CENSUS_BY_THUNK;
    census_open(app, &by, 1, "Thunks");
}
