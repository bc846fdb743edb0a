/* Option parsing of heapscope-debuggee: every number is checked (plain
 * decimal, in range) so a typo is a clear usage error, not a strange heap. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "synth_fragile_wire.h"
#include "synth_hostile.h"
#include "synth_server_cli.h"

#define MAX_CLOSURES UINT64_C(200000000)
#define MAX_ERAS 1000000u
#define MAX_PAUSE_MS INT64_C(86400000) /* a day */

static const char usage[] =
    "usage: heapscope-debuggee [options]\n"
    "\n"
    "A synthetic GHC 9.10 program serving the ghc-debug protocol from a generated\n"
    "heap with a planted leak (a test server; also what `heapscope --demo` runs).\n"
    "--ghc-version makes it a GHC 9.12 or 9.14 program instead.\n"
    "\n"
    "where to listen:\n"
    "  --socket PATH            Unix socket (default: $GHC_DEBUG_SOCKET, else\n"
    "                           <data home>/ghc-debug/debuggee/sockets/<pid>-heapscope-debuggee)\n"
    "  --tcp HOST:PORT          TCP on an IPv4 address instead (port 0 = any free port)\n"
    "the heap:\n"
    "  --closures N             approximate number of heap closures\n"
    "  --eras K                 eras 1..K used by the heap\n"
    "  --profiled               era-profiled flavour (profiling mode 4)\n"
    "  --prof-mode MODE         profiled flavour in MODE: era (4, as --profiled),\n"
    "                           ldv (3: created era, used or not, last use),\n"
    "                           retainer (2: retainer-set address and flag) or\n"
    "                           plain (1: -prof without heap profiling)\n"
    "  --leak-constructor NAME  constructor of the leak (main:Main.NAME)\n"
    "  --leak-count N           number of leaked closures\n"
    "  --leak-era E             era of the leaked closures (1 <= E < K)\n"
    "  --seed S                 random seed\n"
    "  --no-ipe                 no info-table provenance (as without -finfo-table-map)\n"
    "  --strings                also plant duplicated byte arrays, Text, ByteString and\n"
    "                           String values and two large byte arrays (plan: \"strings\")\n"
    "  --saved-shortcut         also save the leak list (one step above the first Leak)\n"
    "                           and a Leak that only a saved object reaches\n"
    "  --grow-per-pause N       the program runs between pauses: at each resume it\n"
    "                           allocates N more main:Main.Span closures, each consed\n"
    "                           onto a list an IORef holds (a stable pointer, the last\n"
    "                           GC root), all of a new era (K+1, K+2, ...): each pause\n"
    "                           has N more Span and N more (:) than the one before\n"
    "  --ghc-version V          the GHC it imitates: 9.10 (the default), 9.12 or 9.14;\n"
    "                           its VERSION answer (9.10.1, 9.12.2, 9.14.1) and every\n"
    "                           layout follow that GHC (doc/ghc-versions.md); under\n"
    "                           9.14 the main and worker threads' stacks also hold an\n"
    "                           annotation frame (ANN_FRAME, as annotateStack pushes)\n"
    "                           whose annotation is a byte array of text\n"
    "                           (plan: \"ghc_version\", \"annotation_frames\")\n"
    "  --unknown-type N         one more GC root (a stable pointer, before the one of\n"
    "                           --grow-per-pause) holds a closure whose info table has\n"
    "                           closure type N, one the GHC imitated has not (65, the\n"
    "                           number of ANN_FRAME, up to 9.12; 66 to 65535 always):\n"
    "                           a client must show it as an opaque leaf\n"
    "                           (plan: \"unknown_type\")\n"
    "  --plan FILE              write the JSON plan of what was planted ('-' = stdout)\n"
    "  --plan-only              write the plan (to stdout without --plan) and exit\n"
    "  --ghc-debug-snapshot FILE\n"
    "                           write FILE as ghc-debug 0.6's \"Take snapshot\" would\n"
    "                           (the requests its client makes during a pause, with\n"
    "                           this heap's answers, in its cache encoding) and exit\n"
    "  --ghc-debug-snapshot-of SOCKET\n"
    "                           with --ghc-debug-snapshot: snapshot the debuggee\n"
    "                           listening on SOCKET (paused, then resumed) instead\n"
    "serving:\n"
    "  --max-connections N      exit after serving N connections\n"
    "  --self-pause-after MS    the program pauses itself after MS milliseconds\n"
    "                           (answers an outstanding POLL)\n"
    "  --silent-on COMMAND      carry out COMMAND (a name such as PAUSE, or its\n"
    "                           number) but never answer it, like a stub stuck\n"
    "                           before its reply; may be given several times\n"
    "  --count-requests FILE    after each connection, write how many requests of\n"
    "                           each command were served so far (lines\n"
    "                           'connections N' and 'COMMAND N'; replaced atomically)\n"
    "  --answer-delay MS        wait MS milliseconds before serving each request\n"
    "                           (a slow debuggee)\n"
    "  --duplicate-pinned       ALL_BLOCKS lists every pinned block group a second\n"
    "                           time, byte for byte, after the others (the real RTS\n"
    "                           lists each empty pinned group once per capability)\n"
    "  --log-requests FILE      append each request to FILE as it arrives, before it\n"
    "                           is served (a line: its name, e.g. PAUSE or RESUME,\n"
    "                           and the CLOCK_MONOTONIC time in ms): a client can\n"
    "                           get no answer its line does not precede\n"
    "  --hold-resume FILE       serve a RESUME (logged already) only once FILE\n"
    "                           exists: the client waits for its answer meanwhile\n"
    "%s"
    "%s"
    "  --help                   this text\n"
    "\n"
    "Exit status: 0 after a clean stop (SIGINT/SIGTERM or --max-connections),\n"
    "1 on a runtime error, 2 on a usage error; under --fragile, 139 after a\n"
    "request for a wild address, 3 after a failed read or write.\n";

const char *synth_cli_usage(void) {
    static char text[sizeof usage + 8192];
    if (!text[0])
        snprintf(text, sizeof text, usage, synth_hostile_help, synth_fragile_help);
    return text;
}

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt,
                                                      ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Plain decimal in [lo, hi]. */
static int number(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
                  char *err, size_t errlen) {
    char *end;
    if (s[0] < '0' || s[0] > '9')
        return fail(err, errlen, "%s: '%s' is not a number", opt, s);
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return fail(err, errlen, "%s: '%s' is not a number", opt, s);
    if (errno == ERANGE || v < lo || v > hi)
        return fail(err, errlen, "%s: %s is out of range (%llu to %llu)", opt, s,
                    (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return 0;
}

/* Command names of --silent-on (wire-protocol.md §6). */
static const struct {
    const char *name;
    uint32_t id;
} commands[] = {
    {"VERSION", 1},       {"PAUSE", 2},   {"RESUME", 3},       {"ROOTS", 4},
    {"CLOSURES", 5},      {"INFO_TABLES", 6}, {"STACK_BITMAP", 7}, {"POLL", 8},
    {"SAVED_OBJECTS", 9}, {"CON_DESC", 11}, {"SOURCE_INFO", 12}, {"ALL_BLOCKS", 14},
    {"BLOCK", 15},        {"FUN_BITMAP", 16}, {"SRT", 17},        {"CCS", 18},
    {"CC", 19},           {"INDEX_TABLE", 20}, {"CCS_MAIN", 21},
};

const char *synth_command_name(uint32_t id) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].id == id)
            return commands[i].name;
    return NULL;
}

int synth_command_id(const char *opt, const char *s, uint32_t *id, char *err, size_t errlen) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcasecmp(s, commands[i].name) == 0) {
            *id = commands[i].id;
            return 0;
        }
    uint64_t n;
    if (s[0] >= '0' && s[0] <= '9') {
        if (number(opt, s, 0, 31, &n, err, errlen))
            return -1;
        *id = (uint32_t)n;
        return 0;
    }
    return fail(err, errlen, "%s: '%s' is not a command name (PAUSE, ROOTS, ...) or "
                             "number (0 to 31)", opt, s);
}

/* A constructor name as GHC writes it after the module: no separators. */
static bool plausible_con(const char *s) {
    if (!s[0] || strlen(s) > 200)
        return false;
    for (const char *c = s; *c; c++)
        if (*c == ':' || *c == '.' || (unsigned char)*c <= ' ' || *c == '"' || *c == '\\')
            return false;
    return true;
}

static bool is(const char *name, const char *arg, const char **inline_val) {
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '\0') {
        *inline_val = NULL;
        return true;
    }
    if (arg[n] == '=') {
        *inline_val = arg + n + 1;
        return true;
    }
    return false;
}

int synth_cli_parse(int argc, char **argv, synth_cli *cli, synth_options *gen, char *err,
                    size_t errlen) {
    *cli = (synth_cli){.self_pause_after_ms = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        uint64_t n;
        /* options without a value */
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli->help = true;
            continue;
        }
        if (strcmp(a, "--profiled") == 0) {
            gen->profiled = true;
            continue;
        }
        if (strcmp(a, "--no-ipe") == 0) {
            gen->no_ipe = true;
            continue;
        }
        if (strcmp(a, "--strings") == 0) {
            gen->strings = true;
            continue;
        }
        if (strcmp(a, "--saved-shortcut") == 0) {
            gen->saved_shortcut = true;
            continue;
        }
        if (strcmp(a, "--duplicate-pinned") == 0) {
            gen->duplicate_pinned = true;
            continue;
        }
        if (strcmp(a, "--fragile") == 0) {
            cli->fragile = true;
            continue;
        }
        if (strcmp(a, "--plan-only") == 0) {
            cli->plan_only = true;
            continue;
        }
        static const char *const with_value[] = {
            "--socket", "--tcp", "--plan", "--closures", "--eras", "--leak-constructor",
            "--leak-count", "--leak-era", "--seed", "--max-connections", "--self-pause-after",
            "--silent-on", "--ghc-debug-snapshot", "--ghc-debug-snapshot-of", "--count-requests",
            "--answer-delay", "--log-requests", "--hold-resume", "--prof-mode", "--hostile",
            "--grow-per-pause", "--hold", "--ghc-version", "--unknown-type"};
        const char *opt = NULL;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value && !opt; k++)
            if (is(with_value[k], a, &v))
                opt = with_value[k];
        if (!opt)
            return fail(err, errlen, "unknown option '%s' (try --help)", a);
        if (!v) {
            if (i + 1 >= argc)
                return fail(err, errlen, "%s needs a value", opt);
            v = argv[++i];
        }
        if (strcmp(opt, "--socket") == 0) {
            if (!v[0])
                return fail(err, errlen, "--socket: the path is empty");
            cli->socket_path = v;
        } else if (strcmp(opt, "--tcp") == 0) {
            cli->tcp = v;
        } else if (strcmp(opt, "--plan") == 0) {
            if (!v[0])
                return fail(err, errlen, "--plan: the file name is empty");
            cli->plan_path = v;
        } else if (strcmp(opt, "--ghc-debug-snapshot-of") == 0) {
            if (!v[0])
                return fail(err, errlen, "--ghc-debug-snapshot-of: the socket path is empty");
            cli->ghcdebug_of = v;
        } else if (strcmp(opt, "--ghc-debug-snapshot") == 0) {
            if (!v[0])
                return fail(err, errlen, "--ghc-debug-snapshot: the file name is empty");
            cli->ghcdebug_path = v;
        } else if (strcmp(opt, "--closures") == 0) {
            if (number(opt, v, 1, MAX_CLOSURES, &n, err, errlen))
                return -1;
            gen->closures = n;
        } else if (strcmp(opt, "--eras") == 0) {
            if (number(opt, v, 1, MAX_ERAS, &n, err, errlen))
                return -1;
            gen->eras = (unsigned)n;
        } else if (strcmp(opt, "--leak-constructor") == 0) {
            if (!plausible_con(v))
                return fail(err, errlen,
                            "--leak-constructor: '%s' is not a constructor name "
                            "(non-empty, no ':', '.', spaces or quotes)",
                            v);
            gen->leak_constructor = v;
        } else if (strcmp(opt, "--leak-count") == 0) {
            if (number(opt, v, 0, MAX_CLOSURES, &n, err, errlen))
                return -1;
            gen->leak_count = n;
        } else if (strcmp(opt, "--leak-era") == 0) {
            if (number(opt, v, 1, MAX_ERAS, &n, err, errlen))
                return -1;
            gen->leak_era = (unsigned)n;
        } else if (strcmp(opt, "--grow-per-pause") == 0) {
            if (number(opt, v, 1, MAX_CLOSURES, &n, err, errlen))
                return -1;
            gen->grow_per_pause = n;
        } else if (strcmp(opt, "--ghc-version") == 0) {
            static const struct { const char *name; unsigned major; } ghcs[] = {
                {"9.10", 910}, {"9.12", 912}, {"9.14", 914}};
            gen->ghc_version = 0;
            for (size_t k = 0; k < sizeof ghcs / sizeof *ghcs; k++)
                if (strcmp(v, ghcs[k].name) == 0)
                    gen->ghc_version = ghcs[k].major;
            if (!gen->ghc_version)
                return fail(err, errlen, "--ghc-version: '%s' is not 9.10, 9.12 or 9.14", v);
        } else if (strcmp(opt, "--unknown-type") == 0) {
            if (number(opt, v, 65, 65535, &n, err, errlen))
                return -1;
            gen->unknown_type = (uint32_t)n;
        } else if (strcmp(opt, "--seed") == 0) {
            if (number(opt, v, 0, UINT64_MAX, &n, err, errlen))
                return -1;
            gen->seed = n;
        } else if (strcmp(opt, "--max-connections") == 0) {
            if (number(opt, v, 1, UINT64_MAX, &n, err, errlen))
                return -1;
            cli->max_connections = n;
        } else if (strcmp(opt, "--count-requests") == 0) {
            if (!v[0])
                return fail(err, errlen, "--count-requests: the file name is empty");
            cli->count_path = v;
        } else if (strcmp(opt, "--log-requests") == 0 || strcmp(opt, "--hold-resume") == 0) {
            if (!v[0])
                return fail(err, errlen, "the file name is empty");
            *(opt[2] == 'l' ? &cli->log_path : &cli->hold_path) = v;
        } else if (strcmp(opt, "--answer-delay") == 0) {
            if (number(opt, v, 0, 60000, &n, err, errlen))
                return -1;
            cli->answer_delay_ms = (int)n;
        } else if (strcmp(opt, "--prof-mode") == 0) {
            static const struct { const char *name; uint8_t mode; } modes[] = {
                {"era", SYNTH_PROF_ERA}, {"ldv", SYNTH_PROF_LDV},
                {"retainer", SYNTH_PROF_RETAINER}, {"plain", SYNTH_PROF_PLAIN}};
            gen->prof_mode = 0;
            for (size_t k = 0; k < sizeof modes / sizeof *modes; k++)
                if (strcmp(v, modes[k].name) == 0)
                    gen->prof_mode = modes[k].mode;
            if (!gen->prof_mode)
                return fail(err, errlen, "--prof-mode: '%s' is not era, ldv, retainer or plain",
                            v);
            gen->profiled = true;
        } else if (strcmp(opt, "--hold") == 0) {
            if (synth_hold_parse(v, &cli->hold_cmd, &cli->hold_dir, err, errlen))
                return -1;
        } else if (strcmp(opt, "--hostile") == 0) {
            if (synth_hostile_parse(v, &cli->hostile, err, errlen))
                return -1;
        } else if (strcmp(opt, "--silent-on") == 0) {
            uint32_t id = 0;
            if (synth_command_id(opt, v, &id, err, errlen))
                return -1;
            cli->silent_on |= UINT32_C(1) << id;
        } else { /* --self-pause-after */
            if (number(opt, v, 0, (uint64_t)MAX_PAUSE_MS, &n, err, errlen))
                return -1;
            cli->self_pause_after_ms = (int64_t)n;
        }
    }
    if (cli->ghcdebug_of && !cli->ghcdebug_path)
        return fail(err, errlen, "--ghc-debug-snapshot-of needs --ghc-debug-snapshot FILE");
    if (cli->socket_path && cli->tcp)
        return fail(err, errlen, "--socket and --tcp exclude each other");
    if (gen->leak_era >= gen->eras)
        return fail(err, errlen, "--leak-era %u must be smaller than --eras %u", gen->leak_era,
                    gen->eras);
    return 0;
}
