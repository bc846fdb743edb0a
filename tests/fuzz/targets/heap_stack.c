/* Stack walking: a STACK closure whose stack area, sp and frames come from
 * the fuzz input, with info tables of every frame kind ready at fixed
 * addresses (so the fuzzer finds them from the comparisons it sees); the
 * input's own records may add or replace info tables, bitmaps and memory.
 *
 * Input: the two header bytes of fuzz_source.h, a byte giving sp as a
 * word offset into the stack area, a u16 (little-endian) stack-area
 * length in bytes, the stack area, then records. */
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_source.h"
#include "heapscope/bytes.h"
#include "heapscope/closure_type.h"

#define STACK_ADDR UINT64_C(0x4200000000)
#define STACK_INFO UINT64_C(0x400100)
#define FRAME_INFO(i) (UINT64_C(0x500000) + 0x100 * (uint64_t)(i))
#define MAX_AREA 4096u

/* Frame info tables: type and layout word (small bitmaps: n | map << 6,
 * bit set = non-pointer). */
static const struct {
    uint32_t type;
    uint64_t layout;
} frames[] = {
    {HS_RET_SMALL, 3 | 0x5 << 6}, {HS_RET_BIG, 0},          {HS_RET_FUN, 0},
    {HS_UPDATE_FRAME, 1},         {HS_CATCH_FRAME, 2 | 1 << 6}, {HS_UNDERFLOW_FRAME, 1},
    {HS_STOP_FRAME, 0},           {HS_RET_BCO, 0},          {HS_ATOMICALLY_FRAME, 2},
    {HS_CATCH_STM_FRAME, 2},      {HS_CATCH_RETRY_FRAME, 3 | 0x4 << 6},
};
#define N_FRAMES (sizeof frames / sizeof frames[0])

static const uint8_t big_map[] = {1, 0, 1, 1, 0};

static void info_bytes(uint8_t *raw, size_t len, uint32_t type, uint64_t layout) {
    memset(raw, 0, len);
    uint8_t *p = raw + len - 16;
    hs_store_le64(p, layout);
    hs_store_le32(p + 8, type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 5)
        return 0;
    unsigned sp_word = data[2];
    size_t area = hs_load_le16(data + 3);
    size_t left = size - 5;
    area = area > left ? left : area;
    area = area > MAX_AREA ? MAX_AREA : area;
    area &= ~(size_t)7;

    /* the header bytes, then the records after the stack area */
    uint8_t *input = malloc(2 + left - area);
    if (!input)
        return 0;
    memcpy(input, data, 2);
    memcpy(input + 2, data + 5 + area, left - area);
    fuzz_source f;
    if (!fuzz_source_init(&f, input, 2 + left - area)) {
        free(input);
        return 0;
    }
    bool profiled = f.version.prof_mode != 0;
    size_t hdr = profiled ? 24 : 8, info_len = profiled ? 32 : 16;

    static uint8_t block[2 + 24 + 16 + MAX_AREA];
    uint8_t *b = block + 2; /* after the u16 block flags */
    memset(block, 0, sizeof block);
    hs_store_le64(b, STACK_INFO);
    hs_store_le32(b + hdr, (uint32_t)(area / 8));
    hs_store_le64(b + hdr + 8, STACK_ADDR + hdr + 16 + 8 * (uint64_t)sp_word);
    memcpy(b + hdr + 16, data + 5, area);

    static uint8_t infos[N_FRAMES + 1][32];
    info_bytes(infos[N_FRAMES], info_len, HS_STACK, 0);
    bool ok = fuzz_source_add(&f, FUZZ_BLOCK, STACK_ADDR, block, 2 + hdr + 16 + area) &&
              fuzz_source_add(&f, FUZZ_ROOT, STACK_ADDR, NULL, 0) &&
              fuzz_source_add(&f, FUZZ_INFO, STACK_INFO, infos[N_FRAMES], info_len);
    for (size_t i = 0; ok && i < N_FRAMES; i++) {
        info_bytes(infos[i], info_len, frames[i].type, frames[i].layout);
        ok = fuzz_source_add(&f, FUZZ_INFO, FRAME_INFO(i), infos[i], info_len) &&
             fuzz_source_add(&f, FUZZ_FRAME_BITMAP, FRAME_INFO(i), big_map, sizeof big_map);
    }
    if (ok)
        fuzz_heap_walk(fuzz_source_heap(&f));
    fuzz_source_free(&f);
    free(input);
    return 0;
}
