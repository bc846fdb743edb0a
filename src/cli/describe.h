/* One closure as a line of text or a JSON object (private to src/cli). */
#ifndef HEAPSCOPE_CLI_DESCRIBE_H
#define HEAPSCOPE_CLI_DESCRIBE_H

#include <stdio.h>

#include "heapscope/heap.h"

/* "0x4200105a38  CONSTR_2_0  24 B  Leak 0x4200105a50 42  app/Main.hs:12:5-20" */
hs_status cli_print_closure_text(FILE *out, heap *h, const heap_closure *c, hs_error *err);
/* {"address": ..., "type": ..., "size": ..., "label": ..., "constructor": ...,
 *  "era": ..., "profiling": ..., "location": ...} with no trailing newline. */
hs_status cli_print_closure_json(FILE *out, heap *h, const heap_closure *c, hs_error *err);

/* The closure at addr (decoded into scratch) as above; one that cannot be
 * read is "0xA  <could not be read: WHY>", in JSON {"address": ...,
 * "unreadable": WHY}, and not an error of the command. */
hs_status cli_print_address_text(FILE *out, heap *h, heap_closure *scratch, uint64_t addr,
                                 hs_error *err);
hs_status cli_print_address_json(FILE *out, heap *h, heap_closure *scratch, uint64_t addr,
                                 hs_error *err);

#endif
