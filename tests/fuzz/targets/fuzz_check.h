/* What every fuzz target includes: the libFuzzer entry point, and a check
 * that aborts (a crash libFuzzer keeps) when an invariant of what a parser
 * accepted does not hold. */
#ifndef HEAPSCOPE_FUZZ_CHECK_H
#define HEAPSCOPE_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);   \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#endif
