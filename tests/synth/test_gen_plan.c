/* The plan's census equals an independent recount: a depth-first traversal
 * with the test's own decoder (test_gen_walk.h), keyed and sized by the
 * spec, compared number by number with the plan JSON. */
#include "test_gen_walk.h"

#define MAX_KEYS 256
#define MAX_ERA 16

typedef struct tally {
    char key[256];
    bool con;
    uint64_t count, bytes;
    uint64_t era_count[MAX_ERA], era_bytes[MAX_ERA];
} tally;

typedef struct census {
    tally t[MAX_KEYS];
    size_t n;
    uint64_t count, bytes, st_count, st_bytes;
    uint64_t era_count[MAX_ERA], era_bytes[MAX_ERA];
} census;

static void recount(const tw *t, census *c) {
    memset(c, 0, sizeof *c);
    tw_vec all = tw_reach(t, 0, NULL);
    for (size_t i = 0; i < all.n; i++) {
        uint64_t a = all.v[i], size = tw_size(t, a);
        char key[256];
        tw_key(t, a, key, sizeof key);
        uint64_t era = 0;
        if (t->H == 24) {
            era = tw_u64(t, a + 16);
            if (!tw_in_heap(a))
                cr_assert_eq(era, 0, "static closure with an era");
        }
        cr_assert_lt(era, MAX_ERA);
        size_t k = 0;
        while (k < c->n && strcmp(c->t[k].key, key))
            k++;
        if (k == c->n) {
            cr_assert_lt(c->n, MAX_KEYS);
            snprintf(c->t[k].key, sizeof c->t[k].key, "%s", key);
            c->t[k].con = tw_is_con(tw_closure_info(t, a).type);
            c->n++;
        }
        c->t[k].count++;
        c->t[k].bytes += size;
        c->t[k].era_count[era]++;
        c->t[k].era_bytes[era] += size;
        c->era_count[era]++;
        c->era_bytes[era] += size;
        c->count++;
        c->bytes += size;
        if (!tw_in_heap(a)) {
            c->st_count++;
            c->st_bytes += size;
        }
    }
    free(all.v);
}

static size_t occurrences(const char *s, const char *needle) {
    size_t n = 0;
    for (const char *q = strstr(s, needle); q; q = strstr(q + 1, needle))
        n++;
    return n;
}

static void expect_total(const char *json, const char *name, uint64_t count, uint64_t bytes) {
    char want[200];
    snprintf(want, sizeof want, "\"%s\": {\"count\": %llu, \"bytes\": %llu}", name,
             (unsigned long long)count, (unsigned long long)bytes);
    cr_assert_not_null(strstr(json, want), "plan lacks %s\n%s", want, json);
}

static void check_section(const census *c, const char *json, const char *name, bool con) {
    static char sec[1 << 16];
    tw_json_section(json, name, sec, sizeof sec);
    size_t want = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (c->t[k].con != con)
            continue;
        want++;
        char item[400];
        snprintf(item, sizeof item, "\"%s\": {\"count\": %llu, \"bytes\": %llu}", c->t[k].key,
                 (unsigned long long)c->t[k].count, (unsigned long long)c->t[k].bytes);
        cr_assert_not_null(strstr(sec, item), "%s lacks %s", name, item);
    }
    cr_assert_eq(occurrences(sec, "\"count\""), want, "%s has extra keys", name);
}

static void check_eras(const census *c, const char *json, unsigned eras) {
    static char sec[1 << 16];
    tw_json_section(json, "by_era", sec, sizeof sec);
    size_t want = 0;
    for (unsigned e = 0; e <= eras; e++) {
        if (!c->era_count[e])
            continue;
        want++;
        char item[200];
        snprintf(item, sizeof item, "\"%u\": {\"count\": %llu, \"bytes\": %llu}", e,
                 (unsigned long long)c->era_count[e], (unsigned long long)c->era_bytes[e]);
        cr_assert_not_null(strstr(sec, item), "by_era lacks %s", item);
    }
    cr_assert_eq(occurrences(sec, "\"count\""), want);
    for (unsigned e = 1; e <= eras; e++)
        cr_assert_gt(c->era_count[e], 0, "no closure of era %u", e);

    tw_json_section(json, "by_constructor_era", sec, sizeof sec);
    for (size_t k = 0; k < c->n; k++) {
        if (!c->t[k].con)
            continue;
        char item[2048];
        size_t len = (size_t)snprintf(item, sizeof item, "\"%s\": {", c->t[k].key);
        bool first = true;
        for (unsigned e = 0; e <= eras; e++) {
            if (!c->t[k].era_count[e])
                continue;
            len += (size_t)snprintf(item + len, sizeof item - len,
                                    "%s\"%u\": {\"count\": %llu, \"bytes\": %llu}",
                                    first ? "" : ", ", e,
                                    (unsigned long long)c->t[k].era_count[e],
                                    (unsigned long long)c->t[k].era_bytes[e]);
            first = false;
        }
        snprintf(item + len, sizeof item - len, "}");
        cr_assert_not_null(strstr(sec, item), "by_constructor_era lacks %s", item);
    }
}

static void check_plan(synth_options *o) {
    synth_process p;
    tw_generate(o, &p);
    tw t = tw_of(&p);
    static census c;
    recount(&t, &c);
    const char *json = p.plan_json;

    char head[200];
    snprintf(head, sizeof head, "\"profiled\": %s,\n  \"eras\": %u,\n  \"seed\": %llu,",
             o->profiled ? "true" : "false", o->eras, (unsigned long long)o->seed);
    cr_assert_not_null(strstr(json, head), "plan header:\n%s", json);
    expect_total(json, "reachable", c.count, c.bytes);
    expect_total(json, "static", c.st_count, c.st_bytes);
    check_section(&c, json, "by_constructor", true);
    check_section(&c, json, "by_type", false);
    if (o->profiled)
        check_eras(&c, json, o->eras);
    else
        cr_assert_null(strstr(json, "by_era"), "eras only when profiled");

    /* garbage: about 2% of the heap, never reachable */
    const char *g = strstr(json, "\"garbage\"");
    cr_assert_not_null(g);
    uint64_t gc = tw_json_u64(g, "\"count\""), gb = tw_json_u64(g, "\"bytes\"");
    uint64_t heap = c.count - c.st_count;
    cr_assert(gc * 100 >= heap && gc * 100 <= heap * 6, "garbage %llu of %llu",
              (unsigned long long)gc, (unsigned long long)heap);
    cr_assert_gt(gb, gc * 8);

    /* the leak totals */
    char key[300];
    snprintf(key, sizeof key, "main:Main:%s", o->leak_constructor);
    size_t k = 0;
    while (k < c.n && strcmp(c.t[k].key, key))
        k++;
    cr_assert_lt(k, c.n, "no %s in the recount", key);
    cr_assert_eq(c.t[k].count, o->leak_count);
    cr_assert_eq(c.t[k].bytes, o->leak_count * (t.H + 16));
    if (o->profiled)
        cr_assert_eq(c.t[k].era_count[o->leak_era], o->leak_count, "Leak closures' era");
    const char *l = strstr(json, "\"leak\"");
    cr_assert_not_null(l);
    cr_assert_eq(tw_json_u64(l, "\"count\""), o->leak_count);
    cr_assert_eq(tw_json_u64(l, "\"era\""), o->leak_era);
    cr_assert_eq(tw_json_u64(l, "\"bytes\""), o->leak_count * (t.H + 16));
    char cons[200];
    snprintf(cons, sizeof cons, "\"constructor\": \"%s\"", o->leak_constructor);
    cr_assert_not_null(strstr(l, cons));

    /* the heap is about the requested size */
    cr_assert(heap >= o->closures * 9 / 10 && heap <= o->closures * 13 / 10 + 3 * o->leak_count,
              "heap of %llu closures for %llu requested", (unsigned long long)heap,
              (unsigned long long)o->closures);
    synth_process_free(&p);
}

Test(gen_plan, plain_defaults) {
    synth_options o;
    synth_options_default(&o);
    check_plan(&o);
}

Test(gen_plan, profiled_defaults) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = true;
    check_plan(&o);
}

Test(gen_plan, profiled_other_options) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = true;
    o.eras = 9;
    o.leak_era = 4;
    o.leak_count = 77;
    o.leak_constructor = "Retained";
    o.closures = 30000;
    o.seed = 99;
    check_plan(&o);
}

Test(gen_plan, plain_larger) {
    synth_options o;
    synth_options_default(&o);
    o.closures = 120000;
    o.leak_count = 5000;
    o.seed = 3;
    check_plan(&o);
}
