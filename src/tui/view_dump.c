/* The dump view: the bytes of one byte array (ARR_WORDS) of any size in
 * hex and text, 16 a line, read a screen at a time (heap_payload_read), so
 * a 100 MB array costs what is on screen. Opened on the selection of a
 * tree (an ARR_WORDS) or of the strings view (a value's array). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "draw.h"
#include "heapscope/closure_type.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

#define PER_LINE 16
#define LINE_BYTES_MAX (PER_LINE * 512) /* a screen of at most 512 lines */

typedef struct dump_view {
    tui_view base;
    uint64_t addr;
    uint64_t total;  /* bytes of the payload */
    uint64_t top;    /* first line on screen */
    int height;
} dump_view;

static uint64_t n_lines(const dump_view *v) { return (v->total + PER_LINE - 1) / PER_LINE; }

static void dump_free(tui_view *v) { free(v); }

/* "00000010  70 6c 61 6e ...  |plan...|" for the n (<= 16) bytes at offset. */
static void format_line(uint64_t offset, const uint8_t *b, size_t n, char *out, size_t cap) {
    size_t len = (size_t)snprintf(out, cap, "%010" PRIx64 " ", offset);
    for (size_t i = 0; i < PER_LINE && len + 4 < cap; i++) {
        if (i == PER_LINE / 2)
            out[len++] = ' ';
        if (i < n)
            len += (size_t)snprintf(out + len, cap - len, " %02x", b[i]);
        else
            len += (size_t)snprintf(out + len, cap - len, "   ");
    }
    len += (size_t)snprintf(out + len, cap - len, "  |");
    for (size_t i = 0; i < n && len + 2 < cap; i++)
        out[len++] = b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '.';
    snprintf(out + len, cap - len, "|");
}

static void dump_draw(tui_app *app, tui_view *base, int top, int bottom) {
    dump_view *v = (dump_view *)base;
    v->height = bottom - top > 1 ? bottom - top : 1;
    uint64_t lines = n_lines(v), h = (uint64_t)v->height;
    if (v->top + h > lines)
        v->top = lines > h ? lines - h : 0;
    static uint8_t page[LINE_BYTES_MAX];
    size_t want = (size_t)(h < 512 ? h : 512) * PER_LINE, got = 0;
    uint64_t total;
    hs_error err = {0};
    if (heap_payload_read(session_heap(app->sess), v->addr, v->top * PER_LINE, page, want, &got,
                          &total, &err) != HS_OK) {
        tui_put(top + 1, 2, err.message, COLS - 4, tui_attr(TUI_ROLE_ERROR));
        return;
    }
    char line[128];
    for (size_t i = 0; i * PER_LINE < got && (int)i < v->height; i++) {
        size_t n = got - i * PER_LINE < PER_LINE ? got - i * PER_LINE : PER_LINE;
        format_line((v->top + i) * PER_LINE, page + i * PER_LINE, n, line, sizeof line);
        tui_put(top + (int)i, 1, line, COLS - 1, tui_attr(TUI_ROLE_NORMAL));
    }
    if (v->total == 0)
        tui_put(top + 1, 2, "An empty byte array.", COLS - 4, tui_attr(TUI_ROLE_INFO));
}

static bool dump_request(tui_app *app, tui_view *base, tui_request req) {
    (void)app;
    dump_view *v = (dump_view *)base;
    uint64_t lines = n_lines(v), h = v->height > 0 ? (uint64_t)v->height : 1;
    uint64_t last = lines > h ? lines - h : 0, page = h > 1 ? h - 1 : 1;
    switch (req) {
    case TUI_REQ_UP: v->top -= v->top > 0; break;
    case TUI_REQ_DOWN: v->top += v->top < last; break;
    case TUI_REQ_PAGE_UP: v->top = v->top > page ? v->top - page : 0; break;
    case TUI_REQ_PAGE_DOWN: v->top = v->top + page < last ? v->top + page : last; break;
    case TUI_REQ_FIRST: v->top = 0; break;
    case TUI_REQ_LAST: v->top = last; break;
    default: return false;
    }
    snprintf(v->base.summary, sizeof v->base.summary, "bytes %" PRIu64 "-%" PRIu64 " of %" PRIu64,
             v->total ? v->top * PER_LINE : 0,
             (v->top + h) * PER_LINE < v->total ? (v->top + h) * PER_LINE - 1
                                                 : (v->total ? v->total - 1 : 0),
             v->total);
    return true;
}

static uint64_t dump_selected(tui_app *app, tui_view *v) {
    (void)app;
    return ((dump_view *)v)->addr;
}

static const tui_hint dump_hints[] = {
    {"Page down", "page"}, {"Last row", "end"}, {"Back", "back"}, {"Help", "help"},
    {"Command palette", "commands"}, {"Quit", "quit"}, {NULL, NULL}};

static const tui_view_ops dump_ops = {
    .kind = "dump",
    .scope = TUI_SCOPE_EXPLORER,
    .title = tui_explorer_title,
    .draw = dump_draw,
    .request = dump_request,
    .selected = dump_selected,
    .hints = dump_hints,
    .free = dump_free,
};

void tui_cmd_dump(tui_app *app, int arg) {
    (void)arg;
    tui_view *from = tui_app_view(app);
    uint64_t addr = from->ops->selected ? from->ops->selected(app, from) : 0;
    if (!addr) {
        tui_app_message(app, TUI_ROLE_ERROR, "select a byte array (ARR_WORDS) to dump");
        return;
    }
    uint8_t probe;
    size_t got;
    uint64_t total;
    hs_error err = {0};
    if (heap_payload_read(session_heap(app->sess), addr, 0, &probe, 1, &got, &total, &err) !=
        HS_OK) {
        tui_app_error(app, "cannot dump", &err);
        return;
    }
    dump_view *v = calloc(1, sizeof *v);
    if (!v) {
        tui_app_message(app, TUI_ROLE_ERROR, "out of memory");
        return;
    }
    v->base.ops = &dump_ops;
    v->addr = addr;
    v->total = total;
    snprintf(v->base.title, sizeof v->base.title, "Bytes of the ARR_WORDS at 0x%" PRIx64, addr);
    v->height = LINES > 2 ? LINES - 2 : 1;
    dump_request(app, &v->base, TUI_REQ_FIRST); /* the summary */
    tui_explorer_push(app, &v->base);
    tui_app_message(app, TUI_ROLE_INFO, "%" PRIu64 " bytes at 0x%" PRIx64, total, addr);
}
