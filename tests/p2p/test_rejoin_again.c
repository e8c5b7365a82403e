/* SPDX-License-Identifier: MIT */
/*
 * test_rejoin_again.c — a machine that came back serves a later return.
 * Of five machines (split_world.h), machine A drops and comes back; 0.2 to
 * 4 s after it plays again, machine B drops. A is then one of the
 * survivors B comes back to (in half the seeds A hosts the lowest player,
 * so it is the one that sends B its state), and in a sealed match A is at
 * a later key epoch than the one B's process may know it at. Each drop is
 * drawn by the seed: a paused process, a process ended and started again
 * (rejoin), or its network gone. B must come
 * back, every machine play the same game from B's rejoin frame on, nobody
 * raise DESYNC or stay behind, and in a sealed match every machine know
 * every other at the key epoch it is at.
 */
#include "split_world.h"

#include "tempo/secure.h"

static stop sched[2]; /* A's drop, then B's */
static bool a_back;

/* B drops 0.2 to 4 s after A is back (it plays, with every peer live); A
 * must be back within 9 s of the end of its drop. */
static void b_drops_after_a_is_back(world *w)
{
    int a = sched[0].machine;
    if (a_back || w->now < sched[0].at_us + sched[0].for_us)
        return;
    if (w->now >= sched[1].at_us) {
        a_back = true; /* complained once */
        complain("seed %llu: machine %d (%s) not back 9 s after its drop: state %d, %d live peers, "
                 "%d REJOINED events",
                 (unsigned long long)w->seed, a, stop_kind_names[sched[0].kind], (int)state_of(w, a),
                 live_peers(w, a), w->m[a].rejoined_events);
        return;
    }
    if (w->m[a].rejoined_events >= 1 && w->m[a].rejoined_player == a &&
        state_of(w, a) == TEMPO_SESSION_RUNNING && live_peers(w, a) == N - 1) {
        a_back = true;
        sched[1].at_us = w->now + 200000u + mix(w->seed, 6) % 3800000u;
    }
}

/* A, hosting the lowest player, sent B its state; keyed, every machine
 * knows every other at the epoch that one is at. */
static void a_served_and_epochs_agree(world *w)
{
    int a = sched[0].machine;
    if (a == 0 && stats_of(w, a).rejoin_states_sent < 1)
        complain("seed %llu: machine 0, back before, sent no state for machine %d's return",
                 (unsigned long long)w->seed, sched[1].machine);
    if (!w->keyed)
        return;
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++)
            if (x != y && record_of(w, x, y)->epoch != w->m[y].s->net->rejoin.epoch)
                complain("seed %llu: machine %d knows machine %d at key epoch %u, which is at %u",
                         (unsigned long long)w->seed, x, y, (unsigned)record_of(w, x, y)->epoch,
                         (unsigned)w->m[y].s->net->rejoin.epoch);
}

/* Over seeds: A (machine 0 in even seeds) drops 10 s in and comes back;
 * 0.2 to 4 s after it plays again, B drops (drawn_stop).
 * `env` names the variable (first:count) that runs another range by hand. */
static void again(bool keyed, uint64_t first_seed, uint64_t count, const char *env)
{
    seed_range(env, &first_seed, &count);
    int failed = 0;
    meddler = b_drops_after_a_is_back;
    inspector = a_served_and_epochs_agree;
    for (uint64_t seed = first_seed; seed < first_seed + count; seed++) {
        int before = complaints;
        memset(sched, 0, sizeof sched);
        a_back = false;
        int a = seed % 2u == 0 ? 0 : (int)(mix(seed, 2) % N);
        sched[0] = drawn_stop(seed, 0, a, 10000000u + mix(seed, 4) % 300000u);
        int b = (a + 1 + (int)(mix(seed, 3) % (N - 1))) % N;
        sched[1] = drawn_stop(seed, 1, b, sched[0].at_us + sched[0].for_us + 9000000u); /* moved once A is back */
        int not_back = stopped_together(sched, 2, 30000, keyed, seed);
        if (not_back != 0)
            complain("seed %llu: %d of machine %d (%s first) and machine %d (%s later) not back",
                     (unsigned long long)seed, not_back, a, stop_kind_names[sched[0].kind], sched[1].machine,
                     stop_kind_names[sched[1].kind]);
        failed += complaints != before;
    }
    meddler = NULL;
    inspector = NULL;
    printf("%llu seeds of a machine dropped after another came back (%s): %d failed\n", (unsigned long long)count,
           keyed ? "sealed" : "open", failed);
    assert_int_equal(failed, 0);
}

static void a_machine_back_once_serves_a_later_return(void **state)
{
    (void)state;
    again(false, 100, 2, "AGAIN_SEEDS");
}

/* Sealed: A is at key epoch 1 when B comes back, and a new process of B
 * knows it at 0. */
static void sealed_a_machine_back_once_serves_a_later_return(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    again(true, 104, 2, "AGAIN_SEALED_SEEDS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_machine_back_once_serves_a_later_return),
        cmocka_unit_test(sealed_a_machine_back_once_serves_a_later_return),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
