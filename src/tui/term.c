/* Everything that talks to curses about the terminal itself: start-up and
 * restore (also from signal handlers, with bytes prepared in advance since
 * curses is not async-signal-safe), colour pairs per role and per era,
 * line-drawing glyphs, and reading keys. Screens draw through this. */
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "heapscope/interrupt.h"
#include "heapscope/tui.h"
#include "keys.h"
#include "term.h"
#include "tui_curses.h"

#define ESC_DELAY_MS 25
#define ESC_FOLLOW_MS 10
#define ERA_PAIRS_MAX TUI_ERA_PALETTE_MAX

static struct {
    bool active;
    SCREEN *screen;
    tui_term_caps caps;
    struct termios saved;
    bool have_saved;
    char restore[256]; /* bytes that undo our terminal modes, for signal handlers */
    size_t restore_len;
    int role_attr[TUI_ROLE_COUNT];
    int ldv_attr;
    int era_attr[ERA_PAIRS_MAX];
    size_t n_era;
    int ext_keys[8][2]; /* terminfo's extended key codes -> our keys */
    size_t n_ext;
    int pending[TUI_UNREAD_MAX]; /* codes read after an ESC that were keys of their own */
    size_t n_pending;
} T;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
/* SIGINT, SIGTERM and SIGHUP are flags (heapscope/interrupt.h): the app
 * leaves cleanly, resuming the debuggee; SIGQUIT still quits at once. */
static const int quit_signals[] = {SIGQUIT};

/* ---- colours --------------------------------------------------------- */

static void xterm_rgb(int i, int rgb[3]) {
    static const unsigned char base[16][3] = {
        {0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
        {0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
        {127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
        {92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255}};
    if (i < 16) {
        for (int k = 0; k < 3; k++)
            rgb[k] = base[i][k];
    } else if (i < 232) {
        int v[3] = {(i - 16) / 36, (i - 16) / 6 % 6, (i - 16) % 6};
        for (int k = 0; k < 3; k++)
            rgb[k] = v[k] ? 55 + 40 * v[k] : 0;
    } else {
        rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (i - 232);
    }
}

/* The nearest of the terminal's first n colours. */
static int nearest(int c, int n) {
    int rgb[3], best = 0;
    long best_d = -1;
    xterm_rgb(c, rgb);
    for (int i = 0; i < n; i++) {
        int o[3];
        xterm_rgb(i, o);
        long d = 0;
        for (int k = 0; k < 3; k++)
            d += (long)(rgb[k] - o[k]) * (rgb[k] - o[k]);
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

static int map_color(int c) {
    if (c < 0 || c > 255)
        return -1;
    if (T.caps.colors >= 256)
        return c;
    return nearest(c, T.caps.colors);
}

/* Black or white text, whichever reads better on bg. */
static int contrast(int bg) {
    int rgb[3];
    xterm_rgb(bg < 0 ? 0 : bg, rgb);
    long lum = 2126L * rgb[0] + 7152L * rgb[1] + 722L * rgb[2]; /* x 10000 */
    bool dark_text = lum > 1400000L;
    if (T.caps.colors >= 256)
        return dark_text ? 16 : 231;
    if (T.caps.colors >= 16)
        return dark_text ? 0 : 15;
    return dark_text ? 0 : 7;
}

static int curses_attrs(unsigned a) {
    int r = 0;
    if (a & TUI_ATTR_BOLD)
        r |= A_BOLD;
    if (a & TUI_ATTR_UNDERLINE)
        r |= A_UNDERLINE;
    if (a & TUI_ATTR_REVERSE)
        r |= A_REVERSE;
    if (a & TUI_ATTR_DIM)
        r |= A_DIM;
    return r;
}

/* Without colours, roles still need to stand apart. */
static int plain_attrs(tui_role role) {
    switch (role) {
    case TUI_ROLE_TITLE: case TUI_ROLE_FOOTER: case TUI_ROLE_SELECTED: return A_REVERSE;
    case TUI_ROLE_ERROR: case TUI_ROLE_LABEL: case TUI_ROLE_PROMPT: return A_BOLD;
    case TUI_ROLE_MATCH: return A_UNDERLINE | A_BOLD;
    case TUI_ROLE_LEAK_EDGE: return A_BOLD | A_REVERSE;
    case TUI_ROLE_DISABLED: return A_DIM;
    default: return 0;
    }
}

static void setup_colors(const tui_theme *theme) {
    for (int r = 0; r < TUI_ROLE_COUNT; r++)
        T.role_attr[r] = curses_attrs(theme->roles[r].attrs) | plain_attrs((tui_role)r);
    T.n_era = 0;
    T.ldv_attr = A_REVERSE;
    if (T.caps.colors == 0)
        return;
    bool defaults = use_default_colors() == OK;
    short pair = 1;
    for (int r = 0; r < TUI_ROLE_COUNT && pair < COLOR_PAIRS; r++, pair++) {
        int fg = map_color(theme->roles[r].fg), bg = map_color(theme->roles[r].bg);
        if (!defaults) {
            fg = fg < 0 ? COLOR_WHITE : fg;
            bg = bg < 0 ? COLOR_BLACK : bg;
        }
        init_pair(pair, (short)fg, (short)bg);
        T.role_attr[r] = COLOR_PAIR(pair) | curses_attrs(theme->roles[r].attrs);
    }
    if (pair < COLOR_PAIRS) {
        int green = map_color(34);
        init_pair(pair, (short)contrast(green), (short)green);
        T.ldv_attr = COLOR_PAIR(pair++);
    }
    /* 256 colours: the theme's era palette. Fewer: the six chromatic basic
     * colours (and their bright forms), which stay distinct where a
     * nearest-colour mapping of the palette would collapse it. */
    int basic[12] = {1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14};
    size_t want = T.caps.colors >= 256 ? theme->n_era : T.caps.colors >= 16 ? 12 : 6;
    if (want > ERA_PAIRS_MAX)
        want = ERA_PAIRS_MAX;
    for (size_t i = 0; i < want && pair < COLOR_PAIRS; i++, pair++) {
        int bg = T.caps.colors >= 256 ? theme->era_bg[i] : basic[i];
        init_pair(pair, (short)contrast(bg), (short)bg);
        T.era_attr[T.n_era++] = COLOR_PAIR(pair);
    }
}

int tui_attr(tui_role role) { return T.active && role < TUI_ROLE_COUNT ? T.role_attr[role] : 0; }

int tui_era_attr(uint64_t era) {
    if (!T.active || T.n_era == 0)
        return 0;
    return T.era_attr[era % T.n_era];
}

int tui_ldv_attr(void) { return T.ldv_attr; }

bool tui_term_era_colors(void) { return T.active && T.n_era > 0; }

const tui_term_caps *tui_term_caps_get(void) { return &T.caps; }

/* ---- glyphs ---------------------------------------------------------- */

const char *tui_glyph_branch(void) { return T.caps.utf8 ? "├─ " : "|- "; }
const char *tui_glyph_last(void) { return T.caps.utf8 ? "└─ " : "`- "; }
const char *tui_glyph_pipe(void) { return T.caps.utf8 ? "│  " : "|  "; }
const char *tui_glyph_open(void) { return T.caps.utf8 ? "▾ " : "- "; }
const char *tui_glyph_closed(void) { return T.caps.utf8 ? "▸ " : "+ "; }
const char *tui_glyph_leak(void) { return T.caps.utf8 ? "‼" : "!!"; }
const char *tui_glyph_ellipsis(void) { return T.caps.utf8 ? "…" : "..."; }

/* ---- restore --------------------------------------------------------- */

/* Appends a terminfo string without its padding ("$<5>"). */
static void add_restore(const char *cap) {
    char *s = tigetstr((char *)cap);
    if (!s || s == (char *)-1)
        return;
    for (; *s && T.restore_len + 1 < sizeof T.restore; s++) {
        if (s[0] == '$' && s[1] == '<') {
            const char *end = strchr(s, '>');
            if (end) {
                s = (char *)end;
                continue;
            }
        }
        T.restore[T.restore_len++] = *s;
    }
}

/* Async-signal-safe: write(2) and tcsetattr(3) only. */
static void restore_now(void) {
    if (T.active) {
        ssize_t ignored = write(STDOUT_FILENO, T.restore, T.restore_len);
        (void)ignored;
        if (T.have_saved)
            tcsetattr(STDIN_FILENO, TCSANOW, &T.saved);
    }
}

static void on_signal(int sig) {
    restore_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        sigaction(fatal_signals[i], &sa, NULL);
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
        sigaction(quit_signals[i], &sa, NULL);
    hs_interrupt_catch();
    hs_interrupt_set_last_words(restore_now); /* a second signal kills: terminal first */
    signal(SIGPIPE, SIG_IGN); /* a debuggee that vanished is an error value, not a death */
}

static void restore_handlers(void) {
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        signal(fatal_signals[i], SIG_DFL);
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
        signal(quit_signals[i], SIG_DFL);
    hs_interrupt_set_last_words(NULL);
}

static void at_exit(void) { tui_term_stop(); }

/* ---- keys ------------------------------------------------------------ */

static void find_ext_key(const char *cap, int ours) {
    char *s = tigetstr((char *)cap);
    if (!s || s == (char *)-1 || T.n_ext >= sizeof T.ext_keys / sizeof T.ext_keys[0])
        return;
    int code = key_defined(s);
    if (code > 0) {
        T.ext_keys[T.n_ext][0] = code;
        T.ext_keys[T.n_ext][1] = ours;
        T.n_ext++;
    }
}

static int map_function_key(int code) {
    if (code == KEY_SLEFT)
        return TUI_KEY_SHIFT_LEFT;
    for (size_t i = 0; i < T.n_ext; i++)
        if (T.ext_keys[i][0] == code)
            return T.ext_keys[i][1];
    return code;
}

static int read_one(int timeout_ms) {
    wint_t wc;
    wtimeout(stdscr, timeout_ms);
    int r = wget_wch(stdscr, &wc);
    if (r == ERR)
        return TUI_KEY_NONE;
    if (r == KEY_CODE_YES)
        return map_function_key((int)wc);
    if (wc < 0x80)
        return (int)wc;
    return TUI_KEY_UNICODE | (int)wc;
}

int tui_read_key(int timeout_ms) {
    if (!T.active)
        return TUI_KEY_NONE;
    if (T.n_pending > 0) {
        int k = T.pending[0];
        memmove(T.pending, T.pending + 1, --T.n_pending * sizeof T.pending[0]);
        return k;
    }
    int k = read_one(timeout_ms);
    if (k != TUI_KEY_ESC)
        return k;
    int seq[16];
    size_t n = 0;
    while (n < 16 && !tui_keys_escape_complete(seq, n)) {
        int c = read_one(ESC_FOLLOW_MS);
        if (c == TUI_KEY_NONE)
            break;
        seq[n++] = c;
    }
    size_t used;
    int key = tui_keys_decode_escape(seq, n, &used);
    for (size_t i = used; i < n && T.n_pending < 16; i++)
        T.pending[T.n_pending++] = seq[i];
    return key;
}

int tui_read_key_or_fd(int timeout_ms, int fd) {
    if (fd < 0)
        return tui_read_key(timeout_ms);
    int k = tui_read_key(0); /* a key curses holds already would not wake poll */
    if (k != TUI_KEY_NONE || !T.active)
        return k;
    struct pollfd p[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    if (poll(p, 2, timeout_ms) > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
        return tui_read_key(0);
    return TUI_KEY_NONE;
}

void tui_unread_keys(const int *keys, size_t n) {
    size_t room = sizeof T.pending / sizeof T.pending[0] - T.n_pending;
    if (n > room)
        n = room;
    memmove(T.pending + n, T.pending, T.n_pending * sizeof T.pending[0]);
    memcpy(T.pending, keys, n * sizeof T.pending[0]);
    T.n_pending += n;
}

bool tui_key_typed(void) {
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    return T.active && poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/* ---- start and stop -------------------------------------------------- */

/* What every screen gets once curses has one: modes, colours, the
 * sequences that restore the terminal, and the extended keys. */
static void set_up(const tui_theme *theme) {
    set_term(T.screen);
    T.active = true;
    static bool registered;
    if (!registered && atexit(at_exit) == 0)
        registered = true;
    set_escdelay(ESC_DELAY_MS);
    raw(); /* Ctrl-C, Ctrl-S, Ctrl-Z... arrive as keys */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    const char *cs = nl_langinfo(CODESET);
    T.caps.utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
    const char *no_color = getenv("NO_COLOR");
    T.caps.colors = 0;
    if (!(no_color && *no_color) && has_colors() && start_color() == OK)
        T.caps.colors = COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : COLORS >= 8 ? 8 : 0;
    setup_colors(theme);
    T.restore_len = 0;
    add_restore("sgr0");
    add_restore("cnorm");
    add_restore("rmkx");
    add_restore("rmcup");
    T.n_ext = 0;
    find_ext_key("kLFT3", TUI_KEY_ALT_LEFT);
    find_ext_key("kRIT3", TUI_KEY_ALT_RIGHT);
    find_ext_key("kLFT9", TUI_KEY_ALT_LEFT);
    find_ext_key("kRIT9", TUI_KEY_ALT_RIGHT);
    find_ext_key("kLFT4", TUI_KEY_ALT_LEFT);
    find_ext_key("kRIT4", TUI_KEY_ALT_RIGHT);
}

hs_status tui_term_start(const tui_theme *theme, hs_error *err) {
    if (T.active)
        return HS_OK;
    setlocale(LC_ALL, "");
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return hs_fail(err, HS_ERR_USAGE, "the explorer needs a terminal (stdin and stdout)");
    T.have_saved = tcgetattr(STDIN_FILENO, &T.saved) == 0;
    T.screen = newterm(NULL, stdout, stdin);
    if (!T.screen) {
        const char *term = getenv("TERM");
        return hs_fail(err, HS_ERR_USAGE, "cannot start the terminal (TERM=%s)",
                       term ? term : "unset");
    }
    set_up(theme);
    install_handlers();
    return HS_OK;
}

hs_status tui_term_start_virtual(const tui_theme *theme, const char *term, int lines, int cols,
                                 FILE *out, FILE *in, hs_error *err) {
    if (T.active)
        return hs_fail(err, HS_ERR_USAGE, "a screen is active already");
    setlocale(LC_ALL, "");
    T.have_saved = false; /* no terminal of ours to give back */
    T.screen = newterm(term, out, in);
    if (!T.screen)
        return hs_fail(err, HS_ERR_USAGE, "cannot start a virtual screen (TERM=%s)", term);
    set_up(theme);
    if (resizeterm(lines, cols) != OK) {
        tui_term_stop();
        return hs_fail(err, HS_ERR_USAGE, "cannot size the virtual screen %dx%d", cols, lines);
    }
    return HS_OK;
}

void tui_term_stop(void) {
    if (!T.active)
        return;
    T.active = false;
    curs_set(1);
    endwin();
    delscreen(T.screen);
    T.screen = NULL;
    if (T.have_saved)
        tcsetattr(STDIN_FILENO, TCSANOW, &T.saved);
    restore_handlers();
    T.n_pending = 0;
}

bool tui_term_active(void) { return T.active; }
