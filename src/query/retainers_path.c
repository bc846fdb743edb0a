/* The steps of a match: each closure on its path decoded again (only
 * matches pay for this), labelled with the field of its parent that holds
 * it, its era, and whether that parent is of a newer era (the leak
 * signature era profiling exists to show). */
#include <stdlib.h>
#include <string.h>

#include "retainers_internal.h"

#define NO_TEXT SIZE_MAX
#define LABEL_MAX 1024

void query_path_init(query_path_builder *b, heap *h) {
    memset(b, 0, sizeof *b);
    b->h = h;
}

void query_path_free(query_path_builder *b) {
    free(b->addrs);
    free(b->steps);
    free(b->edge_at);
    free(b->label_at);
    free(b->text);
    heap_closure_free(&b->c);
    memset(b, 0, sizeof *b);
}

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory building a retainer path");
}

static bool reserve_steps(query_path_builder *b, size_t n) {
    if (n <= b->steps_cap)
        return true;
    size_t cap = b->steps_cap ? b->steps_cap : 16;
    while (cap < n)
        cap *= 2;
    query_step *steps = realloc(b->steps, cap * sizeof *steps);
    if (steps)
        b->steps = steps;
    size_t *e = realloc(b->edge_at, cap * sizeof *e);
    if (e)
        b->edge_at = e;
    size_t *l = realloc(b->label_at, cap * sizeof *l);
    if (l)
        b->label_at = l;
    if (!steps || !e || !l)
        return false;
    b->steps_cap = cap;
    return true;
}

/* Room for `extra` more bytes of text; returns the offset they start at. */
static bool reserve_text(query_path_builder *b, size_t extra) {
    if (b->text_len + extra <= b->text_cap)
        return true;
    size_t cap = b->text_cap ? b->text_cap : 4096;
    while (cap < b->text_len + extra)
        cap *= 2;
    char *t = realloc(b->text, cap);
    if (!t)
        return false;
    b->text = t;
    b->text_cap = cap;
    return true;
}

static bool add_label(query_path_builder *b, size_t i, const heap_closure *c) {
    if (!reserve_text(b, LABEL_MAX))
        return false;
    b->label_at[i] = b->text_len;
    heap_closure_label(b->h, c, b->text + b->text_len, LABEL_MAX);
    b->text_len += strlen(b->text + b->text_len) + 1;
    return true;
}

/* The label of c's first edge to child: the one the breadth-first walk
 * followed, since later edges to it found it already visited. */
static bool add_edge(query_path_builder *b, size_t i, const heap_closure *c, uint64_t child) {
    if (!reserve_text(b, 64))
        return false;
    b->edge_at[i] = b->text_len;
    char *buf = b->text + b->text_len;
    strcpy(buf, "?");
    for (size_t e = 0; e < c->n_edges; e++) {
        if (c->edges[e].addr == child) {
            heap_edge_label(&c->edges[e], buf, 64);
            break;
        }
    }
    b->text_len += strlen(buf) + 1;
    return true;
}

/* Everything but the strings, from a decoded closure. */
static hs_status fill(query_path_builder *b, query_step *s, const heap_closure *c,
                      hs_error *err) {
    *s = (query_step){.addr = c->addr, .info_ptr = c->info_ptr, .info = c->info,
                      .type = c->type, .size = c->size};
    if (c->prof.present && heap_version(b->h)->prof_mode == WIRE_PROF_ERA) {
        s->has_era = true;
        s->era = c->prof.word;
    }
    return c->info ? heap_info_source(b->h, c->info, &s->ipe, err) : HS_OK;
}

/* Turns the text offsets into pointers (the text no longer moves) and
 * sets the era flags. */
static void finish(query_path_builder *b, size_t n, query_match *m) {
    *m = (query_match){.steps = b->steps, .n_steps = n};
    for (size_t i = 0; i < n; i++) {
        query_step *s = &b->steps[i];
        s->edge = b->edge_at[i] == NO_TEXT ? NULL : b->text + b->edge_at[i];
        s->label = b->text + b->label_at[i];
        const query_step *up = i > 0 ? &b->steps[i - 1] : NULL;
        s->newer_retains_older = up && up->has_era && s->has_era && s->era > 0 &&
                                 up->era > s->era;
        if (s->newer_retains_older)
            m->n_newer_retains_older++;
    }
}

hs_status query_path_single(query_path_builder *b, const heap_closure *c, query_match *m,
                            hs_error *err) {
    b->text_len = 0;
    if (!reserve_steps(b, 1))
        return nomem(err);
    b->edge_at[0] = NO_TEXT;
    hs_status st = fill(b, &b->steps[0], c, err);
    if (st != HS_OK)
        return st;
    if (!add_label(b, 0, c))
        return nomem(err);
    finish(b, 1, m);
    return HS_OK;
}

hs_status query_path_build(query_path_builder *b, const query_trail *trail, query_match *m,
                           hs_error *err) {
    size_t n = query_trail_path(trail, b->addrs, b->addrs_cap);
    if (n > b->addrs_cap) {
        uint64_t *a = realloc(b->addrs, n * sizeof *a);
        if (!a)
            return nomem(err);
        b->addrs = a;
        b->addrs_cap = n;
        query_trail_path(trail, b->addrs, b->addrs_cap);
    }
    if (!reserve_steps(b, n))
        return nomem(err);
    b->text_len = 0;
    b->edge_at[0] = NO_TEXT;
    for (size_t i = 0; i < n; i++) {
        hs_status st = heap_decode(b->h, b->addrs[i], &b->c, err);
        if (st == HS_OK)
            st = fill(b, &b->steps[i], &b->c, err);
        if (st != HS_OK)
            return hs_fail_context(err, "retainer path step %zu", i);
        if (!add_label(b, i, &b->c) || (i + 1 < n && !add_edge(b, i + 1, &b->c, b->addrs[i + 1])))
            return nomem(err);
    }
    finish(b, n, m);
    return HS_OK;
}
