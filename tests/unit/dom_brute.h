/* Brute-force dominators for the tests: a node d dominates w when w can no
 * longer be reached once d is removed. Graphs of at most DB_MAX nodes,
 * 1..n (0 is the virtual root), with phases as dom_graph has them. */
#ifndef HEAPSCOPE_TEST_DOM_BRUTE_H
#define HEAPSCOPE_TEST_DOM_BRUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define DB_MAX 48

typedef struct db_graph {
    uint32_t n;
    bool edge[DB_MAX + 1][DB_MAX + 1]; /* edge[v][w]: v -> w (v, w in 1..n) */
    uint32_t starts[2][DB_MAX + 1];    /* the root's children, by phase */
    size_t n_starts[2];
    uint64_t size[DB_MAX + 1];
} db_graph;

/* Marks in seen what the starts of phase p reach without passing through
 * `removed` (0: none) or any node in `avoid` (an earlier phase's nodes). */
static inline void db_reach(const db_graph *g, int p, uint32_t removed, const bool *avoid,
                            bool *seen) {
    uint32_t queue[DB_MAX + 1];
    size_t head = 0, tail = 0;
    memset(seen, 0, sizeof(bool) * (DB_MAX + 1));
    for (size_t i = 0; i < g->n_starts[p]; i++) {
        uint32_t s = g->starts[p][i];
        if (s != removed && !avoid[s] && !seen[s]) {
            seen[s] = true;
            queue[tail++] = s;
        }
    }
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t w = 1; w <= g->n; w++)
            if (g->edge[v][w] && w != removed && !avoid[w] && !seen[w]) {
                seen[w] = true;
                queue[tail++] = w;
            }
    }
}

/* dominated[d][w]: d dominates w (d = w included when w is reached);
 * reached[w]: some start reaches w. */
static inline void db_dominators(const db_graph *g, bool dominated[DB_MAX + 1][DB_MAX + 1],
                                 bool *reached) {
    bool phase1[DB_MAX + 1], phase2[DB_MAX + 1], none[DB_MAX + 1] = {0}, without[DB_MAX + 1];
    db_reach(g, 0, 0, none, phase1);
    db_reach(g, 1, 0, phase1, phase2);
    memset(dominated, 0, sizeof(bool) * (DB_MAX + 1) * (DB_MAX + 1));
    for (uint32_t w = 1; w <= g->n; w++)
        reached[w] = phase1[w] || phase2[w];
    reached[0] = false;
    for (uint32_t d = 1; d <= g->n; d++) {
        if (phase1[d]) {
            db_reach(g, 0, d, none, without);
            for (uint32_t w = 1; w <= g->n; w++)
                dominated[d][w] = phase1[w] && !without[w];
        } else if (phase2[d]) {
            db_reach(g, 1, d, phase1, without);
            for (uint32_t w = 1; w <= g->n; w++)
                dominated[d][w] = phase2[w] && !without[w];
        }
    }
}

#endif
