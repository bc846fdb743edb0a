/* Diagnostics of the stub, on stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "stub.h"

void stub_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("heapscope-stub: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
