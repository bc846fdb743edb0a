/* Bytes of BLOBs: checksums, chunk directories and bitmaps, each checked
 * before anything trusts it. */
#include <string.h>

#include "heapscope/bytes.h"
#include "store_internal.h"

#define MIX_A UINT64_C(0x9e3779b97f4a7c15)
#define MIX_B UINT64_C(0xff51afd7ed558ccd)

static inline uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * MIX_B;
    return h ^ (h >> 29);
}

/* Four independent lanes keep the multiplier busy: a few GB/s, so that
 * checking every block costs little next to reading it. Not a defence
 * against a forger, who could as well write a valid file: a detector of
 * damage. */
uint64_t store_checksum(const uint8_t *p, size_t n) {
    uint64_t l0 = MIX_A ^ n, l1 = MIX_B, l2 = MIX_A * 3, l3 = MIX_B * 5;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        l0 = mix(l0, hs_load_le64(p + i));
        l1 = mix(l1, hs_load_le64(p + i + 8));
        l2 = mix(l2, hs_load_le64(p + i + 16));
        l3 = mix(l3, hs_load_le64(p + i + 24));
    }
    for (; i + 8 <= n; i += 8)
        l0 = mix(l0, hs_load_le64(p + i));
    uint64_t tail = 0;
    for (size_t k = 0; i + k < n; k++)
        tail |= (uint64_t)p[i + k] << (8 * k);
    l0 = mix(l0, tail);
    return mix(mix(mix(l0, l1), l2), l3);
}

static void put_le(uint8_t *dst, uint64_t v, unsigned bytes) {
    for (unsigned i = 0; i < bytes; i++)
        dst[i] = (uint8_t)(v >> (8 * i));
}

void store_dir_put(uint8_t *dst, const store_dir_entry *e) {
    put_le(dst, e->start, 8);
    put_le(dst + 8, e->len, 4);
    put_le(dst + 12, e->flags, 2);
    put_le(dst + 14, 0, 2);
}

store_dir_entry store_dir_get(const uint8_t *src) {
    return (store_dir_entry){.start = hs_load_le64(src),
                             .len = hs_load_le32(src + 8),
                             .flags = (uint16_t)(src[12] | src[13] << 8)};
}

hs_status store_dir_check(const uint8_t *dir, size_t dir_len, uint64_t checksum,
                          uint64_t data_len, hs_error *err) {
    if (dir_len == 0 || dir_len % STORE_DIR_ENTRY_BYTES)
        return hs_fail(err, HS_ERR_PROTOCOL, "a heap chunk's directory has %zu bytes", dir_len);
    if (store_checksum(dir, dir_len) != checksum)
        return hs_fail(err, HS_ERR_PROTOCOL, "a heap chunk's directory fails its checksum");
    uint64_t total = 0;
    for (size_t off = 0; off < dir_len; off += STORE_DIR_ENTRY_BYTES) {
        store_dir_entry e = store_dir_get(dir + off);
        if (dir[off + 14] || dir[off + 15] || e.len > STORE_MAX_GROUP_BYTES ||
            e.start > UINT64_MAX - e.len)
            return hs_fail(err, HS_ERR_PROTOCOL, "a heap chunk's directory has a bad entry "
                                                 "(block group 0x%llx, %u bytes)",
                           (unsigned long long)e.start, e.len);
        total += e.len;
    }
    if (total != data_len)
        return hs_fail(err, HS_ERR_PROTOCOL,
                       "a heap chunk holds %llu bytes but its directory says %llu",
                       (unsigned long long)data_len, (unsigned long long)total);
    return HS_OK;
}

hs_status store_bitmap_check(const uint8_t *bits, size_t count, size_t max_count,
                             hs_error *err) {
    if (count > max_count)
        return hs_fail(err, HS_ERR_PROTOCOL, "a stored bitmap has %zu entries (at most %zu)",
                       count, max_count);
    for (size_t i = 0; i < count; i++)
        if (bits[i] > 1)
            return hs_fail(err, HS_ERR_PROTOCOL, "a stored bitmap has a byte %u", bits[i]);
    return HS_OK;
}
