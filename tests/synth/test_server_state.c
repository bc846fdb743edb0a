/* Pause / resume / poll state machine (wire-protocol.md §8) and its
 * survival across connections (§3.4). */
#include <time.h>

#include "test_server_helpers.c"

#define PAUSE0 "00 00 00 05 | 00 00 00 02 | 00"
#define PAUSE1 "00 00 00 05 | 00 00 00 02 | 01"
#define RESUME "00 00 00 04 | 00 00 00 03"
#define ROOTS "00 00 00 04 | 00 00 00 04"
#define POLL "00 00 00 04 | 00 00 00 08"
#define VERSION_REQ "00 00 00 04 | 00 00 00 01"
#define VERSION_ANS "00 00 00 0a | 00 00 | 00 00 03 8e | 00 00 00 01 | 00 | 01"
#define OKAY "00 00 00 00 | 00 00"
#define ALREADY_PAUSED "00 00 00 00 | 01 01"
#define NOT_PAUSED "00 00 00 00 | 01 02"
#define NO_RESUME "00 00 00 00 | 01 03"
#define ROOTS_ANS "00 00 00 10 | 00 00 | 38 5a 10 00 42 00 00 00 | 10 7f 10 00 42 00 00 00"

static synth_process P;
static synth_state ST;
static tconn C;

static void setup(void) {
    tp_vectors(&P, false);
    synth_state_init(&ST, -1);
    tc_start(&C, &P, &ST);
}
static void teardown(void) {
    tc_stop(&C);
    tp_free(&P);
}

static int64_t ms_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ask(const char *req, const char *ans) {
    tc_send_hex(&C, req);
    tc_expect_hex(&C, ans);
}

TestSuite(state, .init = setup, .fini = teardown);

Test(state, roots_before_pause_is_not_paused) { ask(ROOTS, NOT_PAUSED); }

Test(state, heap_commands_that_need_the_pause) {
    ask("00 00 00 0e | 00 00 00 05 | 00 01 | 38 5a 10 00 42 00 00 00", NOT_PAUSED);
    ask("00 00 00 0e | 00 00 00 06 | 00 01 | 28 8e 4f 00 00 00 00 00", NOT_PAUSED);
    ask("00 00 00 0e | 00 00 00 11 | 00 01 | 28 8e 4f 00 00 00 00 00", NOT_PAUSED);
}

Test(state, commands_without_a_pause_check_answer_while_running) {
    ask(VERSION_REQ, VERSION_ANS);
    ask("00 00 00 04 | 00 00 00 09", OKAY); /* SAVED_OBJECTS, none */
    ask("00 00 00 0c | 00 00 00 0b | 28 8e 4f 00 00 00 00 00",
        "00 00 00 12 | 00 00 | 00 00 00 0e | 6d 61 69 6e 3a 4d 61 69 6e 2e 4c 65 61 6b");
    ask("00 00 00 0c | 00 00 00 0c | 28 91 4f 00 00 00 00 00", "00 00 00 04 | 00 00 | 00 00 00 00");
}

Test(state, pause_twice_is_already_paused) {
    ask(PAUSE0, OKAY);
    ask(PAUSE0, ALREADY_PAUSED);
    ask(PAUSE1, ALREADY_PAUSED);
    ask(ROOTS, ROOTS_ANS);
}

Test(state, resume_while_running_is_not_paused) {
    ask(RESUME, NOT_PAUSED);
    ask(PAUSE0, OKAY);
    ask(RESUME, OKAY);
    ask(RESUME, NOT_PAUSED);
    ask(ROOTS, NOT_PAUSED);
}

Test(state, an_empty_srt_tells_the_pause_state) {
    ask("00 00 00 06 | 00 00 00 11 | 00 00", NOT_PAUSED);
    ask(PAUSE0, OKAY);
    ask("00 00 00 06 | 00 00 00 11 | 00 00", OKAY);
}

Test(state, fork_mode_is_served_as_a_pause) {
    ask(PAUSE1, OKAY);
    ask(ROOTS, ROOTS_ANS);
    ask(RESUME, OKAY); /* no fork happened: the reply comes */
    ask(ROOTS, NOT_PAUSED);
}

Test(state, poll_without_self_pause_stays_silent) {
    tc_send_hex(&C, POLL);
    tc_expect_silence(&C, 150);
    cr_assert(ST.poll_pending);
    /* the stub keeps reading requests meanwhile */
    ask(VERSION_REQ, VERSION_ANS);
    ask(RESUME, NOT_PAUSED);
    ask(PAUSE0, OKAY);
    ask(RESUME, NO_RESUME); /* forever after a POLL */
}

Test(state_silent, a_silent_pause_pauses_without_an_answer) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    synth_state_init(&st, -1);
    tc_start_silent(&c, &p, &st, 1u << 2);
    tc_send_hex(&c, PAUSE0);
    tc_expect_silence(&c, 150);
    cr_assert(st.paused, "carried out all the same");
    tc_send_hex(&c, ROOTS); /* the next request is answered */
    tc_expect_hex(&c, ROOTS_ANS);
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, OKAY);
    tc_send_hex(&c, PAUSE0);
    tc_expect_silence(&c, 100);
    tc_stop(&c);
    tp_free(&p);
}

Test(state_poll, deferred_reply_when_the_program_pauses_itself) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    int64_t t0 = ms_now();
    synth_state_init(&st, 400);
    tc_start(&c, &p, &st);
    tc_send_hex(&c, POLL);
    tc_expect_silence(&c, 100);
    tc_expect_hex(&c, OKAY); /* the deferred reply */
    cr_assert_geq(ms_now() - t0, 390, "the reply came before the self-pause");
    cr_assert(st.paused && st.self_paused && st.poll_pending);
    tc_send_hex(&c, ROOTS);
    tc_expect_hex(&c, ROOTS_ANS);
    tc_send_hex(&c, "00 00 00 0e | 00 00 00 05 | 00 01 | 38 5a 10 00 42 00 00 00");
    tc_expect_hex(&c, "00 00 00 1c | 00 00 | 00 00 00 18 | 28 8e 4f 00 00 00 00 00 |"
                      "51 5a 10 00 42 00 00 00 | 68 5a 10 00 42 00 00 00");
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, NO_RESUME);
    tc_send_hex(&c, PAUSE0);
    tc_expect_hex(&c, ALREADY_PAUSED);
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, NO_RESUME);
    tc_stop(&c);
    tp_free(&p);
}

Test(state_poll, poll_after_the_self_pause_is_answered_at_once) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    synth_state_init(&st, 0);
    tc_start(&c, &p, &st);
    tc_send_hex(&c, VERSION_REQ); /* the timer fires around this request */
    tc_expect_hex(&c, VERSION_ANS);
    cr_assert(st.paused && st.self_paused);
    tc_send_hex(&c, POLL);
    tc_expect_hex(&c, OKAY);
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, NO_RESUME);
    tc_stop(&c);
    tp_free(&p);
}

Test(state_poll, self_pause_without_poll_can_be_resumed) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    synth_state_init(&st, 0);
    tc_start(&c, &p, &st);
    tc_send_hex(&c, PAUSE0);
    tc_expect_hex(&c, ALREADY_PAUSED);
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, OKAY);
    tc_send_hex(&c, ROOTS);
    tc_expect_hex(&c, NOT_PAUSED);
    /* the one-shot timer does not pause it again */
    tc_send_hex(&c, POLL);
    tc_expect_silence(&c, 100);
    tc_stop(&c);
    tp_free(&p);
}

Test(state_poll, owed_reply_dies_with_its_connection) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    synth_state_init(&st, 300);
    tc_start(&c, &p, &st);
    tc_send_hex(&c, POLL);
    tc_expect_silence(&c, 50);
    tc_stop(&c);
    cr_assert(st.poll_pending && !st.reply_owed);
    tc_start(&c, &p, &st);
    tc_expect_silence(&c, 450); /* the self-pause happens, nothing is owed here */
    cr_assert(st.paused);
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, NO_RESUME);
    tc_stop(&c);
    tp_free(&p);
}

Test(state_reconnect, state_survives_disconnects) {
    synth_process p;
    synth_state st;
    tconn c;
    tp_vectors(&p, false);
    synth_state_init(&st, -1);

    tc_start(&c, &p, &st);
    tc_send_hex(&c, PAUSE0);
    tc_expect_hex(&c, OKAY);
    cr_assert_eq(tc_stop(&c), SYNTH_SERVE_CLOSED);

    tc_start(&c, &p, &st); /* still paused: a new client may read the heap */
    tc_send_hex(&c, PAUSE0);
    tc_expect_hex(&c, ALREADY_PAUSED);
    tc_send_hex(&c, ROOTS);
    tc_expect_hex(&c, ROOTS_ANS);
    tc_send_hex(&c, RESUME);
    tc_expect_hex(&c, OKAY);
    tc_stop(&c);

    tc_start(&c, &p, &st);
    tc_send_hex(&c, ROOTS);
    tc_expect_hex(&c, NOT_PAUSED);
    tc_send_hex(&c, POLL);
    tc_stop(&c);

    tc_start(&c, &p, &st);
    tc_send_hex(&c, PAUSE0);
    tc_expect_hex(&c, OKAY);
    tc_send_hex(&c, RESUME); /* the POLL of the last connection still counts */
    tc_expect_hex(&c, NO_RESUME);
    tc_stop(&c);
    tp_free(&p);
}
