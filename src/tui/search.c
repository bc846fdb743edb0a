/* Searches and filters: the prompts that add a filter or start a search,
 * the active filter list (in the order given, which is the order they
 * apply in; ghc-debug lists the newest first), the search limit, and
 * running a retainer search into a new view whose rows are the matches,
 * each opening into its path. The search itself is query/'s. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "explorer.h"
#include "footer.h"
#include "heapscope/plural.h"
#include "search.h"
#include "term.h"
#include "tree_view.h"
#include "view.h"
#include "views.h"

static const char *prompt_text(query_filter_kind k) {
    switch (k) {
    case QUERY_FILTER_ADDRESS: return "address (0x..): ";
    case QUERY_FILTER_INFO: return "info table pointer (0x..): ";
    case QUERY_FILTER_CONSTRUCTOR: return "constructor name (regex): ";
    case QUERY_FILTER_EXACT: return "constructor name (exact): ";
    case QUERY_FILTER_CLOSURE_NAME: return "closure name: ";
    case QUERY_FILTER_ERA: return "era range (<era>/<start-era>-<end-era>): ";
    case QUERY_FILTER_MIN_SIZE: return "closure size (bytes): ";
    case QUERY_FILTER_TYPE: return "closure type: ";
    case QUERY_FILTER_COST_CENTRE: return "CC Id: ";
    default: return "value: ";
    }
}

/* ---- the filter list ------------------------------------------------- */

/* Compiles the specs; they were each checked when added. */
static hs_status rebuild(tui_explorer *ex, hs_error *err) {
    query_filters_free(ex->built);
    ex->built = NULL;
    hs_status st = query_filters_new(&ex->built, err);
    for (size_t i = 0; st == HS_OK && i < ex->n_filters; i++)
        st = query_filters_add(ex->built, ex->filters[i].kind, ex->filters[i].text,
                               ex->filters[i].invert, err);
    if (st != HS_OK) {
        query_filters_free(ex->built);
        ex->built = NULL;
    }
    return st;
}

void tui_filter_describe(const tui_app *app, size_t i, char *buf, size_t cap) {
    const tui_explorer *ex = &app->ex;
    if (ex->built && i < query_filters_count(ex->built))
        query_filters_describe(ex->built, i, buf, cap);
    else
        snprintf(buf, cap, "%s%s %s", ex->filters[i].invert ? "!" : "",
                 query_filter_kind_name(ex->filters[i].kind), ex->filters[i].text);
}

/* A filter that parses and that this debuggee can evaluate. */
static hs_status check(tui_app *app, query_filter_kind kind, const char *text, bool invert,
                       hs_error *err) {
    heap *h = session_heap(app->sess);
    hs_status st = h ? query_filter_usable(kind, h, err) : HS_OK;
    if (st != HS_OK)
        return st;
    query_filters *f;
    st = query_filters_new(&f, err);
    if (st == HS_OK)
        st = query_filters_add(f, kind, text, invert, err);
    query_filters_free(f);
    return st;
}

static void set_filters(tui_app *app, const tui_filter_spec *specs, size_t n) {
    tui_explorer *ex = &app->ex;
    if (n) /* specs may be NULL when clearing (memcpy wants a pointer even for 0) */
        memcpy(ex->filters, specs, n * sizeof *specs);
    ex->n_filters = n;
    hs_error err;
    rebuild(ex, &err);
}

/* A new filter goes last: the list shows the filters in the order they
 * were given, which is the order they apply in (as on the command line). */
static void append(tui_app *app, const tui_filter_spec *spec) {
    tui_explorer *ex = &app->ex;
    if (ex->n_filters == TUI_MAX_FILTERS) {
        tui_app_message(app, TUI_ROLE_ERROR, "at most %d filters", TUI_MAX_FILTERS);
        return;
    }
    ex->filters[ex->n_filters++] = *spec;
    hs_error err;
    rebuild(ex, &err);
    char d[320], key[32];
    tui_filter_describe(app, ex->n_filters - 1, d, sizeof d);
    tui_app_message(app, TUI_ROLE_INFO, "filter added: %s (%s searches with the filters)", d,
                    tui_command_key("Search with filters", key, sizeof key));
}

void tui_cmd_clear_filters(tui_app *app, int arg) {
    (void)arg;
    set_filters(app, NULL, 0);
    tui_app_message(app, TUI_ROLE_INFO, "filters cleared");
}

void tui_cmd_remove_filter(tui_app *app, int arg) {
    (void)arg;
    size_t n = app->ex.n_filters;
    if (n == 0) {
        tui_app_message(app, TUI_ROLE_INFO, "no filters");
    } else if (n == 1) {
        set_filters(app, NULL, 0);
        tui_app_message(app, TUI_ROLE_INFO, "filter removed");
    } else {
        char label[64];
        snprintf(label, sizeof label, "remove filter (1-%zu): ", n);
        tui_prompt_open(app, TUI_PROMPT_REMOVE, 0, false, label);
    }
}

void tui_search_submit_remove(tui_app *app) {
    int64_t i;
    tui_explorer *ex = &app->ex;
    if (!query_parse_int(app->prompt.in.text, &i) || i < 1 || (size_t)i > ex->n_filters) {
        tui_app_message(app, TUI_ROLE_ERROR, "no filter %s", app->prompt.in.text);
        return;
    }
    tui_filter_spec rest[TUI_MAX_FILTERS];
    size_t n = 0;
    for (size_t k = 0; k < ex->n_filters; k++)
        if (k != (size_t)i - 1)
            rest[n++] = ex->filters[k];
    set_filters(app, rest, n);
    tui_app_message(app, TUI_ROLE_INFO, "filter %" PRId64 " removed", i);
}

void tui_cmd_limit(tui_app *app, int arg) {
    (void)arg;
    tui_prompt_open(app, TUI_PROMPT_LIMIT, 0, false, "search result limit (0 for infinity): ");
    char now[32];
    snprintf(now, sizeof now, "%" PRIu64, app->ex.limit);
    tui_input_set_default(&app->prompt.in, now); /* typing replaces it */
}

void tui_search_submit_limit(tui_app *app) {
    int64_t v;
    if (!query_parse_int(app->prompt.in.text, &v)) {
        tui_app_message(app, TUI_ROLE_ERROR, "not a number: the limit stays %" PRIu64,
                        app->ex.limit);
        return;
    }
    app->ex.limit = v <= 0 ? 0 : (uint64_t)v;
    if (app->ex.limit)
        tui_app_message(app, TUI_ROLE_INFO, "searches show at most %" PRIu64 " %s",
                        app->ex.limit, hs_plural(app->ex.limit, "match", "matches"));
    else
        tui_app_message(app, TUI_ROLE_INFO, "searches show every match");
}

/* ---- prompts --------------------------------------------------------- */

void tui_cmd_find_by(tui_app *app, int kind) {
    tui_prompt_open(app, TUI_PROMPT_FILTER_FIND, (query_filter_kind)kind, false,
                    prompt_text((query_filter_kind)kind));
    /* the selected closure's retainers are an Enter away (typing replaces it) */
    tui_view *v = tui_app_view(app);
    uint64_t addr = kind == QUERY_FILTER_ADDRESS && v && v->ops->selected
                        ? v->ops->selected(app, v) : 0;
    if (addr) {
        char text[32];
        snprintf(text, sizeof text, "0x%" PRIx64, addr);
        tui_input_set_default(&app->prompt.in, text);
    }
}

void tui_cmd_add_filter(tui_app *app, int kind) {
    tui_prompt_open(app, TUI_PROMPT_FILTER_ADD, (query_filter_kind)kind, false,
                    prompt_text((query_filter_kind)kind));
}

void tui_cmd_add_exclusion(tui_app *app, int kind) {
    tui_prompt_open(app, TUI_PROMPT_FILTER_ADD, (query_filter_kind)kind, true,
                    prompt_text((query_filter_kind)kind));
}

void tui_cmd_find_large(tui_app *app, int arg) {
    (void)arg;
    tui_prompt_open(app, TUI_PROMPT_LARGE_ARR, QUERY_FILTER_MIN_SIZE, false, "size (bytes)>= ");
}

void tui_cmd_search(tui_app *app, int arg) {
    (void)arg;
    tui_search_run(app, NULL, 0, NULL);
}

static bool lookup_progress(void *ctx, uint64_t visited) {
    return tui_progress(ctx, visited, "closures visited");
}

/* Whether a typed address holds a closure of this pause; says why not when
 * it does not (a stale address must not read as "the debuggee refused").
 * Nothing is asked about the address unless it is one: the official stub
 * crashes the program on a wild address (query_closure_of_pause). */
static bool closure_lives_at(tui_app *app, const char *text) {
    uint64_t addr;
    if (!query_parse_hex_address(text, &addr))
        return true; /* check() already accepted it: let the search say */
    heap *h = session_heap(app->sess);
    heap_closure c = {0};
    hs_error err = {0};
    static const char doing[] = "looking for the address";
    tui_progress_begin(doing);
    hs_status st = query_closure_of_pause(h, addr, lookup_progress, (void *)doing, &err);
    if (st == HS_OK)
        st = heap_decode_named(h, addr, &c, &err);
    heap_closure_free(&c);
    if (st != HS_OK && tui_progress_cancelled())
        err.status = st = HS_ERR_CANCELLED;
    if (st == HS_ERR_NOT_FOUND)
        tui_app_message(app, TUI_ROLE_ERROR, "%s", err.message);
    else if (st != HS_OK)
        tui_app_error(app, "cannot read the address", &err);
    return st == HS_OK;
}

void tui_search_submit_filter(tui_app *app) {
    const tui_prompt *p = &app->prompt;
    tui_filter_spec spec = {.kind = p->filter, .invert = p->invert};
    snprintf(spec.text, sizeof spec.text, "%s", p->in.text);
    hs_error err = {0};
    if (check(app, spec.kind, spec.text, spec.invert, &err) != HS_OK) {
        tui_app_message(app, TUI_ROLE_ERROR, "%s", err.message);
        return;
    }
    if (p->kind == TUI_PROMPT_FILTER_ADD) {
        append(app, &spec);
        return;
    }
    if (spec.kind == QUERY_FILTER_ADDRESS && !spec.invert && !closure_lives_at(app, spec.text))
        return;
    set_filters(app, &spec, 1);
    tui_search_run(app, NULL, 0, NULL);
}

void tui_search_submit_large(tui_app *app) {
    tui_filter_spec specs[2] = {{.kind = QUERY_FILTER_TYPE}, {.kind = QUERY_FILTER_MIN_SIZE}};
    snprintf(specs[0].text, sizeof specs[0].text, "ARR_WORDS");
    snprintf(specs[1].text, sizeof specs[1].text, "%s", app->prompt.in.text);
    hs_error err = {0};
    if (check(app, specs[1].kind, specs[1].text, false, &err) != HS_OK) {
        tui_app_message(app, TUI_ROLE_ERROR, "%s", err.message);
        return;
    }
    set_filters(app, specs, 2);
    tui_search_run(app, NULL, 0, NULL);
}

/* ---- running a search ------------------------------------------------ */

typedef struct search_ctx {
    tui_app *app;
    tui_tree_view *v;
    bool out_of_memory;
} search_ctx;

/* Keeps a match's path (its steps live only during this call). */
static bool on_match(void *ctx, heap *h, const query_match *m) {
    (void)h;
    search_ctx *x = ctx;
    tui_tree_view *v = x->v;
    if (m->n_steps == 0)
        return !tui_progress_poll();
    const char *start = m->from_saved_object ? "Saved Object" : "GC Roots";
    if (!tui_tree_view_add_path(v, m, start, "0")) {
        x->out_of_memory = true;
        return false;
    }
    hs_error err = {0};
    if (v->merged && query_merged_add(tui_merged_ref_tree(v->merged), m, &err) != HS_OK) {
        tui_merged_ref_drop(v->merged); /* the list stays; only the merged paths go */
        v->merged = NULL;
    }
    return !tui_progress_poll();
}

static bool on_progress(void *ctx, uint64_t visited) {
    search_ctx *x = ctx;
    char what[64];
    snprintf(what, sizeof what, "searching (%zu found)", x->v->n_matches);
    return tui_progress(what, visited, "closures visited");
}

void tui_filters_text(const query_filters *f, char *buf, size_t cap) {
    size_t len = 0, n_filters = f ? query_filters_count(f) : 0;
    buf[0] = 0;
    for (size_t i = 0; i < n_filters && len + 1 < cap; i++) {
        char d[320];
        query_filters_describe(f, i, d, sizeof d);
        int n = snprintf(buf + len, cap - len, "%s%s", i ? " AND " : "", d);
        if (n < 0)
            break;
        len += (size_t)n < cap - len ? (size_t)n : cap - len - 1;
    }
    if (n_filters == 0)
        snprintf(buf, cap, "every closure");
}

/* Specs a[0..na) then b[0..nb), compiled and prepared for the paused heap. */
static hs_status filters_of(tui_app *app, const tui_filter_spec *a, size_t na,
                            const tui_filter_spec *b, size_t nb, query_filters **out,
                            hs_error *err) {
    *out = NULL;
    hs_status st = query_filters_new(out, err);
    for (size_t i = 0; st == HS_OK && i < na + nb; i++) {
        const tui_filter_spec *f = i < na ? &a[i] : &b[i - na];
        st = query_filters_add(*out, f->kind, f->long_text ? f->long_text : f->text, f->invert,
                               err);
    }
    if (st == HS_OK)
        st = query_filters_prepare(*out, session_heap(app->sess), err);
    if (st != HS_OK) {
        query_filters_free(*out);
        *out = NULL;
    }
    return st;
}

hs_status tui_filters_ready(tui_app *app, const tui_filter_spec *extra, size_t n_extra,
                            query_filters **out, hs_error *err) {
    return filters_of(app, app->ex.filters, app->ex.n_filters, extra, n_extra, out, err);
}

hs_status tui_filters_of(tui_app *app, const tui_filter_spec *specs, size_t n,
                         query_filters **out, hs_error *err) {
    return filters_of(app, specs, n, NULL, 0, out, err);
}

static bool analysis_progress(void *ctx, uint64_t visited) {
    return tui_progress(ctx, visited, "closures visited");
}

hs_status tui_analysis_run(tui_app *app, const char *name, const char *doing,
                           tui_analysis_fn fn, void *ctx, char *filters_text, size_t cap) {
    hs_error err = {0};
    query_filters *filters;
    hs_status st = tui_filters_ready(app, NULL, 0, &filters, &err);
    if (st == HS_OK) {
        tui_progress_begin(doing);
        st = fn(ctx, session_heap(app->sess), filters, analysis_progress, (void *)doing, &err);
        tui_filters_text(filters, filters_text, cap);
        query_filters_free(filters);
    }
    if (st != HS_OK) {
        if (tui_progress_cancelled())
            err.status = HS_ERR_CANCELLED;
        tui_app_error(app, name, &err);
    }
    return st;
}

void tui_search_run(tui_app *app, const tui_filter_spec *extra, size_t n_extra,
                    const char *title) {
    tui_explorer *ex = &app->ex;
    heap *h = session_heap(app->sess);
    hs_error err = {0};
    query_filters *filters;
    if (tui_filters_ready(app, extra, n_extra, &filters, &err) != HS_OK) {
        tui_app_error(app, "cannot search", &err);
        return;
    }
    search_ctx x = {.app = app, .v = tui_tree_view_new("Nothing matched.")};
    if (x.v)
        x.v->merged = tui_merged_ref_new(); /* NULL: no merged paths, the list still works */
    if (!x.v) {
        query_filters_free(filters);
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    query_search q = {.filters = filters, .limit = ex->limit, .paths = true, .prepared = true,
                      .on_match = on_match, .ctx = &x, .progress = on_progress,
                      .progress_ctx = &x};
    query_search_stats stats;
    tui_progress_begin("searching");
    hs_status st = query_search_run(h, &q, &stats, &err);
    bool cancelled = tui_progress_cancelled();
    if (st != HS_OK && !cancelled) {
        tui_view_free(&x.v->base);
        query_filters_free(filters);
        tui_app_error(app, "search failed", &err);
        return;
    }
    tui_tree_view *v = x.v;
    hs_error merge_err = {0};
    if (v->merged && query_merged_finish(tui_merged_ref_tree(v->merged), &merge_err) != HS_OK) {
        tui_merged_ref_drop(v->merged);
        v->merged = NULL;
    }
    char what[200];
    tui_filters_text(filters, what, sizeof what);
    snprintf(v->base.title, sizeof v->base.title, "%s%s", title ? title : "Retainers of ", what);
    char max[32];
    snprintf(max, sizeof max, "%s", tui_term_caps_get()->utf8 ? "∞" : "inf");
    if (ex->limit)
        snprintf(max, sizeof max, "%" PRIu64, ex->limit);
    /* closures skipped because they could not be read: said after the result */
    const query_unreadable *u = &stats.traversal.unreadable;
    char skipped[HS_ERROR_MESSAGE_MAX + 96] = "";
    if (!cancelled)
        tui_unreadable_note(u, skipped, sizeof skipped);
    snprintf(v->base.summary, sizeof v->base.summary, "%zu items/%s max%s", v->n_matches, max,
             cancelled ? ", cancelled" : x.out_of_memory ? ", out of memory"
                                       : u->count    ? ", some unreadable"
                                                     : "");
    tui_explorer_push(app, &v->base);
    v->sel = 0;
    if (cancelled)
        tui_app_message(app, TUI_ROLE_INFO, "search cancelled: %zu %s so far", v->n_matches,
                        hs_plural(v->n_matches, "match", "matches"));
    else if (v->n_matches == 0 && query_filters_provenance_missing(filters))
        tui_app_message(app, TUI_ROLE_INFO,
                        "nothing matched: no closure looked at has info-table provenance, so "
                        "a closure-name filter cannot match (build the program with "
                        "-finfo-table-map)");
    else if (v->n_matches == 0)
        tui_app_message(app, TUI_ROLE_INFO, "nothing matched (%" PRIu64 " %s visited)%s",
                        stats.traversal.visited,
                        hs_plural(stats.traversal.visited, "closure", "closures"), skipped);
    else {
        char k_merged[32], merged[64] = "", k_retained[32], retained[64] = "";
        if (v->merged)
            snprintf(merged, sizeof merged, ", %s: the paths merged",
                     tui_command_key("Merged paths", k_merged, sizeof k_merged));
        if (!app->ex.dominators) /* computing them is the user's call: it can take a while */
            snprintf(retained, sizeof retained, ", %s: retained sizes",
                     tui_command_key("Retained sizes", k_retained, sizeof k_retained));
        /* the unreadable closures before the hint: on a narrow screen they matter more */
        tui_app_message(app, TUI_ROLE_INFO, "%zu %s%s%s; Enter opens a path%s%s", v->n_matches,
                        hs_plural(v->n_matches, "match", "matches"),
                        stats.limit_reached ? " (the search limit)" : "", skipped, merged,
                        retained);
    }
    query_filters_free(filters);
}
