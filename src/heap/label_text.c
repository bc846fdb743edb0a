/* Haskell character and string literals as `show` prints them (GHC.Show:
 * showLitChar, with \& after a numeric escape followed by a digit and
 * after \SO followed by H), TSO why_blocked names, and edge labels
 * (retainers-and-eras.md §6.3). */
#include <inttypes.h>
#include <string.h>

#include "label_internal.h"

/* Escapes of the control characters 0-31 (without the backslash). */
static const char *const control_names[32] = {
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a",   "b",   "t",   "n",
    "v",   "f",   "r",   "SO",  "SI",  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK",
    "SYN", "ETB", "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US",
};

/* What the next character must not be without a \& in between. */
typedef enum lit_end { END_PLAIN, END_NUMERIC, END_SO } lit_end;

static lit_end put_lit_char(heap_lbuf *b, uint64_t c) {
    if (c > 127) {
        heap_lbuf_printf(b, "\\%" PRIu64, c);
        return END_NUMERIC;
    }
    if (c == 127) {
        heap_lbuf_puts(b, "\\DEL");
        return END_PLAIN;
    }
    if (c == '\\') {
        heap_lbuf_puts(b, "\\\\");
        return END_PLAIN;
    }
    if (c >= ' ') {
        char ch = (char)c;
        heap_lbuf_put(b, &ch, 1);
        return END_PLAIN;
    }
    heap_lbuf_puts(b, "\\");
    heap_lbuf_puts(b, control_names[c]);
    return c == 14 ? END_SO : END_PLAIN;
}

void heap_lbuf_char_literal(heap_lbuf *b, uint64_t code_point) {
    heap_lbuf_puts(b, "'");
    if (code_point == '\'')
        heap_lbuf_puts(b, "\\'");
    else
        put_lit_char(b, code_point);
    heap_lbuf_puts(b, "'");
}

/* The code point of the UTF-8 sequence at v, and its length; a byte that
 * starts no valid sequence (overlong, surrogate, cut) is U+FFFD, 1 byte. */
static uint32_t utf8_next(const uint8_t *v, size_t n, size_t *len) {
    uint8_t b = v[0];
    size_t k = b < 0x80 ? 1 : b >= 0xC2 && b < 0xE0 ? 2 : b >= 0xE0 && b < 0xF0 ? 3
             : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    *len = 1;
    if (k == 1)
        return b;
    if (k == 0 || k > n)
        return 0xFFFD;
    uint32_t cp = b & (0x7F >> k);
    for (size_t i = 1; i < k; i++) {
        if ((v[i] & 0xC0) != 0x80)
            return 0xFFFD;
        cp = cp << 6 | (v[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[k] || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        return 0xFFFD;
    *len = k;
    return cp;
}

/* A String literal of the characters of bytes: each byte one, or (utf8)
 * each UTF-8 sequence one. */
static void put_literal(heap_lbuf *b, const uint8_t *bytes, size_t n, bool utf8) {
    heap_lbuf_puts(b, "\"");
    lit_end prev = END_PLAIN;
    for (size_t i = 0, k = 1; i < n; i += k) {
        uint32_t c = utf8 ? utf8_next(bytes + i, n - i, &k) : bytes[i];
        if ((prev == END_NUMERIC && c >= '0' && c <= '9') || (prev == END_SO && c == 'H'))
            heap_lbuf_puts(b, "\\&");
        if (c == '"') {
            heap_lbuf_puts(b, "\\\"");
            prev = END_PLAIN;
        } else {
            prev = put_lit_char(b, c);
        }
    }
    heap_lbuf_puts(b, "\"");
}

void heap_lbuf_string_literal(heap_lbuf *b, const uint8_t *bytes, size_t n) {
    put_literal(b, bytes, n, false);
}

void heap_lbuf_utf8_literal(heap_lbuf *b, const uint8_t *bytes, size_t n) {
    put_literal(b, bytes, n, true);
}

void heap_lbuf_why_blocked(heap_lbuf *b, uint32_t why) {
    static const char *const names[] = {
        [0] = "NotBlocked",          [1] = "BlockedOnMVar",
        [2] = "BlockedOnBlackHole",  [3] = "BlockedOnRead",
        [4] = "BlockedOnWrite",      [5] = "BlockedOnDelay",
        [6] = "BlockedOnSTM",        [7] = "BlockedOnDoProc",
        [10] = "BlockedOnCCall",     [11] = "BlockedOnCCall_Interruptible",
        [12] = "BlockedOnMsgThrowTo", [13] = "ThreadMigrating",
        [14] = "BlockedOnMVarRead",
    };
    if (why < sizeof names / sizeof names[0] && names[why])
        heap_lbuf_puts(b, names[why]);
    else
        heap_lbuf_printf(b, "WhyBlockedUnknownValue %" PRIu32, why);
}

/* "Frame <n> " before the labels of a frame's SRT and function. */
static void frame_prefix(heap_lbuf *b, const heap_edge *e) {
    if (e->frame != HEAP_EDGE_NO_FRAME)
        heap_lbuf_printf(b, "Frame %u ", (unsigned)e->frame);
}

void heap_edge_label(const heap_edge *e, char *buf, size_t cap) {
    static const char *const fixed[HEAP_EDGE_KIND_COUNT] = {
        [HEAP_EDGE_SELECTEE] = "Selectee",
        [HEAP_EDGE_INDIRECTEE] = "Indirectee",
        [HEAP_EDGE_VALUE] = "Value",
        [HEAP_EDGE_TVAR_VALUE] = "val",
        [HEAP_EDGE_QUEUE_HEAD] = "Queue Head",
        [HEAP_EDGE_QUEUE_TAIL] = "Queue Tail",
        [HEAP_EDGE_WATCH_QUEUE] = "Watch Queue",
        [HEAP_EDGE_KEY] = "Key",
        [HEAP_EDGE_C_FINALIZERS] = "C Finalizers",
        [HEAP_EDGE_FINALIZER] = "Finalizer",
        [HEAP_EDGE_LINK] = "Link",
        [HEAP_EDGE_BLACKHOLE] = "Black Hole",
        [HEAP_EDGE_OWNER] = "Owner",
        [HEAP_EDGE_QUEUE] = "Queue",
        [HEAP_EDGE_INSTRUCTIONS] = "Instructions",
        [HEAP_EDGE_LITERALS] = "Literals",
        [HEAP_EDGE_BCO_PTRS] = "Byte Code Objects",
        [HEAP_EDGE_GLOBAL_LINK] = "Global Link",
        [HEAP_EDGE_STACK] = "Stack",
        [HEAP_EDGE_TREC] = "TRec",
        [HEAP_EDGE_BLOCKED_EXCEPTIONS] = "Blocked Exceptions",
        [HEAP_EDGE_BLOCKING_QUEUE] = "Blocking Queue",
        [HEAP_EDGE_THREAD_LABEL] = "Thread label",
        [HEAP_EDGE_PREV_CHUNK] = "Previous Chunk",
    };
    static const char *const trec_parts[3] = {"TVar", "Expected", "New"};
    heap_lbuf lb = {buf, cap, 0}, *b = &lb;
    if (cap > 0)
        buf[0] = '\0';
    switch (e->kind) {
    case HEAP_EDGE_FIELD: heap_lbuf_printf(b, "Field %" PRIu32, e->index); return;
    case HEAP_EDGE_ARG: heap_lbuf_printf(b, "Argument %" PRIu32, e->index); return;
    case HEAP_EDGE_PAYLOAD: heap_lbuf_printf(b, "Payload %" PRIu32, e->index); return;
    case HEAP_EDGE_ELEMENT: heap_lbuf_printf(b, "[%" PRIu32 "]", e->index); return;
    case HEAP_EDGE_SRT:
        frame_prefix(b, e);
        heap_lbuf_puts(b, "SRT");
        return;
    case HEAP_EDGE_FUNCTION:
        frame_prefix(b, e);
        heap_lbuf_puts(b, "Function");
        return;
    case HEAP_EDGE_FRAME_FIELD: heap_lbuf_printf(b, "Frame %u Pointer", (unsigned)e->frame); return;
    case HEAP_EDGE_TREC_ENTRY:
        heap_lbuf_printf(b, "Entry %" PRIu32 " %s", e->index / 3, trec_parts[e->index % 3]);
        return;
    default:
        heap_lbuf_puts(b, e->kind < HEAP_EDGE_KIND_COUNT && fixed[e->kind] ? fixed[e->kind] : "?");
        return;
    }
}
