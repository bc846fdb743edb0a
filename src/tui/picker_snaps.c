/* The picker's Snapshots tab: snapshot files (ghc-debug's snapshot
 * directory and the directories given) and the pauses the cache recorded,
 * newest first by the time of their pause, with program, closures and
 * size. Finding the files is discover's job and reading what they hold the
 * store's and the cache's; here they are put together, kept between
 * refreshes (a file is looked into again only when it changed) and drawn.
 * A file that cannot be read is listed, dimmed, with the reason. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "draw.h"
#include "heapscope/grow.h"
#include "heapscope/size.h"
#include "picker.h"
#include "tui_curses.h"

static void snap_free(tui_snap *s) {
    free(s->path);
    free(s->name);
}

void tui_snaps_free(tui_snaps *l) {
    for (size_t i = 0; i < l->count; i++)
        snap_free(&l->items[i]);
    free(l->items);
    for (size_t i = 0; i < l->n_dirs; i++)
        free(l->dirs[i]);
    free(l->dirs);
    *l = (tui_snaps){0};
}

void tui_snaps_add_dir(tui_snaps *l, const char *dir) {
    for (size_t i = 0; i < l->n_dirs; i++)
        if (strcmp(l->dirs[i], dir) == 0)
            return;
    char **grown = realloc(l->dirs, (l->n_dirs + 1) * sizeof *grown);
    if (!grown)
        return; /* the directory is not listed: nothing else is lost */
    l->dirs = grown;
    if ((l->dirs[l->n_dirs] = strdup(dir)))
        l->n_dirs++;
}

/* The run's cache (tui_app_cache); when it cannot be opened, the tab says
 * why and lists the files alone. */
static cache *the_cache(tui_app *app) {
    cache *c = tui_app_cache(app);
    tui_snaps *l = &app->picker.snaps;
    if (!c && app->cache_error[0])
        snprintf(l->cache_why, sizeof l->cache_why, "recorded pauses not shown: %s",
                 app->cache_error);
    return c;
}

/* What the last refresh learnt of this very file (same path, time, size). */
static const tui_snap *known(const tui_snaps *old, const discover_entry *e) {
    for (size_t i = 0; i < old->count; i++) {
        const tui_snap *s = &old->items[i];
        if (s->kind != TUI_SNAP_RECORDED && strcmp(s->path, e->path) == 0 &&
            s->mtime == e->mtime && s->mtime_ns == e->mtime_ns && s->size == e->size)
            return s;
    }
    return NULL;
}

static bool add_row(tui_snaps *l, size_t *cap, const tui_snap *row) {
    if (!hs_grow((void **)&l->items, cap, l->count + 1, sizeof *l->items))
        return false;
    l->items[l->count++] = *row;
    return true;
}

/* A file's row: from the last refresh when unchanged, else described. */
static void file_row(const tui_snaps *old, const discover_entry *e, tui_snap *s) {
    const tui_snap *was = known(old, e);
    if (was) {
        *s = *was;
        s->path = s->name = NULL;
        if (s->kind == TUI_SNAP_GHCDEBUG) /* its copy in the cache is looked for again */
            s->closures_known = false;
    } else {
        store_file_info info;
        store_file_describe(e->path, &info);
        bool ours = info.kind == STORE_FILE_HEAPSCOPE;
        *s = (tui_snap){.kind = info.kind == STORE_FILE_GHCDEBUG ? TUI_SNAP_GHCDEBUG
                                                                 : TUI_SNAP_FILE,
                        .ok = info.ok, .when = info.meta.paused_at,
                        .closures = info.meta.closures, .closures_known = info.ok && ours,
                        .size = e->size, .mtime = e->mtime, .mtime_ns = e->mtime_ns};
        snprintf(s->program, sizeof s->program, "%s", info.meta.program);
        snprintf(s->why, sizeof s->why, "%s", info.why);
    }
    if (!s->when)
        s->when = e->mtime; /* no time of the pause: the file's */
    s->path = strdup(e->path);
    s->name = strdup(e->name);
}

/* A ghc-debug snapshot opened before has a converted copy in the cache:
 * its closures are known, and the copy is not listed a second time. */
static void adopt_copies(tui_snaps *l, size_t files, cache_pause_list *pauses, bool *taken) {
    for (size_t i = 0; i < files; i++) {
        tui_snap *s = &l->items[i];
        char real[PATH_MAX];
        if (s->kind != TUI_SNAP_GHCDEBUG || !realpath(s->path, real))
            continue;
        for (size_t k = 0; k < pauses->count; k++) {
            if (taken[k] || !cache_pause_converts(&pauses->items[k], real, s->mtime))
                continue;
            taken[k] = true;
            s->closures = pauses->items[k].closures;
            s->closures_known = true;
        }
    }
}

static void pause_row(const cache_pause *p, tui_snap *s) {
    char name[64] = "recorded pause";
    if (p->pid)
        snprintf(name, sizeof name, "recorded pause (pid %" PRId64 ")", p->pid);
    *s = (tui_snap){.kind = TUI_SNAP_RECORDED, .ok = true, .when = p->paused_at,
                    .closures = p->closures, .closures_known = true, .size = p->file_bytes};
    snprintf(s->program, sizeof s->program, "%s", p->program);
    s->path = strdup(p->file);
    s->name = strdup(name);
}

/* Newest first; equal times by name so that the order is stable. */
static int newest_first(const void *pa, const void *pb) {
    const tui_snap *a = pa, *b = pb;
    if (a->when != b->when)
        return a->when < b->when ? 1 : -1;
    return strcmp(a->name, b->name);
}

hs_status tui_snaps_refresh(tui_app *app, hs_error *err) {
    tui_snaps *l = &app->picker.snaps;
    discover_list files;
    hs_status st =
        discover_snapshot_files((const char *const *)l->dirs, l->n_dirs, &files, err);
    if (st != HS_OK)
        return st;
    tui_snaps fresh = {0};
    size_t cap = 0;
    for (size_t i = 0; i < files.count && st == HS_OK; i++) {
        tui_snap s;
        file_row(l, &files.items[i], &s);
        if (!s.path || !s.name || !add_row(&fresh, &cap, &s)) {
            snap_free(&s);
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory listing snapshots");
        }
    }
    discover_list_free(&files);
    cache_pause_list pauses = {0};
    cache *c = the_cache(app);
    hs_error cache_err = {0};
    if (st == HS_OK && c && cache_list_pauses(c, &pauses, &cache_err) != HS_OK)
        snprintf(l->cache_why, sizeof l->cache_why, "recorded pauses not shown: %s",
                 cache_err.message);
    bool *taken = pauses.count ? calloc(pauses.count, sizeof *taken) : NULL;
    if (taken || !pauses.count)
        adopt_copies(&fresh, fresh.count, &pauses, taken);
    for (size_t k = 0; k < pauses.count && taken && st == HS_OK; k++) {
        tui_snap s;
        if (taken[k])
            continue;
        pause_row(&pauses.items[k], &s);
        if (!s.path || !s.name || !add_row(&fresh, &cap, &s)) {
            snap_free(&s);
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory listing snapshots");
        }
    }
    free(taken);
    cache_pause_list_free(&pauses);
    if (st != HS_OK) {
        for (size_t i = 0; i < fresh.count; i++)
            snap_free(&fresh.items[i]);
        free(fresh.items);
        return st;
    }
    if (fresh.count > 1)
        qsort(fresh.items, fresh.count, sizeof *fresh.items, newest_first);
    for (size_t i = 0; i < l->count; i++)
        snap_free(&l->items[i]);
    free(l->items);
    l->items = fresh.items;
    l->count = fresh.count;
    return HS_OK;
}

/* ---- drawing --------------------------------------------------------- */

/* The columns after the name; on a narrow terminal some are left out, the
 * program first (the name often says it), the time last but the closures
 * (the name keeps at least NAME_MIN columns). */
enum { COL_PROGRAM, COL_PAUSED, COL_CLOSURES, COL_SIZE, N_COLS };
static const struct {
    const char *head;
    int width;
    bool right; /* numbers align right */
} cols[N_COLS] = {
    [COL_PROGRAM] = {"PROGRAM", 18, false},
    [COL_PAUSED] = {"PAUSED", 19, false}, /* 2026-11-23 20:01:23 */
    [COL_CLOSURES] = {"CLOSURES", 10, true},
    [COL_SIZE] = {"SIZE", 10, true},
};
static const int drop_order[N_COLS] = {COL_PROGRAM, COL_SIZE, COL_PAUSED, COL_CLOSURES};
#define NAME_MIN 16

/* Which columns fit; returns the width left for the name. */
static int layout(bool shown[N_COLS]) {
    int used = 2 + NAME_MIN;
    for (int c = 0; c < N_COLS; c++) {
        shown[c] = true;
        used += cols[c].width + 1;
    }
    for (int i = 0; i < N_COLS && used > COLS; i++) {
        shown[drop_order[i]] = false;
        used -= cols[drop_order[i]].width + 1;
    }
    return NAME_MIN + (COLS > used ? COLS - used : 0);
}

/* Draws the shown columns' texts from x on. */
static void put_cols(int y, int x, const bool shown[N_COLS], char text[N_COLS][256], int attr) {
    for (int c = 0; c < N_COLS; c++) {
        if (!shown[c])
            continue;
        int w = tui_text_cols(text[c], strlen(text[c]));
        int pad = cols[c].right && w < cols[c].width ? cols[c].width - w : 0;
        tui_put(y, x + pad, text[c], cols[c].width, attr);
        x += cols[c].width + 1;
    }
}

void tui_snaps_draw_head(int y) {
    bool shown[N_COLS];
    int nw = layout(shown), head = tui_attr(TUI_ROLE_LABEL) | A_BOLD;
    char text[N_COLS][256];
    for (int c = 0; c < N_COLS; c++)
        snprintf(text[c], sizeof text[c], "%s", cols[c].head);
    tui_put(y, 2, "FILE", nw - 1, head);
    put_cols(y, 2 + nw, shown, text, head);
}

void tui_snaps_draw_row(const tui_snap *s, int y, bool selected) {
    int attr = selected ? tui_attr(TUI_ROLE_SELECTED)
               : s->ok  ? tui_attr(TUI_ROLE_NORMAL)
                        : tui_attr(TUI_ROLE_DISABLED);
    if (!s->ok && !selected)
        attr |= A_DIM;
    tui_fill(y, 0, COLS, attr);
    tui_put(y, 0, selected ? ">" : " ", 1, attr);
    bool shown[N_COLS];
    int nw = layout(shown), x = 2 + nw;
    tui_put(y, 2, s->name, nw - 1, attr);
    if (!s->ok) { /* the reason takes the place of the columns */
        tui_put(y, x, s->why, COLS - x, attr);
        return;
    }
    char text[N_COLS][256];
    snprintf(text[COL_PROGRAM], sizeof text[0], "%s",
             s->program[0]                  ? s->program
             : s->kind == TUI_SNAP_GHCDEBUG ? "(ghc-debug)"
                                            : "?");
    time_t t = (time_t)s->when;
    struct tm tm;
    if (!localtime_r(&t, &tm) ||
        !strftime(text[COL_PAUSED], sizeof text[0], "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(text[COL_PAUSED], sizeof text[0], "?");
    if (s->closures_known)
        snprintf(text[COL_CLOSURES], sizeof text[0], "%" PRIu64, s->closures);
    else
        snprintf(text[COL_CLOSURES], sizeof text[0], "?");
    hs_size_format(s->size, text[COL_SIZE], sizeof text[0]);
    put_cols(y, x, shown, text, attr);
}
