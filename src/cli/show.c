/* heapscope show TARGET ADDR: a closure and its children as an indented
 * tree (or nested JSON), walked with an explicit stack. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "dominators_cli.h"
#include "heapscope/cli.h"
#include "heapscope/grow.h"
#include "heapscope/u64map.h"
#include "output.h"

#define SHOW_MAX_DEPTH 64
#define SHOW_MAX_CHILDREN 100 /* per closure; the rest are summarised */

/* ITEM_FRAME: a stack frame that holds no pointer (so no child says it
 * is there), a line of its own in text. */
typedef enum item_kind { ITEM_CLOSURE, ITEM_MORE, ITEM_CLOSE, ITEM_FRAME } item_kind;

typedef struct show_item {
    item_kind kind;
    bool last;       /* last child of its parent */
    uint32_t depth;
    uint64_t addr;   /* ITEM_CLOSURE; ITEM_MORE: how many more */
    char edge[HEAP_EDGE_LABEL_MAX];
} show_item;

typedef struct show_state {
    show_item *stack;
    size_t n, cap;
    bool last_at[SHOW_MAX_DEPTH + 2];
    bool comma_at[SHOW_MAX_DEPTH + 2];
    u64map shown;
    heap_closure c;
    const query_dominators *dom; /* --retained */
} show_state;

static bool push(show_state *s, show_item item) {
    if (!hs_grow((void **)&s->stack, &s->cap, s->n + 1, sizeof *s->stack))
        return false;
    s->stack[s->n++] = item;
    return true;
}

static void text_prefix(const show_state *s, const show_item *it) {
    for (uint32_t d = 1; d < it->depth; d++)
        fputs(s->last_at[d] ? "   " : "│  ", stdout);
    if (it->depth > 0)
        printf("%s%s: ", it->last ? "└─ " : "├─ ", it->edge);
}

static void json_open(show_state *s, const show_item *it) {
    if (it->depth > 0) {
        if (s->comma_at[it->depth])
            putchar(',');
        s->comma_at[it->depth] = true;
    }
    fputs("{\"edge\": ", stdout);
    if (it->depth > 0)
        cli_json_string(stdout, it->edge);
    else
        fputs("null", stdout);
    fputs(", \"closure\": ", stdout);
}

/* The children of s->c in order: its edges, and on a stack each frame
 * without pointers where it lies among them. Child number k is edge *edge,
 * or frame *frame (*edge = SIZE_MAX). */
static size_t count_children(const heap_closure *c) {
    size_t n = c->n_edges;
    for (size_t f = 0; f < c->n_frames; f++)
        n += c->frames[f].n_edges == 0;
    return n;
}

static void child_at(const heap_closure *c, size_t k, size_t *edge, size_t *frame) {
    size_t e = 0, f = 0;
    for (;;) {
        /* frames before the next edge's frame (or all, past the edges) */
        const heap_frame *owner = e < c->n_edges ? heap_frame_of_edge(c, e) : NULL;
        size_t until = owner ? (size_t)(owner - c->frames) : e < c->n_edges ? f : c->n_frames;
        for (; f < until; f++) {
            if (c->frames[f].n_edges == 0 && k-- == 0) {
                *edge = SIZE_MAX;
                *frame = f;
                return;
            }
        }
        if (owner)
            f = (size_t)(owner - c->frames) + 1;
        if (e >= c->n_edges)
            break;
        /* every edge of this run */
        size_t run_end = owner ? (size_t)owner->first_edge + owner->n_edges : e + 1;
        for (; e < run_end; e++) {
            if (k-- == 0) {
                *edge = e;
                *frame = SIZE_MAX;
                return;
            }
        }
    }
    *edge = *frame = SIZE_MAX;
}

/* Queues the children of s->c (first SHOW_MAX_CHILDREN, reversed so the
 * first pops first). */
static bool push_children(show_state *s, heap *h, uint32_t depth) {
    size_t n = count_children(&s->c), shown = n < SHOW_MAX_CHILDREN ? n : SHOW_MAX_CHILDREN;
    if (n > shown && !push(s, (show_item){ITEM_MORE, true, depth + 1, n - shown, ""}))
        return false;
    for (size_t i = shown; i-- > 0;) {
        size_t edge, frame;
        child_at(&s->c, i, &edge, &frame);
        show_item it = {ITEM_CLOSURE, i == shown - 1 && n == shown, depth + 1, 0, ""};
        if (edge != SIZE_MAX) {
            it.addr = s->c.edges[edge].addr;
            heap_closure_edge_label(h, &s->c, edge, it.edge, sizeof it.edge);
        } else if (frame != SIZE_MAX) {
            char about[HEAP_EDGE_LABEL_MAX - 32];
            heap_frame_text(h, s->c.frames[frame].info, about, sizeof about);
            it.kind = ITEM_FRAME;
            snprintf(it.edge, sizeof it.edge, "Frame %zu (%s)", frame, about);
        } else {
            continue;
        }
        if (!push(s, it))
            return false;
    }
    return true;
}

/* --retained: "retained" (bytes, null when no root reaches it) and
 * "dominator" (address, null under the virtual root). */
static void print_retained_json(const show_state *s, uint64_t addr) {
    query_dominated q;
    if (!s->dom)
        return;
    if (!query_dominators_get(s->dom, addr, &q)) {
        fputs(", \"retained\": null, \"dominator\": null", stdout);
        return;
    }
    printf(", \"retained\": %" PRIu64 ", \"dominator\": ", q.retained);
    if (q.idom)
        printf("\"0x%" PRIx64 "\"", q.idom);
    else
        fputs("null", stdout);
}

static void print_retained_text(const show_state *s, uint64_t addr) {
    query_dominated q;
    if (!s->dom)
        return;
    if (!query_dominators_get(s->dom, addr, &q))
        fputs("  [not reachable]", stdout);
    else if (q.idom)
        printf("  [retains %" PRIu64 " B, dominator 0x%" PRIx64 "]", q.retained, q.idom);
    else
        printf("  [retains %" PRIu64 " B, dominator: the roots]", q.retained);
}

static hs_status show_closure(show_state *s, heap *h, const show_item *it, int max_depth,
                              bool json, hs_error *err) {
    s->last_at[it->depth] = it->last;
    bool repeated = u64map_find(&s->shown, it->addr) != NULL;
    if (!repeated && !u64map_put(&s->shown, it->addr, 1))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    hs_status st = heap_decode(h, it->addr, &s->c, err);
    /* a child that cannot be read is shown with why, and the tree goes on */
    bool unreadable = st != HS_OK && it->depth > 0 && query_unreadable_status(st);
    if (st != HS_OK && !unreadable)
        return st;
    if (json) {
        json_open(s, it);
        if (unreadable) {
            printf("{\"address\": \"0x%" PRIx64 "\", \"unreadable\": ", it->addr);
            cli_json_string(stdout, err->message);
            fputs("}, \"children\": []}", stdout);
            return HS_OK;
        }
        st = cli_print_closure_json(stdout, h, &s->c, err);
        if (st != HS_OK)
            return st;
        print_retained_json(s, it->addr);
        if (repeated)
            fputs(", \"repeated\": true", stdout);
        fputs(", \"children\": [", stdout);
        s->comma_at[it->depth + 1] = false;
        if (!push(s, (show_item){.kind = ITEM_CLOSE, .depth = it->depth}))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    } else {
        text_prefix(s, it);
        if (unreadable) {
            printf("0x%" PRIx64 "  <could not be read: %s>\n", it->addr, err->message);
            return HS_OK;
        }
        st = cli_print_closure_text(stdout, h, &s->c, err);
        if (st != HS_OK)
            return st;
        print_retained_text(s, it->addr);
        puts(repeated ? "  (shown above)" : "");
    }
    if (!repeated && (int)it->depth < max_depth && !push_children(s, h, it->depth))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    return HS_OK;
}

/* Progress of the traversal that checks a typed address: stops on a quit
 * signal. */
static bool cli_keep_going_progress(void *ctx, uint64_t visited) {
    (void)ctx, (void)visited;
    return cli_keep_going();
}

static hs_status show_tree(heap *h, uint64_t root, int max_depth, bool json, bool retained,
                           hs_error *err) {
    show_state s = {0};
    query_dominators *dom = NULL;
    /* the typed address may be stale or made up: check it before printing
     * (and before the whole heap's dominator tree); nothing is asked about
     * it unless it is a closure of this pause */
    hs_status st = query_closure_of_pause(h, root, cli_keep_going_progress, NULL, err);
    if (st == HS_OK)
        st = heap_decode_named(h, root, &s.c, err);
    if (st == HS_OK && retained)
        st = cli_dominators_compute(h, &dom, err);
    s.dom = dom;
    if (st == HS_OK && !push(&s, (show_item){ITEM_CLOSURE, true, 0, root, ""}))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    while (st == HS_OK && s.n > 0 && cli_keep_going()) {
        show_item it = s.stack[--s.n];
        if (it.kind == ITEM_CLOSE) {
            fputs("]", stdout);
            if (it.depth == 0) { /* the command's figures in the root's object */
                fputs(", ", stdout);
                cli_json_timing(stdout);
            }
            putchar('}');
        } else if (it.kind == ITEM_FRAME) {
            if (!json) { /* JSON has them in the stack's "frames" */
                s.last_at[it.depth] = it.last;
                for (uint32_t d = 1; d < it.depth; d++)
                    fputs(s.last_at[d] ? "   " : "│  ", stdout);
                printf("%s%s\n", it.last ? "└─ " : "├─ ", it.edge);
            }
        } else if (it.kind == ITEM_MORE) {
            if (json) {
                if (s.comma_at[it.depth])
                    putchar(',');
                printf("{\"more\": %" PRIu64 "}", it.addr);
            } else {
                for (uint32_t d = 1; d < it.depth; d++)
                    fputs(s.last_at[d] ? "   " : "│  ", stdout);
                printf("└─ … %" PRIu64 " more\n", it.addr);
            }
        } else {
            st = show_closure(&s, h, &it, max_depth, json, err);
        }
    }
    if (st == HS_OK && json)
        putchar('\n');
    heap_closure_free(&s.c);
    u64map_free(&s.shown);
    free(s.stack);
    query_dominators_free(dom);
    return st;
}

/* What show_tree reads, read while the debuggee is paused (the closure
 * named may be one no root reaches, and so may its children): each closure
 * of the tree down to max_depth, the first SHOW_MAX_CHILDREN children of
 * each, once. A child that cannot be read is shown so later; only the
 * named closure's failure ends the command. */
typedef struct show_prepare {
    uint64_t root;
    int max_depth;
    FILE *null; /* what printing asks is asked by printing there */
} show_prepare;

static hs_status prepare_tree(void *ctx, heap *h, hs_error *err) {
    const show_prepare *p = ctx;
    show_state s = {0};
    /* nothing is asked about the typed address unless it is a closure of
     * this pause */
    hs_status st = query_closure_of_pause(h, p->root, cli_keep_going_progress, NULL, err);
    if (st == HS_OK)
        st = heap_decode_named(h, p->root, &s.c, err);
    if (st == HS_OK && !push(&s, (show_item){ITEM_CLOSURE, true, 0, p->root, ""}))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    while (st == HS_OK && s.n > 0) {
        show_item it = s.stack[--s.n];
        if (it.kind != ITEM_CLOSURE || u64map_find(&s.shown, it.addr))
            continue;
        if (!u64map_put(&s.shown, it.addr, 1)) {
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
            break;
        }
        hs_error why;
        hs_status dst = heap_decode(h, it.addr, &s.c, &why);
        if (dst != HS_OK && !query_unreadable_status(dst)) {
            *err = why;
            st = dst;
        } else if (dst == HS_OK && (st = cli_prepare_closure(p->null, h, &s.c, err)) != HS_OK) {
            break;
        } else if (dst == HS_OK && (int)it.depth < p->max_depth && !push_children(&s, h, it.depth)) {
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
        }
    }
    heap_closure_free(&s.c);
    u64map_free(&s.shown);
    free(s.stack);
    return st;
}

static bool parse_address(const char *text, uint64_t *out) {
    const char *digits = strncmp(text, "0x", 2) == 0 || strncmp(text, "0X", 2) == 0 ? text + 2 : text;
    if (!*digits || strspn(digits, "0123456789abcdefABCDEF") != strlen(digits) || strlen(digits) > 16)
        return false;
    errno = 0;
    *out = wire_untag(strtoull(digits, NULL, 16));
    return errno == 0 && *out != 0;
}

int cli_show(const char *target, const char *address, const cli_common *common) {
    uint64_t addr;
    if (!parse_address(address, &addr)) {
        fprintf(stderr, "heapscope: '%s' is not a closure address (hex, e.g. 0x4200105a38)\n",
                address);
        return 2;
    }
    int depth = common->depth;
    if (depth < 0 || depth > SHOW_MAX_DEPTH) {
        fprintf(stderr, "heapscope: --depth wants 0 to %d\n", SHOW_MAX_DEPTH);
        return 2;
    }
    hs_error err = {0};
    cli_session s;
    show_prepare prep = {addr, depth, fopen("/dev/null", "w")};
    if (!prep.null) {
        fprintf(stderr, "heapscope: cannot open /dev/null\n");
        return 1;
    }
    /* --retained: the dominator tree reads the whole heap */
    hs_status ost = cli_session_open_prepared(target, common, prepare_tree, &prep,
                                              common->retained, &s, &err);
    fclose(prep.null);
    if (ost != HS_OK)
        return cli_session_open_failed(&s, &err);
    hs_status st = show_tree(s.heap, addr, depth, common->json, common->retained, &err);
    return cli_session_finish(&s, common, st, &err);
}
