/* The steps of a match: each closure on its path decoded again (only
 * matches pay for this), labelled with the field of its parent that holds
 * it, its era, and whether that parent is of a newer era (the leak
 * signature era profiling exists to show). Steps are cached by address
 * (retainers_internal.h), so the thousand matches below one retainer
 * chain cost about a thousand steps, not half a million. */
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "retainers_internal.h"

#define LABEL_MAX 1024
#define CHUNK_BYTES 65536
#define CACHE_MAX_STEPS (1u << 18) /* about 40 MB at most; then emptied */

struct text_chunk {
    text_chunk *next;
    size_t used, cap;
    char data[];
};

static const char *arena_copy(text_arena *a, const char *s) {
    size_t n = strlen(s) + 1;
    if (!a->head || a->head->cap - a->head->used < n) {
        size_t cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
        text_chunk *c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        *c = (text_chunk){.next = a->head, .cap = cap};
        a->head = c;
    }
    char *out = a->head->data + a->head->used;
    memcpy(out, s, n);
    a->head->used += n;
    return out;
}

/* Frees every chunk but the newest, which is reused. */
static void arena_reset(text_arena *a) {
    if (!a->head)
        return;
    for (text_chunk *c = a->head->next, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head->next = NULL;
    a->head->used = 0;
}

static void arena_free(text_arena *a) {
    arena_reset(a);
    free(a->head);
    a->head = NULL;
}

static void cache_clear(step_cache *k) {
    u64map_free(&k->index);
    k->count = 0;
    arena_reset(&k->text);
}

void query_path_init(query_path_builder *b, heap *h) {
    memset(b, 0, sizeof *b);
    b->h = h;
}

void query_path_free(query_path_builder *b) {
    free(b->addrs);
    free(b->steps);
    arena_free(&b->scratch);
    u64map_free(&b->cache.index);
    free(b->cache.steps);
    arena_free(&b->cache.text);
    heap_closure_free(&b->c);
    memset(b, 0, sizeof *b);
}

static hs_status nomem(hs_error *err) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory building a retainer path");
}

static bool reserve(query_step **steps, size_t *cap, size_t n) {
    if (n <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    query_step *s = realloc(*steps, c * sizeof *s);
    if (!s)
        return false;
    *steps = s;
    *cap = c;
    return true;
}

/* Everything but the edge, from a decoded closure; strings go to a. */
static hs_status fill(query_path_builder *b, text_arena *a, query_step *s, const heap_closure *c,
                      hs_error *err) {
    *s = (query_step){.addr = c->addr, .info_ptr = c->info_ptr, .info = c->info,
                      .type = c->type, .size = c->size, .prof = c->prof};
    s->has_era = heap_closure_era(b->h, c, &s->era);
    hs_status st = c->info ? heap_info_source(b->h, c->info, &s->ipe, err) : HS_OK;
    if (st != HS_OK)
        return st;
    char label[LABEL_MAX];
    heap_closure_label(b->h, c, label, sizeof label);
    s->label = arena_copy(a, label);
    if (s->label && c->type == HS_TSO) {
        char thread[QUERY_THREAD_LABEL_MAX];
        query_thread_label(b->h, c, thread, sizeof thread);
        s->thread_id = c->thread_id;
        if (*thread && !(s->thread_label = arena_copy(a, thread)))
            return nomem(err);
    }
    return s->label ? HS_OK : nomem(err);
}

/* The label of parent's first edge to child: the one the breadth-first
 * walk followed, since later edges to it found it already visited. An
 * edge of a stack frame notes the frame in s. */
static const char *edge_of(heap *h, text_arena *a, const heap_closure *parent, uint64_t child,
                           query_step *s) {
    char buf[HEAP_EDGE_LABEL_MAX] = "?";
    for (size_t e = 0; e < parent->n_edges; e++) {
        if (parent->edges[e].addr == child) {
            heap_closure_edge_label(h, parent, e, buf, sizeof buf);
            const heap_frame *f = heap_frame_of_edge(parent, e);
            if (f) {
                s->in_frame = true;
                s->frame_number = (uint32_t)(f - parent->frames);
                s->frame_info = f->info;
            }
            break;
        }
    }
    return arena_copy(a, buf);
}

static void count_flags(const query_step *steps, size_t n, query_match *m) {
    *m = (query_match){.steps = steps, .n_steps = n};
    for (size_t i = 0; i < n; i++)
        if (steps[i].newer_retains_older)
            m->n_newer_retains_older++;
}

hs_status query_path_single(query_path_builder *b, const heap_closure *c, query_match *m,
                            hs_error *err) {
    arena_reset(&b->scratch);
    if (!reserve(&b->steps, &b->steps_cap, 1))
        return nomem(err);
    hs_status st = fill(b, &b->scratch, &b->steps[0], c, err);
    if (st == HS_OK)
        count_flags(b->steps, 1, m);
    return st;
}

/* The addresses of the trail into b->addrs; returns how many. */
static size_t trail_addresses(query_path_builder *b, const query_trail *trail) {
    size_t n = query_trail_path(trail, b->addrs, b->addrs_cap);
    if (n > b->addrs_cap) {
        uint64_t *a = realloc(b->addrs, n * sizeof *a);
        if (!a)
            return 0;
        b->addrs = a;
        b->addrs_cap = n;
        query_trail_path(trail, b->addrs, b->addrs_cap);
    }
    return n;
}

hs_status query_path_build(query_path_builder *b, const query_trail *trail, query_match *m,
                           hs_error *err) {
    size_t n = trail_addresses(b, trail);
    if (n == 0 || !reserve(&b->steps, &b->steps_cap, n))
        return nomem(err);
    step_cache *k = &b->cache;
    if (k->count + n > CACHE_MAX_STEPS)
        cache_clear(k);
    bool caching = n <= CACHE_MAX_STEPS;
    text_arena *text = caching ? &k->text : &b->scratch;
    arena_reset(&b->scratch);

    /* the deepest cached step: it and all above it come from the cache */
    size_t have = n;
    uint64_t *pos = NULL;
    while (have > 0 && !(pos = u64map_find(&k->index, b->addrs[have - 1])))
        have--;
    for (size_t i = have; i-- > 0;) {
        b->steps[i] = k->steps[*pos - 1];
        if (i > 0)
            pos = u64map_find(&k->index, b->addrs[i - 1]);
        if (i > 0 && !pos) /* cannot happen: ancestors are cached with their children */
            return hs_fail(err, HS_ERR_INTERNAL, "retainer step cache lost an ancestor");
    }
    hs_status st = have > 0 ? heap_decode(b->h, b->addrs[have - 1], &b->c, err) : HS_OK;
    for (size_t i = have; st == HS_OK && i < n; i++) {
        query_step in = {0}; /* what the edge says about the frame holding this step */
        const char *edge = i > 0 ? edge_of(b->h, text, &b->c, b->addrs[i], &in) : NULL;
        if (i > 0 && !edge)
            return nomem(err);
        st = heap_decode(b->h, b->addrs[i], &b->c, err);
        if (st == HS_OK)
            st = fill(b, text, &b->steps[i], &b->c, err);
        if (st != HS_OK)
            break;
        query_step *s = &b->steps[i];
        s->in_frame = in.in_frame;
        s->frame_number = in.frame_number;
        s->frame_info = in.frame_info;
        const query_step *up = i > 0 ? &b->steps[i - 1] : NULL;
        s->edge = edge;
        s->newer_retains_older = up && up->has_era && s->has_era && s->era > 0 &&
                                 up->era > s->era;
    }
    if (st != HS_OK)
        return hs_fail_context(err, "building the retainer path of 0x%llx",
                               (unsigned long long)b->addrs[n - 1]);
    if (caching) {
        if (!reserve(&k->steps, &k->cap, k->count + (n - have)))
            return nomem(err);
        for (size_t i = have; i < n; i++) {
            k->steps[k->count++] = b->steps[i];
            if (!u64map_put(&k->index, b->addrs[i], k->count))
                return nomem(err);
        }
    }
    count_flags(b->steps, n, m);
    return HS_OK;
}
