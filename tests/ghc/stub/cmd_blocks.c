/* ALL_BLOCKS (§7.12) and BLOCK (§7.13): RawBlock records (flags u16 LE,
 * start PTR, len u32 BE, then len bytes of memory) of the groups that
 * blocks.c found. */
#include "rts_private.h"
#include "stub.h"

static void write_raw_block(out *o, const group *g) {
    uint32_t len = g->blocks * (uint32_t)BLOCK_SIZE;
    out_u16le(o, g->flags);
    out_ptr(o, g->start);
    out_u32be(o, len);
    out_write(o, (const void *)g->start, len);
}

uint16_t cmd_all_blocks(req *r, out *o) {
    (void)r;
    const group_list *l = stub_groups();
    for (size_t i = 0; i < l->count && !o->broken; i++)
        write_raw_block(o, &l->items[i]);
    return ST_OKAY;
}

/* The whole group holding the address, also for an address in a later
 * block of a multi-block group (where the RTS keeps no descriptor). An
 * address in no group the RTS holds closures in is refused. */
uint16_t cmd_block(req *r, out *o) {
    uintptr_t addr;
    if (!req_ptr(r, &addr))
        return ST_BAD_COMMAND;
    const group *g = blocks_find(stub_groups(), addr);
    if (!g)
        return ST_BAD_COMMAND;
    write_raw_block(o, g);
    return ST_OKAY;
}
