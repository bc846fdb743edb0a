/* Closure decoding, labels, traversal, retainer search and dominators over
 * a heap whose every byte comes from the fuzz input: block groups, static
 * closures, info tables, SRTs, bitmaps, descriptions and cost centres
 * (the record format is in fuzz_source.h). */
#include "fuzz_check.h"
#include "fuzz_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_source f;
    if (fuzz_source_init(&f, data, size))
        fuzz_heap_walk(fuzz_source_heap(&f));
    fuzz_source_free(&f);
    return 0;
}
