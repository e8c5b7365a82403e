/* SPDX-License-Identifier: MIT */
/*
 * test_session_events.c — a session's event queue: events come out in the
 * order they happened; when nobody polls, the newest 64 are kept, the
 * older ones dropped and counted in stats.events_dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/tempo.h"
#include "toy.h"

#define PLAYERS 4
#define CYCLES 40 /* two events each: more than the 64 the queue holds */

/* Tick (running the requests) until the session waits; returns the ticks. */
static int tick_until(tempo_session *s, toy_driver *d, bool waiting)
{
    const uint8_t in[4] = {1, 2, 3, 4};
    for (int i = 0; i < 1000; i++) {
        tempo_session_add_local_input(s, 0, in, sizeof in);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        toy_driver_run(d, s);
        if ((t.status == TEMPO_TICK_WAITING) == waiting)
            return i;
    }
    fail_msg("the session never %s", waiting ? "waited" : "went on");
    return -1;
}

static void feed(tempo_session *s, int player, int32_t *have, int32_t to)
{
    const uint8_t in[4] = {5, 6, 7, 8};
    for (; have[player] < to; have[player]++)
        assert_int_equal(tempo_session_add_remote_input(s, player, have[player], in, sizeof in),
                         TEMPO_OK);
}

static void the_newest_64_events_are_kept_in_order_and_the_rest_counted(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = PLAYERS;
    cfg.max_prediction = 4;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    for (int p = 1; p < PLAYERS; p++)
        tempo_session_add_remote_player(s, p, NULL);
    toy_driver d;
    toy_driver_init(&d, PLAYERS, 4);
    int32_t have[PLAYERS] = {0};
    /* cycle k: remote player 1 + k % 3 falls behind (WAITING for it
     * alone), then catches up (WAITING_OVER) */
    for (int k = 0; k < CYCLES; k++) {
        const int late = 1 + k % 3;
        const int32_t frame = tempo_session_frame(s);
        for (int p = 1; p < PLAYERS; p++)
            if (p != late)
                feed(s, p, have, frame + 40);
        tick_until(s, &d, true);
        feed(s, late, have, tempo_session_frame(s) + 1);
        tick_until(s, &d, false);
    }
    tempo_session_stats st;
    assert_int_equal(tempo_session_get_stats(s, &st), TEMPO_OK);
    assert_int_equal(st.events_dropped, 2 * CYCLES - 64);
    tempo_event ev;
    for (int e = 2 * CYCLES - 64; e < 2 * CYCLES; e++) {
        assert_int_equal(tempo_session_poll_event(s, &ev), 1);
        if (e % 2 == 0) {
            assert_int_equal(ev.kind, TEMPO_EVENT_WAITING);
            assert_int_equal(ev.u.waiting.players, 1u << (1 + (e / 2) % 3));
        } else {
            assert_int_equal(ev.kind, TEMPO_EVENT_WAITING_OVER);
        }
        assert_int_equal(ev.player, -1);
    }
    assert_int_equal(tempo_session_poll_event(s, &ev), 0);
    assert_int_equal(d.errors, 0);
    tempo_session_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_newest_64_events_are_kept_in_order_and_the_rest_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
