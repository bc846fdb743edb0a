/* footer.c: the footer line and the prompt typed in it. */
#ifndef HEAPSCOPE_TUI_FOOTER_H
#define HEAPSCOPE_TUI_FOOTER_H

#include <stdbool.h>

#include "heapscope/query.h"
#include "input.h"

typedef struct tui_app tui_app;

typedef enum tui_prompt_kind {
    TUI_PROMPT_FIND,          /* text in the tree */
    TUI_PROMPT_FILTER_FIND,   /* filters := [this]; search */
    TUI_PROMPT_FILTER_ADD,    /* prepend to the filters */
    TUI_PROMPT_LIMIT,
    TUI_PROMPT_REMOVE,
    TUI_PROMPT_LARGE_ARR,     /* filters := [ARR_WORDS, size >= n]; search */
    TUI_PROMPT_SAVE,          /* Ctrl-X: the snapshot file's name */
    TUI_PROMPT_ASK            /* a view's question: on_submit gets the text */
} tui_prompt_kind;

typedef struct tui_prompt {
    tui_prompt_kind kind;
    query_filter_kind filter;
    bool invert;      /* Ctrl-G while typing a filter */
    char label[96];
    tui_input in;
    void (*on_submit)(tui_app *app, const char *text); /* TUI_PROMPT_ASK */
} tui_prompt;

void tui_prompt_open(tui_app *app, tui_prompt_kind kind, query_filter_kind filter, bool invert,
                     const char *label);
void tui_prompt_key(tui_app *app, int key);
/* Asks for a line of text, pre-filled with a selected default; Enter hands
 * it to on_submit (a view's own question, without a prompt kind of its own). */
void tui_prompt_ask(tui_app *app, const char *label, const char *default_text,
                    void (*on_submit)(tui_app *app, const char *text));

/* "; N closures could not be read (0xADDR: why)" for the end of a view's
 * message after a query that skipped some, else "": how many, and why the
 * first, as the command line's note says. */
void tui_unreadable_note(const query_unreadable *u, char *buf, size_t cap);

/* The footer: the prompt, a question, the last message or the view's keys. */
void tui_footer_draw(tui_app *app);

void tui_cmd_prompt_accept(tui_app *app, int arg);
void tui_cmd_prompt_cancel(tui_app *app, int arg);
void tui_cmd_prompt_invert(tui_app *app, int arg);
void tui_cmd_prompt_edit(tui_app *app, int arg);

#endif
