/* STACK_BITMAP (§7.7, heap-layout.md §8.3) and FUN_BITMAP (§7.14, §9):
 * which payload words of a stack frame or of a PAP/AP are pointers. The
 * RTS's bitmaps have a 0 bit for a pointer; on the wire an entry is 1 for a
 * pointer. Bitmaps are built whole before anything is written, so a frame
 * we cannot describe gets a clean BAD_STACK. */
#include <stdlib.h>

#include "rts_private.h"
#include "stub.h"

/* More entries than any real frame or argument list has. */
#define MAX_ENTRIES (1u << 20)

/* Entry i from a small bitmap word (size in the low bits, bits above);
 * entries past the bitmap come out as pointers, as in the reference. */
static void from_small(StgWord bitmap, uint8_t *bits, size_t n) {
    StgWord b = BITMAP_BITS(bitmap);
    for (size_t i = 0; i < n; i++)
        bits[i] = i < BITS_IN(StgWord) - BITMAP_BITS_SHIFT && ((b >> i) & 1) ? 0 : 1;
}

/* From a large bitmap, after checking it can be read. */
static bool from_large(const StgLargeBitmap *lb, uint8_t *bits, size_t n) {
    if (!mem_readable((uintptr_t)lb, sizeof(StgWord)))
        return false;
    StgWord size = lb->size;
    if (size > MAX_ENTRIES ||
        !mem_readable((uintptr_t)lb->bitmap, (size + BITS_IN(StgWord) - 1) / BITS_IN(StgWord) *
                                                 sizeof(StgWord)))
        return false;
    for (size_t i = 0; i < n; i++) {
        StgWord w = i < size ? lb->bitmap[i / BITS_IN(StgWord)] : 0;
        bits[i] = (w >> (i % BITS_IN(StgWord))) & 1 ? 0 : 1;
    }
    return true;
}

/* The argument bitmap of a function closure (a FUN, or an interpreted BCO). */
static bool fun_bits(uintptr_t fun, uint8_t *bits, size_t n) {
    if (!mem_readable(fun, sizeof(StgHeader)))
        return false;
    uintptr_t info_ptr = (uintptr_t)((const StgClosure *)fun)->header.info;
    const StgInfoTable *info =
        heap_info_at(info_ptr, sizeof(StgFunInfoTable) - sizeof(StgInfoTable));
    if (!info)
        return false;
    if (info->type == BCO) {
        if (!mem_readable(fun, sizeof(StgBCO)))
            return false;
        return from_large(BCO_BITMAP((const StgBCO *)fun), bits, n);
    }
    if (info->type < FUN || info->type > FUN_STATIC)
        return false;
    const StgFunInfoTable *fi = (const StgFunInfoTable *)info_ptr - 1;
    switch (fi->f.fun_type) {
    case ARG_GEN: from_small(fi->f.b.bitmap, bits, n); return true;
    case ARG_GEN_BIG: return from_large(GET_FUN_LARGE_BITMAP(fi), bits, n);
    case ARG_BCO: return false; /* only BCOs themselves, handled above */
    default:
        if (fi->f.fun_type > ARG_PPPPPPPP)
            return false;
        from_small(stg_arg_bitmaps[fi->f.fun_type], bits, n);
        return true;
    }
}

static void write_bitmap(out *o, const uint8_t *bits, size_t n) {
    out_u32be(o, (uint32_t)n);
    for (size_t i = 0; i < n; i++)
        out_u8(o, bits[i]);
}

/* Fills *bits (allocated here) for the frame at c; returns its status. */
static uint16_t frame_bits(uintptr_t c, uint8_t **bits, size_t *n) {
    *bits = NULL;
    if (!mem_readable(c, sizeof(StgWord)))
        return ST_BAD_STACK;
    uintptr_t info_ptr = *(const StgWord *)c;
    const StgInfoTable *info = heap_info_at(info_ptr, 0);
    if (!info)
        return ST_BAD_STACK;
    switch (info->type) {
    case RET_SMALL: case UPDATE_FRAME: case CATCH_FRAME: case UNDERFLOW_FRAME:
    case STOP_FRAME: case ATOMICALLY_FRAME: case CATCH_RETRY_FRAME: case CATCH_STM_FRAME:
        *n = BITMAP_SIZE(info->layout.bitmap);
        *bits = malloc(*n + 1);
        if (!*bits)
            return ST_BAD_COMMAND;
        from_small(info->layout.bitmap, *bits, *n);
        return ST_OKAY;
    case RET_BIG: {
        const StgLargeBitmap *lb = GET_LARGE_BITMAP(info);
        if (!mem_readable((uintptr_t)lb, sizeof(StgWord)) || lb->size > MAX_ENTRIES)
            return ST_BAD_STACK;
        *n = lb->size;
        *bits = malloc(*n + 1);
        if (!*bits)
            return ST_BAD_COMMAND;
        return from_large(lb, *bits, *n) ? ST_OKAY : ST_BAD_STACK;
    }
    case RET_FUN: {
        if (!mem_readable(c, sizeof(StgRetFun)))
            return ST_BAD_STACK;
        const StgRetFun *f = (const StgRetFun *)c;
        if (f->size > MAX_ENTRIES)
            return ST_BAD_STACK;
        *n = f->size;
        *bits = malloc(*n + 1);
        if (!*bits)
            return ST_BAD_COMMAND;
        return fun_bits((uintptr_t)UNTAG_CLOSURE(f->fun), *bits, *n) ? ST_OKAY : ST_BAD_STACK;
    }
    default: /* RET_BCO crashes the reference stub; here it is refused */
        return ST_BAD_STACK;
    }
}

uint16_t cmd_stack_bitmap(req *r, out *o) {
    uintptr_t sp;
    uint32_t offset;
    if (!req_ptr(r, &sp) || !req_u32be(r, &offset) || sp + offset < sp)
        return ST_BAD_COMMAND;
    uint8_t *bits;
    size_t n = 0;
    uint16_t st = frame_bits(sp + offset, &bits, &n);
    if (st == ST_OKAY)
        write_bitmap(o, bits, n);
    free(bits);
    return st;
}

uint16_t cmd_fun_bitmap(req *r, out *o) {
    uintptr_t fun;
    uint16_t n;
    if (!req_ptr(r, &fun) || !req_u16be(r, &n))
        return ST_BAD_COMMAND;
    uint8_t *bits = malloc((size_t)n + 1);
    bool ok = bits && fun_bits((uintptr_t)UNTAG_CLOSURE((StgClosure *)fun), bits, n);
    if (ok)
        write_bitmap(o, bits, n);
    free(bits);
    return ok ? ST_OKAY : ST_BAD_COMMAND;
}
