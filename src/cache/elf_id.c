/* What identifies the contents of an executable file: its GNU build id when
 * the linker wrote one (a hash of the contents, stable and cheap to read),
 * else a hash of every byte. Both read a file that may be hostile: every
 * offset and length is checked against the file before it is used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/bytes.h"
#include "cache_internal.h"

#define ELF_HEADER_BYTES 64
#define ELF_PHDR_BYTES 56
#define MAX_PHDRS 4096
#define MAX_NOTE_BYTES (64u << 10)
#define MAX_BUILD_ID_BYTES 64
#define PT_NOTE_TYPE 4
#define NT_GNU_BUILD_ID_TYPE 3
/* Beyond this a file is not hashed whole: no identity, no reuse. */
#define MAX_HASHED_BYTES (UINT64_C(4) << 30)

static bool read_at(int fd, void *buf, size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += (size_t)n;
    }
    return true;
}

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* The GNU build id in one PT_NOTE segment's bytes, as hex; false if none. */
static bool build_id_in_notes(const uint8_t *p, size_t len, char *hex, size_t cap) {
    size_t at = 0;
    while (len - at >= 12) {
        uint32_t namesz = hs_load_le32(p + at), descsz = hs_load_le32(p + at + 4);
        uint32_t type = hs_load_le32(p + at + 8);
        at += 12;
        if (align4(namesz) > len - at)
            return false;
        const uint8_t *name = p + at;
        at += align4(namesz);
        if (descsz > len - at)
            return false;
        const uint8_t *desc = p + at;
        size_t padded = align4(descsz); /* the last note may lack its padding */
        at += padded <= len - at ? padded : len - at;
        if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
            descsz > 0 && descsz <= MAX_BUILD_ID_BYTES && cap > 2 * (size_t)descsz) {
            for (uint32_t i = 0; i < descsz; i++)
                snprintf(hex + 2 * i, 3, "%02x", desc[i]);
            return true;
        }
    }
    return false;
}

bool cache_elf_build_id(int fd, char *hex, size_t cap) {
    uint8_t eh[ELF_HEADER_BYTES];
    struct stat st;
    if (fstat(fd, &st) != 0 || !read_at(fd, eh, sizeof eh, 0))
        return false;
    /* 64-bit little-endian ELF only: what GHC makes on x86_64 */
    if (memcmp(eh, "\177ELF", 4) != 0 || eh[4] != 2 || eh[5] != 1)
        return false;
    uint64_t phoff = hs_load_le64(eh + 0x20), size = (uint64_t)st.st_size;
    uint16_t phentsize = hs_load_le16(eh + 0x36), phnum = hs_load_le16(eh + 0x38);
    if (phentsize != ELF_PHDR_BYTES || phnum == 0 || phnum > MAX_PHDRS || phoff > size ||
        (uint64_t)phnum * ELF_PHDR_BYTES > size - phoff)
        return false;
    uint8_t *notes = malloc(MAX_NOTE_BYTES);
    bool found = false;
    for (uint16_t i = 0; notes && i < phnum && !found; i++) {
        uint8_t ph[ELF_PHDR_BYTES];
        if (!read_at(fd, ph, sizeof ph, phoff + (uint64_t)i * ELF_PHDR_BYTES))
            break;
        if (hs_load_le32(ph) != PT_NOTE_TYPE)
            continue;
        uint64_t off = hs_load_le64(ph + 8), len = hs_load_le64(ph + 32);
        if (off > size || len > size - off || len > MAX_NOTE_BYTES)
            continue;
        if (read_at(fd, notes, (size_t)len, off))
            found = build_id_in_notes(notes, (size_t)len, hex, cap);
    }
    free(notes);
    return found;
}

/* Two independent 64-bit lanes over 8-byte words: not cryptographic (the
 * file's identity also counts device, inode, size and time), fast enough to
 * hash a large executable at every connection. */
void cache_hash_init(cache_hash *h) {
    *h = (cache_hash){UINT64_C(0x9e3779b97f4a7c15), UINT64_C(0xc2b2ae3d27d4eb4f), 0};
}

void cache_hash_add(cache_hash *h, const uint8_t *p, size_t len) {
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i < 8 ? len - i : 8);
        h->a = (h->a ^ w) * UINT64_C(0xff51afd7ed558ccd);
        h->a ^= h->a >> 29;
        h->b = (h->b + w) * UINT64_C(0x94d049bb133111eb);
        h->b ^= h->b >> 31;
    }
    h->total += len;
}

void cache_hash_hex(const cache_hash *h, char hex[33]) {
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)(h->a ^ h->total),
             (unsigned long long)h->b);
}

bool cache_hash_file(int fd, char hex[33]) {
    enum { CHUNK = 1 << 20 };
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size > MAX_HASHED_BYTES)
        return false;
    uint8_t *buf = malloc(CHUNK);
    if (!buf)
        return false;
    cache_hash h;
    cache_hash_init(&h);
    for (;;) {
        size_t len = 0; /* fill whole chunks: words never straddle two reads */
        while (len < CHUNK) {
            ssize_t n = pread(fd, buf + len, CHUNK - len, (off_t)(h.total + len));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                free(buf);
                return false;
            }
            if (n == 0)
                break;
            len += (size_t)n;
        }
        cache_hash_add(&h, buf, len);
        if (len < CHUNK)
            break;
    }
    free(buf);
    cache_hash_hex(&h, hex);
    return true;
}
