/* Fuzzy scoring: a greedy left-to-right subsequence match, scored for runs
 * of consecutive characters and for characters at word starts, with a
 * large bonus when the pattern is a plain substring. Good enough for a
 * list of a few dozen command names, and predictable. */
#include "fuzzy.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

static bool word_start(const char *text, size_t i) {
    return i == 0 || !isalnum((unsigned char)text[i - 1]);
}

int tui_fuzzy_score(const char *pattern, const char *text) {
    size_t pl = strlen(pattern);
    if (pl == 0)
        return 0;
    int score = 0, run = 0;
    size_t p = 0;
    for (size_t i = 0; text[i] && p < pl; i++) {
        if (tolower((unsigned char)text[i]) != tolower((unsigned char)pattern[p])) {
            run = 0;
            continue;
        }
        score += 1 + 2 * run + (word_start(text, i) ? 3 : 0);
        run++;
        p++;
    }
    if (p < pl)
        return -1;
    long at = tui_find_ci(text, pattern);
    if (at >= 0)
        score += 100 + (word_start(text, (size_t)at) ? 50 : 0) - (at > 50 ? 50 : (int)at);
    return score;
}

typedef struct scored {
    size_t index;
    int score;
} scored;

static int by_score(const void *a, const void *b) {
    const scored *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

size_t tui_fuzzy_filter(const char *pattern, const char *const *texts, size_t n, size_t *out) {
    scored *s = malloc((n ? n : 1) * sizeof *s);
    size_t m = 0;
    if (!s) { /* out of memory: unranked, still filtered */
        for (size_t i = 0; i < n; i++)
            if (tui_fuzzy_score(pattern, texts[i]) >= 0)
                out[m++] = i;
        return m;
    }
    for (size_t i = 0; i < n; i++) {
        int sc = tui_fuzzy_score(pattern, texts[i]);
        if (sc >= 0)
            s[m++] = (scored){i, sc};
    }
    qsort(s, m, sizeof *s, by_score);
    for (size_t i = 0; i < m; i++)
        out[i] = s[i].index;
    free(s);
    return m;
}
