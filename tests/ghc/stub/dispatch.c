/* The command table (§6): which handler answers a command id and whether
 * it needs a paused program. Unlike the reference stub, every command
 * that reads the heap refuses to run unpaused (NOT_PAUSED): the block
 * lists and closures move while Haskell code runs. Unknown ids, POLL
 * (not implemented: programs here never pause themselves) and requests
 * too short to parse get BAD_COMMAND instead of silence or an abort. */
#include <stdio.h>
#include <stdlib.h>

#include "stub.h"

typedef struct command {
    const char *name;
    uint32_t id;
    bool needs_pause;
    bool reads_memory; /* refresh the map of readable memory first when running */
    stub_handler run;
} command;

static const command commands[] = {
    {"VERSION", 1, false, false, cmd_version},
    {"PAUSE", 2, false, false, cmd_pause},
    {"RESUME", 3, false, false, cmd_resume},
    {"ROOTS", 4, true, true, cmd_roots},
    {"CLOSURES", 5, true, true, cmd_closures},
    {"INFO_TABLES", 6, true, true, cmd_info_tables},
    {"STACK_BITMAP", 7, true, true, cmd_stack_bitmap},
    {"SAVED_OBJECTS", 9, true, true, cmd_saved_objects},
    {"CON_DESC", 11, false, true, cmd_con_desc},
    {"SOURCE_INFO", 12, false, false, cmd_source_info},
    {"ALL_BLOCKS", 14, true, true, cmd_all_blocks},
    {"BLOCK", 15, true, true, cmd_block},
    {"FUN_BITMAP", 16, true, true, cmd_fun_bitmap},
    {"SRT", 17, true, true, cmd_srt},
    {"CCS", 18, false, true, cmd_ccs},
    {"CC", 19, false, true, cmd_cc},
    {"INDEX_TABLE", 20, false, true, cmd_index_table},
    {"CCS_MAIN", 21, false, true, cmd_ccs_main},
};

/* $HEAPSCOPE_STUB_COUNT: after each request, how many of each command were
 * served so far ("COMMAND N" lines, replaced atomically), so tests can
 * tell what a client asked of a real program (the synthetic debuggee's
 * --count-requests). */
static uint64_t served[32];

static void write_counts(void) {
    const char *path = getenv("HEAPSCOPE_STUB_COUNT");
    char tmp[4096];
    if (!path || !path[0] || snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (served[commands[i].id])
            fprintf(f, "%s %llu\n", commands[i].name, (unsigned long long)served[commands[i].id]);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        remove(tmp);
}

void stub_dispatch(req *r, out *o) {
    const command *cmd = NULL;
    for (size_t i = 0; !r->malformed && i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].id == r->cmd)
            cmd = &commands[i];
    uint16_t status;
    if (!cmd)
        status = ST_BAD_COMMAND;
    else if (cmd->needs_pause && !stub_paused())
        status = ST_NOT_PAUSED;
    else {
        if (cmd->reads_memory && !stub_paused())
            memmap_refresh();
        status = cmd->run(r, o);
    }
    if (status != ST_OKAY)
        o->len = 0; /* error frames are empty; handlers check before writing */
    if (cmd) {
        served[cmd->id]++;
        write_counts(); /* before the answer: a client that got it finds it counted */
    }
    out_finish(o, status);
}
