/* Fixed-width big- and little-endian loads and stores, independent of the
 * host byte order. The wire mixes both (wire-protocol.md §1). */
#ifndef HEAPSCOPE_BYTES_H
#define HEAPSCOPE_BYTES_H

#include <stdint.h>

static inline uint16_t hs_load_be16(const uint8_t *p) {
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}
static inline uint32_t hs_load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t hs_load_be64(const uint8_t *p) {
    return (uint64_t)hs_load_be32(p) << 32 | hs_load_be32(p + 4);
}
static inline uint16_t hs_load_le16(const uint8_t *p) {
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}
static inline uint32_t hs_load_le32(const uint8_t *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t hs_load_le64(const uint8_t *p) {
    return hs_load_le32(p) | (uint64_t)hs_load_le32(p + 4) << 32;
}
static inline void hs_store_be16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void hs_store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void hs_store_be64(uint8_t *p, uint64_t v) {
    hs_store_be32(p, (uint32_t)(v >> 32));
    hs_store_be32(p + 4, (uint32_t)v);
}
static inline void hs_store_le16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void hs_store_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void hs_store_le64(uint8_t *p, uint64_t v) {
    hs_store_le32(p, (uint32_t)v);
    hs_store_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
