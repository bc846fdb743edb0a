/* Parts of cli_session_open shared by session.c and session_ghcdebug.c
 * (private to src/cli). */
#ifndef HEAPSCOPE_CLI_SESSION_INTERNAL_H
#define HEAPSCOPE_CLI_SESSION_INTERNAL_H

#include "heapscope/cli.h"

/* Opens the cache into s->cache unless --no-cache or already open; a cache
 * that cannot be opened is one warning. */
void cli_session_open_cache(cli_session *s, const cli_common *common);
/* A heapscope snapshot file as s->snapshot and s->heap. */
hs_status cli_session_open_store(const char *path, cli_session *s, hs_error *err);
/* A ghc-debug snapshot file: its converted copy in the cache, else the
 * file itself (then converted into the cache). */
hs_status cli_session_open_ghcdebug(const char *target, const cli_common *common,
                                    cli_session *s, hs_error *err);
/* Progress of recording a pause, on stderr. */
bool cli_show_record_progress(void *ctx, const char *phase, uint64_t done, uint64_t total);

#endif
