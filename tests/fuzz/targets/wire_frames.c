/* Response framing and the typed requests: the fuzz input is what the
 * debuggee sends back on a socket (frames of any length and status, cut
 * anywhere, then the peer hangs up). The first byte says how many typed
 * calls to make (1-4), the next bytes which ones; each reads its answer
 * from the stream where the previous one stopped. */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "heapscope/wire.h"

#define MAX_STREAM (128u * 1024u) /* below a socket's buffer: written at once */

static void call(wire_conn *c, uint8_t which) {
    hs_error err = {0};
    static const uint64_t ptrs[3] = {0x4200000010, 0x4200000041, 0x403000};
    switch (which % 18) {
    case 0: { wire_version v; wire_get_version(c, &v, &err); break; }
    case 1: { bool was; wire_pause(c, &was, &err); break; }
    case 2: wire_resume(c, &err); break;
    case 3: { wire_ptr_list l = {0}; wire_roots(c, &l, &err); wire_ptr_list_free(&l); break; }
    case 4: { wire_ptr_list l = {0}; wire_saved_objects(c, &l, &err); wire_ptr_list_free(&l); break; }
    case 5: { wire_blobs b = {0}; wire_closures(c, ptrs, 1 + which / 18 % 3, &b, &err); wire_blobs_free(&b); break; }
    case 6: { wire_blobs b = {0}; wire_info_tables(c, ptrs, 1 + which / 18 % 3, &b, &err); wire_blobs_free(&b); break; }
    case 7: { uint64_t s[3]; wire_srts(c, ptrs, 3, s, &err); break; }
    case 8: { wire_bitmap b = {0}; wire_stack_bitmap(c, ptrs[0], 8, &b, &err); wire_bitmap_free(&b); break; }
    case 9: { wire_bitmap b = {0}; wire_fun_bitmap(c, ptrs[0], 4, &b, &err); wire_bitmap_free(&b); break; }
    case 10: { wire_con_desc d = {0}; wire_get_con_desc(c, ptrs[2], &d, &err); wire_con_desc_free(&d); break; }
    case 11: { wire_source_info s = {0}; wire_get_source_info(c, ptrs[2], &s, &err); wire_source_info_free(&s); break; }
    case 12: { wire_block_list l = {0}; wire_all_blocks(c, &l, &err); wire_block_list_free(&l); break; }
    case 13: { wire_block_list l = {0}; wire_block(c, ptrs[0], &l, &err); wire_block_list_free(&l); break; }
    case 14: { wire_ccs s; wire_get_ccs(c, ptrs[2], &s, &err); break; }
    case 15: { wire_cc s = {0}; wire_get_cc(c, ptrs[2], &s, &err); wire_cc_free(&s); break; }
    case 16: { bool p; wire_query_paused(c, &p, &err); break; }
    default: { uint64_t m; wire_ccs_main(c, &m, &err); break; }
    }
    if (err.status != HS_OK)
        FUZZ_CHECK(err.message[0] && !strchr(err.message, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    size_t calls = 1 + data[0] % 4;
    if (size < 1 + calls)
        return 0;
    const uint8_t *stream = data + 1 + calls;
    size_t len = size - 1 - calls;
    len = len > MAX_STREAM ? MAX_STREAM : len;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return 0;
    int buf = 2 * MAX_STREAM;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    for (size_t off = 0; off < len;) {
        ssize_t n = write(sv[1], stream + off, len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(sv[1], SHUT_WR);
    wire_options o;
    wire_options_default(&o);
    o.io_timeout_ms = 1000; /* the stream is all there: nothing waits */
    o.max_response = 1u << 20;
    wire_conn *c = NULL;
    hs_error err;
    if (wire_conn_from_fd(sv[0], "fuzz", &o, &c, &err) == HS_OK) {
        for (size_t i = 0; i < calls; i++)
            call(c, data[1 + i]);
        wire_close(c);
    }
    close(sv[1]);
    return 0;
}
