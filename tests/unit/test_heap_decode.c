/* Decoding of the standard layouts, PAP/AP, indirections, opaque leaves and
 * malformed closures (heap-layout.md §4-§6, §9, §11.2, §13), in both header
 * flavours. */
#include "heap_test.h"

#define I_LEAK UINT64_C(0x401000)
#define I_INT UINT64_C(0x401100)
#define I_CHAR UINT64_C(0x401200)
#define I_CONS UINT64_C(0x401300)
#define I_TUP UINT64_C(0x401400)
#define I_NOTHING UINT64_C(0x401500)
#define I_THUNK UINT64_C(0x402000)
#define I_THUNK0 UINT64_C(0x402100)
#define I_THUNK_ST UINT64_C(0x402200)
#define I_FUN UINT64_C(0x403000)
#define I_FUN_ST UINT64_C(0x403100)
#define I_FUN3 UINT64_C(0x403200)
#define I_BIGFUN UINT64_C(0x403300)
#define I_SEL UINT64_C(0x404000)
#define I_IND UINT64_C(0x404100)
#define I_BH UINT64_C(0x404200)
#define I_PAP UINT64_C(0x405000)
#define I_AP UINT64_C(0x405100)
#define I_PRIM UINT64_C(0x406000)
#define I_ODD UINT64_C(0x407000)
#define SRT_ADDR UINT64_C(0x4c7e60)

/* ---- constructors ---------------------------------------------------- */

static void constructor(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_con(t.f, I_LEAK, HS_CONSTR_1_1, 1, 1, "main:Main.Leak");
    uint64_t a = BLK + 0x100, p = ht_hdr(&t, a, I_LEAK);
    fake_w64(t.f, p, BLK + 0x1250 + 2); /* tagged */
    fake_w64(t.f, p + 8, 42);
    ht_open(&t);
    ht_ok(&t, a + 1); /* a tagged address decodes the closure */
    cr_expect_eq(t.c.addr, a);
    cr_expect_eq(t.c.type, HS_CONSTR_1_1);
    cr_expect_eq(t.c.size, t.H + 16);
    cr_expect_not(t.c.opaque);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 1);
    ht_edge(&t, 0, BLK + 0x1250, HEAP_EDGE_FIELD, NF, 0);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 42);
    char want[64];
    snprintf(want, sizeof want, "Leak 0x%llx 42", (unsigned long long)(BLK + 0x1250));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Field 0");
    char key[64];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "main:Main:Leak");
    ht_fini(&t);
}

Test(heap_decode, constructor) { constructor(false); }
Test(heap_decode, constructor_profiled) { constructor(true); }

/* A constructor's word that is an address of this heap (an Addr# into a
 * block, a static closure read this pause, the program's code) prints in
 * hex; any other word, however large, in decimal. */
Test(heap_decode, constructor_address_words) {
    ht t;
    ht_init(&t, false);
    fake_con(t.f, I_LEAK, HS_CONSTR, 1, 5, "bytestring:Data.ByteString.Internal.Type.BS");
    fake_con(t.f, I_INT, HS_CONSTR_0_1, 0, 1, "ghc-prim:GHC.Types.I#");
    uint64_t a = BLK + 0x100, p = ht_hdr(&t, a, I_LEAK);
    uint64_t inner = BLK + 0x200, statik = STATIC + 0x10;
    ht_hdr(&t, inner, I_INT);
    fake_w64(t.f, inner + t.H, 7);
    ht_hdr(&t, statik, I_INT);
    fake_w64(t.f, p, inner + 1);
    uint64_t words[5] = {BLK + 0x213, 43, statik, I_LEAK, UINT64_C(0x4c8000)};
    for (int i = 0; i < 5; i++)
        fake_w64(t.f, p + 8 + 8 * (uint64_t)i, words[i]);
    ht_open(&t);
    ht_ok(&t, statik); /* the static closure is read in this pause */
    ht_ok(&t, a);
    char want[128];
    snprintf(want, sizeof want, "BS 0x%llx 0x%llx 43 0x%llx 0x%llx %llu",
             (unsigned long long)inner, (unsigned long long)(BLK + 0x213),
             (unsigned long long)statik, (unsigned long long)I_LEAK, 0x4c8000ULL);
    cr_expect_str_eq(ht_label(&t), want);
    ht_fini(&t);
}

static void special_constructors(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_con(t.f, I_INT, HS_CONSTR_0_1, 0, 1, "ghc-prim:GHC.Types.I#");
    fake_con(t.f, I_CHAR, HS_CONSTR_0_1, 0, 1, "ghc-prim:GHC.Types.C#");
    fake_con(t.f, I_CONS, HS_CONSTR_2_0, 2, 0, "ghc-prim:GHC.Types.:");
    fake_con(t.f, I_TUP, HS_CONSTR_2_0, 2, 0, "ghc-prim:GHC.Tuple.(,)");
    fake_con(t.f, I_NOTHING, HS_CONSTR_NOCAF, 0, 0, "base:GHC.Maybe.Nothing");
    uint64_t i = BLK, c = BLK + 0x40, cons = BLK + 0x80, tup = BLK + 0xc0;
    fake_w64(t.f, ht_hdr(&t, i, I_INT), 42);
    fake_w64(t.f, ht_hdr(&t, c, I_CHAR), 'x');
    uint64_t p = ht_hdr(&t, cons, I_CONS);
    fake_w64(t.f, p, c + 1);
    fake_w64(t.f, p + 8, STATIC + 0x10 + 1);
    p = ht_hdr(&t, tup, I_TUP);
    fake_w64(t.f, p, i + 1);
    fake_w64(t.f, p + 8, c + 1);
    ht_hdr(&t, STATIC + 0x10, I_NOTHING); /* a static closure, fetched with CLOSURES */
    ht_open(&t);

    ht_ok(&t, i);
    cr_expect_str_eq(ht_label(&t), "I# 42");
    char key[64];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "ghc-prim:GHC.Types:I#");
    ht_ok(&t, c);
    cr_expect_str_eq(ht_label(&t), "C# 'x'");
    ht_ok(&t, cons);
    char want[128];
    snprintf(want, sizeof want, "0x%llx : 0x%llx", (unsigned long long)c,
             (unsigned long long)(STATIC + 0x10));
    cr_expect_str_eq(ht_label(&t), want);
    ht_ok(&t, tup);
    snprintf(want, sizeof want, "(0x%llx,0x%llx)", (unsigned long long)i, (unsigned long long)c);
    cr_expect_str_eq(ht_label(&t), want);
    ht_ok(&t, STATIC + 0x10);
    cr_expect_str_eq(ht_label(&t), "Nothing()");
    cr_expect_eq(t.c.size, t.H);
    cr_expect_eq(t.c.n_edges, 0);
    ht_prof(&t);
    cr_expect_eq(fake_counts_of(t.f)->closures, 1);
    ht_fini(&t);
}

Test(heap_decode, special_constructors) { special_constructors(false); }
Test(heap_decode, special_constructors_profiled) { special_constructors(true); }

Test(heap_decode, character_literals) {
    static const struct {
        uint64_t cp;
        const char *label;
    } cases[] = {
        {'a', "C# 'a'"},       {'\n', "C# '\\n'"},   {233, "C# '\\233'"},
        {'\'', "C# '\\''"},    {'"', "C# '\"'"},     {'\\', "C# '\\\\'"},
        {127, "C# '\\DEL'"},   {0, "C# '\\NUL'"},    {14, "C# '\\SO'"},
        {7, "C# '\\a'"},       {27, "C# '\\ESC'"},   {0x1F600, "C# '\\128512'"},
    };
    ht t;
    ht_init(&t, false);
    fake_con(t.f, I_CHAR, HS_CONSTR_0_1, 0, 1, "ghc-prim:GHC.Types.C#");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        fake_w64(t.f, ht_hdr(&t, BLK + 16 * k, I_CHAR), cases[k].cp);
    ht_open(&t);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ht_ok(&t, BLK + 16 * k);
        cr_expect_str_eq(ht_label(&t), cases[k].label);
    }
    ht_fini(&t);
}

Test(heap_decode, null_pointer_field_is_no_edge) {
    ht t;
    ht_init(&t, false);
    fake_con(t.f, I_TUP, HS_CONSTR_2_0, 2, 0, "ghc-prim:GHC.Tuple.(,)");
    uint64_t p = ht_hdr(&t, BLK, I_TUP);
    fake_w64(t.f, p, 0);
    fake_w64(t.f, p + 8, BLK + 0x40 + 2);
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_assert_eq(t.c.n_edges, 1);
    ht_edge(&t, 0, BLK + 0x40, HEAP_EDGE_FIELD, NF, 1);
    char want[64];
    snprintf(want, sizeof want, "(null,0x%llx)", (unsigned long long)(BLK + 0x40));
    cr_expect_str_eq(ht_label(&t), want);
    ht_fini(&t);
}

/* ---- thunks and functions -------------------------------------------- */

static void thunks(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_THUNK, HS_THUNK_1_1, 1, 1);
    fake_srt(t.f, I_THUNK, SRT_ADDR);
    fake_info(t.f, I_THUNK0, HS_THUNK, 0, 0);
    fake_info(t.f, I_THUNK_ST, HS_THUNK_STATIC, 0, 0);
    fake_srt(t.f, I_THUNK_ST, SRT_ADDR + 3); /* SRT answers arrive untagged */
    uint64_t a = BLK + 0x200, p = ht_hdr(&t, a, I_THUNK);
    fake_w64(t.f, p, UINT64_C(0xdeadbeef)); /* padding word: ignored */
    fake_w64(t.f, p + 8, BLK + 0x5a8 + 1);
    fake_w64(t.f, p + 16, 7);
    ht_hdr(&t, BLK + 0x300, I_THUNK0);
    ht_hdr(&t, STATIC + 0x100, I_THUNK_ST);
    ht_open(&t);

    ht_ok(&t, a);
    cr_expect_eq(t.c.size, t.H + 8 + 16);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 0, SRT_ADDR, HEAP_EDGE_SRT, NF, 0);
    ht_edge(&t, 1, BLK + 0x5a8, HEAP_EDGE_ARG, NF, 0);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 7);
    char want[96];
    snprintf(want, sizeof want, "_thunk{ 0x4c7e60 } 0x%llx 7", (unsigned long long)(BLK + 0x5a8));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "SRT");
    cr_expect_str_eq(ht_edge_label(&t, 1), "Argument 0");
    char key[64];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "THUNK_1_1");

    ht_ok(&t, BLK + 0x300);
    cr_expect_str_eq(ht_label(&t), "_thunk()");
    cr_expect_eq(t.c.size, t.H + 8);
    cr_expect_eq(t.c.n_edges, 0);

    ht_ok(&t, STATIC + 0x100); /* THUNK_STATIC: no padding word */
    cr_expect_str_eq(ht_label(&t), "_thunk{ 0x4c7e60 }()");
    cr_expect_eq(t.c.size, t.H);
    cr_assert_eq(t.c.n_edges, 1);
    ht_edge(&t, 0, SRT_ADDR, HEAP_EDGE_SRT, NF, 0);
    ht_fini(&t);
}

Test(heap_decode, thunks) { thunks(false); }
Test(heap_decode, thunks_profiled) { thunks(true); }

static void functions(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_FUN, HS_FUN_1_1, 1, 1);
    fake_srt(t.f, I_FUN, SRT_ADDR);
    fake_info(t.f, I_FUN_ST, HS_FUN_STATIC, 0, 0);
    uint64_t a = BLK + 0x400, p = ht_hdr(&t, a, I_FUN);
    fake_w64(t.f, p, BLK + 0xa50 + 4);
    fake_w64(t.f, p + 8, 3);
    ht_hdr(&t, STATIC + 0x200, I_FUN_ST);
    ht_open(&t);
    ht_ok(&t, a + 2);
    cr_expect_eq(t.c.size, t.H + 16);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 0, SRT_ADDR, HEAP_EDGE_SRT, NF, 0);
    ht_edge(&t, 1, BLK + 0xa50, HEAP_EDGE_ARG, NF, 0);
    char want[96];
    snprintf(want, sizeof want, "_fun{ 0x4c7e60 }{0x%llx,3}", (unsigned long long)(BLK + 0xa50));
    cr_expect_str_eq(ht_label(&t), want);
    ht_ok(&t, STATIC + 0x200);
    cr_expect_str_eq(ht_label(&t), "_fun");
    cr_expect_eq(t.c.size, t.H);
    cr_expect_eq(t.c.n_edges, 0);
    ht_fini(&t);
}

Test(heap_decode, functions) { functions(false); }
Test(heap_decode, functions_profiled) { functions(true); }

/* ---- selectors and indirections -------------------------------------- */

static void indirections(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info_layout(t.f, I_SEL, HS_THUNK_SELECTOR, 1); /* layout = field index */
    fake_info(t.f, I_IND, HS_IND, 1, 0);
    fake_info(t.f, I_BH, HS_BLACKHOLE, 1, 0);
    uint64_t sel = BLK, ind = BLK + 0x40, bh = BLK + 0x80;
    uint64_t p = ht_hdr(&t, sel, I_SEL);
    fake_w64(t.f, p, 99); /* padding */
    fake_w64(t.f, p + 8, BLK + 0x800 + 1);
    fake_w64(t.f, ht_hdr(&t, ind, I_IND), BLK + 0x808 + 2);
    fake_w64(t.f, ht_hdr(&t, bh, I_BH), BLK + 0x810 + 3);
    ht_open(&t);
    char want[64];

    ht_ok(&t, sel);
    cr_expect_eq(t.c.size, t.H + 16);
    cr_assert_eq(t.c.n_edges, 1);
    ht_edge(&t, 0, BLK + 0x800, HEAP_EDGE_SELECTEE, NF, 0);
    snprintf(want, sizeof want, "_sel 0x%llx", (unsigned long long)(BLK + 0x800));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Selectee");

    ht_ok(&t, ind);
    cr_expect_eq(t.c.size, t.H + 8);
    ht_edge(&t, 0, BLK + 0x808, HEAP_EDGE_INDIRECTEE, NF, 0);
    snprintf(want, sizeof want, "_ind 0x%llx", (unsigned long long)(BLK + 0x808));
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Indirectee");

    ht_ok(&t, bh);
    cr_expect_eq(t.c.size, t.H + 8);
    ht_edge(&t, 0, BLK + 0x810, HEAP_EDGE_INDIRECTEE, NF, 0);
    snprintf(want, sizeof want, "_bh 0x%llx", (unsigned long long)(BLK + 0x810));
    cr_expect_str_eq(ht_label(&t), want);
    ht_fini(&t);
}

Test(heap_decode, indirections) { indirections(false); }
Test(heap_decode, indirections_profiled) { indirections(true); }

/* ---- PAP and AP ------------------------------------------------------ */

static void pap_and_ap(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_FUN3, HS_FUN, 0, 0);
    fake_fun_map(t.f, I_FUN3, "PNP");
    fake_info(t.f, I_PAP, HS_PAP, 0, 0);
    fake_info(t.f, I_AP, HS_AP, 0, 0);
    uint64_t fun = BLK + 0x1000, pap = BLK, ap = BLK + 0x80;
    ht_hdr(&t, fun, I_FUN3);
    uint64_t p = ht_hdr(&t, pap, I_PAP);
    fake_w32(t.f, p, 2);     /* arity */
    fake_w32(t.f, p + 4, 3); /* n_args */
    fake_w64(t.f, p + 8, fun + 3);
    fake_w64(t.f, p + 16, BLK + 0x900 + 1);
    fake_w64(t.f, p + 24, 12345);
    fake_w64(t.f, p + 32, BLK + 0x910 + 2);
    p = ht_hdr(&t, ap, I_AP);
    fake_w64(t.f, p, 77); /* padding */
    fake_w32(t.f, p + 8, 0);
    fake_w32(t.f, p + 12, 2);
    fake_w64(t.f, p + 16, fun + 3);
    fake_w64(t.f, p + 24, BLK + 0x920);
    fake_w64(t.f, p + 32, 6);
    ht_open(&t);

    ht_ok(&t, pap);
    cr_expect_eq(t.c.size, t.H + 16 + 24);
    cr_expect_eq(t.c.arity, 2);
    cr_expect_eq(t.c.count, 3);
    ht_prof(&t);
    cr_assert_eq(t.c.n_edges, 3);
    ht_edge(&t, 0, fun, HEAP_EDGE_FUNCTION, NF, 0);
    ht_edge(&t, 1, BLK + 0x900, HEAP_EDGE_PAYLOAD, NF, 0);
    ht_edge(&t, 2, BLK + 0x910, HEAP_EDGE_PAYLOAD, NF, 2);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 12345);
    char want[64];
    snprintf(want, sizeof want, "0x%llx()", (unsigned long long)fun);
    cr_expect_str_eq(ht_label(&t), want);
    cr_expect_str_eq(ht_edge_label(&t, 0), "Function");
    cr_expect_str_eq(ht_edge_label(&t, 2), "Payload 2");

    ht_ok(&t, ap);
    cr_expect_eq(t.c.size, t.H + 24 + 16);
    cr_expect_eq(t.c.count, 2);
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 0, fun, HEAP_EDGE_FUNCTION, NF, 0);
    ht_edge(&t, 1, BLK + 0x920, HEAP_EDGE_PAYLOAD, NF, 0);
    cr_assert_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.words[0], 6);
    cr_expect_str_eq(ht_label(&t), want);
    /* (function info, 3) and (function info, 2) are different requests */
    cr_expect_eq(fake_counts_of(t.f)->fun_bitmap, 2);
    ht_fini(&t);
}

Test(heap_decode, pap_and_ap) { pap_and_ap(false); }
Test(heap_decode, pap_and_ap_profiled) { pap_and_ap(true); }

Test(heap_decode, pap_with_large_function_bitmap) {
    enum { N = 70 };
    char map[N + 1];
    for (int i = 0; i < N; i++)
        map[i] = i % 3 == 0 ? 'P' : 'N';
    map[N] = '\0';
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_BIGFUN, HS_FUN, 0, 0);
    fake_fun_map(t.f, I_BIGFUN, map);
    fake_info(t.f, I_PAP, HS_PAP, 0, 0);
    uint64_t fun = STATIC + 0x300, pap = BLK;
    ht_hdr(&t, fun, I_BIGFUN);
    uint64_t p = ht_hdr(&t, pap, I_PAP);
    fake_w32(t.f, p, 1);
    fake_w32(t.f, p + 4, N);
    fake_w64(t.f, p + 8, fun + 1);
    for (int i = 0; i < N; i++)
        fake_w64(t.f, p + 16 + 8 * i,
                 map[i] == 'P' ? BLK + 0x2000 + 16 * i + 1 : (uint64_t)(1000 + i));
    ht_open(&t);
    ht_ok(&t, pap);
    cr_expect_eq(t.c.size, 8 + 16 + 8 * N);
    cr_assert_eq(t.c.n_edges, 1 + 24);
    ht_edge(&t, 0, fun, HEAP_EDGE_FUNCTION, NF, 0);
    for (int k = 0; k < 24; k++)
        ht_edge(&t, 1 + k, BLK + 0x2000 + 16 * (3 * k), HEAP_EDGE_PAYLOAD, NF, 3 * k);
    cr_assert_eq(t.c.n_words, N - 24);
    cr_expect_eq(t.c.words[0], 1001);
    cr_expect_eq(t.c.words[N - 25], 1000 + 68);
    ht_fini(&t);
}

Test(heap_decode, fun_bitmaps_are_cached_by_info_and_length) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_FUN3, HS_FUN, 0, 0);
    fake_fun_map(t.f, I_FUN3, "NP");
    fake_info(t.f, I_PAP, HS_PAP, 0, 0);
    /* two function closures sharing one info table, three PAPs */
    uint64_t f1 = BLK + 0x1000, f2 = BLK + 0x1010;
    ht_hdr(&t, f1, I_FUN3);
    ht_hdr(&t, f2, I_FUN3);
    for (int k = 0; k < 3; k++) {
        uint64_t p = ht_hdr(&t, BLK + 0x40 * k, I_PAP);
        fake_w32(t.f, p + 4, k < 2 ? 2 : 1);
        fake_w64(t.f, p + 8, k == 0 ? f1 : f2);
        fake_w64(t.f, p + 16, 5);
        fake_w64(t.f, p + 24, BLK + 0x800);
    }
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_expect_eq(t.c.n_edges, 2);
    ht_ok(&t, BLK + 0x40);
    cr_expect_eq(t.c.n_edges, 2);
    cr_expect_eq(fake_counts_of(t.f)->fun_bitmap, 1, "same info and n: one request");
    ht_ok(&t, BLK + 0x80);
    cr_expect_eq(t.c.n_edges, 1);
    cr_expect_eq(t.c.n_words, 1);
    cr_expect_eq(fake_counts_of(t.f)->fun_bitmap, 2);
    ht_fini(&t);
}

Test(heap_decode, pap_errors) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_PAP, HS_PAP, 0, 0);
    fake_info(t.f, I_LEAK, HS_CONSTR_0_1, 0, 1); /* not a function */
    uint64_t p = ht_hdr(&t, BLK, I_PAP); /* null function */
    fake_w32(t.f, p + 4, 1);
    p = ht_hdr(&t, BLK + 0x40, I_PAP); /* a constructor as its function */
    fake_w32(t.f, p + 4, 1);
    fake_w64(t.f, p + 8, BLK + 0x100);
    ht_hdr(&t, BLK + 0x100, I_LEAK);
    p = ht_hdr(&t, BLK + BLK_LEN - 40, I_PAP); /* n_args beyond the block */
    fake_w32(t.f, p + 4, 10);
    fake_w64(t.f, p + 8, BLK + 0x100);
    ht_open(&t);
    cr_expect_eq(ht_decode(&t, BLK), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "null function"), "%s", t.err.message);
    cr_expect_eq(ht_decode(&t, BLK + 0x40), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "CONSTR_0_1"), "%s", t.err.message);
    cr_expect_eq(ht_decode(&t, BLK + BLK_LEN - 40), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "PAP"), "%s", t.err.message);
    cr_expect_eq(fake_counts_of(t.f)->fun_bitmap, 0);
    ht_fini(&t);
}

/* ---- PRIM, opaque leaves, malformed closures ------------------------- */

Test(heap_decode, prim) {
    ht t;
    ht_init(&t, true);
    fake_info(t.f, I_PRIM, HS_MUT_PRIM, 2, 1);
    uint64_t p = ht_hdr(&t, BLK, I_PRIM);
    fake_w64(t.f, p, BLK + 0x100 + 1);
    fake_w64(t.f, p + 8, BLK + 0x200);
    fake_w64(t.f, p + 16, 9);
    fake_info(t.f, I_PRIM + 0x10, HS_PRIM, 0, 0);
    ht_hdr(&t, BLK + 0x40, I_PRIM + 0x10);
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_expect_eq(t.c.size, 24 + 24);
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 0, BLK + 0x100, HEAP_EDGE_ARG, NF, 0);
    ht_edge(&t, 1, BLK + 0x200, HEAP_EDGE_ARG, NF, 1);
    cr_expect_eq(t.c.words[0], 9);
    cr_expect_str_eq(ht_label(&t), "_mutPrim");
    ht_ok(&t, BLK + 0x40);
    cr_expect_str_eq(ht_label(&t), "_prim");
    ht_fini(&t);
}

static void opaque(bool prof) {
    ht t;
    ht_init(&t, prof);
    fake_info(t.f, I_ODD, 70, 2, 3);
    fake_info(t.f, I_ODD + 0x10, HS_WHITEHOLE, 0, 1);
    fake_info_layout(t.f, I_ODD + 0x20, HS_UPDATE_FRAME, fake_small_layout("NP"));
    fake_info(t.f, I_ODD + 0x30, HS_INVALID_OBJECT, 0, 0);
    fake_info(t.f, I_ODD + 0x40, HS_CONTINUATION, 0, 0);
    for (int k = 0; k < 5; k++)
        ht_hdr(&t, BLK + 0x100 * k, I_ODD + 0x10 * k);
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_expect(t.c.opaque);
    cr_expect_eq(t.c.type, 70 | HS_CLOSURE_TYPE_UNKNOWN);
    cr_expect_eq(t.c.size, t.H + 40);
    cr_expect_eq(t.c.n_edges, 0);
    cr_expect_str_eq(ht_label(&t), "UNKNOWN_TYPE_70");
    char key[64];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, "UNKNOWN_TYPE_70");
    ht_prof(&t);
    static const char *const names[] = {"WHITEHOLE", "UPDATE_FRAME", "INVALID_OBJECT",
                                        "CONTINUATION"};
    for (int k = 1; k < 5; k++) {
        ht_ok(&t, BLK + 0x100 * k);
        cr_expect(t.c.opaque);
        cr_expect_eq(t.c.n_edges, 0);
        cr_expect_str_eq(ht_label(&t), names[k - 1]);
        heap_census_key(&t.c, key, sizeof key);
        cr_expect_str_eq(key, names[k - 1]);
    }
    ht_ok(&t, BLK + 0x100);
    cr_expect_eq(t.c.size, t.H + 8);
    cr_expect_eq(fake_counts_of(t.f)->stack_bitmap, 0);
    ht_fini(&t);
}

Test(heap_decode, opaque_leaves) { opaque(false); }
Test(heap_decode, opaque_leaves_profiled) { opaque(true); }

/* A number is a closure type only for the GHC that has it: ANN_FRAME (65)
 * from 9.14 on; before, and beyond the table for every version, the
 * closure is an opaque leaf named by its number (doc/ghc-versions.md). */
static void unknown_by_version(uint32_t major, uint32_t type, const char *name) {
    ht t;
    ht_init_version(&t, false, major, 1);
    fake_info(t.f, I_ODD, type, 1, 1);
    uint64_t p = ht_hdr(&t, BLK, I_ODD);
    fake_w64(t.f, p, BLK + 0x2000 + 1);
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_expect(t.c.opaque);
    cr_expect_eq(t.c.size, t.H + 16);
    cr_expect_eq(t.c.n_edges, 0, "an unknown closure's words are not followed");
    cr_expect_str_eq(ht_label(&t), name);
    char key[64];
    heap_census_key(&t.c, key, sizeof key);
    cr_expect_str_eq(key, name);
    ht_fini(&t);
}

Test(heap_decode, unknown_types_by_version) {
    unknown_by_version(912, HS_ANN_FRAME, "UNKNOWN_TYPE_65");
    unknown_by_version(910, HS_ANN_FRAME, "UNKNOWN_TYPE_65");
    unknown_by_version(914, HS_ANN_FRAME, "ANN_FRAME"); /* a frame type: opaque on the heap */
    unknown_by_version(914, 66, "UNKNOWN_TYPE_66");
    unknown_by_version(912, 255, "UNKNOWN_TYPE_255");
    unknown_by_version(914, 256, "UNKNOWN_TYPE_LARGE");
    unknown_by_version(914, UINT32_MAX, "UNKNOWN_TYPE_LARGE");
}

Test(heap_decode, closure_type_names) {
    cr_expect_eq(hs_closure_types_of(910), 65);
    cr_expect_eq(hs_closure_types_of(912), 65);
    cr_expect_eq(hs_closure_types_of(914), 66);
    cr_expect_eq(hs_closure_types_of(0), 66, "an unknown version may have every type");
    cr_expect_eq(hs_closure_type_of(64, 912), HS_CONTINUATION);
    cr_expect_eq(hs_closure_type_of(65, 914), HS_ANN_FRAME);
    cr_expect_eq(hs_closure_type_of(65, 912), 65 | HS_CLOSURE_TYPE_UNKNOWN);
    cr_expect_eq(hs_closure_type_of(0x80000041u, 914), UINT32_MAX);
    cr_expect_str_eq(hs_closure_type_name(HS_ANN_FRAME), "ANN_FRAME");
    cr_expect_str_eq(hs_closure_type_name(70), "UNKNOWN_TYPE_70");
    cr_expect_str_eq(hs_closure_type_name(199 | HS_CLOSURE_TYPE_UNKNOWN), "UNKNOWN_TYPE_199");
    cr_expect_eq(hs_closure_type_from_name("ANN_FRAME"), HS_ANN_FRAME);
    cr_expect_eq(hs_closure_type_from_name("UNKNOWN_TYPE_70"), -1);
}

Test(heap_decode, truncated_at_end_of_block) {
    ht t;
    ht_init(&t, false);
    fake_con(t.f, I_LEAK, HS_CONSTR, 3, 2, "main:Main.Big");
    fake_info(t.f, I_THUNK, HS_THUNK_2_0, 2, 0);
    uint64_t a = BLK + BLK_LEN - 24, b = BLK + BLK_LEN - 16;
    ht_hdr(&t, a, I_LEAK);
    ht_hdr(&t, b, I_THUNK);
    ht_open(&t);
    cr_assert_eq(ht_decode(&t, a), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "0x4200103fe8"), "%s", t.err.message);
    cr_expect(strstr(t.err.message, "CONSTR"), "%s", t.err.message);
    cr_assert_eq(ht_decode(&t, b), HS_ERR_PROTOCOL);
    cr_expect(strstr(t.err.message, "THUNK_2_0"), "%s", t.err.message);
    ht_fini(&t);
}

Test(heap_decode, truncated_profiled_header) {
    ht t;
    ht_init(&t, true);
    fake_info(t.f, I_IND, HS_IND, 1, 0);
    ht_hdr(&t, BLK + BLK_LEN - 24, I_IND); /* header fits, indirectee does not */
    ht_open(&t);
    cr_expect_eq(ht_decode(&t, BLK + BLK_LEN - 24), HS_ERR_PROTOCOL);
    ht_fini(&t);
}

Test(heap_decode, storage_is_reused) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_PRIM, HS_MUT_PRIM, 40, 30);
    fake_con(t.f, I_INT, HS_CONSTR_0_1, 0, 1, "ghc-prim:GHC.Types.I#");
    uint64_t p = ht_hdr(&t, BLK, I_PRIM);
    for (int i = 0; i < 40; i++)
        fake_w64(t.f, p + 8 * i, BLK + 0x1000 + 8 * i);
    fake_w64(t.f, ht_hdr(&t, BLK + 0x800, I_INT), 5);
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_expect_eq(t.c.n_edges, 40);
    cr_expect_eq(t.c.n_words, 30);
    heap_edge *edges = t.c.edges;
    size_t cap = t.c.edges_cap;
    ht_ok(&t, BLK + 0x800);
    cr_expect_eq(t.c.n_edges, 0);
    cr_expect_eq(t.c.n_words, 1);
    cr_expect_eq(t.c.edges, edges, "no reallocation for a smaller closure");
    cr_expect_eq(t.c.edges_cap, cap);
    cr_expect_str_eq(ht_label(&t), "I# 5");
    ht_fini(&t);
}

Test(heap_decode, null_address_is_an_error) {
    ht t;
    ht_init(&t, false);
    ht_open(&t);
    cr_expect_neq(ht_decode(&t, 0), HS_OK);
    ht_fini(&t);
}

/* GHC takes a PAP's argument map from a BCO function's own bitmap; the stub
 * would read a function info table that is not there, so nothing is asked. */
Test(heap_decode, pap_of_a_bco_uses_its_bitmap) {
    ht t;
    ht_init(&t, false);
    fake_info(t.f, I_PAP, HS_PAP, 0, 0);
    fake_info(t.f, I_ODD, HS_BCO, 4, 0);
    uint64_t bco = BLK + 0x800, p = ht_hdr(&t, bco, I_ODD);
    fake_w32(t.f, p + 28, 7); /* 56 bytes */
    fake_w64(t.f, p + 32, 3);
    fake_w64(t.f, p + 40, 5); /* N P N */
    p = ht_hdr(&t, BLK, I_PAP);
    fake_w32(t.f, p + 4, 3);
    fake_w64(t.f, p + 8, bco);
    fake_w64(t.f, p + 16, 1);
    fake_w64(t.f, p + 24, BLK + 0x900);
    fake_w64(t.f, p + 32, 3);
    ht_open(&t);
    ht_ok(&t, BLK);
    cr_assert_eq(t.c.n_edges, 2);
    ht_edge(&t, 0, bco, HEAP_EDGE_FUNCTION, NF, 0);
    ht_edge(&t, 1, BLK + 0x900, HEAP_EDGE_PAYLOAD, NF, 1);
    cr_assert_eq(t.c.n_words, 2);
    cr_expect_eq(fake_counts_of(t.f)->fun_bitmap, 0);
    ht_fini(&t);
}
