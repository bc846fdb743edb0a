/* What a stack frame is, for people: its kind by closure type (§8) and,
 * when the debuggee has info-table provenance for its return address, the
 * source location and name of the code it returns to. That is what says
 * which function holds a value on a thread's stack. */
#include <string.h>

#include "heapscope/closure_type.h"
#include "label_internal.h"

const char *heap_frame_kind(uint32_t type) {
    switch (type) {
    case HS_RET_BCO: return "bytecode return";
    case HS_RET_SMALL: return "case continuation";
    case HS_RET_BIG: return "case continuation (large)";
    case HS_RET_FUN: return "function return";
    case HS_UPDATE_FRAME: return "update frame";
    case HS_CATCH_FRAME: return "catch frame";
    case HS_UNDERFLOW_FRAME: return "underflow frame";
    case HS_STOP_FRAME: return "stop frame";
    case HS_ATOMICALLY_FRAME: return "atomically frame";
    case HS_CATCH_RETRY_FRAME: return "catch retry frame";
    case HS_CATCH_STM_FRAME: return "catch STM frame";
    case HS_ANN_FRAME: return "annotation frame"; /* GHC >= 9.14, annotateStack */
    default: return NULL;
    }
}

const heap_frame *heap_frame_of_edge(const heap_closure *c, size_t edge) {
    if (edge >= c->n_edges || c->edges[edge].frame == HEAP_EDGE_NO_FRAME)
        return NULL;
    /* frames own consecutive runs of edges in order: the last frame whose
     * run starts at or before the edge (numbers saturate, so search) */
    size_t lo = 0, hi = c->n_frames;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->frames[mid].first_edge <= edge)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const heap_frame *f = &c->frames[lo - 1];
    return edge < (size_t)f->first_edge + f->n_edges ? f : NULL;
}

const wire_source_info *heap_frame_source(heap *h, const heap_info *info) {
    const wire_source_info *ipe = NULL;
    hs_error ignored;
    /* a location that cannot be asked for is left out: the frame's kind
     * still says what it is */
    if (h && info && heap_info_source(h, info, &ipe, &ignored) != HS_OK)
        ipe = NULL;
    return ipe;
}

static bool has_text(const char *s) { return s && *s; }

void heap_frame_text(heap *h, const heap_info *info, char *buf, size_t cap) {
    heap_lbuf lb = {buf, cap, 0}, *b = &lb;
    if (cap > 0)
        buf[0] = '\0';
    uint32_t type = info ? info->type : 0;
    const char *kind = heap_frame_kind(type);
    if (kind)
        heap_lbuf_puts(b, kind);
    else if (type < HS_N_CLOSURE_TYPES)
        heap_lbuf_printf(b, "%s frame", hs_closure_type_name(type));
    else
        heap_lbuf_printf(b, "frame of type %u", (unsigned)type);
    const wire_source_info *ipe = heap_frame_source(h, info);
    if (!ipe)
        return;
    if (has_text(ipe->label)) {
        heap_lbuf_puts(b, " in ");
        if (has_text(ipe->module)) {
            heap_lbuf_puts(b, ipe->module);
            heap_lbuf_puts(b, ".");
        }
        heap_lbuf_puts(b, ipe->label);
    } else if (has_text(ipe->name)) {
        heap_lbuf_puts(b, " ");
        heap_lbuf_puts(b, ipe->name);
    }
    if (has_text(ipe->position)) {
        heap_lbuf_puts(b, " at ");
        heap_lbuf_puts(b, ipe->position);
    }
}

void heap_closure_edge_label(heap *h, const heap_closure *c, size_t edge, char *buf,
                             size_t cap) {
    const heap_frame *f = heap_frame_of_edge(c, edge);
    if (!f) {
        if (edge < c->n_edges)
            heap_edge_label(&c->edges[edge], buf, cap);
        else if (cap > 0)
            buf[0] = '\0';
        return;
    }
    heap_lbuf lb = {buf, cap, 0}, *b = &lb;
    if (cap > 0)
        buf[0] = '\0';
    char about[512];
    heap_frame_text(h, f->info, about, sizeof about);
    heap_lbuf_printf(b, "Frame %zu (%s) ", (size_t)(f - c->frames), about);
    switch (c->edges[edge].kind) {
    case HEAP_EDGE_SRT: heap_lbuf_puts(b, "SRT"); break;
    case HEAP_EDGE_FUNCTION: heap_lbuf_puts(b, "Function"); break;
    default: heap_lbuf_puts(b, "Pointer"); break;
    }
}
