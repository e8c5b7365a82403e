/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_acks.c — the datagram acks p2p INPUTs carry (docs/PROTOCOL.md
 * "Datagram acks"): the round-trip estimate follows a link whose latency
 * steps within a second, where pings alone (datagram_acks off) take
 * seconds; the two settings play together; the interarrival jitter of
 * INPUTs follows the link's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2p_harness.h"

static harness h;

static void set_latency(harness *hh, uint32_t latency_us, uint32_t jitter_us)
{
    tempo_link_params p;
    memset(&p, 0, sizeof p);
    p.latency_us = latency_us;
    p.jitter_us = jitter_us;
    assert_int_equal(tempo_simnet_set_link(hh->net, &hh->peer[0].addr, &hh->peer[1].addr, &p), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(hh->net, &hh->peer[1].addr, &hh->peer[0].addr, &p), TEMPO_OK);
}

static double rtt_of(int i)
{
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[i].s, 1 - i, &es), TEMPO_OK);
    return es.rtt_ms;
}

/* 40 ms each way, then 120: the estimate 1 s after the step, as a share of
 * where it should land (the estimate before, moved by 160 ms). */
static double share_reached_after_a_second(bool acks0, bool acks1, uint64_t seed)
{
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    c.datagram_acks = acks0;
    harness_init(&h, &c, 2, m, 0, "perfect", seed);
    if (acks1 != acks0) { /* a machine of either setting plays with the other */
        tempo_session_destroy(h.peer[1].s);
        c.datagram_acks = acks1;
        c.random_seed = seed * 31 + 1;
        tempo_address a0 = h_addr(0);
        assert_int_equal(tempo_session_create_p2p(&c, &h.peer[1].ears, &h.peer[1].s), TEMPO_OK);
        assert_int_equal(tempo_session_add_local_player(h.peer[1].s, 1), TEMPO_OK);
        assert_int_equal(tempo_session_add_remote_player(h.peer[1].s, 0, &a0), TEMPO_OK);
    }
    set_latency(&h, 40000, 0);
    harness_run(&h, INT32_MAX, 8000000);
    double before = rtt_of(0);
    assert_true(before >= 80.0 && before <= 120.0);
    set_latency(&h, 120000, 0);
    harness_run(&h, INT32_MAX, 9000000);
    double worst = 1.0;
    for (int i = 0; i < 2; i++) {
        double share = rtt_of(i) / (before + 160.0);
        worst = share < worst ? share : worst;
    }
    int32_t checked;
    assert_true(harness_converged(&h, false, &checked));
    assert_true(checked > 300);
    harness_free(&h);
    return worst;
}

static void the_round_trip_follows_a_step_within_a_second_with_acks(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        double with = share_reached_after_a_second(true, true, seed);
        double without = share_reached_after_a_second(false, false, seed);
        assert_true(with >= 0.9);   /* within 10% */
        assert_true(without < 0.8); /* pings alone: two samples in the second */
    }
    /* Mixed: each end reads what the other sends; they play and agree. */
    (void)share_reached_after_a_second(true, false, 4);
    (void)share_reached_after_a_second(false, true, 5);
}

static void interarrival_jitter_follows_the_link(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "perfect", 5);
    set_latency(&h, 30000, 0);
    harness_run(&h, INT32_MAX, 5000000);
    tempo_endpoint_stats es;
    assert_int_equal(tempo_session_get_endpoint_stats(h.peer[0].s, 1, &es), TEMPO_OK);
    assert_true(es.arrival_jitter_ms < 1.0); /* a steady link */
    set_latency(&h, 30000, 8000);            /* delays vary by 8 ms (s.d.) */
    harness_run(&h, INT32_MAX, 15000000);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tempo_session_get_endpoint_stats(h.peer[i].s, 1 - i, &es), TEMPO_OK);
        /* RFC 3550's J estimates E|D| = 2 s / sqrt(pi), about 9 ms */
        assert_true(es.arrival_jitter_ms > 4.5 && es.arrival_jitter_ms < 18.0);
    }
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_round_trip_follows_a_step_within_a_second_with_acks),
        cmocka_unit_test(interarrival_jitter_follows_the_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
