/* The debuggee list (picker.c) and its Snapshots tab (picker_snaps.c). */
#ifndef HEAPSCOPE_TUI_PICKER_H
#define HEAPSCOPE_TUI_PICKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "heapscope/discover.h"
#include "heapscope/status.h"

typedef struct tui_app tui_app;

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

/* Reads the sockets and snapshots again (at most every second unless forced). */
void tui_picker_refresh(tui_app *app, bool force);
void tui_picker_free(tui_picker *p);


/* Commands: connect to / open the selection; switch tabs. */
void tui_cmd_picker_open(tui_app *app, int arg);
void tui_cmd_picker_tab(tui_app *app, int arg);

#endif
