/* The command table: one row per batch command, and the explorer's row
 * (what runs without a command). Parsing, --help and the man page's
 * COMMANDS section come from it (see table.h). */
#include <string.h>

#include "table.h"

static int run_info(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_info(args[0], common);
}

static int run_roots(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_roots(args[0], common);
}

static int run_show(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_show(args[0], args[1], common);
}

static int run_census(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_census(args[0], common);
}

static int run_thunks(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_thunks(args[0], common);
}

static int run_retainers(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_retainers(args[0], common);
}

static int run_cache(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_cache(args[0], common);
}

static int run_find(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_find(args[0], common);
}

static int run_dominators(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_dominators(args[0], common);
}

static int run_snapshot(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_snapshot(args[0], common);
}

static int run_strings(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_strings(args[0], common);
}

static int run_dump(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_dump(args[0], args[1], common);
}

static int run_diff(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_diff(args[0], args[1], common);
}

static int run_leaks(char **args, int n_args, const cli_common *common) {
    (void)n_args;
    return cli_leaks(args[0], common);
}

/* ---- the man page's COMMANDS entries (roff) ---- */

static const char man_snapshot[] =
    "Pause the debuggee (or read a snapshot file), and write the pause into\n"
    "the snapshot file given by\n"
    ".BR \\-o ,\n"
    "atomically, with progress on a terminal; then print what it wrote\n"
    "(with\n"
    ".BR \\-\\-json :\n"
    ".BR file ,\n"
    ".BR closures ,\n"
    ".BR closure_bytes ,\n"
    ".BR heap_bytes ,\n"
    ".B file_bytes\n"
    "and\n"
    ".BR unreadable ).\n"
    "Closures that cannot be read are left out of the file's closures table\n"
    "and counted, as by\n"
    ".BR census .\n"
    "Every command accepts the file as its\n"
    ".IR TARGET ;\n"
    "see\n"
    ".BR \"SNAPSHOT FILES\" .\n";

static const char man_info[] =
    "Print the debuggee's GHC version, profiling mode and whether it uses\n"
    "tables next to code. Does not pause the program. With\n"
    ".BR \\-\\-json ,\n"
    "prints one JSON object with the keys\n"
    ".BR target ,\n"
    ".BR ghc_version ,\n"
    ".BR ghc_major ,\n"
    ".BR ghc_patch ,\n"
    ".BR profiling_mode ,\n"
    ".B profiling\n"
    "and\n"
    ".BR tables_next_to_code .\n";

static const char man_roots[] =
    "Pause the debuggee, read its heap, and list the saved objects (closures\n"
    "the program registered with the stub) and every GC root: one closure per\n"
    "line with its address, closure type, size in bytes, profiling header\n"
    "(profiled debuggees: era, LDV state or retainer set, and cost centre; see\n"
    ".BR \"PROFILING HEADERS\" ),\n"
    "the one-line text ghc-debug-brick shows (but a constructor's\n"
    "non-pointer word that is an address of this heap, such as a\n"
    ".BR ByteString 's\n"
    ".BR Addr# ,\n"
    "is shown in hex, not decimal: one in a fetched block or GHC's heap range,\n"
    "a static closure read in this pause, or within the span of the program's\n"
    "info tables, where a plain number seldom falls; any other word stays\n"
    "decimal), and its source\n"
    "location when the info table has one. GC roots are the threads first,\n"
    "then stable names and stable pointers. Not capped: every root is listed.\n"
    "A root that cannot be read is listed with the reason (see\n"
    ".BR \"UNREADABLE CLOSURES\" ).\n"
    "With\n"
    ".BR \\-\\-json :\n"
    ".BR saved_objects ,\n"
    ".B roots\n"
    "(a closure each, or\n"
    ".B address\n"
    "and\n"
    ".B unreadable\n"
    "for one that cannot be read) and\n"
    ".BR unreadable .\n";

static const char man_show[] =
    "Show the closure at\n"
    ".I ADDR\n"
    "(hex, tag bits ignored) and its children as a tree, each child labelled\n"
    "with its place in the parent (\"Field 0\", \"SRT\", \"Frame 2 Pointer\", ...).\n"
    ".BI \\-\\-depth \" N\"\n"
    "sets how many levels of children are shown (default 2, at most 64); at\n"
    "most 100 children of one closure are shown, then a count of the rest. A\n"
    "closure met a second time is marked \"(shown above)\" and not expanded\n"
    "again. With\n"
    ".BR \\-\\-json ,\n"
    "a nested object: each node has\n"
    ".BR edge ,\n"
    ".B closure\n"
    "(as in\n"
    ".BR roots ),\n"
    ".B children\n"
    "and, for repeats,\n"
    ".BR repeated .\n"
    "A child that cannot be read (see\n"
    ".BR \"UNREADABLE CLOSURES\" )\n"
    "is shown with the reason and no children; in JSON its\n"
    ".B closure\n"
    "has just\n"
    ".B address\n"
    "and\n"
    ".BR unreadable .\n"
    "An address that is no closure of this pause (made up, inside a closure,\n"
    "or copied before the program ran on) is an error saying so, status 1:\n"
    "nothing is asked about it and nothing is printed (see\n"
    ".BR ADDRESSES ).\n";

static const char man_census[] =
    "Count every closure reachable from the GC roots once and sum its size,\n"
    "per bucket, largest first.\n"
    ".BI \\-\\-by \" KIND\"\n"
    "chooses the buckets:\n"
    ".B type\n"
    "(closure type, the default),\n"
    ".B constructor\n"
    "(package:module:name for constructors, closure type otherwise \\(em the\n"
    "census of ghc-debug),\n"
    ".B era\n"
    "(the era of each closure's profiling header; needs a debuggee run with\n"
    ".BR \"+RTS \\-he\" ),\n"
    ".B source\n"
    "(the source location of each closure's info table, or\n"
    ".BR \"<no location>\" ),\n"
    ".B closure\\-name\n"
    "(the info table's name from IPE data, or\n"
    ".BR \"<no name>\" ),\n"
    ".B cost\\-centre\n"
    "(module:label of the cost centre of the closure's cost-centre stack;\n"
    "profiled debuggees) or\n"
    ".B thunk\n"
    "(thunks only, as\n"
    ".B thunks\n"
    "keys them).\n"
    ".BI \\-\\-by \" A,B\"\n"
    "counts at two levels: each row of\n"
    ".I A\n"
    "is followed by its closures' rows by\n"
    ".IR B ,\n"
    "indented. Each row shows bytes, count, the largest closure\n"
    ".RB ( max )\n"
    "and the average size\n"
    ".RB ( avg );\n"
    ".BI \\-\\-sort \" COLUMN\"\n"
    "orders both levels by\n"
    ".BR count ,\n"
    ".B bytes\n"
    "(the default),\n"
    ".BR max ,\n"
    ".B avg\n"
    "(largest first) or\n"
    ".B key\n"
    "(alphabetical).\n"
    "With filters (see\n"
    ".BR FILTERS )\n"
    "only the closures that pass them are counted; the walk still goes\n"
    "through every closure, and the title says how many were visited.\n"
    ".BI \\-\\-top \" N\"\n"
    "shows only the first N rows (of each level). The closures of a row are\n"
    "exactly those the filter\n"
    ".BI \\-\\-bucket \" KIND=KEY\"\n"
    "selects, so\n"
    ".B retainers \\-\\-bucket\n"
    "finds what holds them. With\n"
    ".BR \\-\\-json :\n"
    ".B by\n"
    "(as given),\n"
    ".BR levels ,\n"
    ".BR sort ,\n"
    ".BR filters ,\n"
    ".BR total_count ,\n"
    ".BR total_bytes ,\n"
    ".BR visited ,\n"
    ".B rows\n"
    "of\n"
    ".BR key ,\n"
    ".BR count ,\n"
    ".BR bytes ,\n"
    ".BR max ,\n"
    ".BR avg ,\n"
    ".B bucket\n"
    "(the\n"
    ".B \\-\\-bucket\n"
    "value of the row) and, with two levels,\n"
    ".B children\n"
    "(rows of the second level), and\n"
    ".B unreadable\n"
    "(see\n"
    ".BR \"UNREADABLE CLOSURES\" ).\n";

static const char man_thunks[] =
    "The thunks reachable from the GC roots (closures of type THUNK, THUNK_1_0\n"
    "to THUNK_0_2, THUNK_STATIC, THUNK_SELECTOR, AP and AP_STACK: work not done\n"
    "yet), grouped by the source location of their info table, or, when it has\n"
    "none (a program built without\n"
    ".BR \\-finfo\\-table\\-map ),\n"
    "by info table:\n"
    ".B \"<info 0x...>\"\n"
    "followed by the table's IPE name when it has one. Count, bytes, largest\n"
    "and average size per row, largest first;\n"
    ".B \\-\\-sort\n"
    "and\n"
    ".B \\-\\-top\n"
    "work as for\n"
    ".BR census ,\n"
    "and filters choose which thunks are counted. The thunks of a row are those\n"
    "the filter\n"
    ".BI \"\\-\\-bucket thunk=\" KEY\n"
    "selects: the last line shows the\n"
    ".B retainers\n"
    "command for the first row. With\n"
    ".BR \\-\\-json ,\n"
    "the keys of\n"
    ".B census\n"
    "(each row's\n"
    ".B bucket\n"
    "is its\n"
    ".B \\-\\-bucket\n"
    "value).\n";

static const char man_retainers[] =
    "Find the closures that pass every filter (see\n"
    ".BR FILTERS ;\n"
    "at least one is required) and print, for each, a\n"
    ".I shortest\n"
    "path to it from the GC roots, or from a saved object when no GC root\n"
    "reaches it: one block per match, root first, one line per closure with\n"
    "the field of the previous closure that holds it (\"Stack\", \"Frame 1\n"
    "Pointer\", \"Value\", \"Field 0\", ...), its address, closure type, size,\n"
    "profiling header (profiled debuggees, as in\n"
    ".BR roots ),\n"
    "text and source location. An edge where a\n"
    "closure of a newer era retains one of an older era \\(em the signature of\n"
    "a leak \\(em is marked\n"
    ".BR \"<\\- newer retains older: era E1 holds era E2\" ,\n"
    "and the block's title counts such edges. Era 0 (static closures, which\n"
    "no era allocated) is never called older. The search walks the heap\n"
    "breadth first from the GC roots, then, over what they do not reach, from\n"
    "the saved objects, so matches come nearest first (those a GC root\n"
    "reaches before those only a saved object reaches), and stops after\n"
    ".B \\-\\-limit\n"
    "matches (default 100; 0 for all); the last line gives the number of\n"
    "matches, whether the limit stopped the search, and the closures visited.\n"
    "A match that lies below another match is reported too.\n"
    ".IP\n"
    "This differs from ghc-debug, whose depth-first search reports the first\n"
    "path its walk happens on \\(em often thousands of steps through a long\n"
    "list where a path of five exists \\(em and lists the results last found\n"
    "first.\n"
    ".IP\n"
    "With\n"
    ".BR \\-\\-json :\n"
    ".BR filters ,\n"
    ".BR limit ,\n"
    ".B limit_reached\n"
    "(true when the search stopped at the limit: there may be more),\n"
    ".B count\n"
    "(matches),\n"
    ".BR visited ,\n"
    ".B unreadable\n"
    "(see\n"
    ".BR \"UNREADABLE CLOSURES\" )\n"
    "and\n"
    ".BR matches ,\n"
    "each with\n"
    ".BR number ,\n"
    ".BR depth ,\n"
    ".B start\n"
    "(\"gc-root\" or \"saved-object\"),\n"
    ".B newer_retains_older\n"
    "(the number of marked edges) and\n"
    ".BR path ,\n"
    "root first: per closure the keys of\n"
    ".B roots\n"
    "plus\n"
    ".B edge\n"
    "(null for the first) and\n"
    ".BR newer_retains_older .\n";

static const char man_find[] =
    "The closures that pass every filter, one line each as in\n"
    ".BR roots ,\n"
    "in the same breadth-first order and with the same\n"
    ".B \\-\\-limit\n"
    "as\n"
    ".BR retainers ,\n"
    "but without paths (nothing is recorded per closure, so it is the cheaper\n"
    "question). With no filter every closure matches. With\n"
    ".BR \\-\\-json :\n"
    ".BR filters ,\n"
    ".BR limit ,\n"
    ".BR limit_reached ,\n"
    ".BR count ,\n"
    ".BR visited ,\n"
    ".B unreadable\n"
    "and\n"
    ".B matches\n"
    "of\n"
    ".BR number ,\n"
    ".B depth\n"
    "(edges from the nearest root) and\n"
    ".BR closure .\n";

static const char man_cache[] =
    "The cache (see\n"
    ".BR CACHE ).\n"
    ".B list\n"
    "prints the cache directory, its size against the cap, how many programs\n"
    "have cached answers, and the recorded pauses, newest first: the time of\n"
    "the pause, the program, its pid, the closures reachable from the GC roots,\n"
    "the heap's size and the snapshot file, which every command opens as a\n"
    "TARGET. The first column names each pause as\n"
    ".B diff\n"
    "takes it:\n"
    ".BI cache: N\n"
    "for the\n"
    ".IR N th\n"
    "row (1 for the newest). With\n"
    ".BR \\-\\-json ,\n"
    "one object with the keys\n"
    ".BR dir ,\n"
    ".BR db_bytes ,\n"
    ".BR pause_bytes ,\n"
    ".BR max_bytes ,\n"
    ".B programs\n"
    "and\n"
    ".BR pauses ,\n"
    "a list of objects with\n"
    ".BR file ,\n"
    ".BR program ,\n"
    ".BR exe ,\n"
    ".BR pid ,\n"
    ".BR target ,\n"
    ".B paused_at\n"
    "(Unix time),\n"
    ".BR closures ,\n"
    ".B heap_bytes\n"
    "and\n"
    ".BR file_bytes .\n"
    ".B clear\n"
    "removes the cache database and every recorded pause (also a damaged or\n"
    "foreign\n"
    ".BR cache.db ).\n";

static const char man_strings[] =
    "The strings and byte arrays reachable from the GC roots, grouped by\n"
    "value, the most bytes wasted by duplicates first: byte arrays\n"
    "(ARR_WORDS),\n"
    ".B Text\n"
    "(text 2 stores UTF-8; text 1, as GHC 9.0 ships it, UTF-16, shown as\n"
    "UTF-8),\n"
    ".B ByteString\n"
    "(bytestring's\n"
    ".B BS\n"
    "and, before 0.11,\n"
    ".BR PS ,\n"
    "over a\n"
    ".B PlainPtr\n"
    "or\n"
    ".BR MallocPtr ,\n"
    "also slices at an offset into their array)\n"
    "and\n"
    ".B String\n"
    "(a list of\n"
    ".B C#\n"
    "boxes ending in\n"
    ".BR [] ,\n"
    "counted once, at its first cell: the tails a list is made of are part of\n"
    "it, not strings of their own). Values are read through the indirections\n"
    "evaluated thunks leave until a GC removes them (a\n"
    ".B BLACKHOLE\n"
    "or\n"
    ".B IND\n"
    "whose indirectee is the value), in a\n"
    ".BR String 's\n"
    "cells, characters and tails and in a\n"
    ".BR ByteString 's\n"
    "contents; a value reached through several is counted once, and the\n"
    "indirections are not part of its bytes. A\n"
    ".B BLACKHOLE\n"
    "under evaluation (its indirectee a thread) is not evaluated yet.\n"
    "Per value: the bytes wasted by its duplicates (the bytes of all copies\n"
    "but the smallest), the bytes of all copies, their count, the value's\n"
    "length in bytes, the kinds holding it and the value, cut at 48\n"
    "characters. A copy's bytes are its own closures: a\n"
    ".B Text\n"
    "or\n"
    ".B ByteString\n"
    "counts its constructor and its array (and contents) when it is the\n"
    "first to hold them, so an array shared by slices counts once; an array\n"
    "that none holds is a copy of its own; a\n"
    ".B String\n"
    "counts its cells and heap\n"
    ".B C#\n"
    "boxes not already counted. Values are shown with\n"
    ".B \\ex\\fINN\\fP\n"
    "escapes for bytes that are not printable ASCII or UTF-8, as\n"
    ".B \\-\\-value\n"
    "takes them. Not counted (a line says how many):\n"
    ".BR ByteString s\n"
    "whose bytes live outside the GHC heap (over a\n"
    ".B PlainForeignPtr\n"
    "or\n"
    ".BR FinalPtr :\n"
    "malloc'd or static memory), and lists of characters (or a\n"
    ".BR ByteString 's\n"
    "contents) not fully evaluated. Filters count only the copies whose\n"
    "closure matches.\n"
    ".BI \\-\\-top \" N\"\n"
    "shows the first N values. With\n"
    ".BR \\-\\-json :\n"
    ".BR total_count ,\n"
    ".BR total_bytes ,\n"
    ".BR total_wasted ,\n"
    ".B distinct\n"
    "(values),\n"
    ".BR external ,\n"
    ".BR skipped ,\n"
    ".B rows\n"
    "of\n"
    ".B kinds\n"
    "(comma-joined),\n"
    ".B value\n"
    "(escaped, at most 1024 characters),\n"
    ".B complete\n"
    "(false when cut),\n"
    ".BR length ,\n"
    ".BR count ,\n"
    ".BR bytes ,\n"
    ".BR wasted ,\n"
    ".B first\n"
    "(the address of the first copy) and\n"
    ".B first_array\n"
    "(the byte array holding it, for\n"
    ".BR dump ;\n"
    "null for a String), and\n"
    ".BR unreadable .\n";

static const char man_dump[] =
    "Write the bytes of the byte array (ARR_WORDS) at\n"
    ".I ADDR\n"
    "\\(em exactly its payload, of any size \\(em to the file given by\n"
    ".BR \\-o ,\n"
    "which must not exist unless\n"
    ".B \\-\\-force\n"
    "is given (as for\n"
    ".BR snapshot ;\n"
    "the file is written aside and moved into place whole). An address\n"
    "that is no closure of this pause (see\n"
    ".BR ADDRESSES ),\n"
    "or a\n"
    "closure that is not a byte array, is an error saying so, and no file is\n"
    "written. With\n"
    ".BR \\-\\-json :\n"
    ".BR file ,\n"
    ".B address\n"
    "and\n"
    ".BR bytes .\n";

static const char man_diff[] =
    "Take the census of pause\n"
    ".I A\n"
    "and of pause\n"
    ".I B\n"
    "(as\n"
    ".B census\n"
    "does, by\n"
    ".B \\-\\-by\n"
    "with\n"
    ".B constructor\n"
    "as the default, filters applying to both) and print the buckets whose\n"
    "count or bytes changed: bytes and count in A and in B and the change,\n"
    "the buckets that grew first (most bytes gained first), then those that\n"
    "shrank (most bytes lost first); a bucket only one side has counts 0 on\n"
    "the other. With two levels\n"
    ".RI ( \\-\\-by \" K1,K2\" ),\n"
    "each row is followed by its changed second-level rows, indented.\n"
    ".BI \\-\\-top \" N\"\n"
    "shows the first N rows of each level. The last lines give the closures\n"
    "of the eras B has and A does not, per era, when both pauses have era\n"
    "profiling\n"
    ".RB ( \"+RTS \\-he\" ),\n"
    "or why they were not compared.\n"
    ".I A\n"
    "and\n"
    ".I B\n"
    "are each a snapshot file, a live debuggee (paused for its census and\n"
    "resumed before the other side is read, so one heap is in memory at a\n"
    "time) or\n"
    ".BI cache: N\n"
    "for the pause on the\n"
    ".IR N th\n"
    "row of\n"
    ".B cache list\n"
    "(1 is the newest recorded pause), so\n"
    ".B heapscope diff cache:2 cache:1\n"
    "compares the two latest. Both are checked before either is paused; each\n"
    "that cannot be read is reported on a line of its own. With\n"
    ".BR \\-\\-json :\n"
    ".BR by ,\n"
    ".BR filters ,\n"
    ".B a\n"
    "and\n"
    ".B b\n"
    "(each with\n"
    ".BR given ,\n"
    ".B target\n"
    "(what was opened),\n"
    ".BR total_count ,\n"
    ".BR total_bytes ,\n"
    ".B visited\n"
    "and\n"
    ".BR unreadable ),\n"
    ".BR count_delta ,\n"
    ".BR bytes_delta ,\n"
    ".BR changed ,\n"
    ".BR unchanged ,\n"
    ".B rows\n"
    "of\n"
    ".BR key ,\n"
    ".BR bucket ,\n"
    ".BR count_a ,\n"
    ".BR bytes_a ,\n"
    ".BR count_b ,\n"
    ".BR bytes_b ,\n"
    ".BR count_delta ,\n"
    ".B bytes_delta\n"
    "and, with two levels,\n"
    ".B children\n"
    "and\n"
    ".BR more_children ,\n"
    ".B more_rows\n"
    "and\n"
    ".BR eras :\n"
    ".B compared\n"
    "and either\n"
    ".B new\n"
    "(a list of\n"
    ".BR era ,\n"
    ".B count\n"
    "and\n"
    ".BR bytes )\n"
    "or\n"
    ".BR reason .\n";

static const char man_dominators[] =
    "The closures that retain most: for each, the bytes that would become\n"
    "unreachable without it (its retained size: its own and those of every\n"
    "closure it dominates, i.e. every closure all of whose paths from the\n"
    "roots pass through it), largest first, then the closures it immediately\n"
    "dominates, largest first (at most 5, then a count of the rest), each line\n"
    "as in\n"
    ".B roots\n"
    "after the retained size in bytes. The dominator tree covers what the\n"
    "GC roots reach (as children of one virtual root), then what only saved\n"
    "objects reach;\n"
    "WEAK closures retain nothing, as in\n"
    ".BR retainers .\n"
    "It is computed over the whole heap (Lengauer\\(enTarjan's semi-dominators\n"
    "with nearest common ancestors), with progress on a terminal.\n"
    ".BI \\-\\-top \" N\"\n"
    "shows N closures (default 20). A chain retains much at every link, so\n"
    "the first rows are often one structure's spine. With\n"
    ".BR \\-\\-json :\n"
    ".BR closures ,\n"
    ".B bytes\n"
    "(all that is reachable),\n"
    ".BR unreadable ,\n"
    "and\n"
    ".BR top ,\n"
    "each with\n"
    ".BR retained ,\n"
    ".B dominator\n"
    "(the immediate dominator's address, null for a root),\n"
    ".B closure\n"
    "(as in\n"
    ".BR roots ),\n"
    ".B dominated\n"
    "(the same keys, for the closures it immediately dominates) and\n"
    ".BR more_dominated .\n";

static const char man_leaks[] =
    "The era-boundary report: every edge of the reachable heap where a\n"
    "closure of a newer era retains one of an older era (era profiling,\n"
    ".BR \"+RTS \\-he\" ,\n"
    "is required; another debuggee is a usage error; era 0, which static\n"
    "closures carry, is no era). The edges are grouped by the retaining\n"
    "closure's source location (its info table,\n"
    ".BR \"<info 0x...>\" ,\n"
    "when it has none: the key of\n"
    ".B census \\-\\-by thunk\n"
    "for any closure) and the retained closure's constructor (the key of\n"
    ".BR \"census \\-\\-by constructor\" ).\n"
    "A group's\n"
    ".B older\n"
    "closures are those whose immediate dominator (see\n"
    ".BR dominators )\n"
    "is a newer closure pointing at them by an edge of the group \\(em every\n"
    "path from the roots to such a closure passes through that edge, so\n"
    "removing the group's edges frees it and all it dominates; a closure has\n"
    "one immediate dominator, so it is one group's at most. The group's\n"
    "bytes, retained only through it, are their retained sizes added up,\n"
    "leaving out a closure below another of the group (its bytes are in\n"
    "that one's already); the total is the same union over all groups\n"
    "(groups can nest, so their bytes can add up to more).\n"
    "Groups are also told apart by their retainers'\n"
    ".BR kind :\n"
    ".B thunk\n"
    "(THUNK*, THUNK_SELECTOR, AP, AP_STACK),\n"
    ".B function\n"
    "(FUN*, PAP, BCO, CONTINUATION) and\n"
    ".B stack\n"
    "(STACK, TSO) are computations not yet done that\n"
    ".I hold\n"
    "the older closure as an input, the usual shape of a space leak in a\n"
    "lazy program; a\n"
    ".BR constructor ,\n"
    ".B array\n"
    "(MUT_ARR_PTRS*, SMALL_MUT_ARR_PTRS*),\n"
    ".B mutable\n"
    "cell (MUT_VAR, MVAR, TVAR) or\n"
    ".B other\n"
    "closure (such as an indirection to an evaluated thunk's value)\n"
    ".I contains\n"
    "it as part of a value built from it, which is what an immutable heap\n"
    "does all the time: every closure points at closures that existed when\n"
    "it was built. Ranking: first the groups whose bytes are not 0, holds\n"
    "before contents, each by bytes; then the groups that free nothing;\n"
    "ties by edge count. Each shows\n"
    "bytes, older closures, edges, the kind, the keys, an example edge\n"
    "(addresses and eras) and the\n"
    ".B retainers\n"
    "command, with\n"
    ".B \\-\\-bucket source=LOCATION\n"
    "(or\n"
    ".BR \"\\-\\-info 0xP\" )\n"
    "and\n"
    ".BR \\-\\-merged ,\n"
    "that shows why the group's retainers are alive.\n"
    ".BI \\-\\-top \" N\"\n"
    "shows N groups (default 20); progress on a terminal. With\n"
    ".BR \\-\\-json :\n"
    ".BR edges ,\n"
    ".BR bytes ,\n"
    ".BR closures ,\n"
    ".BR groups ,\n"
    ".B unreadable\n"
    "and\n"
    ".BR top ,\n"
    "each with\n"
    ".BR retainer ,\n"
    ".BR retained ,\n"
    ".B kind\n"
    "(the names above),\n"
    ".B holds\n"
    "(true for thunk, function and stack),\n"
    ".BR bytes ,\n"
    ".BR older ,\n"
    ".BR edges ,\n"
    ".B example\n"
    ".RB ( from ,\n"
    ".BR from_era ,\n"
    ".BR to ,\n"
    ".BR to_era ),\n"
    ".B filter\n"
    "(the option and its value) and\n"
    ".BR command .\n";

const cli_command cli_command_table[CLI_N_COMMANDS] = {
    [CLI_EXPLORER] = {NULL, "[TARGET]", 0, 1, true, NULL,
                      "the explorer, in the terminal", NULL},
    [CLI_INFO] = {"info", "TARGET", 1, 1, true, run_info,
                  "the debuggee's GHC version and profiling mode (no pause)", man_info},
    [CLI_ROOTS] = {"roots", "TARGET", 1, 1, true, run_roots,
                   "saved objects and GC roots, one closure each", man_roots},
    [CLI_SHOW] = {"show", "TARGET ADDR", 2, 2, true, run_show,
                  "a closure and its children as a tree", man_show},
    [CLI_CENSUS] = {"census", "TARGET [FILTERS]", 1, 1, true, run_census,
                    "count and bytes per bucket", man_census},
    [CLI_THUNKS] = {"thunks", "TARGET [FILTERS]", 1, 1, true, run_thunks,
                    "thunks by source location, count and bytes", man_thunks},
    [CLI_RETAINERS] = {"retainers", "TARGET FILTERS", 1, 1, true, run_retainers,
                       "a shortest path from the GC roots to each matching closure",
                       man_retainers},
    [CLI_FIND] = {"find", "TARGET [FILTERS]", 1, 1, true, run_find,
                  "the closures matching the filters, without paths", man_find},
    [CLI_CACHE] = {"cache", "list|clear", 1, 1, false, run_cache,
                   "the recorded pauses and the cache's size, or clear it", man_cache},
    [CLI_SNAPSHOT] = {"snapshot", "TARGET", 1, 1, true, run_snapshot,
                      "write one pause into a snapshot file", man_snapshot},
    [CLI_DOMINATORS] = {"dominators", "TARGET", 1, 1, true, run_dominators,
                        "the closures retaining most, with what they dominate",
                        man_dominators},
    [CLI_STRINGS] = {"strings", "TARGET [FILTERS]", 1, 1, true, run_strings,
                     "strings and byte arrays grouped by value, most wasted bytes first",
                     man_strings},
    [CLI_DUMP] = {"dump", "TARGET ADDR", 2, 2, true, run_dump,
                  "write the bytes of one byte array (ARR_WORDS) to a file", man_dump},
    [CLI_DIFF] = {"diff", "A B [FILTERS]", 2, 2, false, run_diff,
                  "the census buckets that grew or shrank from pause A to pause B", man_diff},
    [CLI_LEAKS] = {"leaks", "TARGET", 1, 1, true, run_leaks,
                   "where newer eras retain older ones, what thunks and functions hold "
                   "first (era profiling)",
                   man_leaks},
};
