/* A TSO's label as a step carries it: the bytes the debuggee holds,
 * bounded and escaped like every value heapscope prints (valid UTF-8 as
 * it is, other bytes \xNN), so a label can neither break a terminal nor
 * the JSON it goes into. */
#include <stdio.h>
#include <string.h>

#include "heapscope/query.h"

void query_thread_label(heap *h, const heap_closure *tso, char *buf, size_t cap) {
    if (cap == 0)
        return;
    buf[0] = '\0';
    uint8_t label[HEAP_THREAD_LABEL_MAX];
    size_t n;
    uint64_t total;
    hs_error why;
    if (heap_thread_label(h, tso, label, sizeof label, &n, &total, &why) != HS_OK) {
        snprintf(buf, cap, "<unreadable: %s>", why.message);
        return;
    }
    if (total == 0)
        return;
    size_t room = cap > 4 ? cap - 3 : cap; /* for "..." */
    size_t covered = query_strings_escape(label, n, buf, room);
    if (covered < total && strlen(buf) + 3 < cap)
        strcat(buf, "...");
}
