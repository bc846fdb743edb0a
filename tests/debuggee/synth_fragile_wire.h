/* --fragile (wire part: a failed read or write) and --hold
 * (synth_fragile_wire.c); the address part is synth_fragile.h. */
#ifndef SYNTH_FRAGILE_WIRE_H
#define SYNTH_FRAGILE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exit status of a --fragile debuggee whose read or write failed,
 * where the official stub aborts. */
#define SYNTH_FRAGILE_WIRE_EXIT 3

struct synth_out;

/* The lines of --help. */
extern const char synth_fragile_help[];

/* "fragile: write failed (EPIPE) while answering ALL_BLOCKS: the official
 * stub would have aborted" on stderr; what is "read" or "write", err an
 * errno value (0: the client closed the connection mid-answer). */
void synth_fragile_report(const char *what, int err, uint32_t cmd);

/* --hold COMMAND:DIR. 0, or -1 with a message in err. */
int synth_hold_parse(const char *v, uint32_t *cmd, const char **dir, char *err, size_t errlen);
/* True when the next answer to the held command is to be held (DIR/arm). */
bool synth_hold_armed(const char *dir);
/* Sends the captured answer in two halves around the wait for DIR/release. */
void synth_hold_deliver(struct synth_out *o, const uint8_t *answer, size_t len);

#endif
