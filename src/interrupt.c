#include "heapscope/interrupt.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};

static volatile sig_atomic_t caught;
static void (*volatile last_words)(void);
static void (*volatile first_words)(void);
static char note[256];

/* Async-signal-safe: a store, then on the second signal the hook, signal()
 * and raise(). */
static void on_quit(int sig) {
    int saved = errno;
    if (caught) {
        void (*fn)(void) = last_words;
        if (fn)
            fn();
        signal(sig, SIG_DFL);
        raise(sig); /* delivered when the handler returns */
    } else {
        caught = sig;
        void (*fn)(void) = first_words;
        if (fn)
            fn();
    }
    errno = saved;
}

void hs_interrupt_catch(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
        sigaddset(&sa.sa_mask, quit_signals[i]);
    sa.sa_flags = 0; /* no SA_RESTART */
    for (size_t i = 0; i < sizeof quit_signals / sizeof quit_signals[0]; i++)
        sigaction(quit_signals[i], &sa, NULL);
}

void hs_interrupt_set_last_words(void (*fn)(void)) { last_words = fn; }

void hs_interrupt_set_first_words(void (*fn)(void)) { first_words = fn; }

int hs_interrupt_signal(void) { return caught; }

const char *hs_interrupt_name(int sig) {
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    }
    return "a signal";
}

void hs_interrupt_note(const char *text) { snprintf(note, sizeof note, "%s", text ? text : ""); }

int hs_interrupt_exit_status(int rc) {
    int sig = caught;
    if (!sig)
        return rc;
    fprintf(stderr, "heapscope: interrupted by %s%s%s\n", hs_interrupt_name(sig),
            note[0] ? ": " : "", note);
    return 128 + sig;
}
