/* Visible escapes for what a terminal would obey: ESC as \e, CR as \r,
 * other control bytes and bytes that are not UTF-8 as \xNN, C1 code points
 * (U+0080-U+009F, which some terminals take as CSI, OSC ...) as \u00NN. */
#include "text_safe.h"

#include <stdio.h>
#include <string.h>

int cli_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp) {
    unsigned char b = p[0];
    int k = b < 0x80 ? 1 : b >= 0xC2 && b < 0xE0 ? 2 : b >= 0xE0 && b < 0xF0 ? 3
          : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    if (k <= 1) {
        *cp = b;
        return k;
    }
    /* the second byte's range excludes overlongs, surrogates and > U+10FFFF */
    unsigned char lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
    uint32_t c = b & (0x7F >> k);
    for (int i = 1; i < k; i++) {
        if ((size_t)i >= n)
            return -1;
        unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
        if (p[i] < lo_i || p[i] > hi_i)
            return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    *cp = c;
    return k;
}

static size_t escape_byte(unsigned char b, char *out) {
    if (b == 0x1B)
        return (size_t)sprintf(out, "\\e");
    if (b == '\r')
        return (size_t)sprintf(out, "\\r");
    return (size_t)sprintf(out, "\\x%02x", b);
}

/* Writes the safe form of the complete text at p..p+n (no held bytes),
 * holding back a cut sequence at its end when hold. */
static size_t put_text(cli_safe_stream *s, const unsigned char *p, size_t n, char *out,
                       int hold) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int len = cli_utf8_decode(p + i, n - i, &cp);
        if (len < 0 && hold) {
            memmove(s->held, p + i, n - i); /* p may be s->held */
            s->n_held = n - i;
            break;
        }
        if (len <= 0) {
            o += escape_byte(p[i++], out + o);
            continue;
        }
        if ((cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7F)
            o += escape_byte((unsigned char)cp, out + o);
        else if (cp >= 0x80 && cp <= 0x9F)
            o += (size_t)sprintf(out + o, "\\u%04x", (unsigned)cp);
        else
            memcpy(out + o, p + i, (size_t)len), o += (size_t)len;
        i += (size_t)len;
    }
    return o;
}

size_t cli_safe_piece(cli_safe_stream *s, const void *in, size_t n, char *out) {
    const unsigned char *p = in;
    size_t o = 0;
    /* complete the held sequence with the first bytes of this piece */
    while (s->n_held && n) {
        s->held[s->n_held++] = *p++, n--;
        uint32_t cp;
        int len = cli_utf8_decode(s->held, s->n_held, &cp);
        if (len < 0)
            continue;
        size_t held = s->n_held;
        s->n_held = 0;
        /* a valid sequence, or the bytes that could not start one */
        o += put_text(s, s->held, held, out + o, 1);
    }
    return o + put_text(s, p, n, out + o, 1);
}

size_t cli_safe_end(cli_safe_stream *s, char *out) {
    size_t held = s->n_held;
    s->n_held = 0;
    return put_text(s, s->held, held, out, 0);
}
