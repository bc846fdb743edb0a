/* ghc-debug's own snapshot files: parsed whole (every length, count and
 * answer checked), then read through as a heap source by the same walk as
 * the heap targets, as `heapscope FILE` does. */
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_source.h"
#include "heapscope/ghcdebug_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ghcdebug_file_sniff(data, size);
    ghcdebug_file *f = NULL;
    hs_error err = {0};
    if (ghcdebug_file_parse(data, size, &f, &err) != HS_OK) {
        FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
        return 0;
    }
    FUZZ_CHECK(ghcdebug_file_version(f)->prof_mode <= WIRE_PROF_OTHER);
    size_t n;
    const ghcdebug_block *b = ghcdebug_file_blocks(f, &n);
    for (size_t i = 1; i < n; i++)
        FUZZ_CHECK(b[i - 1].start <= b[i].start); /* sorted; copies and overlaps are the heap's to judge */
    fuzz_heap_walk(ghcdebug_file_source(f));
    ghcdebug_file_free(f);
    return 0;
}
