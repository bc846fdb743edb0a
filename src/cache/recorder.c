/* Recording a pause beside a UI: a thread writes the snapshot while the
 * UI's thread keeps the heap, the connection and the keyboard.
 *
 * The thread opens its own connection to the cache and its own heap, read
 * through a proxy source: each request it makes waits in a one-slot mailbox
 * until the owner (the UI's thread, between keypresses) answers it with
 * the heap it already has (version, roots, blocks: no copy, the memory is
 * shared read-only) or the source that heap reads through (static
 * closures, and the few immutable answers the cache does not have). So the
 * debuggee connection is only ever used by its owner, and the thread's
 * traversal of millions of closures never blocks the UI.
 *
 * The owner must keep its heap unchanged (no refresh, no free) until
 * cache_recorder_finish returned. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "heapscope/heap_export.h"
#include "cache_internal.h"

typedef enum rq_op {
    RQ_VERSION,
    RQ_ROOTS,
    RQ_SAVED,
    RQ_BLOCKS,
    RQ_CLOSURES,
    RQ_INFO_TABLES,
    RQ_SRTS,
    RQ_FRAME_BITMAP,
    RQ_FUN_BITMAP,
    RQ_CON_DESC,
    RQ_SOURCE_INFO,
    RQ_CCS,
    RQ_CC,
    RQ_INDEX_ENTRY,
    RQ_CCS_MAIN
} rq_op;

/* One request of the thread: its arguments, where the answer goes. */
typedef struct rq {
    rq_op op;
    const uint64_t *keys;
    size_t n;
    uint64_t key, sp;
    uint32_t offset;
    uint16_t words;
    const heap_info *info;
    void *out;
    hs_error *err;
    hs_status result;
} rq;

struct cache_recorder {
    cache_recorder_config cfg;
    cache_options cache; /* the owner's directory and cap, for the thread's own connection */
    char dir[4096];
    pthread_t thread;
    bool started;
    int pipe[2]; /* a byte: a request waits, or the thread ended */

    pthread_mutex_t lock;
    pthread_cond_t answered_cond;
    rq *request;   /* waiting for an answer, NULL if none */
    bool answered;
    bool cancelled; /* set by the owner only, never while it answers */
    bool ended;
    cache_recorder_progress progress;

    /* the thread's outcome */
    hs_status status;
    hs_error err;
    cache_pause pause;
};

static void wake_owner(cache_recorder *r) {
    char b = 1;
    while (write(r->pipe[1], &b, 1) < 0 && errno == EINTR)
        ;
}

/* ---- the thread's side: the proxy source ---- */

static hs_status ask(cache_recorder *r, rq *q) {
    pthread_mutex_lock(&r->lock);
    if (r->cancelled) {
        pthread_mutex_unlock(&r->lock);
        return hs_fail(q->err, HS_ERR_CANCELLED, "cancelled");
    }
    r->request = q;
    r->answered = false;
    wake_owner(r);
    while (!r->answered && !r->cancelled)
        pthread_cond_wait(&r->answered_cond, &r->lock);
    bool ok = r->answered;
    r->request = NULL;
    pthread_mutex_unlock(&r->lock);
    return ok ? q->result : hs_fail(q->err, HS_ERR_CANCELLED, "cancelled");
}

#define ASK(...)                                                                                \
    do {                                                                                        \
        rq q = {__VA_ARGS__};                                                                   \
        return ask(self, &q);                                                                   \
    } while (0)

static hs_status p_version(void *self, wire_version *o, hs_error *e) {
    ASK(.op = RQ_VERSION, .out = o, .err = e);
}
static hs_status p_roots(void *self, wire_ptr_list *o, hs_error *e) {
    ASK(.op = RQ_ROOTS, .out = o, .err = e);
}
static hs_status p_saved(void *self, wire_ptr_list *o, hs_error *e) {
    ASK(.op = RQ_SAVED, .out = o, .err = e);
}
static hs_status p_blocks(void *self, heap_block_list *o, hs_error *e) {
    ASK(.op = RQ_BLOCKS, .out = o, .err = e);
}
static hs_status p_closures(void *self, const uint64_t *k, size_t n, heap_blobs *o, hs_error *e) {
    ASK(.op = RQ_CLOSURES, .keys = k, .n = n, .out = o, .err = e);
}
static hs_status p_infos(void *self, const uint64_t *k, size_t n, heap_blobs *o, hs_error *e) {
    ASK(.op = RQ_INFO_TABLES, .keys = k, .n = n, .out = o, .err = e);
}
static hs_status p_srts(void *self, const uint64_t *k, size_t n, uint64_t *o, hs_error *e) {
    ASK(.op = RQ_SRTS, .keys = k, .n = n, .out = o, .err = e);
}
static hs_status p_frame_bitmap(void *self, uint64_t sp, uint32_t off, const heap_info *fi,
                                heap_bitmap *o, hs_error *e) {
    ASK(.op = RQ_FRAME_BITMAP, .sp = sp, .offset = off, .info = fi, .out = o, .err = e);
}
static hs_status p_fun_bitmap(void *self, uint64_t fun, const heap_info *fi, uint16_t n,
                              heap_bitmap *o, hs_error *e) {
    ASK(.op = RQ_FUN_BITMAP, .key = fun, .info = fi, .words = n, .out = o, .err = e);
}
static hs_status p_con_desc(void *self, uint64_t info, char **o, hs_error *e) {
    ASK(.op = RQ_CON_DESC, .key = info, .out = o, .err = e);
}
static hs_status p_source_info(void *self, uint64_t info, wire_source_info *o, hs_error *e) {
    ASK(.op = RQ_SOURCE_INFO, .key = info, .out = o, .err = e);
}
static hs_status p_ccs(void *self, uint64_t k, wire_ccs *o, hs_error *e) {
    ASK(.op = RQ_CCS, .key = k, .out = o, .err = e);
}
static hs_status p_cc(void *self, uint64_t k, wire_cc *o, hs_error *e) {
    ASK(.op = RQ_CC, .key = k, .out = o, .err = e);
}
static hs_status p_index_entry(void *self, uint64_t k, wire_index_entry *o, hs_error *e) {
    ASK(.op = RQ_INDEX_ENTRY, .key = k, .out = o, .err = e);
}
static hs_status p_ccs_main(void *self, uint64_t *o, hs_error *e) {
    ASK(.op = RQ_CCS_MAIN, .out = o, .err = e);
}

static const heap_source_ops proxy_ops = {
    .version = p_version,
    .roots = p_roots,
    .saved_objects = p_saved,
    .blocks = p_blocks,
    .load_block = NULL, /* the owner's blocks are all loaded */
    .closures = p_closures,
    .info_tables = p_infos,
    .srts = p_srts,
    .frame_bitmap = p_frame_bitmap,
    .fun_bitmap = p_fun_bitmap,
    .con_desc = p_con_desc,
    .source_info = p_source_info,
    .ccs = p_ccs,
    .cc = p_cc,
    .index_entry = p_index_entry,
    .ccs_main = p_ccs_main,
};

/* ---- the owner's side: answering ---- */

static hs_status copy_ptrs(const wire_ptr_list *from, wire_ptr_list *to, hs_error *err) {
    *to = (wire_ptr_list){0};
    to->items = malloc((from->count ? from->count : 1) * sizeof *to->items);
    if (!to->items)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    if (from->count) /* an empty list may have no items (the official stub saves none) */
        memcpy(to->items, from->items, from->count * sizeof *to->items);
    to->count = to->cap = from->count;
    return HS_OK;
}

typedef struct block_copy {
    heap_block_list *out;
    size_t cap;
} block_copy;

static hs_status add_block(void *ctx, const heap_block *b, hs_error *err) {
    block_copy *c = ctx;
    if (!b->data)
        return hs_fail(err, HS_ERR_INTERNAL, "a block of the pause is not loaded");
    if (c->out->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        heap_block *items = realloc(c->out->items, cap * sizeof *items);
        if (!items)
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        c->out->items = items;
        c->cap = cap;
    }
    c->out->items[c->out->count++] = *b; /* data stays the owner's */
    return HS_OK;
}

static hs_status answer(cache_recorder *r, rq *q) {
    heap *h = r->cfg.h;
    heap_source s = r->cfg.src;
    switch (q->op) {
    case RQ_VERSION: *(wire_version *)q->out = *heap_version(h); return HS_OK;
    case RQ_ROOTS: return copy_ptrs(heap_roots(h), q->out, q->err);
    case RQ_SAVED: return copy_ptrs(heap_saved_objects(h), q->out, q->err);
    case RQ_BLOCKS: {
        heap_block_list *l = q->out;
        *l = (heap_block_list){0};
        block_copy c = {l, 0};
        hs_status st = heap_foreach_block(h, add_block, &c, q->err);
        if (st != HS_OK)
            heap_block_list_free(l);
        return st;
    }
    case RQ_CLOSURES: return s.ops->closures(s.self, q->keys, q->n, q->out, q->err);
    case RQ_INFO_TABLES: return s.ops->info_tables(s.self, q->keys, q->n, q->out, q->err);
    case RQ_SRTS: return s.ops->srts(s.self, q->keys, q->n, q->out, q->err);
    case RQ_FRAME_BITMAP:
        return s.ops->frame_bitmap(s.self, q->sp, q->offset, q->info, q->out, q->err);
    case RQ_FUN_BITMAP: return s.ops->fun_bitmap(s.self, q->key, q->info, q->words, q->out, q->err);
    case RQ_CON_DESC: return s.ops->con_desc(s.self, q->key, q->out, q->err);
    case RQ_SOURCE_INFO: return s.ops->source_info(s.self, q->key, q->out, q->err);
    case RQ_CCS: return s.ops->ccs(s.self, q->key, q->out, q->err);
    case RQ_CC: return s.ops->cc(s.self, q->key, q->out, q->err);
    case RQ_INDEX_ENTRY: return s.ops->index_entry(s.self, q->key, q->out, q->err);
    case RQ_CCS_MAIN: return s.ops->ccs_main(s.self, q->out, q->err);
    }
    return hs_fail(q->err, HS_ERR_INTERNAL, "unknown request %d", (int)q->op);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void drain(cache_recorder *r) {
    char buf[64];
    while (read(r->pipe[0], buf, sizeof buf) > 0)
        ;
}

bool cache_recorder_serve(cache_recorder *r, int budget_ms) {
    int64_t until = now_ms() + (budget_ms > 0 ? budget_ms : 0);
    for (;;) {
        drain(r);
        pthread_mutex_lock(&r->lock);
        rq *q = r->request && !r->answered ? r->request : NULL;
        bool ended = r->ended;
        pthread_mutex_unlock(&r->lock);
        if (q) {
            hs_status st = answer(r, q); /* the thread waits: q stays valid */
            pthread_mutex_lock(&r->lock);
            q->result = st;
            r->answered = true;
            pthread_cond_signal(&r->answered_cond);
            pthread_mutex_unlock(&r->lock);
            if (now_ms() >= until)
                return true; /* the keyboard's turn, even if the next request waits */
            continue;
        }
        int left = (int)(until - now_ms());
        if (ended || left <= 0)
            return !ended;
        struct pollfd p = {.fd = r->pipe[0], .events = POLLIN};
        poll(&p, 1, left); /* the thread's next request comes within microseconds */
    }
}

/* ---- the thread ---- */

static bool on_progress(void *ctx, const char *phase, uint64_t done, uint64_t total) {
    cache_recorder *r = ctx;
    pthread_mutex_lock(&r->lock);
    snprintf(r->progress.phase, sizeof r->progress.phase, "%s", phase);
    r->progress.done = done;
    r->progress.total = total;
    bool go_on = !r->cancelled;
    pthread_mutex_unlock(&r->lock);
    return go_on;
}

static hs_status record(cache_recorder *r, cache *c, hs_error *err) {
    heap_source proxy = {&proxy_ops, r}, src = proxy;
    cache_source *cs = NULL;
    if (r->cfg.program > 0 && cache_source_new(c, r->cfg.program, proxy, &cs, err) == HS_OK &&
        cache_source_set_moving(cs, r->cfg.moving, r->cfg.n_moving))
        src = cache_source_heap(cs); /* the owner is asked only for what the cache lacks */
    heap *h = NULL;
    hs_status st = heap_open(src, &h, err);
    store_write_options opts = {.progress = on_progress, .progress_ctx = r};
    if (st == HS_OK)
        st = cache_record(c, h, &r->cfg.meta, r->cfg.exe, &opts, &r->pause, err);
    hs_error ignored;
    if (cs && st == HS_OK)
        cache_source_flush(cs, &ignored);
    heap_free(h);
    cache_source_free(cs);
    return st;
}

static void *run(void *arg) {
    cache_recorder *r = arg;
    hs_error err = {0};
    cache *c = NULL;
    hs_status st = cache_open(&r->cache, &c, &err);
    if (st == HS_OK)
        st = record(r, c, &err);
    cache_close(c);
    pthread_mutex_lock(&r->lock);
    r->status = st;
    r->err = err;
    r->ended = true;
    r->progress.running = false;
    pthread_mutex_unlock(&r->lock);
    wake_owner(r);
    return NULL;
}

hs_status cache_recorder_start(const cache_recorder_config *cfg, cache_recorder **out,
                               hs_error *err) {
    *out = NULL;
    cache_recorder *r = calloc(1, sizeof *r);
    if (!r)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    r->cfg = *cfg;
    snprintf(r->dir, sizeof r->dir, "%s", cache_dir(cfg->cache));
    r->cache = (cache_options){.dir = r->dir, .max_bytes = cache_max_bytes(cfg->cache)};
    r->pipe[0] = r->pipe[1] = -1;
    r->progress.running = true;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->answered_cond, NULL);
    if (pipe2(r->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        hs_status st = hs_fail(err, HS_ERR_IO, "cannot record the pause: %s", strerror(errno));
        cache_recorder_finish(r, true, NULL, NULL);
        return st;
    }
    int rc = pthread_create(&r->thread, NULL, run, r);
    if (rc != 0) {
        cache_recorder_finish(r, true, NULL, NULL);
        return hs_fail(err, HS_ERR_NOMEM, "cannot start recording the pause: %s", strerror(rc));
    }
    r->started = true;
    *out = r;
    return HS_OK;
}

int cache_recorder_fd(const cache_recorder *r) { return r->pipe[0]; }

cache_recorder_progress cache_recorder_get_progress(cache_recorder *r) {
    pthread_mutex_lock(&r->lock);
    cache_recorder_progress p = r->progress;
    pthread_mutex_unlock(&r->lock);
    return p;
}

hs_status cache_recorder_finish(cache_recorder *r, bool abandon, cache_pause *out,
                                hs_error *err) {
    if (!r)
        return HS_OK;
    if (abandon) {
        pthread_mutex_lock(&r->lock);
        r->cancelled = true; /* never set while a request is being answered */
        pthread_cond_signal(&r->answered_cond);
        pthread_mutex_unlock(&r->lock);
    }
    while (r->started && !abandon && cache_recorder_serve(r, 100))
        ; /* the thread needs its answers to get to the end */
    if (r->started)
        pthread_join(r->thread, NULL);
    hs_status st = r->started ? r->status : HS_ERR_CANCELLED;
    if (st != HS_OK && err)
        *err = r->err;
    if (st == HS_OK && out)
        *out = r->pause;
    if (r->pipe[0] >= 0)
        close(r->pipe[0]);
    if (r->pipe[1] >= 0)
        close(r->pipe[1]);
    pthread_cond_destroy(&r->answered_cond);
    pthread_mutex_destroy(&r->lock);
    free(r);
    return st;
}
