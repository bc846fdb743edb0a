/* The debuggee's ghc-debug snapshot writer, read back with heapscope's
 * reader: every recorded answer is the process's memory, re-encoded the
 * way ghc-debug-client 0.6 encodes its cache, and the traversal shows the
 * reference client's habits (the last stack frame is dropped). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/ghcdebug_file.h"
#include "synth_ghcdebug.h"
#include "test_gen_walk.h"

static void generate(bool profiled, synth_process *p) {
    synth_options o;
    synth_options_default(&o);
    o.profiled = profiled;
    char err[256];
    cr_assert_eq(synth_generate(&o, p, err, sizeof err), 0, "%s", err);
}

static ghcdebug_file *write_and_open(const synth_process *p, char *path) {
    strcpy(path, "/tmp/ghcdebug-writer-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    char err[256];
    cr_assert_eq(synth_write_ghcdebug_snapshot(p, path, err, sizeof err), 0, "%s", err);
    ghcdebug_file *f = NULL;
    hs_error e;
    cr_assert_eq(ghcdebug_file_open(path, &f, &e), HS_OK, "%s", e.message);
    return f;
}

static const synth_ipe *ipe_named(const synth_process *p, const char *name) {
    for (size_t i = 0; i < p->n_ipes; i++)
        if (!strcmp(p->ipes[i].strings[0], name))
            return &p->ipes[i];
    cr_assert_fail("no IPE entry %s", name);
    return NULL;
}

static void check(bool profiled) {
    synth_process p;
    generate(profiled, &p);
    tw t = tw_of(&p);
    char path[64];
    ghcdebug_file *f = write_and_open(&p, path);
    hs_error err;

    const wire_version *v = ghcdebug_file_version(f);
    cr_assert(v->major == p.ghc_major && v->patch == p.ghc_patch && v->prof_mode == p.prof_mode);
    const wire_ptr_list *l;
    cr_assert_eq(ghcdebug_file_roots(f, &l, &err), HS_OK);
    cr_assert_eq(l->count, p.n_roots);
    for (size_t i = 0; i < p.n_roots; i++)
        cr_assert_eq(l->items[i], p.roots[i] & ~(uint64_t)7);
    cr_assert_eq(ghcdebug_file_saved_objects(f, &l, &err), HS_OK);
    cr_assert_eq(l->count, p.n_saved);

    /* ALL_BLOCKS' groups are the process's; BLOCK entries add none */
    size_t nb;
    const ghcdebug_block *b = ghcdebug_file_blocks(f, &nb);
    cr_assert_eq(nb, p.n_groups);
    cr_assert_gt(ghcdebug_file_count(f, WIRE_CMD_BLOCK), 0, "closures past a group's first block");
    for (size_t i = 0; i < nb; i++) {
        cr_assert_eq(b[i].start, p.group_starts[i]);
        cr_assert(!memcmp(b[i].data, synth_mem(&p, b[i].start, b[i].len), b[i].len));
    }

    /* every recorded info table is the memory before its info pointer, and
     * every recorded source location the IPE entry (ghc-debug rewrites the
     * closure type "0" as "1") */
    size_t tables = 0, sources = 0;
    for (size_t i = 0; i < p.n_ipes; i++) {
        const synth_ipe *ipe = &p.ipes[i];
        const uint8_t *bytes;
        size_t n;
        if (ghcdebug_file_info_table(f, ipe->info, &bytes, &n, &err) == HS_OK) {
            tables++;
            cr_assert(n == t.S && !memcmp(bytes, synth_mem(&p, ipe->info - t.S, t.S), n));
        }
        wire_source_info si;
        if (ghcdebug_file_source_info(f, ipe->info, &si, &err) == HS_OK) {
            sources++;
            cr_assert(si.found);
            cr_assert_str_eq(si.name, ipe->strings[0]);
            cr_assert_str_eq(si.closure_type_text,
                             strcmp(ipe->strings[1], "0") ? ipe->strings[1] : "1");
            cr_assert_str_eq(si.position, ipe->strings[5]);
            wire_source_info_free(&si);
        }
    }
    cr_assert_gt(tables, 50);
    cr_assert_gt(sources, 50);

    /* stacks end in a STOP_FRAME: ghc-debug decodes it (info table,
     * bitmap) but drops it, so never asks its source location */
    const synth_ipe *stop = ipe_named(&p, "stg_stop_thread_info");
    const uint8_t *bytes;
    size_t n;
    cr_assert_eq(ghcdebug_file_info_table(f, stop->info, &bytes, &n, &err), HS_OK);
    wire_source_info si;
    cr_assert_eq(ghcdebug_file_source_info(f, stop->info, &si, &err), HS_ERR_NOT_FOUND);
    /* constructors get their description, in three parts */
    const synth_ipe *leak = ipe_named(&p, "Main_Leak_con_info");
    wire_con_desc cd;
    cr_assert_eq(ghcdebug_file_con_desc(f, leak->info, &cd, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(cd.raw, "main:Main.Leak");
    wire_con_desc_free(&cd);

    if (profiled) { /* the whole cost-centre tree, flags as in memory */
        uint64_t main_ccs, cc_addr = 0;
        cr_assert_eq(ghcdebug_file_ccs_main(f, &main_ccs, &err), HS_OK);
        cr_assert_eq(main_ccs, p.ccs_main);
        wire_ccs ccs;
        cr_assert_eq(ghcdebug_file_ccs(f, main_ccs, &ccs, &err), HS_OK);
        cc_addr = ccs.cc;
        wire_cc cc;
        cr_assert_eq(ghcdebug_file_cc(f, cc_addr, &cc, &err), HS_OK);
        cr_assert_eq(cc.is_caf, tw_u64(&t, cc_addr + 48) != 0);
        cr_assert_eq(cc.mem_alloc, tw_u64(&t, cc_addr + 32));
        wire_cc_free(&cc);
        cr_assert_gt(ghcdebug_file_count(f, WIRE_CMD_INDEX_TABLE), 0);
    } else {
        cr_assert_eq(ghcdebug_file_count(f, WIRE_CMD_CCS), 0);
    }
    ghcdebug_file_free(f);

    /* the same heap gives the same file */
    FILE *a = fopen(path, "rb");
    char path2[64];
    ghcdebug_file_free(write_and_open(&p, path2));
    FILE *c = fopen(path2, "rb");
    int x, y;
    do {
        x = fgetc(a);
        y = fgetc(c);
        cr_assert_eq(x, y, "two snapshots of one heap differ");
    } while (x != EOF);
    fclose(a);
    fclose(c);
    unlink(path);
    unlink(path2);
    synth_process_free(&p);
}

Test(ghcdebug_writer, plain) { check(false); }

Test(ghcdebug_writer, profiled) { check(true); }

Test(ghcdebug_writer, unwritable_path) {
    synth_process p;
    generate(false, &p);
    char err[256] = "";
    cr_assert_eq(synth_write_ghcdebug_snapshot(&p, "/nonexistent-dir/x.snap", err, sizeof err),
                 -1);
    cr_assert(strstr(err, "/nonexistent-dir/x.snap"), "%s", err);
    synth_process_free(&p);
}
