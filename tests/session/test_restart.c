/* SPDX-License-Identifier: MIT */
/*
 * test_restart.c — a machine whose process ends and starts again at the
 * same address, rejoining a running p2p match: before the others noticed
 * it was gone (they still send to its earlier life, with that life's
 * sequence numbers and keys) or after they dropped it. Three machines play
 * a small arena-mode game over simnet (rejoin_world.h); machine 2's process
 * ends 10 s in, its port closed meanwhile, and comes back 0.2 s, 1 s,
 * 2.9 s, 3.1 s or 10 s later with cfg.rejoin, open and sealed: every time
 * it gets a state, plays again from a frame all three name alike, and all
 * three agree from there. Then the same over many seeds, stop times and
 * delays.
 */
#include "rejoin_world.h"

#include "tempo/secure.h"

typedef struct restart_figures {
    uint64_t rejoined_after_us; /* from the new process's start to its REJOINED event */
    int survivors_waiting;      /* WAITING ticks of machines 0 and 1 from the stop on */
} restart_figures;

/* Machine 2's process ends at stop_us and starts again delay_us later;
 * checks that it rejoins and that all three agree from the rejoin frame. */
static void restart_and_check(uint64_t seed, bool keyed, uint64_t stop_us, uint64_t delay_us,
                              restart_figures *out)
{
    static world w; /* large: the games and their saved states */
    memset(&w, 0, sizeof w);
    world_init(&w, 30000, keyed, seed);
    run_until(&w, stop_us);
    w.m[0].counting = w.m[1].counting = true;
    restart_in_place(&w, 2, stop_us, delay_us, 1);
    uint64_t back = w.now;
    run_until(&w, back + 15000000u);

    machine *r = &w.m[2];
    if (r->rejoined_events != 1)
        fail_msg("seed %llu %s, stop %.2f s, back %.2f s later: the restarted machine never rejoined "
                 "(REJOINED events %d, frame %d)",
                 (unsigned long long)seed, keyed ? "sealed" : "open", (double)stop_us / 1e6,
                 (double)delay_us / 1e6, r->rejoined_events, (int)tempo_session_frame(r->s));
    assert_int_equal(r->rejoined_player, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w.m[i].rejoined_events, 1);
        assert_int_equal(w.m[i].rejoined_player, 2);
        assert_int_equal(w.m[i].rejoined_frame, r->rejoined_frame);
    }
    int32_t agreed = agreed_frames(&w, r->rejoined_frame);
    if (agreed < 300)
        fail_msg("seed %llu: only %d frames agreed from the rejoin frame %d", (unsigned long long)seed,
                 (int)agreed, (int)r->rejoined_frame);
    for (int i = 0; i < N; i++)
        assert_int_equal(w.m[i].desyncs, 0);
    tempo_session_stats s2 = stats_of(&w, 2);
    assert_true(s2.desync_checks > 10);
    assert_int_equal(s2.desyncs, 0);
    /* the survivors lost the earlier life once, and took the new one back */
    assert_int_equal(w.m[0].disconnects, 1);
    assert_int_equal(w.m[1].disconnects, 1);
    /* nothing allocated from the restart on */
    counting = false;
    assert_int_equal(allocs_counted, 0);
    out->rejoined_after_us = r->rejoined_us - back;
    out->survivors_waiting = w.m[0].waiting_ticks + w.m[1].waiting_ticks;
    world_free(&w);
}

static void restarted_machine_rejoins_whenever_it_comes_back(void **state)
{
    (void)state;
    static const uint64_t delays_us[] = {200000u, 1000000u, 2900000u, 3100000u, 10000000u};
    for (int sealed = 0; sealed < 2; sealed++) {
        if (sealed && !tempo_secure_available()) {
            printf("no libsodium in this build: the sealed restarts are not run\n");
            break;
        }
        for (size_t k = 0; k < sizeof delays_us / sizeof delays_us[0]; k++) {
            restart_figures f;
            restart_and_check(7, sealed != 0, 10000000u, delays_us[k], &f);
            printf("%s, back %4.1f s after the stop: rejoined %.2f s after its start; the survivors "
                   "waited %d ticks\n",
                   sealed ? "sealed" : "open  ", (double)delays_us[k] / 1e6,
                   (double)f.rejoined_after_us / 1e6, f.survivors_waiting);
            assert_true(f.rejoined_after_us < 6000000u);
        }
    }
}

/* Over seeds: the stop anywhere from 6 to 12 s into the match, the new
 * process back from 50 ms to 12 s later, open or sealed. */
static void restarts_over_many_seeds_all_rejoin(void **state)
{
    (void)state;
    for (uint64_t seed = 100; seed < 116; seed++) {
        uint64_t stop = 6000000u + mix(seed, 1) % 6000000u;
        uint64_t delay = 50000u + mix(seed, 2) % 12000000u;
        bool sealed = (seed & 1) && tempo_secure_available();
        restart_figures f;
        restart_and_check(seed, sealed, stop, delay, &f);
        assert_true(f.rejoined_after_us < 6000000u);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restarted_machine_rejoins_whenever_it_comes_back),
        cmocka_unit_test(restarts_over_many_seeds_all_rejoin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
