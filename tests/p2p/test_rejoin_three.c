/* SPDX-License-Identifier: MIT */
/*
 * test_rejoin_three.c — three machines dropped together come back. Six
 * machines (split_world.h); three of them, never machine 0, drop within
 * 300 ms of each other (in half the seeds within 1.5 s: losses the others
 * judge one at a time) for 3.3 to 6 s (a restart for 0.2 to 6 s), so they
 * come back in any order. Each drop is drawn by the seed: a paused
 * process (paused ones still hear each other on waking), a process ended
 * and started again (rejoin), or its network gone. The three are half the
 * match without the lowest player, so they are not the match (docs/
 * NETWORK.md, "Which side is the match"): each must come back, all six
 * play the same game from the last rejoin frame on, nobody raises DESYNC
 * or stays behind, and the three never dropped never take themselves for
 * dropped. Open and sealed (each comes back at a key epoch the other two
 * do not know yet).
 */
#define N 6
#include "split_world.h"

#include "tempo/secure.h"

/* `env` names the variable (first:count) that runs another range by hand. */
static void three(bool keyed, uint64_t first_seed, uint64_t count, const char *env)
{
    seed_range(env, &first_seed, &count);
    int failed = 0;
    for (uint64_t seed = first_seed; seed < first_seed + count; seed++) {
        int before = complaints;
        stop s[3];
        /* within 300 ms (one loss to the others), or within 1.5 s (separate losses) */
        uint64_t spread = mix(seed, 20) % 2u == 0 ? 300000u : 1500000u;
        /* of machines 1..5, the two never dropped beside machine 0 */
        int x = 1 + (int)(mix(seed, 2) % (N - 1)), y = 1 + (x + (int)(mix(seed, 3) % (N - 2))) % (N - 1);
        for (int k = 0, i = 1; i < N; i++) {
            if (i == x || i == y)
                continue;
            s[k] = drawn_stop(seed, (uint64_t)k, i, 10000000u + mix(seed, 4 + (uint64_t)k) % spread);
            k++;
        }
        int not_back = stopped_together(s, 3, 30000, keyed, seed);
        if (not_back != 0)
            complain("seed %llu: %d of machines %d (%s), %d (%s), %d (%s) not back", (unsigned long long)seed,
                     not_back, s[0].machine, stop_kind_names[s[0].kind], s[1].machine, stop_kind_names[s[1].kind],
                     s[2].machine, stop_kind_names[s[2].kind]);
        failed += complaints != before;
    }
    printf("%llu seeds of three machines dropped together (%s): %d failed\n", (unsigned long long)count,
           keyed ? "sealed" : "open", failed);
    assert_int_equal(failed, 0);
}

static void three_dropped_together_come_back(void **state)
{
    (void)state;
    three(false, 100, 1, "THREE_SEEDS");
}

static void sealed_three_dropped_together_come_back(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    three(true, 102, 1, "THREE_SEALED_SEEDS");
}

/* Machine 3's process ends 10.1 s in and starts again 3.5 s later,
 * machine 4 is cut off 0.5 s after it for 5.5 s, and machine 1 pauses
 * 0.8 s after that for 4.7 s: three losses the others judge one at a
 * time, and three returns of three kinds. */
static void restarted_cut_off_and_paused_one_after_another_come_back(void **state)
{
    (void)state;
    static const stop s[] = {{1, 11426534u, 4746338u, STOP_PAUSE, 0},
                             {3, 10123871u, 3458083u, STOP_RESTART, 0},
                             {4, 10622788u, 5459840u, STOP_CUT, 0}};
    assert_int_equal(stopped_together(s, 3, 30000, false, 111u), 0);
}

/* Three processes end within 0.7 s of each other and start again 2.8 to
 * 5.5 s later: machine 4's new process is back before the others finished
 * agreeing on machine 1's drop, and the survivor that serves states must
 * not wait for it (it runs nothing yet) to settle that drop. */
static void three_restarted_one_after_another_come_back(void **state)
{
    (void)state;
    static const stop s[] = {{1, 11268429u, 4648652u, STOP_RESTART, 0},
                             {4, 10676866u, 2831447u, STOP_RESTART, 0},
                             {5, 10599715u, 5515806u, STOP_RESTART, 0}};
    assert_int_equal(stopped_together(s, 3, 30000, false, 106u), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_dropped_together_come_back),
        cmocka_unit_test(sealed_three_dropped_together_come_back),
        cmocka_unit_test(restarted_cut_off_and_paused_one_after_another_come_back),
        cmocka_unit_test(three_restarted_one_after_another_come_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
