/* SPDX-License-Identifier: MIT */
/*
 * test_relay_backlog.c — the relay behind a flood, when reading costs
 * time: every datagram an update reads keeps the relay busy for a while
 * (virtual time), as on a loaded machine, and bursts of garbage pile up in
 * front of the members' inputs. The relay must keep its frames on time:
 * it reads a burst over several updates, sending the frames due between
 * them, and an input that came in time is not substituted because it
 * waited behind garbage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "relay_rig.h"

#define COST_US 20          /* relay time per datagram read (a loaded machine) */
#define BURST 10000         /* garbage datagrams per burst */

/* The match runs for `us` of virtual time; at each whole second from 2 s a
 * burst of garbage lands at the relay. The relay updates every millisecond
 * unless still busy with what its last update read. Returns the longest
 * time the relay was busy with one update. */
static uint64_t run_flooded(relay_rig *g, uint64_t us, uint32_t *rng)
{
    harness *h = &g->h;
    uint64_t busy_until = 0, longest = 0, next_burst = 2000000;
    tempo_address stranger = tempo_address_ipv4(10, 0, 9, 9, 1234);
    uint8_t junk[64];
    for (uint64_t end = h->now_us + us; h->now_us < end; h->now_us += 1000) {
        tempo_simnet_set_time(h->net, h->now_us);
        if (h->now_us >= next_burst && next_burst <= 4000000) {
            for (int i = 0; i < BURST; i++) {
                *rng = *rng * 1664525u + 1013904223u;
                for (size_t k = 0; k < sizeof junk; k++)
                    junk[k] = (uint8_t)(*rng >> (k % 24));
                assert_int_equal(
                    tempo_simnet_inject(h->net, &stranger, &g->relay_addr, junk, sizeof junk),
                    TEMPO_OK);
            }
            next_burst += 1000000;
        }
        if (h->now_us >= busy_until) {
            tempo_relay_stats a, b;
            tempo_relay_get_stats(g->relay, &a);
            assert_int_equal(tempo_relay_update(g->relay, h->now_us, 1000), TEMPO_OK);
            tempo_relay_get_stats(g->relay, &b);
            uint64_t busy = (b.datagrams_in - a.datagrams_in) * COST_US;
            busy_until = h->now_us + busy;
            if (busy > longest)
                longest = busy;
        }
        for (int i = 0; i < h->npeers; i++) {
            h_peer *p = &h->peer[i];
            if ((double)h->now_us >= p->next_tick_us) {
                p->next_tick_us += p->period_us;
                harness_tick(h, p);
            }
        }
    }
    return longest;
}

static void frames_stay_on_time_while_the_relay_reads_a_backlog(void **state)
{
    (void)state;
    tempo_config cfg = match_cfg(4);
    tempo_relay_config rc = relay_cfg();
    relay_rig *g = calloc(1, sizeof *g);
    rig_init(g, &cfg, 4, "lan", &rc, 31);
    rig_run(g, 60, 10000000);
    uint32_t rng = 7;
    uint64_t longest = run_flooded(g, 4000000, &rng);
    tempo_relay_stats st;
    assert_int_equal(tempo_relay_get_stats(g->relay, &st), TEMPO_OK);
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(g->relay, MATCH_ID, &ms), TEMPO_OK);
    uint64_t subst = 0;
    for (int p = 0; p < 4; p++)
        subst += ms.substitutions[p];
    printf("backlog: 3 bursts of %d garbage datagrams at %d us each: longest update %llu us, "
           "%llu substitutions, %llu late, %llu dropped\n",
           BURST, COST_US, (unsigned long long)longest, (unsigned long long)subst,
           (unsigned long long)st.late_inputs, (unsigned long long)st.dropped_malformed);
    assert_true(st.dropped_malformed + st.handshake_refused >= 3 * BURST); /* the flood was read */
    /* a burst takes BURST * COST_US (200 ms) to read: over several updates */
    assert_true(longest <= (uint64_t)BURST * COST_US / 4);
    assert_int_equal(subst, 0);
    assert_int_equal(st.late_inputs, 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(g->h.peer[i].disconnect_events, 0);
    rig_free(g);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frames_stay_on_time_while_the_relay_reads_a_backlog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
