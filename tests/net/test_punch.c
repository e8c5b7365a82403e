/* SPDX-License-Identifier: MIT */
/*
 * test_punch.c — one pair's hole punching on a virtual clock: every
 * candidate probed at once and never faster than the probe period, the
 * first acknowledged candidate wins, punching gives up at its timeout,
 * keepalives, a dead direct path falls back and an answer upgrades again,
 * stale and foreign acknowledgements ignored, peer-reflexive candidates,
 * and a property over many seeded runs of random events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "net/punch.h"
#include "tempo/rng.h"

#define MS 1000u
#define SEC 1000000u
#define T0 (5 * SEC)

static punch_pair pair_at(uint64_t now, int nlocal)
{
    punch_config c;
    punch_config_default(&c);
    punch_pair p;
    punch_init(&p, &c);
    tempo_address pub = tempo_address_ipv4(203, 0, 113, 11, 7000);
    tempo_address local[2] = {tempo_address_ipv4(10, 0, 1, 11, 7000),
                              tempo_address_ipv4(10, 0, 1, 11, 7000)}; /* a duplicate */
    punch_start(&p, now, &pub, local, nlocal);
    return p;
}

static int popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Every probe due at now: a bit per candidate index (PUNCH_RELAY's too). */
static unsigned due_mask(punch_pair *p, uint64_t now, uint32_t *nonces)
{
    unsigned mask = 0;
    uint32_t n;
    int k;
    while ((k = punch_next_probe(p, now, &n)) >= 0) {
        assert_false(mask & (1u << k)); /* one probe per candidate per call round */
        mask |= 1u << k;
        if (nonces)
            nonces[k] = n;
    }
    return mask;
}

static void test_waiting_sends_nothing(void **state)
{
    (void)state;
    punch_config c;
    punch_config_default(&c);
    punch_pair p;
    punch_init(&p, &c);
    uint32_t n;
    assert_int_equal(punch_next_probe(&p, T0, &n), -1);
    assert_int_equal(punch_on_ack(&p, T0, 0), 0u);
    assert_int_equal(punch_update(&p, T0 + 60 * SEC), 0u);
    assert_null(punch_direct(&p));
}

static void test_all_candidates_at_once_at_a_bounded_rate(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 2);
    assert_int_equal(p.ncand, 2); /* local first, the duplicate skipped, then public */
    assert_int_equal(p.cand[0].kind, PUNCH_CAND_LOCAL);
    assert_int_equal(p.cand[1].kind, PUNCH_CAND_PUBLIC);
    assert_int_equal(due_mask(&p, T0, NULL), 0x3u | (1u << PUNCH_RELAY));
    /* however often the caller asks, nothing more until the period */
    for (uint64_t t = T0; t < T0 + 50 * MS; t += MS)
        assert_int_equal(due_mask(&p, t, NULL), 0u);
    assert_int_equal(due_mask(&p, T0 + 50 * MS, NULL), 0x3u);
    /* 2.5 s of punching: 50 rounds of 2 probes, 3 through the relay */
    int probes = 3 + 2; /* the rounds at 0 and 50 ms */
    for (uint64_t t = T0 + 51 * MS; t < T0 + 2500 * MS; t += MS)
        probes += popcount(due_mask(&p, t, NULL));
    assert_int_equal(probes, 2 * 50 + 3);
}

static void test_first_acknowledged_wins(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 1);
    uint32_t nonce[8];
    due_mask(&p, T0, nonce);
    assert_int_equal(punch_on_ack(&p, T0 + 30 * MS, nonce[1]), PUNCH_EV_DIRECT);
    assert_int_equal(p.path, PUNCH_DIRECT);
    assert_true(tempo_address_equal(punch_direct(&p), &p.cand[1].addr));
    assert_int_equal(p.cand[1].rtt_us, 30 * MS);
    assert_int_equal(p.direct_after_us, 30 * MS);
    /* the other one answering later changes nothing */
    assert_int_equal(punch_on_ack(&p, T0 + 40 * MS, nonce[0]), 0u);
    assert_true(tempo_address_equal(punch_direct(&p), &p.cand[1].addr));
    assert_int_equal(p.upgrades, 0u);
    /* the relay's answer is its round trip, not a path */
    assert_int_equal(punch_on_ack(&p, T0 + 45 * MS, nonce[PUNCH_RELAY]), 0u);
    assert_int_equal(p.relay_rtt_us, 45 * MS);
    /* direct: only the chosen one is probed, each keepalive */
    assert_int_equal(due_mask(&p, T0 + 500 * MS, NULL), 0u);
    assert_int_equal(due_mask(&p, T0 + SEC, NULL), (1u << 1) | (1u << PUNCH_RELAY));
}

static void test_timeout_falls_back_and_retries_upgrade(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 1);
    due_mask(&p, T0, NULL);
    assert_int_equal(punch_update(&p, T0 + 2499 * MS), 0u);
    assert_int_equal(punch_update(&p, T0 + 2500 * MS), PUNCH_EV_FALLBACK);
    assert_int_equal(p.path, PUNCH_RELAYED);
    assert_null(punch_direct(&p));
    /* background: every candidate once per retry period */
    uint64_t t = T0 + 2500 * MS;
    int rounds = 0;
    uint32_t nonce[8];
    for (; t < T0 + 10 * SEC; t += 10 * MS)
        if (due_mask(&p, t, nonce) & 0x3u)
            rounds++;
    assert_int_equal(rounds, 3); /* the fallback + 2, + 4, + 6 s */
    /* an answer to a retry moves the pair to the direct path */
    assert_int_equal(punch_on_ack(&p, t, nonce[0]), PUNCH_EV_DIRECT);
    assert_int_equal(p.upgrades, 1u);
    assert_int_equal(p.path, PUNCH_DIRECT);
}

static void test_dead_direct_path_downgrades(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 0);
    uint32_t nonce[8];
    due_mask(&p, T0, nonce);
    assert_int_equal(punch_on_ack(&p, T0 + 10 * MS, nonce[0]), PUNCH_EV_DIRECT);
    /* probes answered for 5 s, nothing else from the peer: an idle pair */
    uint64_t t = T0 + 10 * MS;
    int probes = 0;
    for (; t < T0 + 5 * SEC; t += 10 * MS) {
        assert_int_equal(punch_update(&p, t), 0u);
        if (due_mask(&p, t, nonce) & 1u) {
            probes++;
            assert_int_equal(punch_on_ack(&p, t, nonce[0]), 0u);
        }
    }
    assert_int_equal(probes, 4); /* one each keepalive: at 1, 2, 3 and 4 s */
    /* then silence: dead at the last answer + dead_us, not before */
    uint64_t last = p.cand[0].acked_us;
    assert_int_equal(punch_update(&p, last + 3499 * MS), 0u);
    assert_int_equal(punch_update(&p, last + 3500 * MS), PUNCH_EV_DIED);
    assert_int_equal(p.downgrades, 1u);
    assert_int_equal(p.path, PUNCH_RELAYED);
    assert_int_equal(p.chosen, -1);
    /* the retry starts at once */
    assert_true(due_mask(&p, last + 3500 * MS, nonce) & 1u);
    assert_int_equal(punch_on_ack(&p, last + 3600 * MS, nonce[0]), PUNCH_EV_DIRECT);
    assert_int_equal(p.upgrades, 1u);
}

/* A match's path: the peer's datagrams every 16 ms; when they stop, the
 * path is probed faster and declared dead within a second. */
static void test_quiet_match_path_dies_fast(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 0);
    uint32_t nonce[8];
    due_mask(&p, T0, nonce);
    punch_on_ack(&p, T0 + 10 * MS, nonce[0]);
    uint64_t t = T0 + 10 * MS;
    int probes = 0;
    for (; t < T0 + 3 * SEC; t += 16 * MS) {
        punch_on_direct_in(&p, t);
        assert_int_equal(punch_update(&p, t), 0u);
        if (due_mask(&p, t, nonce) & 1u) {
            probes++;
            punch_on_ack(&p, t + 5 * MS, nonce[0]);
        }
    }
    assert_int_equal(probes, 2); /* traffic flows: keepalives only, at 1 and 2 s */
    uint64_t last_in = p.in_us, last_ack = p.cand[0].acked_us;
    /* it goes dark */
    uint64_t died = 0;
    for (t = last_in + MS; t < last_in + 5 * SEC && !died; t += MS)
        if (punch_update(&p, t) == PUNCH_EV_DIED)
            died = t;
    assert_true(died != 0);
    /* dead once quiet and unanswered long enough, whichever comes last */
    uint64_t want = last_ack + PUNCH_SUSPECT_DEAD_US;
    if (last_in + PUNCH_QUIET_US > want)
        want = last_in + PUNCH_QUIET_US;
    assert_int_equal(died, want);
    assert_true(died - last_in < SEC);
}

static void test_foreign_and_stale_acks_ignored(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 0);
    uint32_t nonce[8];
    due_mask(&p, T0, nonce);
    /* an index with no candidate, and one never probed */
    assert_int_equal(punch_on_ack(&p, T0 + MS, (5u << 29) | (nonce[0] & 0x1FFFFFFFu)), 0u);
    /* older than ten seconds: not ours */
    assert_int_equal(punch_on_ack(&p, T0 + 11 * SEC, nonce[0]), 0u);
    /* from the future (a nonce we have not sent) */
    assert_int_equal(punch_on_ack(&p, T0, nonce[0] + 5), 0u);
    assert_int_equal(p.path, PUNCH_PROBING);
    /* a replayed acknowledgement keeps no dead path alive */
    assert_int_equal(punch_on_ack(&p, T0 + 20 * MS, nonce[0]), PUNCH_EV_DIRECT);
    uint64_t acked = p.cand[0].acked_us;
    assert_int_equal(punch_on_ack(&p, T0 + 900 * MS, nonce[0]), 0u);
    assert_int_equal(p.cand[0].acked_us, acked);
    assert_int_equal(punch_update(&p, acked + 3500 * MS), PUNCH_EV_DIED);
}

static void test_seen_candidates(void **state)
{
    (void)state;
    punch_pair p = pair_at(T0, 1);
    tempo_address x = tempo_address_ipv4(203, 0, 113, 11, 40001);
    tempo_address y = tempo_address_ipv4(203, 0, 113, 11, 40002);
    assert_false(punch_owns(&p, &p.cand[1].addr)); /* never heard */
    punch_on_probe(&p, T0, &x);
    assert_int_equal(p.ncand, 3);
    assert_int_equal(p.cand[2].kind, PUNCH_CAND_SEEN);
    assert_true(punch_owns(&p, &x));
    /* a newer mapping replaces the old one */
    punch_on_probe(&p, T0 + MS, &y);
    assert_int_equal(p.ncand, 3);
    assert_true(punch_owns(&p, &y));
    assert_false(punch_owns(&p, &x));
    /* a known candidate is marked heard, not added */
    punch_on_probe(&p, T0 + 2 * MS, &p.cand[1].addr);
    assert_int_equal(p.ncand, 3);
    assert_true(punch_owns(&p, &p.cand[1].addr));
    /* not an address: ignored */
    tempo_address none;
    memset(&none, 0, sizeof none);
    punch_on_probe(&p, T0, &none);
    assert_int_equal(p.ncand, 3);
}

/* Random events on a virtual clock, many seeds: the rate bound and the
 * path's consistency hold whatever the order. */
static void test_property_random_events(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 7);
        punch_pair p = pair_at(T0, (int)tempo_rng_below(&rng, 3));
        uint64_t last_sent[8] = {0};
        tempo_address sent_to[8];
        memset(sent_to, 0, sizeof sent_to);
        uint32_t nonce[8] = {0};
        uint64_t t = T0;
        for (int step = 0; step < 2000; step++) {
            t += tempo_rng_below(&rng, 40) * MS;
            uint32_t n;
            int k;
            while ((k = punch_next_probe(&p, t, &n)) >= 0) {
                /* per destination: a SEEN candidate replaced is another one */
                if (k != PUNCH_RELAY && !tempo_address_equal(&sent_to[k], &p.cand[k].addr)) {
                    sent_to[k] = p.cand[k].addr;
                    last_sent[k] = 0;
                }
                uint64_t min = k == PUNCH_RELAY ? p.cfg.keepalive_us : p.cfg.probe_us;
                assert_true(last_sent[k] == 0 || t - last_sent[k] >= min);
                last_sent[k] = t;
                nonce[k] = n;
            }
            uint32_t r = tempo_rng_below(&rng, 100);
            if (r < 5) {
                int i = (int)tempo_rng_below(&rng, 8);
                (void)punch_on_ack(&p, t + tempo_rng_below(&rng, 200) * MS, nonce[i]);
            } else if (r < 8) {
                tempo_address a = tempo_address_ipv4(198, 51, 100, 1,
                                                     (uint16_t)(1 + tempo_rng_below(&rng, 4)));
                punch_on_probe(&p, t, &a);
            }
            (void)punch_update(&p, t);
            assert_true(p.ncand <= PUNCH_MAX_CANDS);
            if (p.path == PUNCH_DIRECT) {
                assert_true(p.chosen >= 0 && p.chosen < p.ncand);
                assert_non_null(punch_direct(&p));
            } else {
                assert_int_equal(p.chosen, -1);
                assert_null(punch_direct(&p));
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_sends_nothing),
        cmocka_unit_test(test_all_candidates_at_once_at_a_bounded_rate),
        cmocka_unit_test(test_first_acknowledged_wins),
        cmocka_unit_test(test_timeout_falls_back_and_retries_upgrade),
        cmocka_unit_test(test_dead_direct_path_downgrades),
        cmocka_unit_test(test_quiet_match_path_dies_fast),
        cmocka_unit_test(test_foreign_and_stale_acks_ignored),
        cmocka_unit_test(test_seen_candidates),
        cmocka_unit_test(test_property_random_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
