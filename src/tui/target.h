/* target.c: the explorer's TARGET (a debuggee's socket or a snapshot
 * file), over the session module. */
#ifndef HEAPSCOPE_TUI_TARGET_H
#define HEAPSCOPE_TUI_TARGET_H

#include <stdbool.h>

#include "heapscope/status.h"

typedef struct tui_app tui_app;

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

#endif
