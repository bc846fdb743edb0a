/* A debuggee's start time as the picker shows it: the C locale's "%c"
 * (wire-protocol.md §3.5), whatever LC_TIME the UI set up for itself. */
#include <locale.h>
#include <stdio.h>
#include <time.h>

#include "heapscope/discover.h"

void discover_format_time(time_t t, char *buf, size_t cap) {
    if (!cap)
        return;
    buf[0] = '\0';
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return;
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    size_t n = 0;
    if (c) {
        n = strftime_l(buf, cap, "%c", &tm, c);
        freelocale(c);
    }
    if (!n) {
        /* no locale object: spell out what "%c" means in the C locale */
        static const char day[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
        static const char mon[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
        snprintf(buf, cap, "%s %s %2d %02d:%02d:%02d %d", day[tm.tm_wday % 7],
                 mon[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 tm.tm_year + 1900);
    }
}
