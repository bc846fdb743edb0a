/* Closure texts, edge labels and census keys (retainers-and-eras.md §6.2,
 * §6.3; heap-layout.md §11.3) on hand-built closures. */
#include <criterion/criterion.h>
#include <string.h>

#include "heapscope/closure_type.h"
#include "heapscope/heap.h"

static heap_info con_info(uint32_t type, uint32_t ptrs, uint32_t nptrs, const char *pkg,
                          const char *mod, const char *name) {
    heap_info i = {0};
    i.ptr = 0x401000;
    i.type = type;
    i.ptrs = ptrs;
    i.nptrs = nptrs;
    i.con_package = pkg;
    i.con_module = mod;
    i.con_name = name;
    return i;
}

static const char *label_of(const heap_closure *c) {
    static char buf[512];
    heap_closure_label(NULL, c, buf, sizeof buf);
    return buf;
}

static const char *edge_label(heap_edge e) {
    static char buf[128];
    heap_edge_label(&e, buf, sizeof buf);
    return buf;
}

Test(heap_label, edge_labels) {
    static const struct {
        heap_edge e;
        const char *want;
    } cases[] = {
        {{1, HEAP_EDGE_FIELD, HEAP_EDGE_NO_FRAME, 3}, "Field 3"},
        {{1, HEAP_EDGE_SRT, HEAP_EDGE_NO_FRAME, 0}, "SRT"},
        {{1, HEAP_EDGE_SRT, 2, 0}, "Frame 2 SRT"},
        {{1, HEAP_EDGE_ARG, HEAP_EDGE_NO_FRAME, 1}, "Argument 1"},
        {{1, HEAP_EDGE_SELECTEE, HEAP_EDGE_NO_FRAME, 0}, "Selectee"},
        {{1, HEAP_EDGE_INDIRECTEE, HEAP_EDGE_NO_FRAME, 0}, "Indirectee"},
        {{1, HEAP_EDGE_FUNCTION, HEAP_EDGE_NO_FRAME, 0}, "Function"},
        {{1, HEAP_EDGE_FUNCTION, 0, 0}, "Frame 0 Function"},
        {{1, HEAP_EDGE_PAYLOAD, HEAP_EDGE_NO_FRAME, 4}, "Payload 4"},
        {{1, HEAP_EDGE_ELEMENT, HEAP_EDGE_NO_FRAME, 3}, "[3]"},
        {{1, HEAP_EDGE_VALUE, HEAP_EDGE_NO_FRAME, 0}, "Value"},
        {{1, HEAP_EDGE_TVAR_VALUE, HEAP_EDGE_NO_FRAME, 0}, "val"},
        {{1, HEAP_EDGE_QUEUE_HEAD, HEAP_EDGE_NO_FRAME, 0}, "Queue Head"},
        {{1, HEAP_EDGE_QUEUE_TAIL, HEAP_EDGE_NO_FRAME, 0}, "Queue Tail"},
        {{1, HEAP_EDGE_WATCH_QUEUE, HEAP_EDGE_NO_FRAME, 0}, "Watch Queue"},
        {{1, HEAP_EDGE_KEY, HEAP_EDGE_NO_FRAME, 0}, "Key"},
        {{1, HEAP_EDGE_C_FINALIZERS, HEAP_EDGE_NO_FRAME, 0}, "C Finalizers"},
        {{1, HEAP_EDGE_FINALIZER, HEAP_EDGE_NO_FRAME, 0}, "Finalizer"},
        {{1, HEAP_EDGE_LINK, HEAP_EDGE_NO_FRAME, 0}, "Link"},
        {{1, HEAP_EDGE_BLACKHOLE, HEAP_EDGE_NO_FRAME, 0}, "Black Hole"},
        {{1, HEAP_EDGE_OWNER, HEAP_EDGE_NO_FRAME, 0}, "Owner"},
        {{1, HEAP_EDGE_QUEUE, HEAP_EDGE_NO_FRAME, 0}, "Queue"},
        {{1, HEAP_EDGE_INSTRUCTIONS, HEAP_EDGE_NO_FRAME, 0}, "Instructions"},
        {{1, HEAP_EDGE_LITERALS, HEAP_EDGE_NO_FRAME, 0}, "Literals"},
        {{1, HEAP_EDGE_BCO_PTRS, HEAP_EDGE_NO_FRAME, 0}, "Byte Code Objects"},
        {{1, HEAP_EDGE_GLOBAL_LINK, HEAP_EDGE_NO_FRAME, 0}, "Global Link"},
        {{1, HEAP_EDGE_STACK, HEAP_EDGE_NO_FRAME, 0}, "Stack"},
        {{1, HEAP_EDGE_TREC, HEAP_EDGE_NO_FRAME, 0}, "TRec"},
        {{1, HEAP_EDGE_BLOCKED_EXCEPTIONS, HEAP_EDGE_NO_FRAME, 0}, "Blocked Exceptions"},
        {{1, HEAP_EDGE_BLOCKING_QUEUE, HEAP_EDGE_NO_FRAME, 0}, "Blocking Queue"},
        {{1, HEAP_EDGE_THREAD_LABEL, HEAP_EDGE_NO_FRAME, 0}, "Thread label"},
        {{1, HEAP_EDGE_FRAME_FIELD, 2, 1}, "Frame 2 Pointer"},
        {{1, HEAP_EDGE_PREV_CHUNK, HEAP_EDGE_NO_FRAME, 0}, "Previous Chunk"},
        {{1, HEAP_EDGE_TREC_ENTRY, HEAP_EDGE_NO_FRAME, 0}, "Entry 0 TVar"},
        {{1, HEAP_EDGE_TREC_ENTRY, HEAP_EDGE_NO_FRAME, 4}, "Entry 1 Expected"},
        {{1, HEAP_EDGE_TREC_ENTRY, HEAP_EDGE_NO_FRAME, 47}, "Entry 15 New"},
        {{1, 200, HEAP_EDGE_NO_FRAME, 0}, "?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_str_eq(edge_label(cases[i].e), cases[i].want, "case %zu", i);
}

Test(heap_label, constructor_forms) {
    heap_edge edges[3] = {{0x4200001000, HEAP_EDGE_FIELD, HEAP_EDGE_NO_FRAME, 0},
                          {0x4200002000, HEAP_EDGE_FIELD, HEAP_EDGE_NO_FRAME, 2}};
    uint64_t words[2] = {42, UINT64_MAX};
    heap_info i = con_info(HS_CONSTR, 3, 2, "main", "Main", "Leak");
    heap_closure c = {.type = HS_CONSTR, .info = &i, .edges = edges, .n_edges = 2,
                      .words = words, .n_words = 2};
    cr_expect_str_eq(label_of(&c),
                     "Leak 0x4200001000 null 0x4200002000 42 18446744073709551615");
    /* a tuple's name alone decides, whatever the package */
    heap_info tup = con_info(HS_CONSTR, 3, 0, "ghc-prim", "GHC.Tuple", "(,,)");
    heap_closure t = {.type = HS_CONSTR, .info = &tup, .edges = edges, .n_edges = 2};
    cr_expect_str_eq(label_of(&t), "(0x4200001000,null,0x4200002000)");
    /* ":" and C# only from ghc-prim:GHC.Types */
    heap_info cons = con_info(HS_CONSTR_2_0, 2, 0, "mylib", "My.Types", ":");
    edges[1].index = 1;
    heap_closure k = {.type = HS_CONSTR_2_0, .info = &cons, .edges = edges, .n_edges = 2};
    cr_expect_str_eq(label_of(&k), ": 0x4200001000 0x4200002000");
    heap_info unit = con_info(HS_CONSTR_NOCAF, 0, 0, "ghc-prim", "GHC.Tuple", "()");
    heap_closure u = {.type = HS_CONSTR_NOCAF, .info = &unit};
    cr_expect_str_eq(label_of(&u), "()()");
    heap_info weird = con_info(HS_CONSTR, 0, 0, "", "", "?");
    heap_closure w = {.type = HS_CONSTR, .info = &weird};
    cr_expect_str_eq(label_of(&w), "?()");
}

Test(heap_label, thunk_and_function_forms) {
    heap_edge edges[2] = {{0x4c7e60, HEAP_EDGE_SRT, HEAP_EDGE_NO_FRAME, 0},
                          {0x4200105a50, HEAP_EDGE_ARG, HEAP_EDGE_NO_FRAME, 0}};
    uint64_t words[1] = {3};
    heap_info fi = {.type = HS_FUN_0_1, .ptrs = 0, .nptrs = 1, .srt = 0};
    heap_closure f = {.type = HS_FUN_0_1, .info = &fi, .words = words, .n_words = 1};
    cr_expect_str_eq(label_of(&f), "_fun{3}");
    heap_info fs = {.type = HS_FUN_1_1, .ptrs = 1, .nptrs = 1, .srt = 0x4c7e60};
    heap_closure g = {.type = HS_FUN_1_1, .info = &fs, .edges = edges, .n_edges = 2,
                      .words = words, .n_words = 1};
    cr_expect_str_eq(label_of(&g), "_fun{ 0x4c7e60 }{0x4200105a50,3}");
    heap_info ti = {.type = HS_THUNK_2_0, .ptrs = 2, .srt = 0};
    heap_closure t = {.type = HS_THUNK_2_0, .info = &ti, .edges = edges + 1, .n_edges = 1};
    cr_expect_str_eq(label_of(&t), "_thunk 0x4200105a50 null");
}

/* Where the info table has an IPE entry, its name (without "_info") stands
 * for "_thunk" / "_fun"; the rest of the text keeps the reference's shape. */
Test(heap_label, thunks_and_functions_named_by_ipe) {
    heap_edge edges[2] = {{0x4c7e60, HEAP_EDGE_SRT, HEAP_EDGE_NO_FRAME, 0},
                          {0x4200105a50, HEAP_EDGE_ARG, HEAP_EDGE_NO_FRAME, 0}};
    uint64_t words[1] = {3};
    wire_source_info sat = {.found = true, .name = "sat_s36E_info", .label = "main",
                            .module = "Main", .position = "Tier.hs:12:5-20"};
    heap_info ti = {.type = HS_THUNK_1_0, .ptrs = 1, .srt = 0x4c7e60, .ipe = &sat,
                    .ipe_fetched = true};
    heap_closure t = {.type = HS_THUNK_1_0, .info = &ti, .edges = edges, .n_edges = 2};
    cr_expect_str_eq(label_of(&t), "sat_s36E{ 0x4c7e60 } 0x4200105a50");
    wire_source_info go = {.found = true, .name = "Main.main_go", .module = "Main",
                           .position = ":"};
    heap_info fi = {.type = HS_FUN_1_1, .ptrs = 1, .nptrs = 1, .srt = 0x4c7e60, .ipe = &go,
                    .ipe_fetched = true};
    heap_closure f = {.type = HS_FUN_1_1, .info = &fi, .edges = edges, .n_edges = 2,
                      .words = words, .n_words = 1};
    cr_expect_str_eq(label_of(&f), "Main.main_go{ 0x4c7e60 }{0x4200105a50,3}");
    wire_source_info nameless = {.found = true, .name = "", .module = "Main"};
    heap_info ni = {.type = HS_THUNK, .ipe = &nameless, .ipe_fetched = true};
    heap_closure n = {.type = HS_THUNK, .info = &ni};
    cr_expect_str_eq(label_of(&n), "_thunk()", "no name: the reference's text");
}

/* The RTS's static reference tables are constructors SRT_<n> of no module. */
Test(heap_label, static_reference_tables) {
    heap_edge edges[2] = {{0x65f400, HEAP_EDGE_FIELD, HEAP_EDGE_NO_FRAME, 0},
                          {0x65f480, HEAP_EDGE_FIELD, HEAP_EDGE_NO_FRAME, 1}};
    heap_info si = con_info(HS_CONSTR_NOCAF, 2, 0, "", "", "SRT_2");
    heap_closure s = {.type = HS_CONSTR_NOCAF, .info = &si, .edges = edges, .n_edges = 2};
    cr_expect(heap_info_is_srt(&si));
    cr_expect_str_eq(label_of(&s), "SRT_2 (static reference table) 0x65f400 0x65f480");
    char key[64];
    heap_census_key(&s, key, sizeof key);
    cr_expect_str_eq(key, "SRT_2 (static reference table)");
    heap_info user = con_info(HS_CONSTR_2_0, 2, 0, "main", "Main", "SRT_2");
    cr_expect(!heap_info_is_srt(&user), "a constructor of a module is the program's own");
    heap_info odd = con_info(HS_CONSTR_NOCAF, 0, 0, "", "", "SRT_x");
    cr_expect(!heap_info_is_srt(&odd));
    heap_info bare = con_info(HS_CONSTR_NOCAF, 0, 0, "", "", "SRT_");
    cr_expect(!heap_info_is_srt(&bare));
    /* the same test on a description's parts (the explorer's details pane) */
    cr_expect(heap_con_is_srt(NULL, "", "SRT_3"));
    cr_expect(!heap_con_is_srt("main", "Main", "SRT_3"));
    cr_expect(!heap_con_is_srt("", "", NULL));
}

Test(heap_label, locations_are_never_a_colon) {
    char buf[128];
    wire_source_info full = {.found = true, .name = "Leak_con_info", .label = "main",
                             .module = "Main", .position = "Tier.hs:49:13-21"};
    cr_expect(heap_ipe_location(&full, buf, sizeof buf));
    cr_expect_str_eq(buf, "Tier.hs:49:13-21");
    wire_source_info colon = {.found = true, .name = "sat_s1_info", .label = "insertWith",
                              .module = "Data.Map.Internal", .position = ":"};
    cr_expect(!heap_ipe_location(&colon, buf, sizeof buf));
    cr_expect_str_eq(buf, "Data.Map.Internal (insertWith)");
    wire_source_info span_only = {.found = true, .name = "sat_s2_info", .module = "M",
                                  .position = ":12:5-20"};
    cr_expect(!heap_ipe_location(&span_only, buf, sizeof buf));
    cr_expect_str_eq(buf, "M (sat_s2)", "no label: the name");
    wire_source_info empty = {.found = true, .position = ""};
    cr_expect(!heap_ipe_location(&empty, buf, sizeof buf));
    cr_expect_str_eq(buf, "");
    cr_expect(!heap_ipe_location(NULL, buf, sizeof buf));
    cr_expect_str_eq(buf, "");
}

Test(heap_label, era_advice_fits_the_program) {
    char buf[128];
    wire_version v = {.major = 910, .prof_mode = WIRE_PROF_NONE};
    heap_era_advice(&v, buf, sizeof buf);
    cr_expect_str_eq(buf, "build the program with -prof and run it with +RTS -he");
    v.prof_mode = WIRE_PROF_PLAIN;
    heap_era_advice(&v, buf, sizeof buf);
    cr_expect_str_eq(buf, "run the program with +RTS -he");
    v.prof_mode = WIRE_PROF_ERA;
    heap_era_advice(&v, buf, sizeof buf);
    cr_expect_str_eq(buf, "");
    v = (wire_version){.major = 906, .prof_mode = WIRE_PROF_NONE};
    heap_era_advice(&v, buf, sizeof buf);
    cr_expect_str_eq(buf, "GHC 9.6 has none: it came with GHC 9.10");
}

Test(heap_label, buffer_limits) {
    heap_info i = con_info(HS_CONSTR_0_1, 0, 1, "ghc-prim", "GHC.Types", "I#");
    uint64_t words[1] = {123456};
    heap_closure c = {.type = HS_CONSTR_0_1, .info = &i, .words = words, .n_words = 1};
    char buf[6];
    memset(buf, 'x', sizeof buf);
    heap_closure_label(NULL, &c, buf, sizeof buf);
    cr_expect_str_eq(buf, "I# 12");
    char one[1] = {'x'};
    heap_closure_label(NULL, &c, one, 1);
    cr_expect_eq(one[0], '\0');
    heap_closure_label(NULL, &c, NULL, 0); /* nothing written */
    heap_edge e = {1, HEAP_EDGE_FRAME_FIELD, 12345, 0};
    char small[8];
    heap_edge_label(&e, small, sizeof small);
    cr_expect_str_eq(small, "Frame 1");
    char key[10];
    heap_census_key(&c, key, sizeof key);
    cr_expect_str_eq(key, "ghc-prim:");
}

Test(heap_label, census_keys) {
    heap_info i = con_info(HS_CONSTR_2_0, 2, 0, "base", "Data.Map.Internal", "Bin");
    heap_closure c = {.type = HS_CONSTR_2_0, .info = &i};
    char key[128];
    heap_census_key(&c, key, sizeof key);
    cr_expect_str_eq(key, "base:Data.Map.Internal:Bin");
    heap_info t = {.type = HS_THUNK_1_0};
    heap_closure k = {.type = HS_THUNK_1_0, .info = &t};
    heap_census_key(&k, key, sizeof key);
    cr_expect_str_eq(key, "THUNK_1_0");
    heap_info m = {.type = HS_MUT_ARR_PTRS_FROZEN_CLEAN};
    heap_closure a = {.type = HS_MUT_ARR_PTRS_FROZEN_CLEAN, .info = &m};
    heap_census_key(&a, key, sizeof key);
    cr_expect_str_eq(key, "MUT_ARR_PTRS_FROZEN_CLEAN");
}

Test(heap_label, stack_and_tso_texts) {
    heap_info s = {.type = HS_STACK};
    /* 1021 words from H + 16 (H = 8), sp 12 words before the end */
    heap_closure c = {.type = HS_STACK, .info = &s, .count = 1021, .addr = 0x1000,
                      .size = 24 + 8 * 1021, .sp = 0x1000 + 24 + 8 * (1021 - 12)};
    cr_expect_str_eq(label_of(&c), "Stack (1021 words, 12 used)");
    heap_info t = {.type = HS_TSO};
    static const struct {
        uint32_t why;
        const char *want;
    } cases[] = {
        {0, "TSO 7: NotBlocked"},          {1, "TSO 7: BlockedOnMVar"},
        {2, "TSO 7: BlockedOnBlackHole"},  {6, "TSO 7: BlockedOnSTM"},
        {7, "TSO 7: BlockedOnDoProc"},     {8, "TSO 7: WhyBlockedUnknownValue 8"},
        {11, "TSO 7: BlockedOnCCall_Interruptible"}, {12, "TSO 7: BlockedOnMsgThrowTo"},
        {13, "TSO 7: ThreadMigrating"},    {15, "TSO 7: WhyBlockedUnknownValue 15"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heap_closure x = {.type = HS_TSO, .info = &t, .why_blocked = cases[k].why,
                          .thread_id = 7};
        cr_expect_str_eq(label_of(&x), cases[k].want);
    }
}

Test(heap_label, fixed_texts) {
    static const struct {
        uint32_t type;
        const char *want;
    } cases[] = {
        {HS_BLOCKING_QUEUE, "_blockingQueue"}, {HS_TREC_CHUNK, "_trecChunk"},
        {HS_WEAK, "_wk"},                      {HS_TVAR, "_tvar"},
        {HS_MUT_PRIM, "_mutPrim"},             {HS_PRIM, "_prim"},
        {HS_MVAR_CLEAN, "MVar null"},          {HS_MUT_VAR_DIRTY, "_mutVar null"},
        {HS_PAP, "null()"},                    {HS_BCO, "_bco null"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heap_info i = {.type = cases[k].type};
        heap_closure c = {.type = cases[k].type, .info = &i};
        cr_expect_str_eq(label_of(&c), cases[k].want);
    }
    heap_closure none = {0};
    cr_expect_str_eq(label_of(&none), "<not decoded>");
}

Test(heap_label, arr_words_escapes) {
    static const struct {
        const char *bytes;
        size_t n;
        const char *want;
    } cases[] = {
        {"", 0, "ARR_WORDS (0 bytes) \"\""},
        {"abc", 3, "ARR_WORDS (3 bytes) \"abc\""},
        {"\x01\x7f\xff", 3, "ARR_WORDS (3 bytes) \"\\SOH\\DEL\\255\""},
        {"\xe9" "1", 2, "ARR_WORDS (2 bytes) \"\\233\\&1\""},
        {"\xe9" "a", 2, "ARR_WORDS (2 bytes) \"\\233a\""},
        {"\x0e" "H\x0e" "h", 4, "ARR_WORDS (4 bytes) \"\\SO\\&H\\SOh\""},
        {"'\t\r\v\f\b\a", 7, "ARR_WORDS (7 bytes) \"'\\t\\r\\v\\f\\b\\a\""},
        {"\x1f\x1b\x00" "0", 4, "ARR_WORDS (4 bytes) \"\\US\\ESC\\NUL0\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heap_info i = {.type = HS_ARR_WORDS};
        heap_closure c = {.type = HS_ARR_WORDS, .info = &i, .count = cases[k].n,
                          .bytes = (const uint8_t *)cases[k].bytes};
        cr_expect_str_eq(label_of(&c), cases[k].want, "case %zu", k);
    }
}
