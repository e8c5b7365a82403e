/* SPDX-License-Identifier: MIT */
/*
 * test_rejoin_pair.c — two machines dropped together come back together.
 * Two of five machines (split_world.h) are paused within a fraction of a
 * second of each other past the disconnect timeout; the three others drop
 * both, and the two, hearing each other on waking, find they are not the
 * match and come back by state transfer within a moment of each other.
 * Both must come back, and all five play the same game from the later
 * rejoin frame on, in an open match and in a sealed one (where each comes
 * back at a key epoch the other does not know yet), also with an attacker
 * forging and replaying handshakes meanwhile.
 */
#include "split_world.h"

#include "tempo/secure.h"

/* Two of the five machines (drawn by the seed) stopped within 300 ms of
 * each other for 3.3 to 6 s, with rejoin: both come back (they return
 * within a moment of each other) and all five agree from the later rejoin
 * frame on. `env` names the variable (first:count) that runs another range
 * by hand. */
static void pairs_come_back(bool keyed, uint64_t first_seed, uint64_t count, const char *env)
{
    seed_range(env, &first_seed, &count);
    int failed = 0;
    for (uint64_t seed = first_seed; seed < first_seed + count; seed++) {
        int before = complaints;
        stop s[2] = {{0}};
        int first = (int)(mix(seed, 2) % N);
        for (int k = 0; k < 2; k++) {
            s[k].machine = (first + k * (1 + (int)(mix(seed, 3) % (N - 1)))) % N;
            s[k].at_us = 10000000u + mix(seed, 4 + (uint64_t)k) % 300000u;
            s[k].for_us = 3300000u + mix(seed, 8 + (uint64_t)k) % 2700000u;
        }
        int not_back = stopped_together(s, 2, 30000, keyed, seed);
        if (not_back != 0)
            complain("seed %llu: %d of the pair did not come back", (unsigned long long)seed, not_back);
        failed += complaints != before;
    }
    printf("%llu seeds of a pair stopped together with rejoin (%s): %d failed\n", (unsigned long long)count,
           keyed ? "sealed" : "open", failed);
    assert_int_equal(failed, 0);
}

static void pairs_stopped_together_come_back(void **state)
{
    (void)state;
    pairs_come_back(false, 100, 16, "REJOIN_SEEDS");
}

/* The same in a sealed match: each of the two comes back at a key epoch
 * the other does not know yet, and they still reach each other. */
static void sealed_pairs_stopped_together_come_back(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    pairs_come_back(true, 100, 6, "REJOIN_SEALED_SEEDS");
}

/* The attacker of sealed_pair_returns_despite_forgeries_and_replays: from
 * 16 s on, every 50 ms, a sealed handshake with a tag it cannot make from
 * each other machine's address to machines 1 and 2 (the pair), and every
 * datagram waiting for them delivered twice (the copy a replay). */
static int forged_sent, copies_sent;
static uint64_t forged_before, replays_before;

static void forge_and_replay(world *w)
{
    if (w->now < 16000000u || w->now % 50000u != 0)
        return;
    if (w->now == 16000000u) { /* the pair's processes are paused: the session's counters are as they were */
        tempo_session_stats s1 = stats_of(w, 1), s2 = stats_of(w, 2);
        forged_before = s1.dropped_forged + s2.dropped_forged;
        replays_before = s1.dropped_replay + s2.dropped_replay;
    }
    for (int to = 1; to <= 2; to++) {
        for (int as = 0; as < N; as++)
            if (as != to) {
                forge_sync(w, as, to, TEMPO_MSG_SYNC_REQUEST, (uint32_t)mix(w->now, (uint64_t)as),
                           (uint16_t)mix(w->now, 9) % 64u);
                forged_sent++;
            }
        uint8_t buf[8][TEMPO_MAX_DATAGRAM];
        size_t size[8];
        tempo_address from[8];
        int got = 0, r;
        while (got < 8 && (r = w->m[to].node.recv(w->m[to].node.ctx, &from[got], buf[got], sizeof buf[got])) > 0)
            size[got++] = (size_t)r;
        for (int k = 0; k < got; k++)
            for (int copy = 0; copy < 2; copy++) {
                assert_int_equal(tempo_simnet_inject(w->net, &from[k], &w->m[to].addr, buf[k], size[k]), TEMPO_OK);
                copies_sent += copy;
            }
    }
}

static void pair_counted_the_attack(world *w)
{
    tempo_session_stats s1 = stats_of(w, 1), s2 = stats_of(w, 2);
    uint64_t forged = s1.dropped_forged + s2.dropped_forged - forged_before;
    uint64_t replays = s1.dropped_replay + s2.dropped_replay - replays_before;
    uint64_t refused = s1.rejoins_refused + s2.rejoins_refused;
    printf("%d forged handshakes, %d copies sent to the pair: %llu dropped as forged, %llu as copies, "
           "%llu refused by rejoin (early %llu, malformed %llu, ignored %llu)\n",
           forged_sent, copies_sent, (unsigned long long)forged, (unsigned long long)replays,
           (unsigned long long)refused, (unsigned long long)(s1.dropped_early + s2.dropped_early),
           (unsigned long long)(s1.dropped_malformed + s2.dropped_malformed),
           (unsigned long long)(s1.claims_ignored + s2.claims_ignored));
    assert_true(forged + replays + refused >= (uint64_t)(forged_sent + copies_sent));
    assert_true(forged > 0 && replays > 0);
    /* each learned the other's new epoch: the one the survivors know */
    assert_int_equal(record_of(w, 1, 2)->epoch, record_of(w, 0, 2)->epoch);
    assert_int_equal(record_of(w, 2, 1)->epoch, record_of(w, 0, 1)->epoch);
    assert_true(record_of(w, 0, 1)->epoch >= 1 && record_of(w, 0, 2)->epoch >= 1);
    const tempo_p2p *n1 = w->m[1].s->net, *n2 = w->m[2].s->net;
    assert_true(n1->rejoin.rekeyed + n2->rejoin.rekeyed > 0);
}

/* The soak's pair in a sealed match, with an attacker at work while the
 * two come back: every forgery and every copy is dropped and counted at
 * the pair, both come back and all five agree (stopped_together's checks),
 * and each of the two knows the other at the key epoch the others know it
 * at. */
static void sealed_pair_returns_despite_forgeries_and_replays(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    forged_sent = copies_sent = 0;
    meddler = forge_and_replay;
    inspector = pair_counted_the_attack;
    assert_int_equal(stopped_together(soak_pair, 2, 30000, true, 30001682u), 0);
    meddler = NULL;
    inspector = NULL;
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pairs_stopped_together_come_back),
        cmocka_unit_test(sealed_pairs_stopped_together_come_back),
        cmocka_unit_test(sealed_pair_returns_despite_forgeries_and_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
