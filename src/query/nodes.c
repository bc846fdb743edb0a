/* The explorer's questions about one node of a heap tree: what a row
 * shows (batched over the rows on screen) and what a node holds when it
 * opens. Closures are decoded into one scratch closure per call. */
#include "heapscope/query_node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/closure_type.h"

/* A cost-centre stack longer than this is a cycle or garbage: the walk stops. */
#define CCS_CHAIN_MAX 256
#define LABEL_MAX 1024

static void describe(heap *h, uint64_t addr, heap_closure *c, query_node *n, char *text) {
    hs_error err = {0};
    *n = (query_node){.addr = addr, .text = text};
    n->status = heap_decode(h, addr, c, &err);
    if (n->status != HS_OK) {
        snprintf(text, LABEL_MAX, "cannot read it: %s", err.message);
        return;
    }
    heap_closure_label(h, c, text, LABEL_MAX);
    n->type = c->type;
    n->size = c->size;
    heap_prof_info p;
    heap_prof_decode(heap_prof_mode(h), &c->prof, &p);
    n->prof = p.kind;
    n->era = p.era;
    n->ldv_used = p.ldv_used;
    n->has_children = c->n_edges > 0 || (c->prof.present && c->prof.ccs != 0);
}

hs_status query_nodes_describe(heap *h, const uint64_t *addrs, size_t n, query_node_fn fn,
                               void *ctx, hs_error *err) {
    hs_error ignored;
    /* one batch for what the source does not hold; a failure leaves the
       work to the one-by-one decode below, which says why per closure */
    if (n > 1)
        (void)heap_prefetch(h, addrs, n, &ignored);
    char *text = malloc(LABEL_MAX);
    if (!text)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    heap_closure c = {0};
    for (size_t i = 0; i < n; i++) {
        query_node node;
        describe(h, addrs[i], &c, &node, text);
        if (!fn(ctx, &node))
            break;
    }
    heap_closure_free(&c);
    free(text);
    return HS_OK;
}

void query_node_details_get(heap *h, uint64_t addr, query_node_details *out) {
    memset(out, 0, sizeof *out);
    heap_closure c = {0};
    hs_error err = {0};
    out->status = heap_decode(h, addr, &c, &err);
    if (out->status != HS_OK) {
        snprintf(out->error, sizeof out->error, "%s", err.message);
        heap_closure_free(&c);
        return;
    }
    out->info_ptr = c.info_ptr;
    out->type = c.type;
    out->size = c.size;
    if (c.info && hs_closure_type_is_constructor(c.type) && c.info->con_name) {
        out->con_name = c.info->con_name;
        out->con_package = c.info->con_package;
        out->con_module = c.info->con_module;
    }
    heap_prof_describe(h, &c.prof, &out->prof);
    if (c.info && heap_info_source(h, c.info, &out->ipe, &err) != HS_OK) {
        out->source_failed = true;
        snprintf(out->source_error, sizeof out->source_error, "%s", err.message);
    } else if (c.info && !out->ipe &&
               heap_location_advice(h, out->advice, sizeof out->advice, &err) != HS_OK) {
        out->advice[0] = '\0'; /* no advice is better than a wrong one */
    }
    heap_closure_free(&c);
}

hs_status query_node_children(heap *h, uint64_t addr, query_child_fn fn, void *ctx,
                              hs_error *err) {
    heap_closure c = {0};
    hs_status st = heap_decode(h, addr, &c, err);
    if (st == HS_OK && c.prof.present && c.prof.ccs && !fn(ctx, QUERY_CHILD_CCS, "CCS", c.prof.ccs))
        st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    char label[HEAP_EDGE_LABEL_MAX];
    for (size_t i = 0; st == HS_OK && i < c.n_edges; i++) {
        heap_closure_edge_label(h, &c, i, label, sizeof label);
        if (!fn(ctx, QUERY_CHILD_CLOSURE, label, wire_untag(c.edges[i].addr)))
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    heap_closure_free(&c);
    return st;
}

hs_status query_ccs_children(heap *h, uint64_t ccs, query_child_fn fn, void *ctx,
                             hs_error *err) {
    uint64_t cc = 0;
    char label[24];
    int i = 0;
    for (; ccs && i < CCS_CHAIN_MAX; i++) {
        const wire_ccs *payload;
        hs_status st = heap_ccs(h, ccs, &payload, err);
        if (st != HS_OK)
            return st;
        cc = payload->cc;
        snprintf(label, sizeof label, "%d", i);
        if (!fn(ctx, QUERY_CHILD_CC, label, cc))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
        ccs = payload->prev;
    }
    if (i > 0) {
        snprintf(label, sizeof label, "%d", i);
        if (!fn(ctx, QUERY_CHILD_CC, label, cc))
            return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

hs_status query_cc_text(heap *h, uint64_t addr, bool is_ccs, char *buf, size_t cap,
                        hs_error *err) {
    uint64_t cc_addr = addr;
    if (is_ccs) {
        const wire_ccs *ccs;
        hs_status st = heap_ccs(h, addr, &ccs, err);
        if (st != HS_OK)
            return st;
        cc_addr = ccs->cc;
    }
    const wire_cc *cc;
    hs_status st = heap_cc(h, cc_addr, &cc, err);
    if (st == HS_OK)
        heap_cc_text(cc, buf, cap);
    return st;
}
