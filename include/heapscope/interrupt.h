/* Quit signals as a flag (SIGINT, SIGTERM, SIGHUP).
 *
 * heapscope must not die in the middle of a request with the debuggee
 * paused: the handler only records the signal, and whatever waits long
 * notices it (the wire wait functions, progress callbacks, the explorer's
 * key loop), stops, resumes a debuggee heapscope paused, restores the
 * terminal and exits with 128 + the signal number. A second signal is
 * obeyed at once: the last-words hook runs (it must be async-signal-safe)
 * and the signal's default action follows. */
#ifndef HEAPSCOPE_INTERRUPT_H
#define HEAPSCOPE_INTERRUPT_H

/* Installs the handlers (without SA_RESTART: a blocked poll or read returns
 * EINTR and its loop looks at the flag). */
void hs_interrupt_catch(void);
/* What the second signal runs before dying (NULL: nothing); the explorer
 * writes the bytes that restore the terminal. */
void hs_interrupt_set_last_words(void (*fn)(void));
/* What the first signal runs after noting it (NULL: nothing); it must be
 * async-signal-safe. The batch commands stop writing their output. */
void hs_interrupt_set_first_words(void (*fn)(void));
/* The first quit signal caught, 0 when none. */
int hs_interrupt_signal(void);
/* "SIGINT", "SIGTERM", "SIGHUP", or "a signal". */
const char *hs_interrupt_name(int sig);
/* What became of the debuggee, for the last line ("the debuggee was
 * resumed"); the latest note counts. */
void hs_interrupt_note(const char *note);
/* rc when no signal was caught; else prints "heapscope: interrupted by
 * SIGINT: <note>" on stderr and returns 128 + the signal number. */
int hs_interrupt_exit_status(int rc);

#endif
