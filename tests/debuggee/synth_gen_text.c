/* The text region: every info table with tables next to code, constructor
 * descriptions, large bitmaps, profiling strings, and the IPE map.
 *
 * Layout of one table (heap-layout.md §3), P = the info pointer:
 *   [con desc offset i32 + pad]            constructors
 *   [slow apply, bitmap, fun_type, arity]  functions (24 bytes)
 *   [prof type off, prof desc off]         profiled only (16 bytes)
 *   [layout u64][type u32][srt u32]
 *   P: 16 bytes of fake entry code
 * Tables fill the first SG_TEXT_TABLES_CAP bytes; strings and bitmaps come
 * after them, so every offset stored in a table is positive. */
#include <stdio.h>
#include <string.h>

#include "synth_gen_internal.h"

/* mov rax,[rbp]; jmp [rax]; ud2; nop padding */
static const uint8_t entry_code[16] = {0x48, 0x8b, 0x45, 0x00, 0xff, 0x20, 0x0f, 0x0b,
                                       0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x90, 0x90};

static uint64_t strs_addr(size_t off) {
    return SYNTH_TEXT_BASE + SG_TEXT_TABLES_CAP + off;
}

uint64_t sg_text_string(sg_ctx *c, const char *s) {
    return strs_addr(sg_buf_put(c, &c->strs, s, strlen(s) + 1));
}

/* StgLargeBitmap: bit count, then words, LSB first, 1 = non-pointer. */
static uint64_t text_large_bitmap(sg_ctx *c, const char *map) {
    sg_buf_align(c, &c->strs, 8, 0);
    size_t n = strlen(map);
    uint8_t w[8];
    sg_put64(w, n);
    size_t off = sg_buf_put(c, &c->strs, w, 8);
    for (size_t i = 0; i < n; i += 64) {
        uint64_t bits = 0;
        for (size_t j = i; j < n && j < i + 64; j++)
            if (map[j] == 'N')
                bits |= UINT64_C(1) << (j - i);
        sg_put64(w, bits);
        sg_buf_put(c, &c->strs, w, 8);
    }
    return strs_addr(off);
}

/* Small bitmap word: size in the low 6 bits, then 1 = non-pointer. */
static uint64_t small_bitmap(const char *map) {
    size_t n = strlen(map);
    uint64_t bits = 0;
    for (size_t i = 0; i < n; i++)
        if (map[i] == 'N')
            bits |= UINT64_C(1) << i;
    return n | bits << 6;
}

static bool is_fun(unsigned t) {
    return t >= SG_FUN && t <= SG_FUN_STATIC;
}
/* Before GHC 9.14, 65 is a number of --unknown-type, laid out with ptrs
 * and nptrs. */
static bool is_small_frame(const sg_ctx *c, unsigned t) {
    return t == SG_RET_SMALL || t == SG_UPDATE_FRAME || t == SG_CATCH_FRAME ||
           t == SG_UNDERFLOW_FRAME || t == SG_STOP_FRAME || t == SG_ATOMICALLY_FRAME ||
           t == SG_CATCH_RETRY_FRAME || t == SG_CATCH_STM_FRAME ||
           (t == SG_ANN_FRAME && sg_has_ann_frame(c->opt->ghc_version));
}

typedef struct ipe_strings {
    const char *name, *ctype, *htype, *label, *module, *pos;
} ipe_strings;

static void add_ipe(sg_ctx *c, uint64_t p, const ipe_strings *s, unsigned type) {
    if (!s->name)
        return;
    if (c->n_ipes == c->cap_ipes) {
        c->cap_ipes = c->cap_ipes ? 2 * c->cap_ipes : 128;
        c->ipes = sg_realloc_mem(c, c->ipes, c->cap_ipes * sizeof *c->ipes);
    }
    char ct[16];
    snprintf(ct, sizeof ct, "%u", type);
    sg_ipe_rec *r = &c->ipes[c->n_ipes++];
    r->info = p;
    r->str[0] = sg_ipe_str(c, s->name);
    r->str[1] = sg_ipe_str(c, s->ctype ? s->ctype : ct);
    r->str[2] = sg_ipe_str(c, s->htype ? s->htype : "");
    r->str[3] = sg_ipe_str(c, s->label ? s->label : "");
    r->str[4] = sg_ipe_str(c, s->module ? s->module : "");
    r->str[5] = sg_ipe_str(c, s->pos ? s->pos : ":");
}

/* Lay out table `id` from t->type/ptrs/nptrs/tag/fun_type/arity/bm/srt. */
static void put_table(sg_ctx *c, int id, const char *con_desc, const ipe_strings *ipe) {
    sg_itab *t = &c->tabs[id];
    uint64_t desc = con_desc ? sg_text_string(c, con_desc) : 0;
    uint64_t big = 0;
    if (t->type == SG_RET_BIG || (is_fun(t->type) && t->fun_type == 1))
        big = text_large_bitmap(c, t->bm);
    uint64_t ptype = 0, pdesc = 0;
    if (c->prof) {
        ptype = sg_text_string(c, ipe && ipe->htype && *ipe->htype ? ipe->htype : "");
        pdesc = con_desc ? desc : sg_text_string(c, ipe && ipe->name ? ipe->name : "");
    }

    sg_buf_align(c, &c->text, 8, 0xcc);
    size_t extra = con_desc ? 8 : is_fun(t->type) ? 24 : 0;
    size_t at = sg_buf_zero(c, &c->text, extra + c->S);
    uint64_t p = SYNTH_TEXT_BASE + c->text.len;
    sg_buf_put(c, &c->text, entry_code, sizeof entry_code);
    if (c->text.len > SG_TEXT_TABLES_CAP)
        sg_fail(c, "info tables overflow the text segment");
    t->p = p;

    uint8_t *b = c->text.b + at;
    if (con_desc)
        sg_put32(b, (uint32_t)(int32_t)(desc - p));
    if (is_fun(t->type)) {
        sg_put32(b, 8); /* slow entry: inside the fake code */
        uint64_t bmw = t->fun_type == 0 ? small_bitmap(t->bm) : t->fun_type == 1 ? big - p : 0;
        sg_put64(b + 8, bmw);
        sg_put32(b + 16, t->fun_type);
        sg_put32(b + 20, t->arity);
    }
    uint8_t *s = b + extra;
    if (c->prof) {
        sg_put32(s, (uint32_t)(ptype - p));
        sg_put32(s + 8, (uint32_t)(pdesc - p));
        s += 16;
    }
    uint64_t layout = (uint64_t)t->ptrs | (uint64_t)t->nptrs << 32;
    if (is_small_frame(c, t->type))
        layout = small_bitmap(t->bm);
    else if (t->type == SG_RET_BIG)
        layout = big - p;
    else if (t->type == SG_RET_FUN || t->type == SG_RET_BCO)
        layout = 0;
    sg_put64(s, layout);
    sg_put32(s + 8, t->type);
    uint32_t srt = 0;
    if (con_desc)
        srt = t->tag;
    else if (t->srt)
        srt = (uint32_t)(int32_t)(t->srt - p);
    sg_put32(s + 12, srt);
    if (ipe)
        add_ipe(c, p, ipe, t->type);
}

static void zencode(const char *in, char *out, size_t outlen) {
    size_t o = 0;
    for (; *in && o + 3 < outlen; in++) {
        if (*in == 'z' || *in == 'Z') {
            out[o++] = *in;
            out[o++] = *in;
        } else if (*in == '\'') {
            out[o++] = 'z';
            out[o++] = 'q';
        } else {
            out[o++] = *in;
        }
    }
    out[o] = 0;
}

static void fixed_tables(sg_ctx *c) {
    char leak_name[160], zname[140];
    snprintf(c->leak_desc, sizeof c->leak_desc, "main:Main.%s", c->opt->leak_constructor);
    zencode(c->opt->leak_constructor, zname, sizeof zname);
    snprintf(leak_name, sizeof leak_name, "Main_%s_con_info", zname);
    for (int id = 0; id < SG_T_FIXED_COUNT; id++) {
        const sg_tdef *d = &sg_catalog[id];
        sg_itab *t = &c->tabs[id];
        t->type = d->type;
        t->ptrs = d->ptrs;
        t->nptrs = d->nptrs;
        t->tag = d->tag;
        t->fun_type = d->fun_type;
        t->arity = d->arity;
        t->srt = d->srt >= 0 ? c->stat[d->srt] : 0;
        const char *map = d->bm ? d->bm : "";
        if (is_fun(d->type) && d->fun_type >= 2)
            map = sg_canned_pattern(d->fun_type);
        snprintf(t->bm, sizeof t->bm, "%s%s", d->prof_hdr && c->prof ? "NN" : "", map);
        ipe_strings s = {d->name, d->ctype, d->htype, d->label, d->module, d->pos};
        const char *desc = d->con;
        if (id == SG_T_LEAK) {
            desc = c->leak_desc;
            s.name = leak_name;
        }
        bool con = d->type >= SG_CONSTR && d->type <= SG_CONSTR_NOCAF;
        put_table(c, id, con ? desc : NULL, &s);
    }
}

/* Base-62 suffix, unique per index (7919 is coprime with 62^4). */
static void unique_suffix(unsigned i, char out[5]) {
    static const char digits[] =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    unsigned n = (i * 7919u + 140000u) % (62u * 62u * 62u * 62u);
    for (int k = 3; k >= 0; k--) {
        out[k] = digits[n % 62];
        n /= 62;
    }
    out[4] = 0;
}

static void site_position(unsigned i, const char **module, char *pos, size_t poslen) {
    static const char *const mods[][2] = {{"Main", "app/Main.hs"},
                                          {"Data.Foo", "src/Data/Foo.hs"},
                                          {"Worker", "src/Worker.hs"},
                                          {"Data.Cache", "src/Data/Cache.hs"}};
    unsigned m = i % 4, line = 100 + 7 * i, col = 5 + i % 13;
    *module = mods[m][0];
    if (i % 3 == 0)
        snprintf(pos, poslen, "%s:(%u,%u)-(%u,%u)", mods[m][1], line, col, line + 2 + i % 5,
                 10 + i % 30);
    else
        snprintf(pos, poslen, "%s:%u:%u-%u", mods[m][1], line, col, col + 12 + i % 40);
}

static const char *const site_types[] = {"[Int]",     "Map Int String", "Int",    "(Int, String)",
                                         "Maybe Int", "String",         "IO ()",  "Double"};
static const char *const site_labels[] = {"xs",     "table", "n",      "pair",
                                          "lookup", "name",  "action", "ratio"};
static const char *const fun_binders[] = {"go", "step", "loop", "f", "k", "worker", "lvl", "g"};

static void generated_tables(sg_ctx *c) {
    static const uint8_t shapes[6][2] = {{3, 1}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}};
    static const uint8_t thunk_types[6] = {SG_THUNK,     SG_THUNK_1_0, SG_THUNK_0_1,
                                           SG_THUNK_2_0, SG_THUNK_1_1, SG_THUNK_0_2};
    static const uint8_t fun_types[6] = {SG_FUN,     SG_FUN_1_0, SG_FUN_0_1,
                                         SG_FUN_2_0, SG_FUN_1_1, SG_FUN_0_2};
    static const struct { uint8_t fun_type, arity; const char *map; } args[SG_KIND_SITES] = {
        {5, 1, NULL}, {15, 2, NULL}, {23, 3, NULL}, {0, 2, "PN"},
        {13, 2, NULL}, {4, 1, NULL}, {0, 3, "NPP"}, {24, 4, NULL}};
    static const char *const ret_maps[SG_RET_SITES] = {"P",   "PP",  "PNP",   "NPN",
                                                       "PPNP", "NNP", "PNNPP", "PN"};
    const uint64_t thunk_srt[4] = {0, c->stat[SG_S_SRT_A], c->stat[SG_S_SRT_B],
                                   c->stat[SG_S_FUN_B]};
    const uint64_t fun_srt[3] = {0, c->stat[SG_S_SRT_C], c->stat[SG_S_SRT_A]};
    char name[64], pos[96], suf[5];
    unsigned serial = 0;
    for (int kind = 0; kind < 12; kind++) {
        bool fun = kind >= 6;
        for (int k = 0; k < SG_KIND_SITES; k++, serial++) {
            int id = fun ? SG_FUN_SITE(kind - 6, k) : SG_THUNK_SITE(kind, k);
            sg_itab *t = &c->tabs[id];
            t->type = fun ? fun_types[kind - 6] : thunk_types[kind];
            t->ptrs = shapes[kind % 6][0];
            t->nptrs = shapes[kind % 6][1];
            t->srt = fun ? fun_srt[k % 3] : thunk_srt[k % 4];
            if (fun) {
                t->fun_type = args[k].fun_type;
                t->arity = args[k].arity;
                snprintf(t->bm, sizeof t->bm, "%s",
                         args[k].map ? args[k].map : sg_canned_pattern(args[k].fun_type));
            }
            unique_suffix(serial, suf);
            if (fun)
                snprintf(name, sizeof name, "%s_s%s_info", fun_binders[k], suf);
            else
                snprintf(name, sizeof name, "sat_s%s_info", suf);
            ipe_strings s = {name, NULL, site_types[(k + kind) % 8], site_labels[k], NULL, pos};
            site_position(serial, &s.module, pos, sizeof pos);
            if (fun)
                s.htype = "Int -> IO ()";
            /* one thunk site comes from a module built without IPE */
            put_table(c, id, NULL, kind == 1 && k == SG_KIND_SITES - 1 ? NULL : &s);
        }
    }
    for (int k = 0; k < SG_RET_SITES; k++, serial++) {
        sg_itab *t = &c->tabs[SG_RET_SITE(k)];
        t->type = SG_RET_SMALL;
        snprintf(t->bm, sizeof t->bm, "%s", ret_maps[k]);
        t->srt = k % 2 ? c->stat[SG_S_SRT_A] : 0;
        unique_suffix(serial, suf);
        snprintf(name, sizeof name, "block_c%s_info", suf);
        ipe_strings s = {name, NULL, "", "", NULL, pos};
        site_position(serial, &s.module, pos, sizeof pos);
        put_table(c, SG_RET_SITE(k), NULL, &s);
    }
}

/* GHC 9.14's stg_ann_frame_info (StgAnnFrame: a closure header, then the
 * annotation; RTS frames have no IPE entry here) and the table of
 * --unknown-type (one pointer, one word, as if it were a constructor). */
static void option_tables(sg_ctx *c) {
    if (sg_has_ann_frame(c->opt->ghc_version)) {
        sg_itab *t = &c->tabs[SG_T_ANN_FRAME];
        t->type = SG_ANN_FRAME;
        snprintf(t->bm, sizeof t->bm, "%sP", c->prof ? "NN" : "");
        put_table(c, SG_T_ANN_FRAME, NULL, NULL);
    }
    if (c->opt->unknown_type) {
        sg_itab *t = &c->tabs[SG_T_UNKNOWN];
        t->type = (uint16_t)c->opt->unknown_type;
        t->ptrs = 1;
        t->nptrs = 1;
        put_table(c, SG_T_UNKNOWN, NULL, NULL);
    }
}

void sg_text_build(sg_ctx *c) {
    fixed_tables(c);
    generated_tables(c);
    option_tables(c);
}
