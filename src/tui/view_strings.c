/* The strings view: the values of the reachable byte arrays, Text,
 * ByteString and String (:)/C# lists that pass the active filters, grouped
 * by value with their copies, heap bytes and the bytes wasted by the
 * duplicates, sortable by each column. Enter runs the retainer search of
 * exactly one value (a value filter) as a new view; Dump shows the bytes
 * of the row's first array. The grouping is query/'s. */
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

enum { COL_WASTED, COL_BYTES, COL_COUNT, COL_LENGTH, COL_VALUE, N_COLS };
static const char *const col_names[N_COLS] = {"wasted", "bytes", "count", "length", "value"};
#define NUM_COLS 40  /* wasted, bytes, count, length: 11 + 11 + 8 + 10 */
#define KIND_COLS 18 /* "ARR_WORDS,Text,..." is cut here */

typedef struct strings_view {
    tui_view base;
    query_strings strings;
    int column;
    size_t sel, top;
    int height;
} strings_view;

static void strings_free(tui_view *base) {
    strings_view *v = (strings_view *)base;
    query_strings_free(&v->strings);
    free(v);
}

/* ---- sorting: every number descending, values ascending, ties by value --- */

static int by_value(const query_strings_row *a, const query_strings_row *b) {
    size_t n = a->value_len < b->value_len ? (size_t)a->value_len : (size_t)b->value_len;
    int c = n ? memcmp(a->value, b->value, n) : 0;
    return c ? c : (a->value_len > b->value_len) - (a->value_len < b->value_len);
}

#define NUMBER_ORDER(name, field)                                                              \
    static int name(const void *x, const void *y) {                                            \
        const query_strings_row *a = x, *b = y;                                                \
        if (a->field != b->field)                                                              \
            return a->field < b->field ? 1 : -1;                                               \
        return by_value(a, b);                                                                 \
    }
NUMBER_ORDER(order_wasted, wasted)
NUMBER_ORDER(order_bytes, bytes)
NUMBER_ORDER(order_count, count)
NUMBER_ORDER(order_length, value_len)
static int order_value(const void *x, const void *y) { return by_value(x, y); }

static int (*const orders[N_COLS])(const void *, const void *) = {
    order_wasted, order_bytes, order_count, order_length, order_value};

/* ---- drawing -------------------------------------------------------------- */

static void draw_head(const strings_view *v, int y) {
    static const int widths[] = {11, 11, 8, 10};
    const char *mark = tui_term_caps_get()->utf8 ? (v->column == COL_VALUE ? "▲" : "▼")
                                                 : (v->column == COL_VALUE ? "^" : "v");
    int attr = tui_attr(TUI_ROLE_LABEL) | A_BOLD;
    tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_NORMAL));
    char label[48];
    int x = 1;
    for (int i = 0; i < COL_VALUE; i++) {
        snprintf(label, sizeof label, "%s%s", v->column == i ? mark : "", col_names[i]);
        int w = tui_text_cols(label, strlen(label));
        tui_put(y, x + widths[i] - w, label, w, attr);
        x += widths[i];
    }
    tui_put(y, x + 2, "kind", KIND_COLS, attr);
    snprintf(label, sizeof label, "%s%s", v->column == COL_VALUE ? mark : "", "value");
    tui_put(y, x + 2 + KIND_COLS, label, COLS - x - 2 - KIND_COLS, attr);
}

static void draw_row(const strings_view *v, size_t i, int y) {
    const query_strings_row *r = &v->strings.rows[i];
    int base = tui_attr(i == v->sel ? TUI_ROLE_SELECTED : TUI_ROLE_NORMAL);
    tui_fill(y, 0, COLS, base);
    char buf[128];
    snprintf(buf, sizeof buf, "%11" PRIu64 "%11" PRIu64 "%8" PRIu64 "%10" PRIu64, r->wasted,
             r->bytes, r->count, r->value_len);
    int x = 1 + tui_put(y, 1, buf, COLS - 1, base) + 2;
    query_strings_kinds_text(r->kinds, buf, sizeof buf);
    tui_put(y, x, buf, KIND_COLS - 1, i == v->sel ? base : tui_attr(TUI_ROLE_TYPE));
    x += KIND_COLS;
    if (x >= COLS)
        return;
    char text[1024]; /* as much of the value as a screen line holds */
    query_strings_escape(r->value, (size_t)r->value_len, text, sizeof text);
    tui_put(y, x, text, COLS - x, base);
}

static void strings_draw(tui_app *app, tui_view *base, int top, int bottom) {
    strings_view *v = (strings_view *)base;
    if (app->ex.n_filters > 0 && bottom - top > 3)
        tui_filters_draw(app, top++);
    draw_head(v, top++);
    v->height = bottom - top > 1 ? bottom - top : 1;
    size_t n = v->strings.n_rows;
    tui_list_scroll(&v->sel, &v->top, n, (size_t)v->height);
    for (int i = 0; i < v->height && v->top + (size_t)i < n; i++)
        draw_row(v, v->top + (size_t)i, top + i);
    if (n == 0)
        tui_put(top + 1, 2, "No strings or byte arrays.", COLS - 4, tui_attr(TUI_ROLE_INFO));
}

/* ---- requests -------------------------------------------------------------- */

static void retainers(tui_app *app, strings_view *v) {
    if (v->sel >= v->strings.n_rows)
        return;
    const query_strings_row *r = &v->strings.rows[v->sel];
    char *text = query_strings_escape_all(r->value, (size_t)r->value_len);
    if (!text) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    tui_filter_spec spec = {.kind = QUERY_FILTER_VALUE, .long_text = text};
    tui_search_run(app, &spec, 1, NULL);
    free(text);
}

static bool strings_row_shows(const void *ctx, size_t i, const char *needle) {
    const query_strings_row *r = &((const strings_view *)ctx)->strings.rows[i];
    char text[1024];
    query_strings_escape(r->value, (size_t)r->value_len, text, sizeof text);
    return tui_find_ci(text, needle) >= 0;
}

static void find_next(tui_app *app, strings_view *v, const char *needle) {
    if (!tui_list_find(&v->sel, v->strings.n_rows, needle, strings_row_shows, v))
        tui_app_message(app, TUI_ROLE_ERROR, "'%s' is not among the values", needle);
}

/* Sorts by the next column, keeping the selected row. */
static void sort_next(tui_app *app, strings_view *v) {
    v->column = (v->column + 1) % N_COLS;
    query_strings_row *rows = v->strings.rows;
    const uint8_t *selected = v->sel < v->strings.n_rows ? rows[v->sel].value : NULL;
    qsort(rows, v->strings.n_rows, sizeof *rows, orders[v->column]);
    for (size_t i = 0; selected && i < v->strings.n_rows; i++)
        if (rows[i].value == selected)
            v->sel = i;
    tui_app_message(app, TUI_ROLE_INFO, "sorted by %s", col_names[v->column]);
}

static bool strings_request(tui_app *app, tui_view *base, tui_request req) {
    strings_view *v = (strings_view *)base;
    size_t page = v->height > 1 ? (size_t)v->height - 1 : 1;
    if (tui_list_move(&v->sel, &v->top, v->strings.n_rows, page, req))
        return true;
    switch (req) {
    case TUI_REQ_OPEN: retainers(app, v); return true;
    case TUI_REQ_FIND_NEXT: find_next(app, v, app->ex.find); return true;
    case TUI_REQ_SORT: sort_next(app, v); return true;
    default: return false;
    }
}

/* A row's first byte array (a String has none). */
static uint64_t strings_selected(tui_app *app, tui_view *base) {
    (void)app;
    strings_view *v = (strings_view *)base;
    return v->sel < v->strings.n_rows ? v->strings.rows[v->sel].first_array : 0;
}

static const tui_hint strings_hints[] = {
    {"Expand", "retainers"}, {"Sort", "sort"}, {"Dump byte array", "dump"},
    {"Back", "back"}, {"Help", "help"}, {"Command palette", "commands"}, {"Quit", "quit"},
    {NULL, NULL}};

static const tui_view_ops strings_ops = {
    .kind = "strings",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = strings_draw,
    .request = strings_request,
    .selected = strings_selected,
    .hints = strings_hints,
    .free = strings_free,
};

/* ---- opening ----------------------------------------------------------------- */

static hs_status group(void *ctx, heap *h, query_filters *filters, query_progress_fn progress,
                       void *progress_ctx, hs_error *err) {
    strings_view *v = ctx;
    query_strings_spec spec = {.filters = filters, .prepared = true, .progress = progress,
                               .progress_ctx = progress_ctx};
    return query_strings_run(h, &spec, &v->strings, err);
}

void tui_cmd_strings(tui_app *app, int arg) {
    (void)arg;
    strings_view *v = calloc(1, sizeof *v);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    v->base.ops = &strings_ops;
    char what[200];
    if (tui_analysis_run(app, "strings", "grouping strings", group, v, what, sizeof what) !=
        HS_OK) {
        strings_free(&v->base);
        return;
    }
    const query_strings *s = &v->strings;
    snprintf(v->base.title, sizeof v->base.title, "Strings and byte arrays of %s", what);
    snprintf(v->base.summary, sizeof v->base.summary, "%zu %s, %" PRIu64 " bytes wasted",
             s->n_rows, hs_plural(s->n_rows, "value", "values"), s->total_wasted);
    tui_explorer_push(app, &v->base);
    char k_sort[32], k_dump[32];
    tui_app_message(app, TUI_ROLE_INFO,
                    "%" PRIu64 " %s of %zu %s, %" PRIu64 " bytes wasted by duplicates; Enter: "
                    "retainers of a value, %s: sort, %s: dump",
                    s->total_count, hs_plural(s->total_count, "copy", "copies"), s->n_rows,
                    hs_plural(s->n_rows, "value", "values"), s->total_wasted,
                    tui_command_key("Sort", k_sort, sizeof k_sort),
                    tui_command_key("Dump byte array", k_dump, sizeof k_dump));
}
