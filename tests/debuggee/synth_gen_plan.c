/* The plan: one breadth-first walk of the finished process from its ROOTS,
 * decoding every closure from memory (synth_gen_walk.c). It totals the
 * census (each reachable closure once, heap and static), counts the
 * garbage (closure starts recorded by the allocator but not reached), and
 * checks the planted leak: its path must be the unique shortest route to
 * the first Leak closure, and no other Leak closure may be that close.
 * Any inconsistency (a pointer to a non-closure, an unmapped info table)
 * fails generation: the plan doubles as the generator's self-check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"

static void bad(sg_plan *pl, const char *why, uint64_t addr) {
    if (!pl->bad)
        snprintf(pl->why, sizeof pl->why, "%s (0x%llx)", why, (unsigned long long)addr);
    pl->bad = true;
}

static void *grow(sg_plan *pl, void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q)
        bad(pl, "out of memory", n);
    return q;
}

static bool in_heap(uint64_t a) {
    return a >= SYNTH_HEAP_BASE && a <= SG_HEAP_END;
}

/* Marks a closure visited; returns false if it already was. */
static bool mark(sg_ctx *c, sg_plan *pl, uint64_t a) {
    if (in_heap(a)) {
        uint64_t bit = (a - SYNTH_HEAP_BASE) >> 3;
        if ((bit >> 6) >= pl->vwords || !((c->heap.starts[bit >> 6] >> (bit & 63)) & 1)) {
            bad(pl, "pointer to a heap address that is not a closure", a);
            return false;
        }
        uint64_t m = UINT64_C(1) << (bit & 63);
        if (pl->visited[bit >> 6] & m)
            return false;
        pl->visited[bit >> 6] |= m;
        return true;
    }
    if (2 * (pl->sn + 1) > pl->scap) { /* rehash */
        size_t ncap = pl->scap ? 2 * pl->scap : 1024;
        uint64_t *n = calloc(ncap, sizeof *n);
        if (!n) {
            bad(pl, "out of memory", ncap);
            return false;
        }
        for (size_t i = 0; i < pl->scap; i++)
            for (size_t h = sg_mix64(pl->sset[i]) & (ncap - 1); pl->sset[i]; h = (h + 1) & (ncap - 1))
                if (!n[h]) {
                    n[h] = pl->sset[i];
                    break;
                }
        free(pl->sset);
        pl->sset = n;
        pl->scap = ncap;
    }
    for (size_t h = sg_mix64(a) & (pl->scap - 1);; h = (h + 1) & (pl->scap - 1)) {
        if (pl->sset[h] == a)
            return false;
        if (!pl->sset[h]) {
            pl->sset[h] = a;
            pl->sn++;
            return true;
        }
    }
}

static void enqueue(sg_plan *pl, uint64_t a) {
    if (pl->qlen == pl->qcap) {
        size_t ncap = pl->qcap ? 2 * pl->qcap : 4096;
        uint64_t *n = grow(pl, NULL, ncap * sizeof *n);
        if (!n)
            return;
        for (size_t i = 0; i < pl->qlen; i++)
            n[i] = pl->q[(pl->qhead + i) & (pl->qcap - 1)];
        free(pl->q);
        pl->q = n;
        pl->qcap = ncap;
        pl->qhead = 0;
    }
    pl->q[(pl->qhead + pl->qlen++) & (pl->qcap - 1)] = a;
}

typedef struct emit_ctx {
    sg_ctx *c;
    sg_plan *pl;
} emit_ctx;

/* Child edge cur -> a, found while expanding level pl->level. */
static void on_child(void *ud, uint64_t a) {
    emit_ctx *e = ud;
    sg_ctx *c = e->c;
    sg_plan *pl = e->pl;
    if (pl->bad)
        return;
    if (a == 0) {
        bad(pl, "null pointer field", pl->cur);
        return;
    }
    unsigned next = pl->level + 1;
    if (next < c->leak_path_len && a == c->leak_path[next] && pl->cur != c->leak_path[next - 1])
        bad(pl, "leak path is not the unique shortest path", pl->cur);
    if (!mark(c, pl, a))
        return;
    for (size_t i = 0; i < c->leak_path_len; i++)
        if (a == c->leak_path[i])
            pl->path_level[i] = (int)next;
    enqueue(pl, a);
}

static int key_for(sg_plan *pl, const sg_closure *cl) {
    if (2 * (pl->in + 1) > pl->icap) {
        size_t ncap = pl->icap ? 2 * pl->icap : 256;
        uint64_t *ni = calloc(ncap, sizeof *ni);
        uint32_t *nk = calloc(ncap, sizeof *nk);
        if (!ni || !nk) {
            free(ni);
            free(nk);
            bad(pl, "out of memory", ncap);
            return -1;
        }
        for (size_t i = 0; i < pl->icap; i++) {
            if (!pl->imap_info[i])
                continue;
            size_t h = sg_mix64(pl->imap_info[i]) & (ncap - 1);
            while (ni[h])
                h = (h + 1) & (ncap - 1);
            ni[h] = pl->imap_info[i];
            nk[h] = pl->imap_key[i];
        }
        free(pl->imap_info);
        free(pl->imap_key);
        pl->imap_info = ni;
        pl->imap_key = nk;
        pl->icap = ncap;
    }
    size_t h = sg_mix64(cl->info) & (pl->icap - 1);
    for (; pl->imap_info[h]; h = (h + 1) & (pl->icap - 1))
        if (pl->imap_info[h] == cl->info)
            return (int)pl->imap_key[h];

    char key[512], name[256];
    bool con = sg_is_constructor(cl->type);
    if (con) {
        const char *desc = sg_con_desc(&pl->w, cl->info);
        if (!desc) {
            bad(pl, "constructor without a description", cl->info);
            return -1;
        }
        sg_con_key(desc, key, sizeof key, name, sizeof name);
    } else {
        char unknown[32];
        snprintf(key, sizeof key, "%s",
                 sg_type_name(pl->w.p->ghc_major, cl->type, unknown, sizeof unknown));
    }
    size_t k = 0;
    while (k < pl->nkeys && strcmp(pl->keys[k].name, key))
        k++;
    if (k == pl->nkeys) {
        if (pl->nkeys == pl->capkeys) {
            pl->capkeys = pl->capkeys ? 2 * pl->capkeys : 64;
            sg_pkey *nk = grow(pl, pl->keys, pl->capkeys * sizeof *nk);
            if (!nk)
                return -1;
            pl->keys = nk;
        }
        sg_pkey *pk = &pl->keys[pl->nkeys++];
        *pk = (sg_pkey){.name = strdup(key), .con = con};
        pk->era_count = calloc(pl->eras + 1, sizeof(uint64_t));
        pk->era_bytes = calloc(pl->eras + 1, sizeof(uint64_t));
        if (!pk->name || !pk->era_count || !pk->era_bytes) {
            bad(pl, "out of memory", 0);
            return -1;
        }
    }
    pl->imap_info[h] = cl->info;
    pl->imap_key[h] = (uint32_t)k;
    pl->in++;
    return (int)k;
}

static void count(sg_ctx *c, sg_plan *pl, const sg_closure *cl, bool heap) {
    int k = key_for(pl, cl);
    if (k < 0)
        return;
    uint64_t era = heap ? cl->era : 0;
    if (era > pl->eras) {
        bad(pl, "era out of range", cl->addr);
        return;
    }
    sg_pkey *pk = &pl->keys[k];
    pk->count++;
    pk->bytes += cl->size;
    pk->era_count[era]++;
    pk->era_bytes[era] += cl->size;
    sg_plan_thunk_count(pl, cl);
    pl->era_count[era]++;
    pl->era_bytes[era] += cl->size;
    pl->reach_count++;
    pl->reach_bytes += cl->size;
    if (!heap) {
        pl->static_count++;
        pl->static_bytes += cl->size;
    }
    if (cl->info == c->tabs[SG_T_LEAK].p) {
        pl->leak_count++;
        pl->leak_bytes += cl->size;
        if (pl->level <= c->leak_path_len - 1 && cl->addr != c->leak_first)
            bad(pl, "another Leak closure is as close to a root", cl->addr);
    }
}

static void bfs(sg_ctx *c, sg_plan *pl, const synth_process *out) {
    emit_ctx e = {c, pl};
    for (size_t i = 0; i < out->n_roots; i++) {
        uint64_t r = out->roots[i] & ~(uint64_t)7;
        if (mark(c, pl, r))
            enqueue(pl, r);
        for (size_t k = 0; k < c->leak_path_len; k++)
            if (r == c->leak_path[k] && pl->path_level[k] < 0)
                pl->path_level[k] = 0;
    }
    pl->level = 0;
    while (pl->qlen && !pl->bad) {
        size_t width = pl->qlen; /* everything queued now is on this level */
        for (size_t i = 0; i < width && !pl->bad; i++) {
            uint64_t a = pl->q[pl->qhead];
            pl->qhead = (pl->qhead + 1) & (pl->qcap - 1);
            pl->qlen--;
            sg_closure cl;
            pl->cur = a;
            if (sg_decode(&pl->w, a, &cl, on_child, &e) < 0) {
                bad(pl, "closure does not decode", a);
                break;
            }
            count(c, pl, &cl, in_heap(a));
        }
        pl->level++;
    }
}

static void garbage(sg_ctx *c, sg_plan *pl) {
    for (size_t w = 0; w < pl->vwords && !pl->bad; w++) {
        uint64_t dead = c->heap.starts[w] & ~pl->visited[w];
        while (dead) {
            unsigned b = (unsigned)__builtin_ctzll(dead);
            dead &= dead - 1;
            uint64_t a = SYNTH_HEAP_BASE + 8 * (64 * (uint64_t)w + b);
            sg_closure cl;
            if (sg_decode(&pl->w, a, &cl, NULL, NULL) < 0) {
                bad(pl, "garbage closure does not decode", a);
                return;
            }
            pl->garbage_count++;
            pl->garbage_bytes += cl.size;
        }
    }
}

void sg_plan_cleanup(sg_ctx *c) {
    sg_plan *pl = c->plan;
    if (!pl)
        return;
    for (size_t k = 0; k < pl->nkeys; k++) {
        free(pl->keys[k].name);
        free(pl->keys[k].era_count);
        free(pl->keys[k].era_bytes);
    }
    free(pl->keys);
    free(pl->visited);
    free(pl->sset);
    free(pl->q);
    free(pl->imap_info);
    free(pl->imap_key);
    free(pl->era_count);
    free(pl->era_bytes);
    free(pl->order);
    free(pl->thunks);
    free(pl);
    c->plan = NULL;
}

void sg_plan_build(sg_ctx *c, synth_process *out) {
    sg_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        sg_fail(c, "out of memory (plan)");
    c->plan = pl;
    pl->w = (sg_walk){.p = out, .H = c->H, .S = c->S, .prof_mode = c->prof_mode};
    pl->eras = sg_last_era(c->opt);
    pl->vwords = c->heap.starts_words;
    pl->visited = calloc(pl->vwords ? pl->vwords : 1, sizeof *pl->visited);
    pl->era_count = calloc(pl->eras + 1, sizeof(uint64_t));
    pl->era_bytes = calloc(pl->eras + 1, sizeof(uint64_t));
    if (!pl->visited || !pl->era_count || !pl->era_bytes)
        sg_fail(c, "out of memory (plan)");
    for (size_t i = 0; i < 8; i++)
        pl->path_level[i] = -1;
    bfs(c, pl, out);
    garbage(c, pl);
    if (!pl->bad) {
        for (size_t i = 0; i < c->leak_path_len; i++)
            if (pl->path_level[i] != (int)i)
                bad(pl, "leak path node at the wrong distance", c->leak_path[i]);
        if (pl->leak_count != c->opt->leak_count)
            bad(pl, "reachable Leak closures differ from leak_count", pl->leak_count);
    }
    if (pl->bad)
        sg_fail(c, "internal: plan check failed: %s", pl->why);
    sg_plan_json(c, pl, out);
    sg_plan_cleanup(c);
}
