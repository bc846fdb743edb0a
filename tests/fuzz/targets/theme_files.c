/* Theme files: any text, as tui_theme_load reads it from a file. A theme
 * that parses has an era palette within bounds; an error names the file
 * and line on one line. */
#include <string.h>

#include "fuzz_check.h"
#include "heapscope/tui.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    tui_theme theme;
    hs_error err = {0};
    if (tui_theme_parse(text, "fuzz.theme", &theme, &err) == HS_OK) {
        FUZZ_CHECK(theme.n_era >= 1 && theme.n_era <= TUI_ERA_PALETTE_MAX);
        for (size_t i = 0; i < TUI_ROLE_COUNT; i++)
            FUZZ_CHECK(theme.roles[i].fg >= -1 && theme.roles[i].fg <= 255 &&
                       theme.roles[i].bg >= -1 && theme.roles[i].bg <= 255);
    } else {
        FUZZ_CHECK(strncmp(err.message, "fuzz.theme:", 11) == 0);
        FUZZ_CHECK(!strchr(err.message, '\n'));
    }
    free(text);
    return 0;
}
