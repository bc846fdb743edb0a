/* The state of the running UI and what its parts call on each other
 * (private to src/tui). One app owns one current screen: the debuggee
 * picker, or the explorer of a connected debuggee (running or paused);
 * prompts and overlays sit on top of the screen and take the keys. */
#ifndef HEAPSCOPE_TUI_APP_H
#define HEAPSCOPE_TUI_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "heapscope/cache.h"
#include "heapscope/discover.h"
#include "heapscope/heap.h"
#include "heapscope/query.h"
#include "heapscope/session.h"
#include "heapscope/tui.h"
#include "heapscope/u64map.h"
#include "heapscope/wire.h"
#include "input.h"
#include "tree.h"
#include "tree_view.h"
#include "view.h"

typedef struct tui_app tui_app;

typedef enum tui_mode {
    TUI_MODE_NORMAL,
    TUI_MODE_PROMPT,   /* the footer's input line */
    TUI_MODE_HELP,     /* the ? overlay */
    TUI_MODE_PALETTE,  /* the Ctrl-P overlay */
    TUI_MODE_QUIT_ASK, /* q while paused: resume first? */
    TUI_MODE_REPLACE_ASK /* Ctrl-X onto an existing file: replace it? */
} tui_mode;

/* ---- target.c: the explorer's TARGET, over the session module ---- */

/* The last part of a path (a socket's or a file's name), for titles. */
const char *tui_base_name(const char *path);

/* Connects, asks the debuggee's version and whether it is paused (or opens
 * a snapshot file) into app->sess. Unlike ghc-debug's UI it does not send
 * RESUME: a debuggee another session left paused stays paused until the
 * user says otherwise. Every wait shows the spinner; Esc cancels. */
hs_status tui_target_connect(tui_app *app, const char *target, hs_error *err);
/* Pauses (unless it is paused already) and reads the heap with progress;
 * Esc cancels, and a debuggee this pause stopped is resumed again. A
 * snapshot file shows its pause. */
hs_status tui_target_pause(tui_app *app, hs_error *err);
hs_status tui_target_resume(tui_app *app, hs_error *err);
/* After a request was cut short (Esc, a timeout): connects again to the
 * same target and asks whether the debuggee is still paused (if so the
 * heap stays valid; if not, it is dropped). */
hs_status tui_target_revive(tui_app *app, hs_error *err);
/* Drops the heap and disconnects (app->sess becomes NULL); with
 * give_ours_back, a debuggee we paused is resumed first (even over a new
 * connection). */
void tui_target_close(tui_app *app, bool give_ours_back);

/* The cache of the whole run (the explorer's answers and recordings, the
 * Snapshots tab's recorded pauses), opened the first time it is wanted;
 * NULL with --no-cache, or when it cannot be opened (cache_error says why,
 * and the footer once). */
cache *tui_app_cache(tui_app *app);

/* ---- record.c: each pause recorded into the cache, beside the UI ---- */

/* True while the UI's thread answers a recording's request: the wire
 * progress of those requests must not draw or read keys. */
extern bool tui_record_answering;
/* Starts recording the pause just read (nothing without a cache). */
void tui_record_start(tui_app *app);
/* The descriptor to poll with the keyboard while a recording runs, else -1. */
int tui_record_fd(const tui_app *app);
/* Answers the recording's requests for up to budget_ms; when it has ended,
 * says so in the footer if it failed. */
void tui_record_serve(tui_app *app, int budget_ms);
/* Resuming, quitting and disconnecting need the pause as it is: waits for
 * the recording with its progress in the footer; Esc abandons it. */
void tui_record_settle(tui_app *app);
/* " recording 45% " for the title bar while a recording runs; false if none. */
bool tui_record_status(const tui_app *app, char *buf, size_t cap);

/* ---- picker.c ---- */

/* picker_snaps.c: one row of the Snapshots tab. */
typedef enum tui_snap_kind {
    TUI_SNAP_FILE,     /* a heapscope snapshot, or a file that is none (!ok) */
    TUI_SNAP_GHCDEBUG, /* a ghc-debug snapshot */
    TUI_SNAP_RECORDED  /* a pause the cache recorded */
} tui_snap_kind;

typedef struct tui_snap {
    char *path;          /* what Enter opens */
    char *name;          /* the FILE column */
    tui_snap_kind kind;
    bool ok;             /* else why says what is wrong with the file */
    char why[HS_ERROR_MESSAGE_MAX];
    char program[256];   /* "" when unknown */
    int64_t when;        /* time of the pause, else the file's mtime */
    uint64_t closures;
    bool closures_known; /* a ghc-debug file's only once it was opened */
    uint64_t size;       /* bytes of the file */
    time_t mtime;        /* the file as it was described */
    long mtime_ns;
} tui_snap;

typedef struct tui_snaps {
    tui_snap *items;     /* newest first */
    size_t count;
    char **dirs;         /* listed besides ghc-debug's snapshot directory */
    size_t n_dirs;
    char cache_why[HS_ERROR_MESSAGE_MAX + 64]; /* why recorded pauses are missing */
} tui_snaps;

/* Lists the files and recorded pauses again (a file is described again
 * only when it changed); on failure the last list stays. */
hs_status tui_snaps_refresh(tui_app *app, hs_error *err);
/* Lists the snapshot files of dir too (where Ctrl-X saved one). */
void tui_snaps_add_dir(tui_snaps *l, const char *dir);
void tui_snaps_free(tui_snaps *l);
void tui_snaps_draw_head(int y);
void tui_snaps_draw_row(const tui_snap *s, int y, bool selected);

typedef struct tui_picker {
    int tab; /* 0: debuggees, 1: snapshots */
    discover_list debuggees;
    tui_snaps snaps;
    size_t sel[2], top[2];
    char dir[2][512];
    struct timespec refreshed;
} tui_picker;

void tui_picker_refresh(tui_app *app, bool force);
void tui_picker_free(tui_picker *p);

/* ---- explorer: views of a paused heap ---- */

typedef struct tui_filter_spec {
    query_filter_kind kind;
    bool invert;
    char text[TUI_INPUT_MAX];
} tui_filter_spec;

#define TUI_MAX_FILTERS 32
#define TUI_HISTORY_MAX 64

typedef struct tui_explorer {
    tui_tree_view *roots;
    tui_view *hist[TUI_HISTORY_MAX]; /* views of any kind, oldest first */
    size_t n_hist, pos;
    tui_filter_spec filters[TUI_MAX_FILTERS]; /* in the order given: [0] evaluated first */
    size_t n_filters;
    query_filters *built;    /* the specs compiled, in the same order */
    uint64_t limit;          /* 0 = unlimited */
    bool era_colors;
    bool details;
    int64_t paused_at;       /* Unix time of the pause shown (a snapshot's own) */
    char find[256];
    bool find_shown;         /* rows highlight the find text (until Esc) */
    heap_closure scratch;
    u64map cc_text;          /* CCS / CC address -> index in cc_strings + 1 */
    char **cc_strings;
    size_t n_cc_strings, cc_strings_cap;
} tui_explorer;

void tui_explorer_init(tui_explorer *ex);
/* Drops every view and cache (on resume, disconnect, quit). */
void tui_explorer_reset(tui_explorer *ex);
/* Builds the roots view after a pause. */
hs_status tui_explorer_open(tui_app *app, hs_error *err);
/* Makes v the current view, dropping the forward history. */
void tui_explorer_push(tui_app *app, tui_view *v);
/* "heapscope: TARGET: paused: SUMMARY: TITLE", the title of a heap's views. */
void tui_explorer_title(tui_app *app, tui_view *v, char *buf, size_t cap);

/* file.c: snapshot files in the explorer. */
/* Opens the snapshot at path into its pause (read-only); name is what
 * messages call it. On failure a message, and the screen stays. */
void tui_explorer_open_file(tui_app *app, const char *path, const char *name);
/* The same once the session has the file open (a TARGET): on failure, the
 * picker with a message. */
void tui_explorer_show_file(tui_app *app, const char *name);
/* The Ctrl-X prompt was accepted; the answer to "replace it?". */
void tui_save_submit(tui_app *app);
void tui_save_answer(tui_app *app, int key);

/* Finds text in the current view from the selection on (and keeps it for n). */
void tui_explorer_find(tui_app *app, const char *text);

/* rows.c: what a node shows, decoded on first use and kept. */
typedef struct tui_row {
    uint32_t type, size;
    uint8_t bar;      /* TUI_BAR_* */
    bool error;
    uint64_t era;
    char text[];      /* closure text, or why it could not be read */
} tui_row;
enum { TUI_BAR_NONE, TUI_BAR_ERA, TUI_BAR_LDV_USED, TUI_BAR_PLAIN };

/* What the tree callbacks below get as ctx. */
typedef struct tui_rows_ctx {
    tui_app *app;
    tui_tree_view *view;
} tui_rows_ctx;

const tui_row *tui_row_get(tui_app *app, tui_tree *t, tui_node_id id);
/* Decodes the rows [first, first + n) with batched requests. */
void tui_rows_prefetch(tui_app *app, tui_tree *t, size_t first, size_t n);
/* The children of a node (tui_tree_load_fn; ctx is a tui_rows_ctx). */
hs_status tui_rows_load(void *ctx, tui_tree *t, tui_node_id id, hs_error *err);
/* "label   module   srcloc" of a cost-centre stack (its own cost centre)
 * or of a cost centre; NULL with err set on failure. */
const char *tui_cc_text(tui_app *app, uint64_t addr, bool is_ccs, hs_error *err);
/* Whole text of a row for find-in-tree (ctx is a tui_rows_ctx). */
const char *tui_row_find_text(void *ctx, tui_tree *t, tui_node_id id);

/* tree_draw.c: the active filters on row y (explorer views show them). */
void tui_filters_draw(tui_app *app, int y);
/* details.c: the details of node id of view v in the box at (y, x), h rows by w columns. */
void tui_details_draw(tui_app *app, tui_tree_view *v, tui_node_id id, int y, int x, int h, int w);
/* Rows the details pane wants at width w (for the layout). */
int tui_details_height(tui_app *app, tui_tree_view *v, tui_node_id id, int w);
/* Drops what the pane remembers of a node whose reading was cut short. */
void tui_details_forget(void);

/* search.c */
/* Runs a retainer search with the current filters as a new view. */
void tui_search_run(tui_app *app, const char *title);
/* Applies a submitted filter prompt. */
void tui_search_submit_filter(tui_app *app);
void tui_search_submit_limit(tui_app *app);
void tui_search_submit_remove(tui_app *app);
void tui_search_submit_large(tui_app *app);
/* "Exact constructor name Leak", as the filter bar shows filter i. */
void tui_filter_describe(const tui_app *app, size_t i, char *buf, size_t cap);

/* ---- prompts (footer.c) ---- */

typedef enum tui_prompt_kind {
    TUI_PROMPT_FIND,          /* text in the tree */
    TUI_PROMPT_FILTER_FIND,   /* filters := [this]; search */
    TUI_PROMPT_FILTER_ADD,    /* prepend to the filters */
    TUI_PROMPT_LIMIT,
    TUI_PROMPT_REMOVE,
    TUI_PROMPT_LARGE_ARR,     /* filters := [ARR_WORDS, size >= n]; search */
    TUI_PROMPT_SAVE           /* Ctrl-X: the snapshot file's name */
} tui_prompt_kind;

typedef struct tui_prompt {
    tui_prompt_kind kind;
    query_filter_kind filter;
    bool invert;      /* Ctrl-G while typing a filter */
    char label[96];
    tui_input in;
} tui_prompt;

void tui_prompt_open(tui_app *app, tui_prompt_kind kind, query_filter_kind filter, bool invert,
                     const char *label);
void tui_prompt_key(tui_app *app, int key);

/* ---- the app ---- */

typedef struct tui_app {
    tui_options opts;
    tui_theme theme;
    tui_mode mode;
    bool quit;
    int status;
    tui_picker picker;
    session *sess; /* the TARGET looked at; NULL on the picker */
    cache *cache;  /* tui_app_cache: NULL when --no-cache or it could not be opened */
    bool cache_tried;
    char cache_error[HS_ERROR_MESSAGE_MAX]; /* why it could not be opened */
    char cache_note[HS_ERROR_MESSAGE_MAX + 64]; /* a cache problem, to say once */
    tui_explorer ex;
    tui_prompt prompt;
    int key; /* the key being dispatched, for handlers bound to several */
    struct {
        char text[HS_ERROR_MESSAGE_MAX + 64];
        tui_role role;
    } msg;
    struct {
        tui_input in;
        size_t *order; /* command indexes, best match first */
        size_t n, sel, top;
    } palette;
    size_t help_top;
    char save_path[4096]; /* the file Ctrl-X asks to replace */
} tui_app;

void tui_app_message(tui_app *app, tui_role role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Shows an error; a lost connection also drops the session and goes back
 * to the debuggee list. */
void tui_app_error(tui_app *app, const char *what, const hs_error *err);
/* Redraws everything (the main loop, and progress after a resize). */
void tui_app_draw(tui_app *app);
void tui_app_go_picker(tui_app *app);

/* footer.c */
void tui_footer_draw(tui_app *app);
/* overlay_help.c, overlay_palette.c */
void tui_help_draw(tui_app *app);
void tui_help_key(tui_app *app, int key);
void tui_palette_open(tui_app *app);
void tui_palette_draw(tui_app *app);
void tui_palette_key(tui_app *app, int key);

/* The rows of the screen: title, tree or list, footer. */
#define TUI_TITLE_ROWS 1
#define TUI_FOOTER_ROWS 1

/* ---- command handlers (commands.c refers to these) ---- */

void tui_cmd_help(tui_app *app, int arg);
void tui_cmd_palette(tui_app *app, int arg);
void tui_cmd_quit(tui_app *app, int arg);
void tui_cmd_cancel(tui_app *app, int arg);
void tui_cmd_redraw(tui_app *app, int arg);

void tui_cmd_picker_open(tui_app *app, int arg);
void tui_cmd_picker_tab(tui_app *app, int arg);

/* The request arg to the current view (view.c). */
void tui_cmd_request(tui_app *app, int req);

void tui_cmd_pause(tui_app *app, int arg);
void tui_cmd_resume(tui_app *app, int arg);
void tui_cmd_disconnect(tui_app *app, int arg);
void tui_cmd_save(tui_app *app, int arg);

void tui_cmd_find(tui_app *app, int arg);
void tui_cmd_find_next(tui_app *app, int arg);
void tui_cmd_back(tui_app *app, int arg);
void tui_cmd_forward(tui_app *app, int arg);
void tui_cmd_eras(tui_app *app, int arg);
void tui_cmd_details(tui_app *app, int arg);
void tui_cmd_roots(tui_app *app, int arg);

void tui_cmd_find_by(tui_app *app, int kind);        /* filters := [kind]; search */
void tui_cmd_add_filter(tui_app *app, int kind);
void tui_cmd_add_exclusion(tui_app *app, int kind);
void tui_cmd_find_large(tui_app *app, int arg);
void tui_cmd_search(tui_app *app, int arg);
void tui_cmd_limit(tui_app *app, int arg);
void tui_cmd_clear_filters(tui_app *app, int arg);
void tui_cmd_remove_filter(tui_app *app, int arg);

void tui_cmd_prompt_accept(tui_app *app, int arg);
void tui_cmd_prompt_cancel(tui_app *app, int arg);
void tui_cmd_prompt_invert(tui_app *app, int arg);
void tui_cmd_prompt_edit(tui_app *app, int arg);

/* draw.c: text on the screen */
/* Writes UTF-8 text at (y, x) in at most `cols` columns with attr;
 * returns the columns used. Control bytes and invalid UTF-8 show as '?'. */
int tui_put(int y, int x, const char *text, int cols, int attr);
/* Fills cols cells with spaces in attr. */
void tui_fill(int y, int x, int cols, int attr);
/* Lines of n cells: Unicode in UTF-8, '-' and '|' otherwise. */
void tui_hline(int y, int x, int n, int attr);
void tui_vline(int y, int x, int n, int attr);
/* A box with a title, its inside cleared. */
void tui_box(int y, int x, int h, int w, const char *title, int attr);

#endif
