/* Merged root paths: the prefix tree of the matches' paths. A closure
 * reached breadth first has one parent in the search's tree, so the prefix
 * tree is the union of the paths: one node per address, found by a hash
 * map, each counting the matches at or below it. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"
#include "heapscope/query.h"
#include "heapscope/u64map.h"

struct query_merged {
    query_merged_node *nodes;
    size_t count, cap;
    u64map index;   /* address -> node + 1 */
    size_t *kids;   /* after finish: every node's children, then the starts */
    size_t n_starts;
};

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory");
}

hs_status query_merged_new(query_merged **out, hs_error *err) {
    *out = calloc(1, sizeof **out);
    return *out ? HS_OK : nomem(err);
}

void query_merged_free(query_merged *t) {
    if (!t)
        return;
    for (size_t i = 0; i < t->count; i++) {
        free((char *)t->nodes[i].step.edge);
        free((char *)t->nodes[i].step.label);
        free((char *)t->nodes[i].step.thread_label);
    }
    free(t->nodes);
    free(t->kids);
    u64map_free(&t->index);
    free(t);
}

static char *copy(const char *s) {
    return s ? strdup(s) : NULL;
}

/* The node of step s (under parent), made when new. */
static hs_status node_of(query_merged *t, const query_step *s, size_t parent, size_t *out,
                         hs_error *err) {
    const uint64_t *i = u64map_find(&t->index, s->addr);
    if (i) {
        *out = (size_t)*i - 1;
        return HS_OK;
    }
    if (t->count == t->cap &&
        !hs_grow((void **)&t->nodes, &t->cap, t->count + 1, sizeof *t->nodes))
        return nomem(err);
    query_merged_node *n = &t->nodes[t->count];
    *n = (query_merged_node){.step = *s, .parent = parent};
    /* the step's texts are the path builder's, reused: the tree keeps copies */
    n->step.edge = copy(s->edge);
    n->step.label = copy(s->label);
    n->step.thread_label = copy(s->thread_label);
    if ((s->edge && !n->step.edge) || (s->label && !n->step.label) ||
        (s->thread_label && !n->step.thread_label) ||
        !u64map_put(&t->index, s->addr, t->count + 1)) {
        free((char *)n->step.edge);
        free((char *)n->step.label);
        free((char *)n->step.thread_label);
        return nomem(err);
    }
    *out = t->count++;
    return HS_OK;
}

hs_status query_merged_add(query_merged *t, const query_match *m, hs_error *err) {
    if (m->n_steps == 0)
        return HS_OK;
    uint64_t bytes = m->steps[m->n_steps - 1].size;
    size_t parent = QUERY_MERGED_NONE, at = 0;
    for (size_t i = 0; i < m->n_steps; i++) {
        hs_status st = node_of(t, &m->steps[i], parent, &at, err);
        if (st != HS_OK)
            return st;
        if (i == 0 && parent == QUERY_MERGED_NONE)
            t->nodes[at].from_saved_object = m->from_saved_object;
        t->nodes[at].matches++;
        t->nodes[at].bytes += bytes;
        parent = at;
    }
    t->nodes[at].match = true;
    return HS_OK;
}

static _Thread_local const query_merged *sorting; /* qsort has no context argument */

static int by_bytes(const void *a, const void *b) {
    const query_merged_node *x = &sorting->nodes[*(const size_t *)a],
                            *y = &sorting->nodes[*(const size_t *)b];
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->matches != y->matches)
        return x->matches > y->matches ? -1 : 1;
    return x->step.addr < y->step.addr ? -1 : x->step.addr > y->step.addr;
}

/* Children grouped by parent with a counting sort (the starts, whose
 * parent is none, last), each group then ordered. */
hs_status query_merged_finish(query_merged *t, hs_error *err) {
    free(t->kids);
    size_t n = t->count;
    t->kids = malloc((n ? n : 1) * sizeof *t->kids);
    size_t *at = calloc(n + 2, sizeof *at);
    if (!t->kids || !at) {
        free(at);
        return nomem(err);
    }
    for (size_t i = 0; i < n; i++) { /* counts, the starts in slot n */
        size_t p = t->nodes[i].parent;
        at[(p == QUERY_MERGED_NONE ? n : p) + 1]++;
    }
    for (size_t i = 1; i <= n + 1; i++)
        at[i] += at[i - 1];
    for (size_t i = 0; i <= n; i++) { /* where each group begins */
        if (i < n) {
            t->nodes[i].children = t->kids + at[i];
            t->nodes[i].n_children = at[i + 1] - at[i];
        }
    }
    t->n_starts = at[n + 1] - at[n];
    for (size_t i = 0; i < n; i++) {
        size_t p = t->nodes[i].parent;
        t->kids[at[p == QUERY_MERGED_NONE ? n : p]++] = i;
    }
    free(at);
    sorting = t;
    for (size_t i = 0; i < n; i++)
        if (t->nodes[i].n_children > 1)
            qsort((size_t *)t->nodes[i].children, t->nodes[i].n_children, sizeof(size_t),
                  by_bytes);
    qsort(t->kids + n - t->n_starts, t->n_starts, sizeof(size_t), by_bytes);
    sorting = NULL;
    return HS_OK;
}

size_t query_merged_count(const query_merged *t) {
    return t->count;
}

const query_merged_node *query_merged_node_at(const query_merged *t, size_t i) {
    return i < t->count ? &t->nodes[i] : NULL;
}

const size_t *query_merged_starts(const query_merged *t, size_t *n) {
    *n = t->kids ? t->n_starts : 0;
    return t->kids ? t->kids + t->count - t->n_starts : NULL;
}
