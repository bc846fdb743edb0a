/* record.c: each pause recorded into the cache, on a thread beside the UI. */
#ifndef HEAPSCOPE_TUI_RECORD_H
#define HEAPSCOPE_TUI_RECORD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tui_app tui_app;

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

#endif
