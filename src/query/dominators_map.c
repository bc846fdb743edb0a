/* Dense closure numbers: start and end bitmaps over the dense heap words,
 * ranks per bitmap word, a sampled select (dominators_heap.c says why). */
#include <stdlib.h>
#include <string.h>

#include "heapscope/heap.h"
#include "heapscope/wire.h"
#include "heapscope/grow.h"
#include "dominators_map.h"

hs_status dom_map_init(dom_map *m, const heap *h, hs_error *err) {
    memset(m, 0, sizeof *m);
    m->h = h;
    m->words = heap_block_words(h);
    size_t n;
    const heap_block_range *r = heap_block_ranges(h, &n);
    for (size_t i = 0; i < n; i++)
        if (r[i].first_word == 0) {
            m->big_lo = r[i].lo;
            m->big_bytes = r[i].hi - r[i].lo;
        }
    m->n_bits = (size_t)((m->words + 63) / 64);
    m->starts = calloc(m->n_bits + 1, sizeof *m->starts);
    m->ends = calloc(m->n_bits + 1, sizeof *m->ends);
    if (!m->starts || !m->ends)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the dominator tree");
    return HS_OK;
}

bool dom_map_mark(dom_map *m, uint64_t addr, uint64_t size) {
    /* the bitmaps hold whole words: a closure of another size (a TSO's
     * struct size) is kept as an other, with its exact size */
    uint64_t span = size, w, we;
    if (size >= 8 && size % 8 == 0 && heap_dense_word(m->h, addr, &w) && w < m->words &&
        heap_dense_word(m->h, addr + span - 8, &we) && we == w + (span - 8) / 8 &&
        we < m->words) {
        m->starts[w >> 6] |= UINT64_C(1) << (w & 63);
        m->ends[we >> 6] |= UINT64_C(1) << (we & 63);
        return true;
    }
    if (m->n_other == m->other_cap &&
        !hs_grow((void **)&m->others, &m->other_cap, m->n_other + 1, sizeof *m->others))
        return false;
    m->others[m->n_other++] = (dom_other){addr, size};
    return u64map_put(&m->other_index, addr, m->n_other);
}

hs_status dom_map_index(dom_map *m, hs_error *err) {
    m->rank = malloc((m->n_bits + 1) * sizeof *m->rank);
    if (!m->rank)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the dominator tree");
    uint64_t total = 0;
    for (size_t i = 0; i < m->n_bits; i++) {
        m->rank[i] = (uint32_t)total;
        total += (uint64_t)dom_popcount(m->starts[i]);
        if (total + m->n_other >= UINT32_MAX - 2)
            return hs_fail(err, HS_ERR_TOO_LARGE, "too many closures for the dominator tree");
    }
    m->rank[m->n_bits] = (uint32_t)total;
    m->n_heap = (uint32_t)total;
    m->samples = malloc((total / 64 + 1) * sizeof *m->samples);
    if (!m->samples)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the dominator tree");
    for (size_t i = 0; i < m->n_bits; i++) {
        uint64_t bits = m->starts[i];
        uint32_t r = m->rank[i];
        while (bits) {
            if (r % 64 == 0)
                m->samples[r / 64] = (uint64_t)i * 64 + (uint64_t)__builtin_ctzll(bits);
            bits &= bits - 1;
            r++;
        }
    }
    return HS_OK;
}

void dom_map_free(dom_map *m) {
    free(m->starts);
    free(m->ends);
    free(m->rank);
    free(m->samples);
    free(m->others);
    u64map_free(&m->other_index);
    memset(m, 0, sizeof *m);
}

size_t dom_map_bytes(const dom_map *m) {
    return (m->n_bits + 1) * (2 * sizeof *m->starts + sizeof *m->rank) +
           (m->n_heap / 64 + 1) * sizeof *m->samples + m->other_cap * sizeof *m->others +
           m->other_index.cap * 16;
}

uint32_t dom_map_id(const dom_map *m, uint64_t addr) {
    addr = wire_untag(addr);
    uint32_t v = dom_map_heap_id(m, addr);
    if (v)
        return v;
    const uint64_t *i = addr ? u64map_find(&m->other_index, addr) : NULL;
    return i ? m->n_heap + (uint32_t)*i : 0;
}

/* The position of the k-th (0-based) set bit of bits. */
static unsigned select_bit(uint64_t bits, unsigned k) {
    unsigned base = 0;
    for (unsigned c; (c = (unsigned)dom_popcount(bits & 0xff)) <= k; bits >>= 8) {
        k -= c;
        base += 8;
    }
    while (k--)
        bits &= bits - 1;
    return base + (unsigned)__builtin_ctzll(bits);
}

uint64_t dom_map_word(const dom_map *m, uint32_t r) {
    size_t i = (size_t)(m->samples[r / 64] >> 6);
    while (m->rank[i + 1] <= r)
        i++;
    return (uint64_t)i * 64 + select_bit(m->starts[i], r - m->rank[i]);
}

uint64_t dom_map_next_start(const dom_map *m, uint64_t w) {
    size_t i = (size_t)(w >> 6);
    uint64_t bits = (w & 63) ? m->starts[i] & (~UINT64_C(0) << (w & 63)) : m->starts[i];
    while (!bits)
        bits = m->starts[++i];
    return (uint64_t)i * 64 + (uint64_t)__builtin_ctzll(bits);
}

uint64_t dom_map_size(const dom_map *m, uint64_t w) {
    size_t i = (size_t)(w >> 6);
    uint64_t bits = m->ends[i] & (~UINT64_C(0) << (w & 63));
    while (!bits && i + 1 < m->n_bits)
        bits = m->ends[++i];
    uint64_t e = bits ? (uint64_t)i * 64 + (uint64_t)__builtin_ctzll(bits) : w;
    return (e - w + 1) * 8;
}

uint64_t dom_map_addr(const dom_map *m, uint32_t v) {
    if (v > m->n_heap)
        return m->others[v - m->n_heap - 1].addr;
    return heap_dense_addr(m->h, dom_map_word(m, v - 1));
}

uint64_t dom_map_closure_size(const dom_map *m, uint32_t v) {
    if (v > m->n_heap)
        return m->others[v - m->n_heap - 1].size;
    return dom_map_size(m, dom_map_word(m, v - 1));
}
