/* Fuzzy matching for the command palette: the pattern's characters in
 * order, ignoring ASCII case; whole substrings and word starts rank first. */
#ifndef HEAPSCOPE_TUI_FUZZY_H
#define HEAPSCOPE_TUI_FUZZY_H

#include <stddef.h>

/* -1 when pattern is not a subsequence of text, else a score (higher is
 * better; an empty pattern scores 0). */
int tui_fuzzy_score(const char *pattern, const char *text);

/* Writes into out the indexes of the texts that match, best first (ties
 * keep their order); returns how many. out has room for n. */
size_t tui_fuzzy_filter(const char *pattern, const char *const *texts, size_t n, size_t *out);

#endif
