/* --fragile: the synthetic debuggee as fragile as the official ghc-debug
 * stub (issue 19). The official stub dereferences every address a request
 * names; asked about anything that is not a closure or an info table of its
 * heap, the program dies of SIGSEGV. Under --fragile the debuggee checks
 * each address-taking request first and, when the official stub would have
 * read a wild pointer, logs one line and exits at once with
 * SYNTH_FRAGILE_EXIT, so a test sees that heapscope sent it. */
#ifndef SYNTH_FRAGILE_H
#define SYNTH_FRAGILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "synth.h"

/* The exit status of a fragile debuggee asked about a wild address (a
 * shell's status for a SIGSEGV; a real crash shows as a signal instead). */
#define SYNTH_FRAGILE_EXIT 139

/* True when the official stub could serve request cmd (payload, plen)
 * without reading a wild pointer; else false and why[] says, e.g.
 * "CLOSURES for 0xdeadbeef, not a closure". */
bool synth_fragile_safe(const synth_process *p, uint32_t cmd, const uint8_t *payload,
                        size_t plen, char *why, size_t cap);

/* Under --fragile, before a request is served: when it is not safe, writes
 * "fragile: WHY: the official stub would have crashed" to stderr and ends
 * the process with SYNTH_FRAGILE_EXIT, as the stub's program would die. */
void synth_fragile_gate(const synth_process *p, uint32_t cmd, const uint8_t *payload,
                        size_t plen);

#endif
