/* Small output helpers shared by the batch commands (private to src/cli). */
#ifndef HEAPSCOPE_CLI_OUTPUT_H
#define HEAPSCOPE_CLI_OUTPUT_H

#include <stdio.h>

#include "heapscope/wire.h"

/* Writes s as a JSON string literal, quotes included. */
void cli_json_string(FILE *out, const char *s);

/* "9.10.1" from (910, 1); development snapshots keep their date patch. */
void cli_ghc_version_text(const wire_version *v, char *buf, size_t cap);

/* "none", "profiled", "retainer", "ldv", "era", "other". */
const char *cli_prof_mode_name(uint8_t mode);

/* Closures a command skipped because they could not be read: as text, one
 * line on stderr when there are any ("heapscope: 3 closures could not be
 * read ..."); as JSON, the value of an "unreadable" key:
 * {"count": N, "first": "0x..." or null, "problem": "..." or null}. */
struct query_unreadable;
void cli_note_unreadable(const struct query_unreadable *u);
void cli_json_unreadable(FILE *out, const struct query_unreadable *u);

/* The members "paused_ms": how long the debuggee was paused (from the
 * pause, ours or found, to our RESUME, or to now while it stays paused; 0
 * for a file), "elapsed_ms": how long the command has run. */
void cli_json_timing(FILE *out);

/* The unfiltered stderr, for the progress line on a terminal, which erases
 * itself with "\r\033[K"; only text of heapscope's own goes there. */
FILE *cli_status_line(void);

/* Prints "heapscope: <message>" to stderr and returns 1. */
int cli_report(const hs_error *err);

#endif
