/* Closures decoded as ghc-debug-client 0.6.0.0 decodes them
 * (common/src/GHC/Debug/Decode.hs: decodeClosure and its helpers): which
 * words are pointer fields, which closure types ask for an SRT, a
 * constructor description, a PAP payload bitmap or a stack walk, and which
 * types it rejects. Reading past the closure's bytes fails as Data.Binary's
 * Get does. */
#include <stdlib.h>

#include "heapscope/bytes.h"
#include "synth_ghcdebug_int.h"

/* A Data.Binary Get over a closure's bytes: reads past the end fail. */
typedef struct cur {
    const uint8_t *p;
    size_t left;
    bool bad;
} cur;

static uint64_t word(cur *c) {
    if (c->bad || c->left < 8) {
        c->bad = true;
        return 0;
    }
    uint64_t v = hs_load_le64(c->p);
    c->p += 8;
    c->left -= 8;
    return v;
}
static uint32_t half(cur *c) {
    if (c->bad || c->left < 4) {
        c->bad = true;
        return 0;
    }
    uint32_t v = hs_load_le32(c->p);
    c->p += 4;
    c->left -= 4;
    return v;
}
static void skip(cur *c, uint64_t n) {
    if (c->bad || c->left < n)
        c->bad = true;
    else {
        c->p += n;
        c->left -= (size_t)n;
    }
}

static void add_ptr(gw_todo *t, uint64_t v) {
    if (t->n_ptrs == t->cap_ptrs) {
        size_t cap = t->cap_ptrs ? 2 * t->cap_ptrs : 64;
        uint64_t *grown = realloc(t->ptrs, cap * sizeof *grown);
        if (!grown) {
            t->overflow = true;
            return;
        }
        t->ptrs = grown;
        t->cap_ptrs = cap;
    }
    t->ptrs[t->n_ptrs++] = v;
}

static void field(cur *c, gw_todo *t) {
    uint64_t v = word(c);
    if (!c->bad)
        add_ptr(t, v);
}

static void fields(cur *c, gw_todo *t, uint64_t n) {
    for (uint64_t i = 0; i < n && !c->bad; i++)
        field(c, t);
}

/* Decode.hs: decodeClosure; false where ghc-debug raises an error. */
bool gw_decode(const gw_layout *tr, uint64_t cp, const uint8_t *raw, size_t len,
               const gw_itbl *it, gw_todo *t) {
    cur c = {raw, len, false};
    skip(&c, 8); /* decodeClosureHeader: the info pointer */
    if (tr->prof) {
        t->has_ccs = true;
        t->ccs = word(&c);
        word(&c);
    }
    uint32_t ty = it->type;
    if (ty >= T_CONSTR && ty <= T_CONSTR_NOCAF) {
        fields(&c, t, it->ptrs);
        skip(&c, 8 * (uint64_t)it->nptrs);
        t->con_desc = true;
    } else if ((ty >= T_FUN && ty <= T_THUNK_STATIC)) {
        if (ty >= T_THUNK && ty <= T_THUNK_0_2)
            word(&c); /* the thunk's extra header word */
        t->srt = true;
        fields(&c, t, it->ptrs);
        skip(&c, 8 * (uint64_t)it->nptrs);
    } else if (ty == T_THUNK_SELECTOR) {
        word(&c);
        field(&c, t);
    } else if (ty == T_BCO) {
        fields(&c, t, 3);
        half(&c);
        skip(&c, 8 * (uint64_t)half(&c));
    } else if (ty == T_AP || ty == T_PAP) {
        if (ty == T_AP)
            word(&c);
        half(&c);
        t->n_args = half(&c);
        t->fun = word(&c);
        add_ptr(t, t->fun);
        t->args = c.p;
        skip(&c, 8 * t->n_args);
        t->payload = true;
    } else if (ty == T_AP_STACK) {
        word(&c);
        uint64_t size = word(&c); /* words, read as bytes (a reference bug) */
        field(&c, t);
        t->sp = cp + (len - c.left);
        t->frames = c.p;
        t->frames_len = (size_t)size;
        skip(&c, size);
        t->stack = true;
    } else if (ty == T_IND || ty == T_IND_STATIC || ty == T_BLACKHOLE || ty == T_MUT_VAR_CLEAN ||
               ty == T_MUT_VAR_DIRTY) {
        field(&c, t);
    } else if (ty == T_MVAR_CLEAN || ty == T_MVAR_DIRTY) {
        fields(&c, t, 3);
    } else if (ty == T_TVAR) {
        fields(&c, t, 2);
        word(&c);
    } else if (ty == T_ARR_WORDS) {
        uint64_t bytes = word(&c);
        skip(&c, (bytes + 7) / 8 * 8);
    } else if (ty >= T_MUT_ARR_FIRST && ty <= T_MUT_ARR_LAST) {
        uint64_t n = word(&c);
        word(&c);
        fields(&c, t, n);
    } else if (ty >= T_SMALL_ARR_FIRST && ty <= T_SMALL_ARR_LAST) {
        fields(&c, t, word(&c));
    } else if (ty == T_WEAK) {
        fields(&c, t, 4);
        uint64_t link = word(&c);
        if (UNTAG(link) != 0)
            add_ptr(t, link);
    } else if (ty == T_PRIM || ty == T_MUT_PRIM) {
        fields(&c, t, it->ptrs);
        skip(&c, 8 * (uint64_t)it->nptrs);
    } else if (ty == T_BLOCKING_QUEUE) {
        fields(&c, t, 4);
    } else if (ty == T_TREC_CHUNK) {
        field(&c, t);
        uint64_t n = word(&c);
        for (uint64_t i = 0; i < n && !c.bad; i++) {
            fields(&c, t, 3);
            word(&c);
        }
    } else if (ty == T_TSO) {
        fields(&c, t, 3);                   /* link, global_link, stack */
        skip(&c, tr->tso_why_32 ? 16 : 8); /* what_next, why_blocked, flags */
        word(&c);                           /* block_info: not followed */
        skip(&c, 16);                       /* id, saved_errno, dirty */
        word(&c);                           /* bound */
        word(&c);                           /* cap */
        field(&c, t);                       /* trec */
        uint64_t label = tr->tso_label ? word(&c) : 0;
        fields(&c, t, 2);                   /* blocked_exceptions, bq */
        if (UNTAG(label) != 0)
            add_ptr(t, label);
        skip(&c, 12);     /* alloc_limit, tot_stack_size */
    } else if (ty == T_STACK) {
        uint32_t size = half(&c);
        skip(&c, 4); /* dirty, marking, padding */
        uint64_t sp = word(&c);
        uint64_t header = len - c.left, end = cp + header + 8 * (uint64_t)size;
        if (sp < cp + header || sp > end)
            return false;
        skip(&c, sp - cp - header);
        t->sp = sp;
        t->frames = c.p;
        t->frames_len = (size_t)(end - sp);
        skip(&c, end - sp);
        t->stack = true;
    } else {
        return false; /* "unhandled closure type" */
    }
    return !c.bad && !t->overflow;
}
