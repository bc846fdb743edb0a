/* A whole protocol session through the client library against the
 * synthetic debuggee: pause, version, roots, closures, info tables,
 * constructor descriptions, source info, blocks, resume. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "heapscope/cli.h"
#include "heapscope/closure_type.h"
#include "heapscope/wire.h"
#include "json.h"

typedef struct session {
    cli_debuggee debuggee;
    json_value *plan;
    wire_conn *conn;
    char plan_path[300];
} session;

static void start(session *s, const char *closures, bool profiled) {
    memset(s, 0, sizeof *s);
    snprintf(s->plan_path, sizeof s->plan_path, "%s/heapscope-plan-%ld.json",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    const char *args[] = {"--closures", closures, "--eras", "5", "--leak-count", "300",
                          "--leak-era", "2", "--seed", "7", "--plan", s->plan_path,
                          profiled ? "--profiled" : NULL, NULL};
    hs_error err = {0};
    cr_assert_eq(cli_debuggee_start(args, &s->debuggee, &err), HS_OK, "%s", err.message);
    char jerr[200];
    s->plan = json_parse_file(s->plan_path, jerr, sizeof jerr);
    cr_assert_not_null(s->plan, "%s", jerr);
    cr_assert_eq(wire_connect(s->debuggee.socket, NULL, &s->conn, &err), HS_OK, "%s",
                 err.message);
}

static void stop(session *s) {
    wire_close(s->conn);
    cli_debuggee_stop(&s->debuggee);
    json_free(s->plan);
    unlink(s->plan_path);
}

static wire_slice fetch_closure(session *s, uint64_t addr, wire_blobs *store) {
    hs_error err = {0};
    cr_assert_eq(wire_closures(s->conn, &addr, 1, store, &err), HS_OK, "%s", err.message);
    cr_assert_eq(store->count, 1);
    cr_assert_geq(store->items[0].len, 8);
    return store->items[0];
}

static uint32_t info_type(session *s, uint64_t info) {
    wire_blobs infos = {0};
    hs_error err = {0};
    cr_assert_eq(wire_info_tables(s->conn, &info, 1, &infos, &err), HS_OK, "%s", err.message);
    cr_assert_eq(infos.items[0].len, 32, "profiled info tables are 32 bytes");
    uint32_t type = hs_load_le32(infos.items[0].data + 24);
    wire_blobs_free(&infos);
    return type;
}

static const wire_raw_block *block_of(const wire_block_list *blocks, uint64_t addr) {
    for (size_t i = 0; i < blocks->count; i++)
        if (addr >= blocks->items[i].start && addr - blocks->items[i].start < blocks->items[i].len)
            return &blocks->items[i];
    return NULL;
}

Test(session, pause_read_and_resume) {
    session s;
    start(&s, "20000", true);
    hs_error err = {0};

    wire_version v;
    cr_assert_eq(wire_get_version(s.conn, &v, &err), HS_OK, "%s", err.message);
    cr_assert_eq(v.major, 910);
    cr_assert_eq(v.patch, 1);
    cr_assert_eq(v.prof_mode, WIRE_PROF_ERA);
    cr_assert(v.tntc);

    wire_ptr_list roots = {0};
    cr_assert_eq(wire_roots(s.conn, &roots, &err), HS_ERR_NOT_PAUSED);
    cr_assert(strstr(err.message, "ROOTS"), "message names the command: %s", err.message);
    cr_assert(wire_conn_is_open(s.conn), "a stub error status keeps the connection");

    bool was_paused = true;
    cr_assert_eq(wire_pause(s.conn, &was_paused, &err), HS_OK, "%s", err.message);
    cr_assert_not(was_paused);
    cr_assert_eq(wire_pause(s.conn, &was_paused, &err), HS_OK, "%s", err.message);
    cr_assert(was_paused, "a second pause reports ALREADY_PAUSED as was_paused");

    cr_assert_eq(wire_roots(s.conn, &roots, &err), HS_OK, "%s", err.message);
    uint64_t leak_root = json_address(json_path(s.plan, "leak/root"));
    bool found = false;
    for (size_t i = 0; i < roots.count; i++) {
        cr_assert_eq(roots.items[i] & 7, 0, "roots come back untagged");
        found |= roots.items[i] == wire_untag(leak_root);
    }
    cr_assert(found, "the planted leak's root 0x%llx is a GC root", (unsigned long long)leak_root);
    wire_ptr_list saved = {0};
    cr_assert_eq(wire_saved_objects(s.conn, &saved, &err), HS_OK, "%s", err.message);
    cr_assert_leq(saved.count, 20);

    /* The planted Leak closure: constructor main:Main.Leak */
    uint64_t leak = json_address(json_path(s.plan, "leak/first_match"));
    wire_blobs leak_bytes = {0};
    wire_slice raw = fetch_closure(&s, leak, &leak_bytes);
    uint64_t leak_info = hs_load_le64(raw.data);
    cr_assert(hs_closure_type_is_constructor(info_type(&s, leak_info)));
    wire_con_desc desc = {0};
    cr_assert_eq(wire_get_con_desc(s.conn, leak_info, &desc, &err), HS_OK, "%s", err.message);
    cr_assert_str_eq(desc.raw, "main:Main.Leak");
    cr_assert_str_eq(desc.package, "main");
    cr_assert_str_eq(desc.module, "Main");
    cr_assert_str_eq(desc.name, "Leak");
    wire_con_desc_free(&desc);
    cr_assert_eq(hs_load_le64(raw.data + 16), (uint64_t)json_int(json_path(s.plan, "leak/era")),
                 "the era word of the header is the planted era");

    /* The newer-era thunk on the path has a source location. */
    const json_value *path = json_path(s.plan, "leak/path");
    cr_assert(path && path->count >= 3);
    const json_value *thunk = NULL;
    for (size_t i = 0; i < path->count; i++)
        if (!strncmp(json_get(&path->items[i], "type")->string, "THUNK", 5))
            thunk = &path->items[i];
    cr_assert_not_null(thunk, "the leak path passes through a thunk");
    wire_blobs thunk_bytes = {0};
    wire_slice traw = fetch_closure(&s, json_address(json_get(thunk, "address")), &thunk_bytes);
    wire_source_info si = {0};
    cr_assert_eq(wire_get_source_info(s.conn, hs_load_le64(traw.data), &si, &err), HS_OK, "%s",
                 err.message);
    cr_assert(si.found);
    cr_assert_str_eq(si.position, json_get(thunk, "location")->string);
    cr_assert(si.closure_type >= HS_THUNK && si.closure_type <= HS_THUNK_STATIC);
    wire_source_info_free(&si);

    /* All blocks: the Leak closure's bytes in its block equal CLOSURES. */
    wire_block_list blocks = {0};
    cr_assert_eq(wire_all_blocks(s.conn, &blocks, &err), HS_OK, "%s", err.message);
    cr_assert_gt(blocks.count, 1);
    const wire_raw_block *b = block_of(&blocks, leak);
    cr_assert_not_null(b, "the Leak closure lies in a fetched block");
    cr_assert_leq(leak - b->start + raw.len, b->len);
    cr_assert_arr_eq(b->data + (leak - b->start), raw.data, raw.len);
    bool large = false, pinned = false;
    for (size_t i = 0; i < blocks.count; i++) {
        large |= (blocks.items[i].flags & 0x2) != 0;
        pinned |= (blocks.items[i].flags & 0x4) != 0;
        cr_assert_eq(blocks.items[i].len % 4096, 0);
    }
    cr_assert(large && pinned, "the heap has large and pinned blocks");

    /* BLOCK for an address inside returns the same group. */
    wire_block_list one = {0};
    cr_assert_eq(wire_block(s.conn, leak, &one, &err), HS_OK, "%s", err.message);
    cr_assert_eq(one.count, 1);
    cr_assert_eq(one.items[0].start, b->start);
    cr_assert_eq(one.items[0].len, b->len);
    cr_assert_arr_eq(one.items[0].data, b->data, b->len);

    cr_assert_eq(wire_resume(s.conn, &err), HS_OK, "%s", err.message);
    cr_assert_eq(wire_resume(s.conn, &err), HS_ERR_NOT_PAUSED);

    wire_block_list_free(&one);
    wire_block_list_free(&blocks);
    wire_blobs_free(&thunk_bytes);
    wire_blobs_free(&leak_bytes);
    wire_ptr_list_free(&saved);
    wire_ptr_list_free(&roots);
    stop(&s);
}

Test(session, pause_survives_reconnect) {
    session s;
    start(&s, "2000", true);
    hs_error err = {0};
    bool was_paused = true;
    cr_assert_eq(wire_pause(s.conn, &was_paused, &err), HS_OK, "%s", err.message);
    cr_assert_not(was_paused);
    wire_close(s.conn);
    cr_assert_eq(wire_connect(s.debuggee.socket, NULL, &s.conn, &err), HS_OK, "%s", err.message);
    cr_assert_eq(wire_pause(s.conn, &was_paused, &err), HS_OK, "%s", err.message);
    cr_assert(was_paused, "the debuggee stayed paused across the disconnect");
    wire_ptr_list roots = {0};
    cr_assert_eq(wire_roots(s.conn, &roots, &err), HS_OK, "%s", err.message);
    cr_assert_gt(roots.count, 0);
    cr_assert_eq(wire_resume(s.conn, &err), HS_OK, "%s", err.message);
    wire_ptr_list_free(&roots);
    stop(&s);
}

/* A million-closure heap is fetched completely: every block group the
 * debuggee serves arrives whole, and every closure of the leak path lies
 * in one with the bytes a single-closure fetch returns. */
Test(session, million_closure_heap_fetched_completely) {
    session s;
    start(&s, "1000000", false);
    hs_error err = {0};
    cr_assert_eq(wire_pause(s.conn, NULL, &err), HS_OK, "%s", err.message);
    wire_block_list blocks = {0};
    cr_assert_eq(wire_all_blocks(s.conn, &blocks, &err), HS_OK, "%s", err.message);

    uint64_t bytes = 0;
    for (size_t i = 0; i < blocks.count; i++) {
        bytes += blocks.items[i].len;
        if (i > 0)
            cr_assert_gt(blocks.items[i].start, blocks.items[i - 1].start);
    }
    cr_assert_eq((int64_t)blocks.count, json_int(json_path(s.plan, "blocks/groups")));
    cr_assert_eq((int64_t)bytes, json_int(json_path(s.plan, "blocks/bytes")));
    cr_assert_geq(json_int(json_path(s.plan, "reachable/count")), 1000000 * 9 / 10);

    const json_value *path = json_path(s.plan, "leak/path");
    for (size_t i = 0; i < path->count; i++) {
        uint64_t addr = json_address(json_get(&path->items[i], "address"));
        const wire_raw_block *b = block_of(&blocks, addr);
        if (addr < 0x4200000000ull)
            continue; /* static closure */
        cr_assert_not_null(b, "0x%llx lies in a fetched block", (unsigned long long)addr);
        wire_blobs one = {0};
        wire_slice raw = fetch_closure(&s, addr, &one);
        cr_assert_arr_eq(b->data + (addr - b->start), raw.data, raw.len);
        wire_blobs_free(&one);
    }
    wire_stats stats = wire_conn_stats(s.conn);
    cr_assert_geq(stats.bytes_received, bytes);
    cr_assert_eq(wire_resume(s.conn, &err), HS_OK, "%s", err.message);
    wire_block_list_free(&blocks);
    stop(&s);
}
