/* The command table (§6): which handler answers a command id and whether
 * it needs a paused program. Unlike the reference stub, every command
 * that reads the heap refuses to run unpaused (NOT_PAUSED): the block
 * lists and closures move while Haskell code runs. Unknown ids, POLL
 * (not implemented: programs here never pause themselves) and requests
 * too short to parse get BAD_COMMAND instead of silence or an abort. */
#include "stub.h"

typedef struct command {
    uint32_t id;
    bool needs_pause;
    bool reads_memory; /* refresh the map of readable memory first when running */
    stub_handler run;
} command;

static const command commands[] = {
    {1, false, false, cmd_version},
    {2, false, false, cmd_pause},
    {3, false, false, cmd_resume},
    {4, true, true, cmd_roots},
    {5, true, true, cmd_closures},
    {6, true, true, cmd_info_tables},
    {7, true, true, cmd_stack_bitmap},
    {9, true, true, cmd_saved_objects},
    {11, false, true, cmd_con_desc},
    {12, false, false, cmd_source_info},
    {14, true, true, cmd_all_blocks},
    {15, true, true, cmd_block},
    {16, true, true, cmd_fun_bitmap},
    {17, true, true, cmd_srt},
    {18, false, true, cmd_ccs},
    {19, false, true, cmd_cc},
    {20, false, true, cmd_index_table},
    {21, false, true, cmd_ccs_main},
};

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
    out_finish(o, status);
}
