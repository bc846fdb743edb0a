/* What term.c offers the screens beyond include/heapscope/tui.h. */
#ifndef HEAPSCOPE_TUI_TERM_H
#define HEAPSCOPE_TUI_TERM_H

#include <stdbool.h>
#include <stdio.h>

#include "heapscope/status.h"
#include "heapscope/tui.h"

/* Background cell of an LDV header whose closure was used (green). */
int tui_ldv_attr(void);
/* True when rows can be coloured by era (colours on, pairs available). */
bool tui_term_era_colors(void);
bool tui_term_active(void);
/* A screen of lines x cols for terminal type `term` drawn into out (keys
 * from in), for benchmarks: no terminal is touched and no signal handler
 * installed. tui_term_stop ends it. */
hs_status tui_term_start_virtual(const tui_theme *theme, const char *term, int lines, int cols,
                                 FILE *out, FILE *in, hs_error *err);

/* Tree markers: open / closed node, a newer-retains-older edge, "…". */
const char *tui_glyph_open(void);
const char *tui_glyph_closed(void);
const char *tui_glyph_leak(void);
const char *tui_glyph_ellipsis(void);

/* progress.c: what long work calls besides tui_progress. */
/* The app redraws everything through this after a resize during work. */
void tui_progress_set_redraw(void (*redraw)(void *ctx), void *ctx);
/* Starts a piece of long work: shows what at once and clears Esc. */
void tui_progress_begin(const char *what);
/* True once Esc was pressed since tui_progress_begin. */
bool tui_progress_cancelled(void);
/* Forgets an Esc of earlier work, which has ended (the main loop, before each key). */
void tui_progress_reset(void);
/* True from tui_progress_begin until tui_progress_reset: long work runs. */
bool tui_progress_working(void);
/* Polls the keyboard (at most every few ms); true when Esc was pressed. */
bool tui_progress_poll(void);
/* A wait on the debuggee for `request`: during long work the work's own
 * line stays (its spinner moves) and names the wait once it lasts a second,
 * so the work is never hidden by its requests; otherwise the wait is the
 * line. False when Esc was pressed. */
bool tui_progress_waiting(const char *request, int waited_ms);
/* A cancelled request finishing its answer (nothing cancels that): the
 * footer shows text, at most ten times a second. */
void tui_progress_finishing(const char *text);

#endif
