/* The plan's thunk census ("by_thunk"): reachable thunks (THUNK*,
 * THUNK_STATIC, THUNK_SELECTOR, AP, AP_STACK) counted per info table
 * during the plan's walk, then keyed as heapscope's thunk census keys
 * them: the IPE position of the info table when it names a file, else the
 * IPE module and label (or name without "_info"), else "<info 0x...>". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_gen_internal.h"

static bool is_thunk(unsigned type) {
    return (type >= SG_THUNK && type <= SG_THUNK_SELECTOR) || type == SG_AP ||
           type == SG_AP_STACK;
}

void sg_plan_thunk_count(sg_plan *pl, const sg_closure *cl) {
    if (!is_thunk(cl->type) || pl->bad)
        return;
    size_t i = pl->last_thunk;
    if (i >= pl->nthunks || pl->thunks[i].info != cl->info)
        for (i = 0; i < pl->nthunks && pl->thunks[i].info != cl->info; i++)
            ;
    if (i == pl->nthunks) {
        if (pl->nthunks == pl->capthunks) {
            size_t cap = pl->capthunks ? 2 * pl->capthunks : 64;
            sg_pthunk *n = realloc(pl->thunks, cap * sizeof *n);
            if (!n) {
                pl->bad = true;
                snprintf(pl->why, sizeof pl->why, "out of memory (thunks)");
                return;
            }
            pl->thunks = n;
            pl->capthunks = cap;
        }
        pl->thunks[pl->nthunks++] = (sg_pthunk){.info = cl->info};
    }
    pl->last_thunk = i;
    pl->thunks[i].count++;
    pl->thunks[i].bytes += cl->size;
}

/* Whether an IPE position names a file: the stub sends ":" when an entry
 * has neither file nor span. */
static bool has_file(const char *pos) {
    return *pos && !(pos[0] == ':' && (pos[1] == '\0' || (pos[1] >= '0' && pos[1] <= '9') ||
                                       pos[1] == '('));
}

static void thunk_key(const synth_process *p, uint64_t info, char *key, size_t len) {
    const synth_ipe *ipe = synth_find_ipe(p, info);
    const char *pos = ipe ? ipe->strings[5] : "", *name = ipe ? ipe->strings[0] : "";
    const char *label = ipe ? ipe->strings[3] : "", *module = ipe ? ipe->strings[4] : "";
    char short_name[256];
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, "_info") == 0)
        n -= 5;
    snprintf(short_name, sizeof short_name, "%.*s", (int)n, name);
    const char *what = *label ? label : short_name;
    if (has_file(pos))
        snprintf(key, len, "%s", pos);
    else if (*module && *what)
        snprintf(key, len, "%s (%s)", module, what);
    else if (*module || *what)
        snprintf(key, len, "%s", *what ? what : module);
    else
        snprintf(key, len, "<info 0x%" PRIx64 ">", info);
}

typedef struct keyed {
    char key[300];
    uint64_t count, bytes;
} keyed;

static int by_key(const void *a, const void *b) {
    return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

/* Emits "by_thunk": {KEY: {"count": n, "bytes": b}, ...}, with a JSON
 * string writer and escaper from synth_gen_json.c. */
void sg_plan_thunks_json(sg_ctx *c, sg_buf *b, const sg_plan *pl, const synth_process *p,
                         void (*put)(sg_ctx *, sg_buf *, const char *),
                         void (*esc)(const char *, char *, size_t)) {
    keyed *k = calloc(pl->nthunks ? pl->nthunks : 1, sizeof *k);
    if (!k)
        sg_fail(c, "out of memory (plan)");
    for (size_t i = 0; i < pl->nthunks; i++) {
        thunk_key(p, pl->thunks[i].info, k[i].key, sizeof k[i].key);
        k[i].count = pl->thunks[i].count;
        k[i].bytes = pl->thunks[i].bytes;
    }
    qsort(k, pl->nthunks, sizeof *k, by_key);
    put(c, b, "  \"by_thunk\": {");
    char line[800], e[620];
    for (size_t i = 0, n = 0; i < pl->nthunks; n++) {
        uint64_t count = 0, bytes = 0;
        size_t j = i;
        for (; j < pl->nthunks && strcmp(k[j].key, k[i].key) == 0; j++) {
            count += k[j].count;
            bytes += k[j].bytes;
        }
        esc(k[i].key, e, sizeof e);
        snprintf(line, sizeof line, "%s\n    \"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
                 n ? "," : "", e, count, bytes);
        put(c, b, line);
        i = j;
    }
    put(c, b, "\n  },\n");
    free(k);
}
