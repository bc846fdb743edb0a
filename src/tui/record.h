/* record.c: each pause recorded into the cache, on a thread beside the UI. */
#ifndef HEAPSCOPE_TUI_RECORD_H
#define HEAPSCOPE_TUI_RECORD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tui_app tui_app;

/* Who answers a recording's request on the UI's thread, for the wire
 * waits: the idle loop, between keypresses (nothing drawn, no key read; a
 * key typed while the debuggee leaves a request unanswered longer than
 * TUI_RECORD_PATIENCE_MS gives the recording up, so the keyboard is never
 * held for --timeout), or a settle (its progress shows the wait and Esc
 * abandons the recording). */
typedef enum { TUI_RECORD_NOT, TUI_RECORD_IDLE, TUI_RECORD_SETTLE } tui_record_mode;
extern tui_record_mode tui_record_answering;
#define TUI_RECORD_PATIENCE_MS 1000
/* Called by the idle wait that gave up: the footer says why, once the
 * recording has ended. */
void tui_record_gave_up(const char *request, int waited_ms);
/* Starts recording the pause just read (nothing without a cache). */
void tui_record_start(tui_app *app);
/* The descriptor to poll with the keyboard while a recording runs, else -1. */
int tui_record_fd(const tui_app *app);
/* Answers the recording's requests for up to budget_ms; when it has ended,
 * says so in the footer if it failed. */
void tui_record_serve(tui_app *app, int budget_ms);
/* Resuming, quitting and disconnecting need the pause as it is: waits for
 * the recording with its progress in the footer; Esc abandons it. A
 * request cut short takes the stream with it: the session connects again
 * before the caller goes on. */
void tui_record_settle(tui_app *app);
/* " recording 45% " for the title bar while a recording runs; false if none. */
bool tui_record_status(const tui_app *app, char *buf, size_t cap);

#endif
