/* Snapshot files in the explorer: opening one (from the picker's Snapshots
 * tab, or as TARGET) straight into its pause, read-only; and saving the
 * pause on screen into one (Ctrl-X, as in ghc-debug's UI), live or a copy
 * of the snapshot being looked at.
 *
 * Saving asks for a name, pre-filled with PROGRAM-YYYYMMDD-HHMMSS (the
 * time of the pause); a bare name goes into ghc-debug's snapshot directory
 * (created when missing), a name with a slash is a path. An existing file
 * is replaced only after a y. The store writes atomically, so Esc during
 * the write leaves no file, and the old one when replacing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app.h"
#include "explorer.h"
#include "file.h"
#include "footer.h"
#include "heapscope/cache.h"
#include "heapscope/size.h"
#include "heapscope/store.h"
#include "keys.h"
#include "picker.h"
#include "target.h"
#include "term.h"
#include "view.h"

/* ---- opening ---------------------------------------------------------- */

/* When the pause in a file was taken: its meta table says; a ghc-debug
 * snapshot does not, and its file's time stands for it. */
static int64_t file_paused_at(const session *s) {
    const store_meta *m = session_snapshot_meta(s);
    struct stat sb;
    if (m && m->paused_at)
        return m->paused_at;
    return stat(session_target(s), &sb) == 0 ? (int64_t)sb.st_mtime : 0;
}

void tui_explorer_show_file(tui_app *app, const char *name) {
    hs_error err = {0};
    tui_progress_begin("reading the snapshot");
    hs_status st = tui_target_pause(app, &err);
    if (st == HS_OK)
        st = tui_explorer_open(app, &err);
    if (st != HS_OK) {
        tui_target_close(app, false);
        tui_app_go_picker(app);
        tui_app_message(app, TUI_ROLE_ERROR, "cannot open %s: %s", name, err.message);
        return;
    }
    app->ex.paused_at = file_paused_at(app->sess);
    tui_app_message(app, TUI_ROLE_INFO, "%s: a snapshot, read-only: %s", name,
                    tui_app_view(app)->summary);
}

void tui_explorer_open_file(tui_app *app, const char *path, const char *name) {
    tui_progress_begin("opening the snapshot");
    hs_error err = {0};
    if (tui_target_connect(app, path, &err) != HS_OK) {
        tui_app_message(app, TUI_ROLE_ERROR, "cannot open %s: %s", name, err.message);
        return;
    }
    tui_explorer_show_file(app, name);
}

/* ---- saving ------------------------------------------------------------ */

/* What the file says of the pause: a copy keeps where and when it was
 * taken; a live pause is named after its program (the executable the
 * cache knows, else the socket's name). */
static void pause_meta(tui_app *app, store_meta *m) {
    const session *s = app->sess;
    const store_meta *own = session_snapshot_meta(s);
    if (own) {
        *m = *own;
        return;
    }
    const cache_link *link = session_cache_link(s);
    cache_link no_link = {0};
    cache_link_meta(link ? link : &no_link, session_target(s), m);
    if (!session_caps_of(s).live) /* a ghc-debug snapshot: no pid, no program */
        *m = (store_meta){0};
    snprintf(m->target, sizeof m->target, "%s", session_target(s));
    m->paused_at = app->ex.paused_at;
}

/* PROGRAM-YYYYMMDD-HHMMSS in local time, with only characters that need
 * no quoting in a file name. */
static void default_name(const store_meta *m, const char *target, char *buf, size_t cap) {
    const char *prog = m->program;
    if (!prog[0]) {
        const char *slash = strrchr(target, '/');
        prog = slash && slash[1] ? slash + 1 : target;
    }
    char clean[64];
    size_t n = 0;
    for (const char *s = prog; *s && n + 1 < sizeof clean; s++)
        clean[n++] = (strchr("._+-", *s) || (*s >= '0' && *s <= '9') ||
                      ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z'))
                         ? *s
                         : '_';
    clean[n] = 0;
    time_t t = (time_t)(m->paused_at ? m->paused_at : time(NULL));
    struct tm tm;
    char when[32] = "";
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
    snprintf(buf, cap, "%s-%s", n && clean[0] != '.' ? clean : "heap", when);
}

void tui_cmd_save(tui_app *app, int arg) {
    (void)arg;
    store_meta m;
    pause_meta(app, &m);
    char name[256];
    default_name(&m, session_target(app->sess), name, sizeof name);
    tui_prompt_open(app, TUI_PROMPT_SAVE, 0, false, "Save snapshot as: ");
    tui_input_set_default(&app->prompt.in, name); /* typing replaces it */
}

/* mkdir -p for the snapshot directory. */
static hs_status make_dirs(const char *dir, hs_error *err) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return hs_fail(err, HS_ERR_TOO_LARGE, "directory path too long: %s", dir);
    for (char *s = path + 1;; s++) {
        bool end = *s == 0;
        if (*s != '/' && !end)
            continue;
        *s = 0;
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return hs_fail(err, HS_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        if (end)
            return HS_OK;
        *s = '/';
    }
}

/* Where a typed name goes: a path as typed (~/ is the home directory), a
 * bare name into the snapshot directory. */
static hs_status resolve(const char *typed, char *path, size_t cap, hs_error *err) {
    const char *home = getenv("HOME");
    int n;
    if (strchr(typed, '/')) {
        if (typed[0] == '~' && typed[1] == '/' && home && home[0])
            n = snprintf(path, cap, "%s%s", home, typed + 1);
        else
            n = snprintf(path, cap, "%s", typed);
    } else {
        char dir[4096];
        hs_status st = discover_snapshot_dir(dir, sizeof dir, err);
        if (st == HS_OK && !dir[0])
            st = hs_fail(err, HS_ERR_USAGE, "no home directory for the snapshot directory: "
                                            "give a path (with a /)");
        if (st == HS_OK)
            st = make_dirs(dir, err);
        if (st != HS_OK)
            return st;
        n = snprintf(path, cap, "%s/%s", dir, typed);
    }
    if (n < 0 || (size_t)n >= cap)
        return hs_fail(err, HS_ERR_TOO_LARGE, "the file name is too long");
    return HS_OK;
}

static bool save_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    (void)ctx;
    char what[96];
    snprintf(what, sizeof what, "saving the snapshot (%s)", phase);
    return total ? tui_progress(what, 100 * done / total, "%") : tui_progress(what, done, "");
}

static void saved(tui_app *app, const char *path) {
    store_file_info info;
    store_file_describe(path, &info);
    struct stat sb;
    char size[32] = "?";
    if (stat(path, &sb) == 0)
        hs_size_format((uint64_t)sb.st_size, size, sizeof size);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? path + (slash - dir) + 1 : path;
    if (slash && slash != dir)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
    /* the name first: a long directory wraps at the end of the message */
    tui_app_message(app, TUI_ROLE_INFO, "saved %s: %" PRIu64 " closures, %s, in %s", name,
                    info.meta.closures, size, dir);
    tui_snaps_add_dir(&app->picker.snaps, dir); /* listed in the Snapshots tab from now on */
}

static void write_file(tui_app *app, const char *path, bool replace) {
    store_meta m;
    pause_meta(app, &m);
    store_write_options o = {.replace = replace, .progress = save_progress};
    hs_error err = {0};
    tui_progress_begin("saving the snapshot");
    if (store_snapshot_write(session_heap(app->sess), path, &m, &o, &err) == HS_OK) {
        saved(app, path);
        return;
    }
    bool cancelled = err.status == HS_ERR_CANCELLED || tui_progress_cancelled();
    if (cancelled)
        err.status = HS_ERR_CANCELLED; /* the store says "cancelled" as a usage error */
    tui_app_error(app, cancelled ? "saving the snapshot" : "cannot save", &err);
    if (cancelled && app->ex.n_hist)
        tui_app_message(app, TUI_ROLE_INFO, "saving cancelled: no file was written");
}

void tui_save_submit(tui_app *app) {
    const char *typed = app->prompt.in.text;
    if (!typed[0]) {
        tui_app_message(app, TUI_ROLE_INFO, "no name given: nothing saved");
        return;
    }
    hs_error err = {0};
    if (resolve(typed, app->save_path, sizeof app->save_path, &err) != HS_OK) {
        tui_app_error(app, "cannot save", &err);
        return;
    }
    struct stat sb;
    if (lstat(app->save_path, &sb) == 0) { /* ask first */
        app->mode = TUI_MODE_REPLACE_ASK;
        return;
    }
    write_file(app, app->save_path, false);
}

void tui_save_answer(tui_app *app, int key) {
    if (key == 'y' || key == 'Y') {
        app->mode = TUI_MODE_NORMAL;
        write_file(app, app->save_path, true);
    } else if (key == 'n' || key == 'N' || key == TUI_KEY_ESC || key == TUI_CTRL('c')) {
        app->mode = TUI_MODE_NORMAL;
        tui_app_message(app, TUI_ROLE_INFO, "not saved: %s is left as it was", app->save_path);
    }
}
