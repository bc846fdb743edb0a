/* The command table and what is read from it: key dispatch, availability,
 * and the key list printed by `heapscope --keys` (plain and as roff for
 * the man page). */
#include "commands.h"

#include <string.h>

#include "app.h"
#include "explorer.h"
#include "file.h"
#include "footer.h"
#include "keys.h"
#include "overlay.h"
#include "picker.h"
#include "search.h"
#include "tui_curses.h"
#include "view.h"
#include "views.h"

#define C TUI_CTRL
#define PROMPT TUI_SCOPE_PROMPT
#define PICK TUI_SCOPE_PICKER
#define EXPL TUI_SCOPE_EXPLORER
#define ANY TUI_SCOPE_ANY
#define PAUSED TUI_NEED_PAUSED
#define RUNNING TUI_NEED_RUNNING
#define ERA TUI_NEED_ERA
#define PROF TUI_NEED_PROFILED
#define NAV (PICK | EXPL)

/* Filter commands, one per kind for "Add filter" and "Add exclusion". */
#define FILTER_COMMANDS(verb, what, fn)                                                        \
    {"Filters", verb ": closure address", {0}, EXPL, PAUSED,                                   \
     what " closures at an address (0x...)", fn, QUERY_FILTER_ADDRESS},                        \
    {"Filters", verb ": info table", {0}, EXPL, PAUSED,                                         \
     what " closures with an info-table pointer (0x...)", fn, QUERY_FILTER_INFO},              \
    {"Filters", verb ": constructor regex", {0}, EXPL, PAUSED,                                 \
     what " constructors whose name matches a regular expression", fn,                        \
     QUERY_FILTER_CONSTRUCTOR},                                                                \
    {"Filters", verb ": exact constructor name", {0}, EXPL, PAUSED,                            \
     what " constructors with exactly this name", fn, QUERY_FILTER_EXACT},                     \
    {"Filters", verb ": closure name", {0}, EXPL, PAUSED,                                      \
     what " closures whose info table (IPE) has this name", fn, QUERY_FILTER_CLOSURE_NAME},    \
    {"Filters", verb ": era range", {0}, EXPL, PAUSED | ERA,                                   \
     what " closures of an era range (N, A-B, A-, -B)", fn, QUERY_FILTER_ERA},                 \
    {"Filters", verb ": cost centre id", {0}, EXPL, PAUSED | PROF,                             \
     what " closures under a cost centre", fn, QUERY_FILTER_COST_CENTRE},                      \
    {"Filters", verb ": closure size", {0}, EXPL, PAUSED,                                      \
     what " closures of at least this many bytes", fn, QUERY_FILTER_MIN_SIZE},                \
    {"Filters", verb ": closure type", {0}, EXPL, PAUSED,                                      \
     what " closures of a closure type (THUNK_2_0, ARR_WORDS, ...)", fn, QUERY_FILTER_TYPE}

const tui_command tui_commands[] = {
    {"General", "Help", {'?'}, ANY, 0, "Show every key binding", tui_cmd_help, 0},
    {"General", "Command palette", {C('p')}, ANY, 0,
     "Find any command by name and run it", tui_cmd_palette, 0},
    {"General", "Cancel or close", {TUI_KEY_ESC}, ANY, 0,
     "Cancel a prompt or long work, close an overlay or message (never resumes or leaves)",
     tui_cmd_cancel, 0},
    {"General", "Quit", {'q', C('c')}, ANY, 0,
     "Quit; while the debuggee is paused, asks first: y resume then quit, n quit leaving it "
     "paused, Esc stay",
     tui_cmd_quit, 0},
    {"General", "Redraw the screen", {0}, ANY, 0, "Repaint the whole terminal", tui_cmd_redraw,
     0},

    {"Debuggee list", "Connect", {'\n'}, PICK, 0,
     "Connect to the selected debuggee, or open the selected snapshot read-only",
     tui_cmd_picker_open, 0},
    {"Debuggee list", "Debuggees or snapshots", {TUI_KEY_TAB}, PICK, 0,
     "Switch between the debuggee sockets and the snapshots (files and recorded pauses)",
     tui_cmd_picker_tab, 0},
    {"Debuggee list", "Mark snapshot for diff", {'m'}, PICK, 0,
     "Mark the selected snapshot or recorded pause as the A of a diff", tui_cmd_diff_mark, 0},
    {"Debuggee list", "Diff with the marked snapshot", {'='}, PICK, 0,
     "Open the selected snapshot (B) with a diff view: the census buckets by constructor (or "
     "the keys of the last diff, b) that grew or shrank from the marked one (A), grown first, "
     "then the eras B has and A does not, as heapscope diff A B lists them",
     tui_cmd_diff_open, 0},

    {"Moving", "Move up", {KEY_UP, 'k'}, NAV, PAUSED, "Select the row above", tui_cmd_request,
     TUI_REQ_UP},
    {"Moving", "Move down", {KEY_DOWN, 'j'}, NAV, PAUSED, "Select the row below", tui_cmd_request,
     TUI_REQ_DOWN},
    {"Moving", "Page up", {KEY_PPAGE}, NAV, PAUSED, "Move up one screen", tui_cmd_request,
     TUI_REQ_PAGE_UP},
    {"Moving", "Page down", {KEY_NPAGE}, NAV, PAUSED, "Move down one screen", tui_cmd_request,
     TUI_REQ_PAGE_DOWN},
    {"Moving", "First row", {KEY_HOME, 'g'}, NAV, PAUSED, "Select the first row", tui_cmd_request,
     TUI_REQ_FIRST},
    {"Moving", "Last row", {KEY_END, 'G'}, NAV, PAUSED, "Select the last row", tui_cmd_request,
     TUI_REQ_LAST},

    {"Debuggee", "Pause", {'p'}, EXPL, RUNNING | TUI_NEED_LIVE,
     "Pause the debuggee and explore its heap", tui_cmd_pause, 0},
    {"Debuggee", "Resume", {'r', C('r')}, EXPL, TUI_NEED_STOPPED | TUI_NEED_LIVE,
     "Resume the debuggee, whoever paused it (the views of its heap are dropped)",
     tui_cmd_resume, 0},
    {"Debuggee", "Save snapshot", {C('x')}, EXPL, PAUSED,
     "Save the pause on screen in a snapshot file; asks for a name (a bare name goes into "
     "ghc-debug's snapshot directory, a name with a / is a path) and before replacing a file; "
     "on a snapshot, saves a copy",
     tui_cmd_save, 0},
    {"Debuggee", "Diff with the previous pause", {'P'}, EXPL, PAUSED | TUI_NEED_LIVE,
     "After resume and pause: the census buckets by constructor (or the keys of the last diff, "
     "b) that grew or shrank since the pause before (the cache's recording of it), grown "
     "first, then the eras this pause has and that one does not",
     tui_cmd_diff_previous, 0},
    {"Debuggee", "Disconnect", {0}, EXPL, TUI_NEED_LEAVABLE,
     "Leave the running debuggee, or close the snapshot, and go back to the list",
     tui_cmd_disconnect, 0},

    {"Tree", "Expand", {KEY_RIGHT, 'l', '\n'}, EXPL, PAUSED,
     "Open the selected closure (its children are read now); on an open one, go to its first "
     "child; on a census row or a value of the strings, search the retainers of exactly its "
     "closures",
     tui_cmd_request, TUI_REQ_OPEN},
    {"Tree", "Collapse or go to parent", {KEY_LEFT, 'h'}, EXPL, PAUSED,
     "Close the selected node, or select its parent", tui_cmd_request, TUI_REQ_CLOSE},
    {"Tree", "Collapse all", {TUI_KEY_SHIFT_LEFT, 'H'}, EXPL, PAUSED,
     "Close every node of the view", tui_cmd_request, TUI_REQ_CLOSE_ALL},
    {"Tree", "Find text", {'/'}, EXPL, PAUSED,
     "Find text in the visible rows of the tree", tui_cmd_find, 0},
    {"Tree", "Find next", {'n'}, EXPL, PAUSED, "Find the same text again, further down",
     tui_cmd_find_next, 0},
    {"Tree", "Back", {TUI_KEY_ALT_LEFT}, EXPL, PAUSED,
     "Go back to the previous view (the roots, an earlier search)", tui_cmd_back, 0},
    {"Tree", "Forward", {TUI_KEY_ALT_RIGHT}, EXPL, PAUSED, "Go forward again after Back",
     tui_cmd_forward, 0},
    {"Tree", "Era colours", {'e'}, EXPL, PAUSED,
     "Colour each row by its closure's era, with a legend (era profiling)", tui_cmd_eras, 0},
    {"Tree", "Details pane", {'d'}, EXPL, PAUSED,
     "Show or hide the details of the selected closure", tui_cmd_details, 0},
    {"Tree", "Saved objects and GC roots", {C('s')}, EXPL, PAUSED,
     "Back to the roots view", tui_cmd_roots, 0},

    {"Search", "Find retainers", {C('e')}, EXPL, PAUSED,
     "Retainers of the constructors whose name matches a regular expression", tui_cmd_find_by,
     QUERY_FILTER_CONSTRUCTOR},
    {"Search", "Find retainers (exact name)", {0}, EXPL, PAUSED,
     "Retainers of the constructors with exactly this name", tui_cmd_find_by,
     QUERY_FILTER_EXACT},
    {"Search", "Find retainers (closure name)", {0}, EXPL, PAUSED,
     "Retainers of the closures whose info table (IPE) has this name", tui_cmd_find_by,
     QUERY_FILTER_CLOSURE_NAME},
    {"Search", "Find address", {C('a')}, EXPL, PAUSED,
     "The closure at an address (the selected closure's unless another is typed), with its "
     "retainers",
     tui_cmd_find_by, QUERY_FILTER_ADDRESS},
    {"Search", "Find info table", {C('t')}, EXPL, PAUSED,
     "Closures with an info-table pointer, with their retainers", tui_cmd_find_by,
     QUERY_FILTER_INFO},
    {"Search", "Find closures by era", {C('v')}, EXPL, PAUSED | ERA,
     "Closures of an era range, with their retainers", tui_cmd_find_by, QUERY_FILTER_ERA},
    {"Search", "Find large ARR_WORDS", {C('u')}, EXPL, PAUSED,
     "Retainers of ARR_WORDS of at least a size", tui_cmd_find_large, 0},
    {"Search", "Search with filters", {C('f')}, EXPL, PAUSED,
     "Retainers of the closures that pass every active filter", tui_cmd_search, 0},
    {"Search", "Merged paths", {'m'}, EXPL, PAUSED,
     "On a search's results, switch between the list of matches and the prefix tree of their "
     "retainer paths: each closure once, with the matches at or below it and their bytes",
     tui_cmd_merged, 0},
    {"Search", "Set search limit", {C('l')}, EXPL, PAUSED,
     "Most matches a search shows (0 for no limit; default 100)", tui_cmd_limit, 0},

    {"Census", "Census", {'c'}, EXPL, PAUSED,
     "Count the reachable closures that pass the active filters by type, constructor, source, "
     "closure-name, era, cost-centre or thunk, optionally with a second level (asks for A or "
     "A,B); columns count, bytes, max and average, and retained once the dominator tree exists "
     "(R)",
     tui_cmd_census, 0},
    {"Census", "Thunks", {'t'}, EXPL, PAUSED,
     "The thunks grouped by source location (or info table when there is none), largest first",
     tui_cmd_thunks, 0},
    {"Census", "Strings", {'S'}, EXPL, PAUSED,
     "The values of the byte arrays, Text, ByteString and String lists that pass the active "
     "filters, grouped by value: copies, bytes and bytes wasted by duplicates",
     tui_cmd_strings, 0},
    {"Census", "Sort", {'s'}, EXPL, PAUSED,
     "Sort a census by its next column (bytes, count, max, average, key, retained: computes "
     "the retained sizes first, Esc cancels), or the strings (wasted, bytes, count, length, "
     "value)",
     tui_cmd_request, TUI_REQ_SORT},
    {"Census", "Diff by", {'b'}, EXPL, PAUSED,
     "In a diff view, diff again by other census keys (asks for A or A,B, as diff --by): type, "
     "constructor, source, closure-name, era, cost-centre or thunk; later diffs use them too",
     tui_cmd_diff_by, 0},
    {"Census", "Dump byte array", {'x'}, EXPL, PAUSED,
     "The bytes of the selected ARR_WORDS (or of a string's array) in hex and text, a screen "
     "at a time",
     tui_cmd_dump, 0},

    {"Leaks", "Dominators", {'D'}, EXPL, PAUSED,
     "The closures that retain most (the bytes that would become unreachable without them): "
     "retained and own bytes, type, closure and source location; Enter opens a closure into "
     "what it dominates. The dominator tree is computed once per pause (Esc cancels); then the "
     "details pane shows retained sizes too",
     tui_cmd_dominators, 0},
    {"Leaks", "Leaks", {'L'}, EXPL, PAUSED | ERA,
     "Where closures of a newer era retain older ones, grouped by the names of the retainers "
     "and the retained closures (constructor, IPE label and location, else type and info "
     "table) and the retainers' kind, ranked as heapscope leaks ranks them (what thunks, "
     "functions and stacks hold first); Enter opens a group's edges (as leaks --group lists "
     "them, up to the search limit), each opening into its newer retainer and the field "
     "holding the older closure",
     tui_cmd_leaks, 0},

    {"Leaks", "Retained sizes", {'R'}, EXPL, PAUSED,
     "Compute the dominator tree of this pause (once; Esc cancels): then search results show "
     "each match's retained size, a census a retained column (also sortable), and the details "
     "pane the selected closure's",
     tui_cmd_retained, 0},

    FILTER_COMMANDS("Add filter", "Keep only", tui_cmd_add_filter),
    FILTER_COMMANDS("Add exclusion", "Leave out", tui_cmd_add_exclusion),
    {"Filters", "Remove a filter", {0}, EXPL, PAUSED, "Remove one of the active filters",
     tui_cmd_remove_filter, 0},
    {"Filters", "Clear filters", {C('w')}, EXPL, PAUSED, "Remove every active filter",
     tui_cmd_clear_filters, 0},

    {"While typing", "Accept", {'\n'}, PROMPT, 0, "Run what the prompt asks for",
     tui_cmd_prompt_accept, 0},
    {"While typing", "Cancel the prompt", {TUI_KEY_ESC, C('c')}, PROMPT, 0,
     "Close the prompt; nothing happens", tui_cmd_prompt_cancel, 0},
    {"While typing", "Invert the filter", {C('g')}, PROMPT, 0,
     "Turn the filter being typed into an exclusion and back (the prompt shows a leading !)",
     tui_cmd_prompt_invert, 0},
    {"While typing", "Move in the text", {KEY_LEFT, KEY_RIGHT}, PROMPT, 0,
     "Move the cursor a character", tui_cmd_prompt_edit, 0},
    {"While typing", "Start or end of the text", {KEY_HOME, KEY_END, C('a'), C('e')}, PROMPT, 0,
     "Move the cursor to the start or the end", tui_cmd_prompt_edit, 0},
    {"While typing", "Delete a character", {KEY_BACKSPACE, KEY_DC, C('d')}, PROMPT, 0,
     "Delete before (Backspace) or under the cursor", tui_cmd_prompt_edit, 0},
    {"While typing", "Delete to the start", {C('u')}, PROMPT, 0,
     "Delete everything before the cursor", tui_cmd_prompt_edit, 0},
    {"While typing", "Delete to the end", {C('k')}, PROMPT, 0,
     "Delete everything from the cursor on", tui_cmd_prompt_edit, 0},
};

const size_t tui_n_commands = sizeof tui_commands / sizeof tui_commands[0];

static unsigned current_scope(const tui_app *app) {
    if (app->mode == TUI_MODE_PROMPT)
        return TUI_SCOPE_PROMPT;
    return tui_app_view((tui_app *)app)->ops->scope;
}

const char *tui_command_unavailable(const tui_app *app, const tui_command *cmd) {
    unsigned where = current_scope(app);
    if (!(cmd->scope & where)) {
        if (cmd->scope == TUI_SCOPE_PROMPT)
            return "only while typing in a prompt";
        return where == TUI_SCOPE_PICKER ? "connect to a debuggee first"
                                         : "only in the debuggee list";
    }
    if (where != TUI_SCOPE_EXPLORER)
        return NULL;
    bool paused = app->ex.n_hist > 0; /* a heap's views are shown */
    session_caps caps = session_caps_of(app->sess);
    bool file = app->sess && !caps.live;
    if ((cmd->needs & TUI_NEED_LIVE) && file)
        return cmd->needs & TUI_NEED_RUNNING ? caps.why_no_pause : caps.why_no_resume;
    if ((cmd->needs & TUI_NEED_LEAVABLE) && paused && !file)
        return "the debuggee is paused: resume it first (r)";
    if ((cmd->needs & TUI_NEED_PAUSED) && !paused)
        return "pause the debuggee first (p)";
    if ((cmd->needs & TUI_NEED_RUNNING) && paused)
        return "the debuggee is paused: resume it first (r)";
    if ((cmd->needs & TUI_NEED_STOPPED) && !session_paused(app->sess) && !paused)
        return "the debuggee is running";
    int mode = session_prof_mode(app->sess);
    if ((cmd->needs & TUI_NEED_ERA) && mode != WIRE_PROF_ERA) {
        static char why[160]; /* the explorer runs on one thread */
        const wire_version *v = app->sess ? session_known_version(app->sess) : NULL;
        char advice[120] = "run the program with +RTS -he";
        if (v)
            heap_era_advice(v, advice, sizeof advice);
        snprintf(why, sizeof why, "needs era profiling (%s)", advice);
        return why;
    }
    if ((cmd->needs & TUI_NEED_PROFILED) && mode == WIRE_PROF_NONE)
        return "needs a profiled program (built with -prof)";
    return NULL;
}

static bool command_has_key(const tui_command *cmd, int key) {
    for (int i = 0; i < TUI_COMMAND_KEYS && cmd->keys[i]; i++) {
        int k = cmd->keys[i];
        if (k == key || (k == '\n' && tui_key_is_enter(key)) ||
            (k == KEY_BACKSPACE && tui_key_is_backspace(key)))
            return true;
    }
    return false;
}

bool tui_command_dispatch(tui_app *app, int key) {
    const tui_command *disabled = NULL;
    const char *why = NULL;
    unsigned scope = current_scope(app);
    app->key = key;
    for (size_t i = 0; i < tui_n_commands; i++) {
        const tui_command *cmd = &tui_commands[i];
        if (!(cmd->scope & scope) || !command_has_key(cmd, key))
            continue;
        const char *reason = tui_command_unavailable(app, cmd);
        if (!reason) {
            cmd->run(app, cmd->arg);
            return true;
        }
        if (!disabled) {
            disabled = cmd;
            why = reason;
        }
    }
    if (!disabled)
        return false;
    tui_app_message(app, TUI_ROLE_ERROR, "%s: %s", disabled->name, why);
    return true;
}

void tui_command_keys(const tui_command *cmd, bool ascii, const char *sep, char *buf,
                      size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < TUI_COMMAND_KEYS && cmd->keys[i]; i++) {
        char one[32];
        const char *name = tui_key_name(cmd->keys[i], ascii, one, sizeof one);
        int n = snprintf(buf + len, cap - len, "%s%s", i ? sep : "", name);
        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
}

const tui_command *tui_command_named(const char *name) {
    for (size_t i = 0; i < tui_n_commands; i++)
        if (strcmp(tui_commands[i].name, name) == 0)
            return &tui_commands[i];
    return NULL;
}

const char *tui_command_key(const char *name, char *buf, size_t cap) {
    const tui_command *cmd = tui_command_named(name);
    if (cmd && cmd->keys[0])
        return tui_key_name(cmd->keys[0], !tui_term_caps_get()->utf8, buf, cap);
    return "";
}

static const char *scope_text(const tui_command *cmd) {
    if (cmd->scope == TUI_SCOPE_PROMPT)
        return "typing";
    if (cmd->scope == TUI_SCOPE_ANY)
        return cmd->needs & TUI_NEED_PAUSED ? "list, paused" : "anywhere";
    if (cmd->scope == TUI_SCOPE_PICKER)
        return "list";
    if (cmd->needs & (TUI_NEED_PAUSED | TUI_NEED_STOPPED))
        return "paused";
    if (cmd->needs & TUI_NEED_RUNNING)
        return "running";
    return "connected";
}

static const char *needs_text(const tui_command *cmd) {
    if (cmd->needs & TUI_NEED_ERA)
        return "era profiling";
    if (cmd->needs & TUI_NEED_PROFILED)
        return "profiling";
    return "-";
}

void tui_commands_print(FILE *out) {
    fputs("# heapscope keys: KEYS<TAB>WHERE<TAB>NEEDS<TAB>COMMAND<TAB>WHAT IT DOES\n"
          "# KEYS is '-' for commands run from the palette (Ctrl-P) only.\n",
          out);
    for (size_t i = 0; i < tui_n_commands; i++) {
        const tui_command *cmd = &tui_commands[i];
        char keys[96];
        tui_command_keys(cmd, true, ", ", keys, sizeof keys);
        fprintf(out, "%s\t%s\t%s\t%s\t%s\n", keys[0] ? keys : "-", scope_text(cmd),
                needs_text(cmd), cmd->name, cmd->help);
    }
}

/* Text for roff: a leading '.' or '\'' would start a request, '\' an escape.
 * Hyphens stay plain so that "Ctrl-E" reads the same in the source. */
static void roff_text(FILE *out, const char *s) {
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else
            fputc(*s, out);
    }
}

void tui_commands_print_man(FILE *out) {
    const char *group = NULL;
    fputs(".\\\" Generated by `heapscope --keys=man` from the TUI's command table.\n", out);
    for (size_t i = 0; i < tui_n_commands; i++) {
        const tui_command *cmd = &tui_commands[i];
        if (!group || strcmp(group, cmd->group) != 0) {
            group = cmd->group;
            fputs(".SS ", out);
            roff_text(out, group);
            fputc('\n', out);
        }
        char keys[96];
        tui_command_keys(cmd, true, ", ", keys, sizeof keys);
        fputs(".TP\n.B ", out);
        roff_text(out, keys[0] ? keys : "(palette)");
        fputc('\n', out);
        roff_text(out, cmd->name);
        fputs(": ", out);
        roff_text(out, cmd->help);
        if (cmd->needs & (TUI_NEED_ERA | TUI_NEED_PROFILED)) {
            fputs(" (needs ", out);
            roff_text(out, needs_text(cmd));
            fputc(')', out);
        }
        fputs(".\n", out);
    }
}
