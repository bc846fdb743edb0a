/* The option table: every option of the command line, once. Parsing
 * (parse.c), --help and the man page's OPTIONS and FILTERS (doc.c) read it.
 * A row says where the option applies (CLI_ON), how its value is stored,
 * its --help line and its man entry (roff; "For show:" and the like are
 * added from .commands, so the text starts in lower case when it has one). */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapscope/size.h"
#include "table.h"

#define FIELD(f) offsetof(cli_common, f)
#define AT(p, o, type) ((type *)((char *)&(p)->common + (o)->field))

static int set_flag(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    (void)value, (void)inverted;
    *AT(p, o, bool) = true;
    return 0;
}

static int set_text(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    (void)inverted;
    *AT(p, o, const char *) = value;
    return 0;
}

static int parse_number(const cli_option *o, const char *text, long *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < o->lo || v > o->hi) {
        fprintf(stderr, "heapscope: --%s wants a number from %ld to %ld, not '%s'\n", o->name,
                o->lo, o->hi, text);
        return 2;
    }
    *out = v;
    return 0;
}

static int set_int(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    (void)inverted;
    long v;
    if (parse_number(o, value, &v) != 0)
        return 2;
    *AT(p, o, int) = (int)v; /* the table's range fits an int */
    return 0;
}

static int set_long(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    (void)inverted;
    return parse_number(o, value, AT(p, o, long));
}

/* A byte size: 512M, 2G (heapscope/size.h), at least the row's lo and at
 * most its hi (0: no upper bound). */
static int set_size(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    (void)inverted;
    uint64_t v;
    char lo[32], hi[32];
    if (!hs_size_parse(value, &v) || v < (uint64_t)o->lo || (o->hi && v > (uint64_t)o->hi)) {
        hs_size_format((uint64_t)o->lo, lo, sizeof lo);
        hs_size_format((uint64_t)o->hi, hi, sizeof hi);
        fprintf(stderr,
                "heapscope: --%s wants a size %s %s%s%s, in bytes or with K, M, G or T "
                "(512M, 2G), not '%s'\n",
                o->name, o->hi ? "from" : "of at least", lo, o->hi ? " to " : "",
                o->hi ? hi : "", value);
        return 2;
    }
    *AT(p, o, uint64_t) = v;
    return 0;
}

/* --help, --keys[=man], ...: what the command line asks for instead of a run. */
static int set_action(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    (void)inverted;
    if (value && strcmp(value, "man") != 0) {
        fprintf(stderr, "heapscope: --%s takes nothing or =man, not '%s'\n", o->name, value);
        return 2;
    }
    p->action = (cli_action)o->detail;
    p->man = value != NULL;
    return 0;
}

int cli_set_filter(cli_parsed *p, const cli_option *o, const char *value, bool inverted) {
    /* "--not-closure-name": the table's rows live forever, so do these */
    static char names[CLI_MAX_OPTIONS][2][32];
    cli_common *c = &p->common;
    if (c->n_filters == CLI_MAX_FILTERS) {
        fprintf(stderr, "heapscope: at most %d filter options\n", CLI_MAX_FILTERS);
        return 2;
    }
    char *name = names[o - cli_option_table][inverted];
    snprintf(name, sizeof names[0][0], "--%s%s", inverted ? "not-" : "", o->name);
    c->filters[c->n_filters++] = (cli_filter_arg){
        .kind = (query_filter_kind)o->detail,
        .invert = inverted,
        .option = name,
        .value = value,
    };
    return 0;
}

#define TARGETED (CLI_ON_BATCH & ~CLI_ON(CACHE))  /* the commands that read a target */
#define SESSION (TARGETED & ~CLI_ON(INFO))         /* the commands that pause */
#define SEARCH (CLI_ON(RETAINERS) | CLI_ON(FIND))
#define CENSUSES (CLI_ON(CENSUS) | CLI_ON(THUNKS))
#define FILTERED (SEARCH | CLI_ON(STRINGS) | CENSUSES | CLI_ON(DIFF)) /* take filters */
#define FILTER(name, arg, kind, help, man)                                                      \
    {name, 0, arg, false, FILTERED, cli_set_filter, 0, 0, 0, kind, help, man}

const cli_option cli_option_table[] = {
    {"demo", 0, NULL, false, CLI_ON(EXPLORER), set_flag, FIELD(demo), 0, 0, 0,
     "start a synthetic debuggee with a planted leak on a private socket and open the explorer "
     "on it (without a terminal: pause it and print its roots)",
     "Start the synthetic debuggee that ships with heapscope on a private\n"
     "socket, with a generated heap of 50000 closures in the exact GHC 9.10\n"
     "layouts and a planted leak (1000\n"
     ".B Leak\n"
     "constructors from era 2 retained through a newer thunk), and open the\n"
     "explorer on it; the debuggee is stopped when the explorer quits. Without\n"
     "a terminal, pause it, print its saved objects and first GC roots, then\n"
     "resume and stop it.\n"},
    {"json", 0, NULL, false, CLI_ON_BATCH, set_flag, FIELD(json), 0, 0, 0,
     "machine-readable output",
     "Machine-readable output: one JSON document, whose keys each command\n"
     "describes.\n"},
    {"timeout", 0, "MS", false, CLI_ON(EXPLORER) | TARGETED, set_int, FIELD(timeout_ms), 1,
     86400000, 0, "longest silence from the debuggee before giving up (default 30000)",
     "Give up when the debuggee stays silent for\n"
     ".I MS\n"
     "milliseconds while an answer is due (default 30000). Connecting waits at\n"
     "most 5 seconds or this long, whichever is shorter. This is the only case\n"
     "in which heapscope closes a connection with a request unanswered, also\n"
     "when a cancel is finishing an answer (see\n"
     ".BR \"THE DEBUGGEE'S SAFETY\" ):\n"
     "the message then ends \"closing the connection may kill the program\".\n"},
    {"max-answer", 0, "SIZE", false, CLI_ON(EXPLORER) | CLI_ON_BATCH, set_size,
     FIELD(max_answer), 1L << 20, 1L << 40, 0,
     "largest answer taken from the debuggee, e.g. 512M or 2G (default: a quarter of the "
     "memory, from 256M to 16G)",
     "The largest answer heapscope takes from the debuggee, in bytes or with a\n"
     ".BR K ,\n"
     ".BR M ,\n"
     ".B G\n"
     "or\n"
     ".B T\n"
     "suffix (powers of 1024):\n"
     ".BR 512M ,\n"
     ".BR 2G .\n"
     "From 1M to 1T; the default is a quarter of the machine's physical memory,\n"
     "but at least 256M and at most 16G. The biggest answer is the heap's blocks,\n"
     "which come in one: about the size of the heap. An answer over the cap is\n"
     "read to its end and dropped (the debuggee's stub must not be left writing\n"
     "to a closed connection), then stops the command with an error naming the\n"
     "answer's size, the cap and this option, and the debuggee is resumed as\n"
     "after any other error.\n"},
    {"leave-paused", 0, NULL, false, SESSION, set_flag, FIELD(leave_paused), 0, 0, 0,
     "do not resume the debuggee when done (by default it is resumed, unless it was already "
     "paused)",
     "do not resume the debuggee when the command is done.\n"},
    {"no-cache", 0, NULL, false, CLI_ON(EXPLORER) | SESSION, set_flag, FIELD(no_cache), 0, 0, 0,
     "neither read nor write the cache (see CACHE in the man page)",
     "neither read answers from the cache nor write any to it, and record no\n"
     "pause (see\n"
     ".BR CACHE ).\n"},
    {"cache-size", 0, "SIZE", false, CLI_ON(EXPLORER) | SESSION | CLI_ON(CACHE), set_size,
     FIELD(cache_size), 1L << 20, 0, 0,
     "cap of the cache directory, e.g. 500M (default 2G); oldest pauses go first",
     "the cap of the cache directory: a number of bytes, or one with\n"
     ".BR K ,\n"
     ".BR M ,\n"
     ".B G\n"
     "or\n"
     ".B T\n"
     "(powers of 1024), at least 1M (default 2G). When a recording takes the\n"
     "cache over it, the oldest recorded pauses are removed first (see\n"
     ".BR CACHE ).\n"},
    {"record", 0, NULL, false, SESSION, set_flag, FIELD(record), 0, 0, 0,
     "also record the pause in the cache (heapscope cache list shows it)",
     "also record the pause in the cache, in full, before the debuggee is\n"
     "resumed (see\n"
     ".BR CACHE ).\n"},
    {"depth", 0, "N", false, CLI_ON(SHOW), set_int, FIELD(depth), 0, 64, 0,
     "levels of children (default 2, at most 64)",
     "levels of children to show (default 2, at most 64).\n"},
    {"by", 0, "A[,B]", false, CLI_ON(CENSUS) | CLI_ON(DIFF), set_text, FIELD(by), 0, 0, 0,
     "type (default; diff: constructor), constructor, era, source, closure-name, "
     "cost-centre or thunk; A,B: two levels",
     "the buckets, one kind or two\n"
     ".RI ( A , B :\n"
     "rows of\n"
     ".I B\n"
     "under each row of\n"
     ".IR A ):\n"
     ".B type\n"
     "(the default, but\n"
     ".B constructor\n"
     "for\n"
     ".BR diff ),\n"
     ".BR constructor ,\n"
     ".BR era ,\n"
     ".BR source ,\n"
     ".BR closure\\-name ,\n"
     ".B cost\\-centre\n"
     "or\n"
     ".B thunk\n"
     "(see\n"
     ".BR census ).\n"},
    {"merged", 0, NULL, false, CLI_ON(RETAINERS), set_flag, FIELD(merged), 0, 0, 0,
     "print the paths merged into one tree, with the matches and bytes below each closure",
     "print the matches' paths merged into one tree (their prefix tree): every\n"
     "closure on some path once, under the closure that holds it, with the\n"
     "number of matches at or below it and their bytes, the largest first;\n"
     "each line indented by its depth (beyond 40 levels the depth is written\n"
     "in parentheses). With\n"
     ".BR \\-\\-json ,\n"
     ".B merged\n"
     "replaces\n"
     ".BR matches :\n"
     "the tree's nodes depth first, each with\n"
     ".B id\n"
     "(its position in the list),\n"
     ".B parent\n"
     "(the parent's id, null for a path's start),\n"
     ".BR matches ,\n"
     ".BR bytes ,\n"
     ".B match\n"
     "(it is a match itself),\n"
     ".B start\n"
     "(on a start: \"gc\\-root\" or \"saved\\-object\") and\n"
     ".B closure\n"
     "(as a step of a path).\n"},
    {"retained", 0, NULL, false, CLI_ON(SHOW) | SEARCH | CENSUSES, set_flag, FIELD(retained), 0, 0, 0,
     "also the retained size of each closure (show: and its immediate dominator; find, "
     "retainers: of each match; census, thunks: of each row's closures together); computes "
     "the whole heap's dominator tree",
     "also show the retained size of each closure (see\n"
     ".BR dominators ;\n"
     "the whole heap's dominator tree is computed first):\n"
     ".B show\n"
     "gives each closure's retained size and immediate dominator,\n"
     ".B find\n"
     "and\n"
     ".B retainers\n"
     "each match's retained size (\"[retains N B]\" after it; with\n"
     ".BR \\-\\-json ,\n"
     "a\n"
     ".B retained\n"
     "field on the match, null when no GC root reaches it; not with\n"
     ".BR \\-\\-merged ),\n"
     ".B census\n"
     "and\n"
     ".B thunks\n"
     "a first column (and JSON field)\n"
     ".B retained\n"
     "on each first-level row: the bytes its closures keep alive together, the\n"
     "union of their dominator subtrees (a closure inside another of the same\n"
     "row counted once; closures only a WEAK's fields reach are not in the\n"
     "tree and add nothing).\n"},
    {"sort", 0, "COLUMN", false, CENSUSES, set_text, FIELD(sort), 0, 0, 0,
     "order rows by count, bytes (default), max, avg, key or retained (implies --retained)",
     "order the rows (both levels) by\n"
     ".BR count ,\n"
     ".B bytes\n"
     "(the default),\n"
     ".BR max ,\n"
     ".B avg\n"
     "(largest first),\n"
     ".B key\n"
     "(alphabetical) or\n"
     ".B retained\n"
     "(largest first; the second level then by bytes; implies\n"
     ".BR \\-\\-retained ).\n"},
    {"top", 0, "N", false,
     CENSUSES | CLI_ON(STRINGS) | CLI_ON(DOMINATORS) | CLI_ON(DIFF) | CLI_ON(LEAKS), set_long,
     FIELD(top), 0, 1000000000, 0,
     "show the first N rows (census, diff: of each level; default all; dominators, leaks: 20)",
     "the number of rows shown (0, the default, shows all); for\n"
     ".B census\n"
     "and\n"
     ".BR diff ,\n"
     "of each level;\n"
     ".B dominators\n"
     "and\n"
     ".B leaks\n"
     "show 20 unless told.\n"},
    {"output", 'o', "FILE", false, CLI_ON(SNAPSHOT) | CLI_ON(DUMP), set_text, FIELD(output), 0,
     0, 0, "the snapshot file to write (dump: the file for the bytes)",
     "the snapshot file to write (see\n"
     ".BR \"SNAPSHOT FILES\" );\n"
     "for\n"
     ".BR dump ,\n"
     "the file to write the bytes to.\n"},
    {"force", 0, NULL, false, CLI_ON(SNAPSHOT) | CLI_ON(DUMP), set_flag, FIELD(force), 0, 0, 0,
     "replace an existing file",
     "replace the file given by\n"
     ".B \\-o\n"
     "when it exists (by default that is an error;\n"
     ".B dump\n"
     "says so before it pauses the debuggee).\n"},
    {"limit", 0, "N", false, SEARCH | CLI_ON(LEAKS), set_long, FIELD(limit), 0, 1000000000, 0,
     "stop after N matches (leaks --group: edges; default 100, 0 = all)",
     "stop after\n"
     ".I N\n"
     "matches (default 100; 0 for no limit); for\n"
     ".BR \"leaks \\-\\-group\" ,\n"
     "show the\n"
     ".I N\n"
     "edges that retain most.\n"},
    {"group", 0, "N", false, CLI_ON(LEAKS), set_long, FIELD(group), 1, 1000000000, 0,
     "list the edges of the report's group N (1 = the first row)",
     "instead of the report, list the edges of its group\n"
     ".I N\n"
     "(1 for the first row, as the report numbers and ranks them): each\n"
     "newer retainer and the older closure it points at, with the bytes only\n"
     "that edge retains (see\n"
     ".BR leaks ).\n"},
    FILTER("constructor", "REGEX", QUERY_FILTER_CONSTRUCTOR,
           "constructor name matches a PCRE2 regex (UTF-8)",
           "The constructor's name (without package and module:\n"
           ".BR Leak ,\n"
           ".BR : ,\n"
           ".BR (,) )\n"
           "matches the PCRE2 regular expression\n"
           ".IR REGEX ,\n"
           "anywhere unless anchored\n"
           ".RB ( ^Leak$ ).\n"
           "The pattern is UTF-8 and matched code point by code point (UTF mode):\n"
           ".B .\n"
           "matches one character,\n"
           ".B \\ep{Lu}\n"
           "an upper-case letter, and\n"
           ".B (?i)\n"
           "folds case beyond ASCII. It is compiled once, with PCRE2's JIT when the\n"
           "library has it. A pattern that does not compile is a usage error naming\n"
           "the offset of the problem in the pattern.\n"),
    FILTER("exact", "NAME", QUERY_FILTER_EXACT, "constructor name is NAME",
           "The constructor's name is exactly\n"
           ".IR NAME .\n"),
    FILTER("closure-name", "NAME", QUERY_FILTER_CLOSURE_NAME,
           "info-table name from IPE data is NAME",
           "The closure's info table has IPE data (the program was built with\n"
           ".BR \\-finfo\\-table\\-map )\n"
           "and its name is exactly\n"
           ".IR NAME ,\n"
           "e.g.\n"
           ".BR sat_s1Ab_info .\n"
           "On a debuggee whose GHC predates info-table provenance (before 9.2) it\n"
           "is an error, as an era filter is without era profiling; when no closure\n"
           "the search looked at has provenance (the program was built without\n"
           ".BR \\-finfo\\-table\\-map ),\n"
           "a note on standard error says so.\n"),
    FILTER("address", "0xA", QUERY_FILTER_ADDRESS, "closure at address A",
           "The closure at address\n"
           ".I A\n"
           "(tag bits ignored): 0x followed by 1 to 16 hex digits.\n"),
    FILTER("info", "0xP", QUERY_FILTER_INFO, "info-table pointer P",
           "The closure's info-table pointer is\n"
           ".IR P .\n"),
    FILTER("type", "TYPE", QUERY_FILTER_TYPE, "closure type, e.g. THUNK_2_0, ARR_WORDS",
           "The closure's type is\n"
           ".IR TYPE ,\n"
           "a GHC closure type name such as\n"
           ".BR THUNK_2_0 ,\n"
           ".B ARR_WORDS\n"
           "or\n"
           ".BR MUT_VAR_DIRTY ;\n"
           "an unknown name is a usage error that lists the valid ones.\n"),
    FILTER("min-size", "N", QUERY_FILTER_MIN_SIZE, "at least N bytes",
           "The closure is at least\n"
           ".I N\n"
           "bytes (see\n"
           ".BR SIZES ).\n"
           ".I N\n"
           "is decimal or 0x hex; a negative bound passes everything.\n"),
    FILTER("era", "RANGE", QUERY_FILTER_ERA, "era in N, A-B, A- or -B (era profiling only)",
           "The closure's era (the profiling word of a debuggee run with\n"
           ".BR \"+RTS \\-he\" )\n"
           "is in\n"
           ".IR RANGE :\n"
           ".I N\n"
           "(just era N),\n"
           ".IB A \\- B\n"
           "(from A to B, both included),\n"
           ".IB A \\-\n"
           "(A and later),\n"
           ".BI \\- B\n"
           "(up to B) or\n"
           ".B \\-\n"
           "(every era). Spaces around a number are allowed; an open end must be\n"
           "empty. A malformed range, or one that starts after it ends, is a usage\n"
           "error. On a debuggee without era profiling an era filter is an error\n"
           "(exit status 1) rather than a filter that passes everything.\n"),
    FILTER("cost-centre", "ID", QUERY_FILTER_COST_CENTRE,
           "under cost centre ID (profiled debuggees)",
           "The closure's cost-centre stack lies under the cost centre with id\n"
           ".IR ID :\n"
           "from the main stack down the cost-centre tree, the stacks whose cost\n"
           "centre has that id and every stack below them (profiled debuggees only;\n"
           "an error otherwise).\n"),
    FILTER("value", "TEXT", QUERY_FILTER_VALUE,
           "string or byte array whose value is TEXT (\\xNN escapes, as strings shows)",
           "The closure is a byte array (ARR_WORDS), a\n"
           ".BR Text ,\n"
           "a\n"
           ".B ByteString\n"
           "or the first cell of a\n"
           ".B String\n"
           "whose value is exactly\n"
           ".IR TEXT ,\n"
           "written as\n"
           ".B strings\n"
           "shows values:\n"
           ".B \\ex\\fINN\\fP\n"
           "(two hex digits) for a byte,\n"
           ".B \\e\\e\n"
           "for a backslash, any other character as itself (UTF-8). Values are\n"
           "read through the indirections evaluated thunks leave (BLACKHOLE, IND).\n"
           "A byte array under a\n"
           ".B Text\n"
           "or\n"
           ".B ByteString\n"
           "met before it (a search meets them first)\n"
           "is part of that value and does not match: a\n"
           ".B Text\n"
           "matches once, as a\n"
           ".BR Text .\n"
           "The tail of a\n"
           ".B String\n"
           "matches when it equals the value.\n"),
    FILTER("bucket", "KIND=KEY", QUERY_FILTER_BUCKET,
           "the closure's census key under KIND is KEY (a row of census or thunks)",
           "The closure's key under the census kind\n"
           ".I KIND\n"
           "(as\n"
           ".B census \\-\\-by\n"
           "names them:\n"
           ".BR type ,\n"
           ".BR constructor ,\n"
           ".BR era ,\n"
           ".BR source ,\n"
           ".BR closure\\-name ,\n"
           ".B cost\\-centre\n"
           "or\n"
           ".BR thunk )\n"
           "is exactly\n"
           ".IR KEY ,\n"
           "as the census row shows it: the closures of that row, e.g.\n"
           ".B \\-\\-bucket constructor=main:Main:Leak\n"
           "or\n"
           ".BR \"\\-\\-bucket thunk=app/Main.hs:12:5\\-20\" .\n"
           "The JSON of\n"
           ".B census\n"
           "and\n"
           ".B thunks\n"
           "gives each row's value as\n"
           ".BR bucket .\n"
           "Two of them select a row of a two-level census (retainers and find do not\n"
           "walk through WEAK closures, so a closure only a weak pointer reaches is\n"
           "counted by the census but not found). A closure that the\n"
           "census by\n"
           ".I KIND\n"
           "does not count (a non-thunk for\n"
           ".BR thunk )\n"
           "never passes, inverted or not; an\n"
           ".B era\n"
           "key is a number, and\n"
           ".B era\n"
           "and\n"
           ".B cost\\-centre\n"
           "need the profiling they need in a census.\n"),
    {"theme", 0, "NAME", false, CLI_ON(EXPLORER), set_text, FIELD(theme), 0, 0, 0,
     "explorer colours: themes/NAME.theme (default, light, high-contrast, or your own)",
     "The explorer's colour theme (default\n"
     ".BR default ;\n"
     "see\n"
     ".BR THEMES ).\n"},
    {"snapshot-dir", 0, "DIR", false, CLI_ON(EXPLORER), set_text, FIELD(snapshot_dir), 0, 0, 0,
     "explorer: list the snapshot files of DIR too (Tab in the debuggee list)",
     "The snapshots the debuggee list shows on\n"
     ".B Tab\n"
     "include the snapshot files of\n"
     ".I DIR\n"
     "besides those of ghc-debug's snapshot directory (see\n"
     ".BR KEYS ).\n"},
    {"keys", 0, "man", true, 0, set_action, 0, 0, 0, CLI_ACT_KEYS,
     "print the explorer's keys and exit (--keys=man: as roff)",
     "Print the explorer's commands with their keys, one per line, and exit;\n"
     ".B \\-\\-keys=man\n"
     "prints them as the roff of the\n"
     ".B KEYS\n"
     "section.\n"},
    {"help", 'h', NULL, false, 0, set_action, 0, 0, 0, CLI_ACT_HELP, "show this help and exit",
     "Show a summary of commands and options.\n"},
    {"version", 'V', NULL, false, 0, set_action, 0, 0, 0, CLI_ACT_VERSION,
     "show the version and exit", "Show the version.\n"},
    /* hidden: what the man page and tests/integration/test_cli_doc.py read */
    {"commands", 0, "man", true, 0, set_action, 0, 0, 0, CLI_ACT_COMMANDS, NULL, NULL},
    {"options", 0, "man", true, 0, set_action, 0, 0, 0, CLI_ACT_OPTIONS, NULL, NULL},
    {"filters", 0, "man", true, 0, set_action, 0, 0, 0, CLI_ACT_FILTERS, NULL, NULL},
};

const size_t cli_option_count = sizeof cli_option_table / sizeof cli_option_table[0];

_Static_assert(sizeof cli_option_table / sizeof cli_option_table[0] <= CLI_MAX_OPTIONS,
               "cli_parsed.given holds a row index per option: raise CLI_MAX_OPTIONS");
