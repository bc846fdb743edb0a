/* Pause and resume for any number of capabilities (§7.2, §7.3).
 *
 * GHC 9.2's rts_pause takes every capability with a bound task; 9.0.2 has
 * no rts_pause, but the pieces are there. The server thread makes itself a
 * bound task, takes one capability the way rts_lock does, then asks for
 * all of them with stopAllCapabilities: it needs a capability of its own
 * first because in 9.0 a competing sync (a GC starting on another
 * capability) makes it yield the one it holds, and with none it would
 * crash. Once it holds every capability no Haskell thread runs and no GC
 * can start (a GC needs all capabilities too). Threads inside safe foreign
 * calls keep running C code and block when they try to come back. */
#include "rts_private.h"
#include "stub.h"

static bool paused;
static Task *pause_task;
static group_list groups;
static bool groups_ready;

bool stub_paused(void) { return paused; }

void stub_pause(void) {
    Task *task = newBoundTask();
    Capability *cap = NULL;
    waitForCapability(&cap, task);
    stopAllCapabilities(&cap, task);
    pause_task = task;
    paused = true;
    groups_ready = false;
    if (!memmap_refresh())
        stub_log("cannot read /proc/self/maps: every address will be refused");
}

void stub_resume(void) {
    group_list_free(&groups);
    groups_ready = false;
    /* keep_cap NULL: give back every capability, our own included */
    releaseAllCapabilities(n_capabilities, NULL, pause_task);
    boundTaskExiting(pause_task);
    pause_task = NULL;
    paused = false;
}

const group_list *stub_groups(void) {
    if (paused && !groups_ready) {
        if (!blocks_collect(&groups)) {
            stub_log("out of memory listing the heap's blocks");
            groups.count = 0;
        }
        groups_ready = true;
    }
    return &groups;
}
