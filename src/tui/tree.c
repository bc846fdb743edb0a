/* The explorer's tree: nodes in one growing array linked by index, so a
 * hundred thousand roots cost a few megabytes; visible rows rebuilt
 * without recursion when something opened or closed. */
#include "tree.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/grow.h"

void tui_tree_init(tui_tree *t) {
    memset(t, 0, sizeof *t);
    t->first_top = t->last_top = TUI_NODE_NONE;
}

void tui_tree_free(tui_tree *t) {
    for (size_t i = 0; i < t->count; i++)
        free(t->nodes[i].row);
    free(t->nodes);
    free(t->strings);
    free(t->rows);
    free(t->row_of);
    tui_tree_init(t);
}

uint32_t tui_tree_intern(tui_tree *t, const char *s) {
    if (!s)
        return TUI_STR_NONE;
    size_t n = strlen(s) + 1;
    if (t->str_len + n >= TUI_STR_NONE)
        return TUI_STR_NONE;
    /* s may be a string of the pool itself (tui_tree_str), which growing moves */
    uintptr_t at = (uintptr_t)s, pool = (uintptr_t)t->strings;
    bool inside = t->strings && at >= pool && at < pool + t->str_len;
    size_t from = inside ? (size_t)(at - pool) : 0;
    if (!hs_grow((void **)&t->strings, &t->str_cap, t->str_len + n, 1))
        return TUI_STR_NONE;
    memcpy(t->strings + t->str_len, inside ? t->strings + from : s, n);
    uint32_t off = (uint32_t)t->str_len;
    t->str_len += n;
    return off;
}

const char *tui_tree_str(const tui_tree *t, uint32_t off) {
    return off == TUI_STR_NONE ? NULL : t->strings + off;
}

tui_node_id tui_tree_add(tui_tree *t, tui_node_id parent, const char *label, uint8_t kind,
                         uint64_t addr, uint64_t aux) {
    if (t->count >= TUI_NODE_NONE - 1 ||
        !hs_grow((void **)&t->nodes, &t->cap, t->count + 1, sizeof *t->nodes))
        return TUI_NODE_NONE;
    uint32_t lab = tui_tree_intern(t, label);
    if (label && lab == TUI_STR_NONE)
        return TUI_NODE_NONE;
    tui_node_id id = (tui_node_id)t->count++;
    tui_node *n = &t->nodes[id];
    *n = (tui_node){.parent = parent, .first_child = TUI_NODE_NONE,
                    .last_child = TUI_NODE_NONE, .next_sibling = TUI_NODE_NONE,
                    .label = lab, .kind = kind, .addr = addr, .aux = aux};
    if (parent == TUI_NODE_NONE) {
        if (t->last_top == TUI_NODE_NONE)
            t->first_top = id;
        else
            t->nodes[t->last_top].next_sibling = id;
        t->last_top = id;
    } else {
        tui_node *p = &t->nodes[parent];
        n->depth = p->depth + 1;
        if (p->last_child == TUI_NODE_NONE)
            p->first_child = id;
        else
            t->nodes[p->last_child].next_sibling = id;
        p->last_child = id;
        p->leaf = false;
    }
    t->rows_dirty = true;
    return id;
}

hs_status tui_tree_expand(tui_tree *t, tui_node_id id, tui_tree_load_fn load, void *ctx,
                          hs_error *err) {
    tui_node *n = &t->nodes[id];
    if (!n->loaded && !n->leaf) {
        hs_status st = load ? load(ctx, t, id, err) : HS_OK;
        n = &t->nodes[id]; /* load may have moved the array */
        if (st != HS_OK)
            return st;
        n->loaded = true;
        if (n->first_child == TUI_NODE_NONE)
            n->leaf = true;
    }
    if (n->first_child != TUI_NODE_NONE && !n->expanded) {
        n->expanded = true;
        t->rows_dirty = true;
    }
    return HS_OK;
}

void tui_tree_collapse(tui_tree *t, tui_node_id id) {
    if (t->nodes[id].expanded) {
        t->nodes[id].expanded = false;
        t->rows_dirty = true;
    }
}

void tui_tree_collapse_all(tui_tree *t) {
    for (size_t i = 0; i < t->count; i++)
        t->nodes[i].expanded = false;
    t->rows_dirty = true;
}

/* Pre-order walk over open nodes, by links only: down into an open node,
 * else to the next sibling, else up until an ancestor has one. */
static bool rebuild(tui_tree *t) {
    if (!hs_grow((void **)&t->row_of, &t->row_of_cap, t->count ? t->count : 1, sizeof *t->row_of))
        return false;
    memset(t->row_of, 0xff, t->count * sizeof *t->row_of);
    t->n_rows = 0;
    tui_node_id id = t->first_top;
    while (id != TUI_NODE_NONE) {
        if (!hs_grow((void **)&t->rows, &t->rows_cap, t->n_rows + 1, sizeof *t->rows))
            return false;
        t->row_of[id] = (uint32_t)t->n_rows;
        t->rows[t->n_rows++] = id;
        const tui_node *n = &t->nodes[id];
        if (n->expanded && n->first_child != TUI_NODE_NONE) {
            id = n->first_child;
            continue;
        }
        while (id != TUI_NODE_NONE && t->nodes[id].next_sibling == TUI_NODE_NONE)
            id = t->nodes[id].parent;
        if (id != TUI_NODE_NONE)
            id = t->nodes[id].next_sibling;
    }
    t->rows_dirty = false;
    return true;
}

const uint32_t *tui_tree_rows(tui_tree *t, size_t *n) {
    if (t->rows_dirty && !rebuild(t))
        t->n_rows = 0; /* out of memory: show nothing rather than stale ids */
    *n = t->n_rows;
    return t->rows;
}

long tui_tree_row_of(tui_tree *t, tui_node_id id) {
    size_t n;
    tui_tree_rows(t, &n);
    if (id == TUI_NODE_NONE || id >= t->count || !t->row_of || t->row_of[id] == UINT32_MAX)
        return -1;
    return (long)t->row_of[id];
}

tui_node_id tui_tree_left(tui_tree *t, tui_node_id id, bool *collapsed) {
    *collapsed = false;
    if (t->nodes[id].expanded) {
        tui_tree_collapse(t, id);
        *collapsed = true;
        return id;
    }
    return t->nodes[id].parent == TUI_NODE_NONE ? id : t->nodes[id].parent;
}

tui_node_id tui_tree_top_of(const tui_tree *t, tui_node_id id) {
    while (id != TUI_NODE_NONE && t->nodes[id].parent != TUI_NODE_NONE)
        id = t->nodes[id].parent;
    return id;
}

long tui_find_ci(const char *hay, const char *needle) {
    size_t nl = strlen(needle);
    if (nl == 0)
        return 0;
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        while (i < nl && h[i] &&
               tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nl)
            return h - hay;
    }
    return -1;
}

#define FIND_PROGRESS_EVERY 256

tui_find_result tui_tree_find(tui_tree *t, size_t from, const char *needle, tui_tree_text_fn text,
                              tui_tree_progress_fn progress, void *ctx, size_t *found) {
    size_t n;
    tui_tree_rows(t, &n);
    if (n == 0 || !needle || !*needle)
        return TUI_FIND_NONE;
    if (from >= n)
        from = n - 1;
    for (size_t k = 1; k <= n; k++) {
        if (progress && k % FIND_PROGRESS_EVERY == 0 && !progress(ctx, k, n))
            return TUI_FIND_CANCELLED;
        size_t r = (from + k) % n;
        /* text() may decode and add nothing to the tree, but re-read rows
         * anyway: the array is only stable while nothing opens */
        const char *s = text(ctx, t, t->rows[r]);
        if (s && tui_find_ci(s, needle) >= 0) {
            *found = r;
            return TUI_FIND_FOUND;
        }
    }
    return TUI_FIND_NONE;
}
