/* Long work (reading the heap, searching, finding text) reports here: the
 * footer shows how far it got at most ten times a second, the keyboard is
 * polled without blocking, and Esc asks the work to stop. A resize during
 * the work redraws the whole screen through the app's hook. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "draw.h"
#include "heapscope/interrupt.h"
#include "heapscope/tui.h"
#include "keys.h"
#include "term.h"
#include "tui_curses.h"

#define REDRAW_NS 100000000L /* 10 redraws a second */
#define POLL_NS 20000000L    /* keyboard at most every 20 ms */
#define WAIT_SHOWN_MS 1000   /* a wait during work is named once it lasts this long */

static struct {
    void (*redraw)(void *ctx);
    void *ctx;
    char line[160]; /* the work's last line: what and how far */
    bool working; /* between tui_progress_begin and tui_progress_reset */
    bool cancelled;
    long long last_draw, last_poll;
    unsigned spin;
} P;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void tui_progress_set_redraw(void (*redraw)(void *ctx), void *ctx) {
    P.redraw = redraw;
    P.ctx = ctx;
}

static void draw_line_then(const char *text, const char *after);

static void draw_line(const char *text) { draw_line_then(text, "   (Esc cancels)"); }

static void draw_line_then(const char *text, const char *after) {
    if (!tui_term_active())
        return;
    static const char spin_utf8[][4] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
    static const char spin_ascii[] = "|/-\\";
    const tui_term_caps *caps = tui_term_caps_get();
    char line[256];
    if (caps->utf8)
        snprintf(line, sizeof line, " %s %s%s", spin_utf8[P.spin % 10], text, after);
    else
        snprintf(line, sizeof line, " %c %s%s", spin_ascii[P.spin % 4], text, after);
    P.spin++;
    int y = LINES - 1;
    tui_fill(y, 0, COLS, tui_attr(TUI_ROLE_FOOTER));
    tui_put(y, 0, line, COLS, tui_attr(TUI_ROLE_FOOTER));
    refresh();
}

void tui_progress_begin(const char *what) {
    snprintf(P.line, sizeof P.line, "%s", what);
    P.working = true;
    P.cancelled = false;
    P.last_poll = 0;
    P.last_draw = now_ns();
    draw_line(what);
}

bool tui_progress_cancelled(void) { return P.cancelled; }

void tui_progress_reset(void) {
    P.working = false;
    P.cancelled = false;
}

bool tui_progress_working(void) { return P.working; }

bool tui_progress_poll(void) {
    if (P.cancelled)
        return true;
    if (hs_interrupt_signal()) { /* a quit signal cancels like Esc */
        P.cancelled = true;
        return true;
    }
    long long t = now_ns();
    if (t - P.last_poll < POLL_NS)
        return false;
    P.last_poll = t;
    for (;;) {
        int k = tui_read_key(0);
        if (k == TUI_KEY_NONE)
            break;
        if (k == TUI_KEY_ESC || k == TUI_CTRL('c')) {
            P.cancelled = true;
            break;
        }
        if (k == KEY_RESIZE && P.redraw) {
            P.redraw(P.ctx);
            draw_line(P.line);
        }
        /* other keys are dropped: nothing typed during the wait acts later */
    }
    return P.cancelled;
}

/* True at most ten times a second: the footer is drawn again. */
static bool redraw_due(void) {
    long long t = now_ns();
    if (t - P.last_draw < REDRAW_NS)
        return false;
    P.last_draw = t;
    return true;
}

bool tui_progress(const char *what, uint64_t done, const char *unit) {
    if (tui_progress_poll())
        return false;
    if (redraw_due()) {
        snprintf(P.line, sizeof P.line, "%s: %" PRIu64 " %s", what, done, unit ? unit : "");
        draw_line(P.line);
    }
    return true;
}

bool tui_progress_waiting(const char *request, int waited_ms) {
    if (tui_progress_poll())
        return false;
    if (!redraw_due())
        return true;
    char text[256];
    if (!P.working)
        snprintf(text, sizeof text, "waiting for the debuggee (%s): %d s", request,
                 waited_ms / 1000);
    else if (waited_ms < WAIT_SHOWN_MS)
        snprintf(text, sizeof text, "%s", P.line);
    else
        snprintf(text, sizeof text, "%s; waiting for the debuggee (%s): %d s", P.line, request,
                 waited_ms / 1000);
    draw_line(text);
    return true;
}

void tui_progress_finishing(const char *text) {
    if (redraw_due())
        draw_line_then(text, "");
}
