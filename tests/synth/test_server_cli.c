/* Command line of heapscope-debuggee (synth_server_cli.c). */
#include <criterion/criterion.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "synth_server.h"
#include "synth_server_cli.h"

static synth_options defaults(void) {
    return (synth_options){.closures = 10000, .eras = 5, .leak_constructor = "Leak",
                           .leak_count = 1000, .leak_era = 1, .seed = 1};
}

static synth_cli CLI;
static synth_options GEN;
static char ERR[512];

#define ARGV(...) ((char *[]){"heapscope-debuggee", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"heapscope-debuggee", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(...) (GEN = defaults(), synth_cli_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), &CLI, &GEN, ERR, sizeof ERR))

static void fails_with(int rc, const char *needle) {
    cr_assert_eq(rc, -1, "accepted");
    cr_assert(strstr(ERR, needle) != NULL, "message '%s' lacks '%s'", ERR, needle);
}

Test(cli, no_options_keep_the_defaults) {
    char *argv[] = {"heapscope-debuggee", NULL};
    GEN = defaults();
    cr_assert_eq(synth_cli_parse(1, argv, &CLI, &GEN, ERR, sizeof ERR), 0, "%s", ERR);
    cr_assert_eq(GEN.closures, 10000);
    cr_assert_eq(GEN.eras, 5);
    cr_assert(!GEN.profiled);
    cr_assert_str_eq(GEN.leak_constructor, "Leak");
    cr_assert_null(CLI.socket_path);
    cr_assert_null(CLI.tcp);
    cr_assert_null(CLI.plan_path);
    cr_assert(!CLI.plan_only && !CLI.help);
    cr_assert_eq(CLI.max_connections, 0);
    cr_assert_eq(CLI.self_pause_after_ms, -1);
}

Test(cli, every_option) {
    cr_assert_eq(PARSE("--socket", "/tmp/s", "--closures", "500", "--eras", "7", "--profiled",
                       "--leak-constructor", "Cache", "--leak-count", "42", "--leak-era", "3",
                       "--seed", "18446744073709551615", "--plan", "-", "--plan-only",
                       "--max-connections", "2", "--self-pause-after", "250",
                       "--grow-per-pause", "40"),
                 0, "%s", ERR);
    cr_assert_str_eq(CLI.socket_path, "/tmp/s");
    cr_assert_eq(GEN.closures, 500);
    cr_assert_eq(GEN.eras, 7);
    cr_assert(GEN.profiled);
    cr_assert_str_eq(GEN.leak_constructor, "Cache");
    cr_assert_eq(GEN.leak_count, 42);
    cr_assert_eq(GEN.leak_era, 3);
    cr_assert_eq(GEN.seed, UINT64_MAX);
    cr_assert_str_eq(CLI.plan_path, "-");
    cr_assert(CLI.plan_only);
    cr_assert_eq(CLI.max_connections, 2);
    cr_assert_eq(CLI.self_pause_after_ms, 250);
    cr_assert_eq(GEN.grow_per_pause, 40);
    cr_assert_eq(GEN.grow_rounds, 0);
}

Test(cli, silent_on_takes_names_and_numbers_and_adds_up) {
    cr_assert_eq(PARSE("--silent-on", "PAUSE", "--silent-on=roots", "--silent-on", "17"), 0,
                 "%s", ERR);
    cr_assert_eq(CLI.silent_on, (1u << 2) | (1u << 4) | (1u << 17));
    fails_with(PARSE("--silent-on", "PAWS"), "'PAWS' is not a command name");
    fails_with(PARSE("--silent-on", "32"), "out of range");
    fails_with(PARSE("--silent-on"), "--silent-on needs a value");
    cr_assert_eq(PARSE("--answer-delay", "250"), 0, "%s", ERR);
    cr_assert_eq(CLI.answer_delay_ms, 250);
    fails_with(PARSE("--answer-delay", "60001"), "out of range");
}

Test(cli, hostile_kinds_add_up_and_take_a_command) {
    cr_assert_eq(PARSE("--hostile", "cycles,bad-sp", "--hostile=stall,hangup@ALL_BLOCKS,busy"),
                 0, "%s", ERR);
    cr_assert_eq(CLI.hostile.heap, SYNTH_HOSTILE_CYCLES | SYNTH_HOSTILE_BAD_SP);
    cr_assert(CLI.hostile.busy);
    cr_assert_eq(CLI.hostile.wire[4], SYNTH_WIRE_STALL, "ROOTS");
    cr_assert_eq(CLI.hostile.wire[14], SYNTH_WIRE_HANGUP, "ALL_BLOCKS: the later item wins");
    for (int spared = 1; spared <= 3; spared++)
        cr_assert_eq(CLI.hostile.wire[spared], SYNTH_WIRE_PLAIN, "command %d", spared);
    cr_assert_eq(PARSE("--hostile", "huge@version"), 0, "%s", ERR);
    cr_assert_eq(CLI.hostile.wire[1], SYNTH_WIRE_HUGE);
    cr_assert_eq(CLI.hostile.wire[4], SYNTH_WIRE_PLAIN, "only the command named");
    cr_assert_eq(PARSE("--hostile", "heap"), 0, "%s", ERR);
    cr_assert_eq(CLI.hostile.heap, 0xffu);
    fails_with(PARSE("--hostile", "cycle"), "'cycle' is not a kind");
    fails_with(PARSE("--hostile", "stall,"), "'' is not a kind");
    fails_with(PARSE("--hostile", "stall@PAWS"), "--hostile: 'PAWS' is not a command name");
    fails_with(PARSE("--hostile", "cycles@ROOTS"), "cycles takes no @COMMAND");
    fails_with(PARSE("--hostile", "busy@ROOTS"), "busy takes no @COMMAND");
}

Test(cli, equals_form_and_tcp) {
    cr_assert_eq(PARSE("--tcp=127.0.0.1:0", "--closures=7", "--leak-count=0"), 0, "%s", ERR);
    cr_assert_str_eq(CLI.tcp, "127.0.0.1:0");
    cr_assert_eq(GEN.closures, 7);
    cr_assert_eq(GEN.leak_count, 0);
}

Test(cli, help) {
    cr_assert_eq(PARSE("--help"), 0);
    cr_assert(CLI.help);
    cr_assert(strstr(synth_cli_usage(), "--self-pause-after MS") != NULL);
}

Test(cli, usage_errors) {
    fails_with(PARSE("--bogus"), "unknown option '--bogus'");
    fails_with(PARSE("--closures"), "--closures needs a value");
    fails_with(PARSE("--closures", "12k"), "'12k' is not a number");
    fails_with(PARSE("--closures", "-5"), "'-5' is not a number");
    fails_with(PARSE("--closures", " 5"), "is not a number");
    fails_with(PARSE("--closures", "0"), "out of range");
    fails_with(PARSE("--closures", "99999999999999999999999"), "out of range");
    fails_with(PARSE("--eras", "0"), "out of range");
    fails_with(PARSE("--seed", ""), "is not a number");
    fails_with(PARSE("--max-connections", "0"), "out of range");
    fails_with(PARSE("--self-pause-after", "86400001"), "out of range");
    fails_with(PARSE("--leak-era", "0"), "out of range");
    fails_with(PARSE("--eras", "3", "--leak-era", "3"), "--leak-era 3 must be smaller than --eras 3");
    fails_with(PARSE("--eras", "1"), "must be smaller");
    fails_with(PARSE("--socket", "/a", "--tcp", "127.0.0.1:1"), "exclude each other");
    fails_with(PARSE("--socket", ""), "empty");
    fails_with(PARSE("--plan="), "empty");
    fails_with(PARSE("--leak-constructor", "Main.Leak"), "not a constructor name");
    fails_with(PARSE("--leak-constructor", ""), "not a constructor name");
    fails_with(PARSE("--closuresx", "1"), "unknown option");
    fails_with(PARSE("--grow-per-pause", "0"), "out of range");
}

/* --count-requests: parsed, and the file synth_write_counts writes names
 * every command served and the connections. */
Test(cli, count_requests_file) {
    cr_assert_eq(PARSE("--count-requests", "/tmp/counts"), 0, "%s", ERR);
    cr_assert_str_eq(CLI.count_path, "/tmp/counts");
    fails_with(PARSE("--count-requests", ""), "the file name is empty");
    char path[] = "/tmp/hs-counts-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    synth_state st = {.connections = 2};
    st.requests[6] = 3;  /* INFO_TABLES */
    st.requests[11] = 5; /* CON_DESC */
    st.requests[0] = 1;  /* not a command */
    cr_assert_eq(synth_write_counts(&st, path), 0);
    char text[256] = {0};
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_assert_gt(fread(text, 1, sizeof text - 1, f), 0);
    fclose(f);
    remove(path);
    cr_assert_str_eq(text, "connections 2\nCOMMAND_0 1\nINFO_TABLES 3\nCON_DESC 5\n");
}
