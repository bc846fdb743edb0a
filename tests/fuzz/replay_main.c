/* Replays fuzz inputs through a target without libFuzzer, so the normal
 * suite (built with gcc, and with ASan/UBSan in build-sanitize) runs every
 * seed and every kept crash: replay DIR|FILE... calls the target's
 * LLVMFuzzerTestOneInput on each file (a directory's files in name order).
 * A crash or a failed invariant aborts; no input at all is an error, since
 * a replay of nothing would pass whatever the code did. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "targets/fuzz_check.h"

static unsigned replayed;

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    /* an input of exactly its size, so that ASan sees any overread */
    uint8_t *input = malloc(len ? len : 1);
    if (input && len)
        memcpy(input, buf, len);
    free(buf);
    if (!input)
        return 1;
    LLVMFuzzerTestOneInput(input, len);
    free(input);
    replayed++;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_path(const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(sb.st_mode))
        return replay_file(path);
    struct dirent **names;
    int n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return 1;
    }
    int status = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char file[4096];
            snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
            status |= replay_file(file);
        }
        free(names[i]);
    }
    free(names);
    return status;
}

int main(int argc, char **argv) {
    int status = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0 && errno == ENOENT && strstr(argv[i], "regressions"))
            continue; /* a target without crashes kept yet */
        status |= replay_path(argv[i]);
    }
    printf("replayed %u inputs\n", replayed);
    if (replayed == 0) {
        fprintf(stderr, "replay: no inputs\n");
        return 1;
    }
    return status;
}
