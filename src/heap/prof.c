/* A closure's profiling header decoded by the VERSION profiling mode
 * (heap-layout.md §4, retainers-and-eras.md §5), its cost-centre stack
 * looked up, and the texts the TUI's details pane and the CLI's closure
 * lines show: one decoder and one formatter, so the two cannot disagree. */
#include <inttypes.h>
#include <stdio.h>

#include "heap_internal.h"

#define LDV_USED UINT64_C(0x1000000000000000)
#define LDV_CREATED UINT64_C(0x0FFFFFFFC0000000)
#define LDV_CREATED_SHIFT 30
#define LDV_LAST UINT64_C(0x000000003FFFFFFF)

static heap_prof_kind kind_of(uint8_t mode) {
    switch (mode) {
    case WIRE_PROF_NONE: return HEAP_PROF_ABSENT;
    case WIRE_PROF_ERA: return HEAP_PROF_ERA;
    case WIRE_PROF_LDV: return HEAP_PROF_LDV;
    case WIRE_PROF_RETAINER: return HEAP_PROF_RETAINER;
    default: return HEAP_PROF_RAW;
    }
}

void heap_prof_decode(uint8_t mode, const heap_prof_header *p, heap_prof_info *out) {
    *out = (heap_prof_info){.kind = p->present ? kind_of(mode) : HEAP_PROF_ABSENT};
    if (out->kind == HEAP_PROF_ABSENT)
        return;
    uint64_t w = p->word;
    out->word = w;
    out->ccs = p->ccs;
    switch (out->kind) {
    case HEAP_PROF_ERA: out->era = w; break;
    case HEAP_PROF_LDV:
        out->ldv_created = (w & LDV_CREATED) >> LDV_CREATED_SHIFT;
        out->ldv_used = (w & LDV_USED) != 0;
        out->ldv_last_use = out->ldv_used ? w & LDV_LAST : 0;
        break;
    case HEAP_PROF_RETAINER:
        out->retainer_set = w & ~UINT64_C(1);
        out->retainer_flag = w & 1;
        break;
    default: break;
    }
}

void heap_prof_describe(heap *h, const heap_prof_header *p, heap_prof_info *out) {
    heap_prof_decode(h->version.prof_mode, p, out);
    if (!out->ccs)
        return;
    hs_error err = {0};
    if (heap_ccs(h, out->ccs, &out->stack, &err) != HS_OK ||
        heap_cc(h, out->stack->cc, &out->cc, &err) != HS_OK) {
        out->cc = NULL;
        snprintf(out->problem, sizeof out->problem, "%s",
                 err.message[0] ? err.message : hs_status_name(err.status));
    }
}

const char *heap_prof_state_key(const heap_prof_info *p) {
    switch (p->kind) {
    case HEAP_PROF_ABSENT: return NULL;
    case HEAP_PROF_ERA: return "Era";
    case HEAP_PROF_LDV: return "LDV info";
    case HEAP_PROF_RETAINER: return "Retainer info";
    default: return "Other";
    }
}

static void ldv_text(const heap_prof_info *p, heap_prof_style style, char *buf, size_t cap) {
    if (style == HEAP_PROF_LINE) {
        if (p->ldv_used)
            snprintf(buf, cap, "ldv created %" PRIu64 " used %" PRIu64, p->ldv_created,
                     p->ldv_last_use);
        else
            snprintf(buf, cap, "ldv created %" PRIu64 " unused", p->ldv_created);
        return;
    }
    bool utf8 = style == HEAP_PROF_PANE;
    if (p->ldv_used)
        snprintf(buf, cap, "%s created: %" PRIu64 " last used: %" PRIu64,
                 utf8 ? "✓" : "used", p->ldv_created, p->ldv_last_use);
    else
        snprintf(buf, cap, "%s created: %" PRIu64, utf8 ? "✘" : "unused", p->ldv_created);
}

void heap_prof_state_text(const heap_prof_info *p, heap_prof_style style, char *buf,
                          size_t cap) {
    if (!cap)
        return;
    buf[0] = 0;
    bool line = style == HEAP_PROF_LINE;
    switch (p->kind) {
    case HEAP_PROF_ABSENT: break;
    case HEAP_PROF_ERA: snprintf(buf, cap, "%s%" PRIu64, line ? "era " : "", p->era); break;
    case HEAP_PROF_LDV: ldv_text(p, style, buf, cap); break;
    case HEAP_PROF_RETAINER:
        /* the set lives in RTS memory the protocol cannot read: its address */
        if (p->retainer_set)
            snprintf(buf, cap, "%s0x%" PRIx64 " flag %d", line ? "retainer set " : "",
                     p->retainer_set, p->retainer_flag);
        else
            snprintf(buf, cap, "%snone flag %d", line ? "retainer set " : "",
                     p->retainer_flag);
        break;
    default:
        if (!line)
            snprintf(buf, cap, "Not supported: %" PRIu64, p->word);
        break;
    }
}

/* Cost-centre names come from the debuggee: control bytes (an escape
 * sequence, a newline) become '?' so they cannot drive the terminal. */
static void defang(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void heap_cc_text(const wire_cc *cc, char *buf, size_t cap) {
    if (!cap)
        return;
    snprintf(buf, cap, "%s   %s   %s", cc->label ? cc->label : "", cc->module ? cc->module : "",
             cc->srcloc ? cc->srcloc : "");
    defang(buf);
}

void heap_prof_cc_text(const heap_prof_info *p, heap_prof_style style, char *buf, size_t cap) {
    if (!cap)
        return;
    buf[0] = 0;
    if (!p->ccs)
        return;
    if (style != HEAP_PROF_LINE) {
        if (p->cc)
            heap_cc_text(p->cc, buf, cap);
        else
            snprintf(buf, cap, "%s", p->problem);
    } else if (p->cc) {
        snprintf(buf, cap, "cc %s:%s (%s)", p->cc->module ? p->cc->module : "",
                 p->cc->label ? p->cc->label : "", p->cc->srcloc ? p->cc->srcloc : "");
    } else {
        snprintf(buf, cap, "ccs 0x%" PRIx64 " <%s>", p->ccs, p->problem);
    }
    defang(buf);
}
