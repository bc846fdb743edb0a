/* The plan as JSON text (format in synth_gen.h): totals, the census by
 * constructor and by closure type (together: the census keys), eras when
 * profiled, and the leak with its path read back from memory. Keys are
 * sorted so equal heaps give equal text. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"

static void out(sg_ctx *c, sg_buf *b, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void out(sg_ctx *c, sg_buf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        sg_fail(c, "internal: JSON item too long");
    sg_buf_put(c, b, tmp, (size_t)n);
}

/* JSON string body: quotes, backslashes and control bytes escaped. */
static void escape(const char *s, char *dst, size_t len) {
    size_t o = 0;
    for (; *s && o + 7 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)ch;
        } else if (ch < 0x20) {
            o += (size_t)snprintf(dst + o, len - o, "\\u%04x", ch);
        } else {
            dst[o++] = (char)ch;
        }
    }
    dst[o] = 0;
}

static void put_text(sg_ctx *c, sg_buf *b, const char *s) {
    sg_buf_put(c, b, s, strlen(s));
}

typedef struct named {
    const char *name;
    size_t idx;
} named;
static int by_name(const void *a, const void *b) {
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

static void totals(sg_ctx *c, sg_buf *b, const char *name, uint64_t n, uint64_t bytes) {
    out(c, b, "  \"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "},\n", name, n, bytes);
}

/* one census section: constructors (con) or the other closure types */
static void section(sg_ctx *c, sg_buf *b, const sg_plan *pl, const size_t *order, bool con,
                    const char *title) {
    char esc[600];
    bool first = true;
    out(c, b, "  \"%s\": {", title);
    for (size_t i = 0; i < pl->nkeys; i++) {
        const sg_pkey *k = &pl->keys[order[i]];
        if (k->con != con)
            continue;
        escape(k->name, esc, sizeof esc);
        out(c, b, "%s\n    \"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
            first ? "" : ",", esc, k->count, k->bytes);
        first = false;
    }
    out(c, b, "\n  },\n");
}

static void eras(sg_ctx *c, sg_buf *b, const sg_plan *pl, const size_t *order) {
    char esc[600];
    bool first = true;
    out(c, b, "  \"by_era\": {");
    for (unsigned e = 0; e <= pl->eras; e++) {
        if (!pl->era_count[e])
            continue;
        out(c, b, "%s\n    \"%u\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
            first ? "" : ",", e, pl->era_count[e], pl->era_bytes[e]);
        first = false;
    }
    out(c, b, "\n  },\n  \"by_constructor_era\": {");
    first = true;
    for (size_t i = 0; i < pl->nkeys; i++) {
        const sg_pkey *k = &pl->keys[order[i]];
        if (!k->con)
            continue;
        escape(k->name, esc, sizeof esc);
        out(c, b, "%s\n    \"%s\": {", first ? "" : ",", esc);
        first = false;
        bool first_era = true;
        for (unsigned e = 0; e <= pl->eras; e++) {
            if (!k->era_count[e])
                continue;
            out(c, b, "%s\"%u\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
                first_era ? "" : ", ", e, k->era_count[e], k->era_bytes[e]);
            first_era = false;
        }
        out(c, b, "}");
    }
    out(c, b, "\n  },\n");
}

static void path_entry(sg_ctx *c, sg_buf *b, const sg_plan *pl, const synth_process *p,
                       uint64_t addr, bool last) {
    sg_closure cl;
    if (sg_decode(&pl->w, addr, &cl, NULL, NULL) < 0)
        sg_fail(c, "internal: leak path closure 0x%" PRIx64 " does not decode", addr);
    char key[512], name[256] = "", ename[600], eloc[600], unknown[32];
    const synth_ipe *ipe = synth_find_ipe(p, cl.info);
    if (sg_is_constructor(cl.type)) {
        const char *desc = sg_con_desc(&pl->w, cl.info);
        if (desc)
            sg_con_key(desc, key, sizeof key, name, sizeof name);
    } else if (ipe) {
        snprintf(name, sizeof name, "%s", ipe->strings[0]);
    }
    escape(name, ename, sizeof ename);
    escape(ipe ? ipe->strings[5] : "", eloc, sizeof eloc);
    char prof[600] = "";
    if (c->prof)
        sg_prof_plan_items(c, &cl, prof, sizeof prof);
    out(c, b,
        "      {\"address\": \"0x%" PRIx64 "\", \"type\": \"%s\", \"name\": \"%s\", "
        "\"era\": %" PRIu64 ", \"location\": \"%s\"%s}%s\n",
        addr, sg_type_name(p->ghc_major, cl.type, unknown, sizeof unknown), ename,
        cl.era, eloc, prof, last ? "" : ",");
}

/* What --ghc-version and --unknown-type planted; nothing for the defaults,
 * whose plan stays as it was. */
static void versions_json(sg_ctx *c, sg_buf *b, const synth_process *p) {
    if (p->ghc_major != 910)
        out(c, b, "  \"ghc_version\": %u,\n", p->ghc_major);
    if (sg_has_ann_frame(p->ghc_major)) {
        out(c, b, "  \"annotation_frames\": [");
        for (size_t i = 0; i < c->n_ann; i++)
            out(c, b, "%s{\"thread\": \"0x%" PRIx64 "\", \"annotation\": \"0x%" PRIx64 "\"}",
                i ? ", " : "", c->ann_thread[i], c->ann_value[i]);
        out(c, b, "],\n");
    }
    if (c->opt->unknown_type) {
        char name[32];
        out(c, b,
            "  \"unknown_type\": {\"type\": %" PRIu32 ", \"name\": \"%s\", \"address\": \"0x%" PRIx64
            "\"},\n",
            c->opt->unknown_type,
            sg_type_name(p->ghc_major, c->opt->unknown_type, name, sizeof name), c->unknown);
    }
}

void sg_plan_json(sg_ctx *c, sg_plan *pl, synth_process *p) {
    sg_buf *b = &c->json;
    named *sorted = calloc(pl->nkeys ? pl->nkeys : 1, sizeof *sorted);
    size_t *order = pl->order = calloc(pl->nkeys ? pl->nkeys : 1, sizeof *order);
    if (!sorted || !order) {
        free(sorted);
        sg_fail(c, "out of memory (plan)");
    }
    for (size_t i = 0; i < pl->nkeys; i++)
        sorted[i] = (named){pl->keys[i].name, i};
    qsort(sorted, pl->nkeys, sizeof *sorted, by_name);
    for (size_t i = 0; i < pl->nkeys; i++)
        order[i] = sorted[i].idx;
    free(sorted);

    char esc[300];
    const synth_options *o = c->opt;
    out(c, b, "{\n  \"profiled\": %s,\n  \"eras\": %u,\n  \"seed\": %" PRIu64 ",\n",
        c->prof ? "true" : "false", o->eras, o->seed);
    if (c->prof)
        out(c, b, "  \"profiling_mode\": \"%s\",\n", sg_prof_mode_name(c->prof_mode));
    totals(c, b, "reachable", pl->reach_count, pl->reach_bytes);
    totals(c, b, "garbage", pl->garbage_count, pl->garbage_bytes);
    totals(c, b, "static", pl->static_count, pl->static_bytes);
    out(c, b, "  \"blocks\": {\"groups\": %zu, \"bytes\": %" PRIu64 "},\n", c->heap.n_groups,
        c->heap.group_bytes);
    section(c, b, pl, order, true, "by_constructor");
    section(c, b, pl, order, false, "by_type");
    sg_plan_thunks_json(c, b, pl, p, put_text, escape);
    if (c->prof)
        eras(c, b, pl, order);

    versions_json(c, b, p);
    escape(o->leak_constructor, esc, sizeof esc);
    out(c, b,
        "  \"leak\": {\n    \"constructor\": \"%s\", \"count\": %" PRIu64 ", \"era\": %u, "
        "\"bytes\": %" PRIu64 ",\n    \"root\": \"0x%" PRIx64 "\", \"first_match\": \"0x%" PRIx64
        "\",\n    \"path\": [\n",
        esc, pl->leak_count, o->leak_era, pl->leak_bytes, c->leak_path[0],
        c->leak_path[c->leak_path_len - 1]);
    for (size_t i = 0; i < c->leak_path_len; i++)
        path_entry(c, b, pl, p, c->leak_path[i], i + 1 == c->leak_path_len);
    out(c, b, "    ]\n  }");
    if (o->saved_shortcut)
        out(c, b,
            ",\n  \"saved_shortcut\": {\"saved_cell\": \"0x%" PRIx64 "\", \"orphan_cell\": \"0x%" PRIx64
            "\", \"orphan\": \"0x%" PRIx64 "\"}",
            o->leak_count > 0 ? c->leak_first_cell : 0, c->orphan_cell, c->orphan);
    if (o->strings)
        sg_strings_json(c, b);
    out(c, b, "\n}\n");
    sg_buf_put(c, b, "", 1);
    p->plan_json = (char *)b->b;
    *b = (sg_buf){0};
}
