/* SPDX-License-Identifier: MIT */
/*
 * test_pong_net.c — the Pong programs' server and client (pong_server.c,
 * pong_client.c, what tempo-pong and tempo-pong-sdl run) over simnet in
 * virtual time: every snapshot a client puts in place is the server's
 * state of its tick, so the final lines of a server and its clients match;
 * an empty slot's paddle stands still; with replay our paddle never jumps,
 * with none every snapshot drags it back; a dumb client shows exactly the
 * server's state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "pong_app.h"
#include "tempo/simnet.h"

#define TICK_US 16667u
#define STEP_US 1000u
#define MAX_CLIENTS 4
#define MAX_TICKS 4000

typedef struct net_match {
    tempo_simnet *net;
    tempo_transport server_tr, client_tr[MAX_CLIENTS];
    tempo_address server_addr, client_addr[MAX_CLIENTS];
    pong_options server_opt, client_opt[MAX_CLIENTS];
    pong_server server;
    pong_client clients[MAX_CLIENTS];
    int nclients;
    uint64_t start_us[MAX_CLIENTS];   /* when each client starts */
    bool started[MAX_CLIENTS];
    bool keys[MAX_CLIENTS];           /* no bot: a player holding up, then down, half a second each */
    uint64_t next_us[MAX_CLIENTS];
    uint64_t server_next_us;
    uint64_t now_us;
    uint64_t sums[MAX_TICKS + 1];     /* the server's checksum of each tick */
    bool placed[MAX_CLIENTS][MAX_TICKS + 1]; /* snapshots each client put in place */
    int32_t seen[MAX_CLIENTS];        /* the newest snapshot compared */
    int compared, mismatched;         /* snapshots put in place, checked */
    int dumb_differs;                 /* ticks a dumb client showed other than the server's */
} net_match;

static pong_options options(int players, int frames, tempo_reconcile_mode mode)
{
    pong_options o;
    memset(&o, 0, sizeof o);
    o.players = players;
    o.frames = frames;
    o.seed = 3;
    o.quiet = true;
    o.bot = true;
    o.reconcile = mode;
    o.timeout_s = 60;
    o.port = 7000;
    assert_int_equal(tempo_address_parse(&o.connect, "10.0.0.1:7000"), TEMPO_OK);
    o.address = o.connect;
    return o;
}

/* A server for `players` and no clients yet; links from profile-like
 * numbers: one-way latency, jitter, loss. */
static void match_start(net_match *m, int players, int frames, uint32_t latency_us,
                        uint32_t jitter_us, double loss)
{
    memset(m, 0, sizeof *m);
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = 17;
    nc.default_link.latency_us = latency_us;
    nc.default_link.jitter_us = jitter_us;
    nc.default_link.loss = loss;
    assert_int_equal(tempo_simnet_create(&nc, &m->net), TEMPO_OK);
    m->server_opt = options(players, frames, TEMPO_RECONCILE_REPLAY);
    m->server_addr = m->server_opt.address;
    assert_int_equal(tempo_simnet_add_node(m->net, &m->server_addr, &m->server_tr), TEMPO_OK);
    assert_true(pong_server_start(&m->server, &m->server_opt, "test", &m->server_tr));
    m->sums[0] = pong_checksum(&m->server.game);
}

/* A bot client with its reconciliation mode, starting at start_us. */
static pong_client *match_client(net_match *m, tempo_reconcile_mode mode, uint64_t start_us)
{
    int i = m->nclients++;
    char text[32];
    snprintf(text, sizeof text, "10.0.0.%d:7000", i + 2);
    assert_int_equal(tempo_address_parse(&m->client_addr[i], text), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_node(m->net, &m->client_addr[i], &m->client_tr[i]), TEMPO_OK);
    m->client_opt[i] = options(m->server_opt.players, m->server_opt.frames, mode);
    m->client_opt[i].seed = (uint64_t)i + 1;
    m->start_us[i] = start_us;
    m->seen[i] = -1;
    return &m->clients[i];
}

static bool all_final(const net_match *m)
{
    for (int i = 0; i < m->nclients; i++)
        if (!m->started[i] || !m->clients[i].have_final)
            return false;
    return true;
}

/* Run in 1 ms steps until `until_us`, or with to_final until every client
 * has the final snapshot: the server ticks every TICK_US (past its final
 * tick with the game frozen); each client ticks at the length tick sync
 * asks for. Every snapshot a client puts in place is compared with the
 * server's state of that tick. */
static void match_run(net_match *m, uint64_t until_us, bool to_final)
{
    int frames = m->server_opt.frames;
    while (m->now_us < until_us && !(to_final && all_final(m))) {
        m->now_us += STEP_US;
        tempo_simnet_set_time(m->net, m->now_us);
        if (m->now_us >= m->server_next_us) {
            m->server_next_us += TICK_US;
            pong_server_tick(&m->server, m->now_us);
            assert_true(m->server.tick <= MAX_TICKS);
            m->sums[m->server.tick] = pong_checksum(&m->server.game);
            if (frames > 0 && m->server.tick >= frames) /* the match is over */
                assert_int_equal(m->sums[m->server.tick], m->sums[frames]);
        }
        for (int i = 0; i < m->nclients; i++) {
            pong_client *pc = &m->clients[i];
            if (!m->started[i] && m->now_us >= m->start_us[i]) {
                assert_true(pong_client_start(pc, &m->client_opt[i], "test", &m->client_tr[i]));
                m->started[i] = true;
                m->next_us[i] = m->now_us;
            }
            if (!m->started[i] || m->now_us < m->next_us[i])
                continue;
            uint8_t in = m->keys[i] && (m->now_us / 500000u) % 2 ? PONG_INPUT_UP
                         : m->keys[i]                          ? PONG_INPUT_DOWN
                                                               : 0;
            pong_client_tick(pc, m->now_us, in);
            m->next_us[i] = pong_client_next_tick_at(pc);
            if (pc->placed_tick != m->seen[i]) {
                m->seen[i] = pc->placed_tick;
                assert_true(pc->placed_tick <= m->server.tick);
                m->placed[i][pc->placed_tick] = true;
                m->compared++;
                m->mismatched += pc->placed_checksum != m->sums[pc->placed_tick];
            }
            if (m->client_opt[i].reconcile == TEMPO_RECONCILE_DUMB && pc->placed_tick >= 0)
                m->dumb_differs += memcmp(&pc->game, &pc->server, sizeof pc->game) != 0;
        }
    }
}

static void match_stop(net_match *m)
{
    for (int i = 0; i < m->nclients; i++)
        if (m->started[i])
            pong_client_close(&m->clients[i], m->now_us);
    pong_server_close(&m->server);
    tempo_simnet_destroy(m->net);
}

static tempo_client_stats client_stats(const pong_client *pc)
{
    tempo_client_stats st;
    assert_int_equal(tempo_client_get_stats(pc->client, &st), TEMPO_OK);
    return st;
}

/* Three clients joining a 4-paddle server one second apart, 40 ms each
 * way: every snapshot each one put in place is the server's state of its
 * tick, all three print the server's final line, and the fourth paddle,
 * nobody's, never moved. */
static void test_clients_take_the_servers_state_of_every_snapshot(void **state)
{
    (void)state;
    static net_match m;
    match_start(&m, 4, 600, 40000, 3000, 0.0);
    int32_t empty_y = m.server.game.paddles[3].y;
    for (int i = 0; i < 3; i++)
        match_client(&m, TEMPO_RECONCILE_REPLAY, (uint64_t)i * 1000000u);
    match_run(&m, 30000000u, true);
    printf("    %d snapshots compared, %d differed; final tick %d checksum %016llx\n", m.compared,
           m.mismatched, m.server.tick, (unsigned long long)m.sums[600]);
    assert_true(m.server.tick >= 600);
    assert_true(m.compared > 3 * 400);
    assert_int_equal(m.mismatched, 0);
    int players = 0;
    for (int i = 0; i < 3; i++) {
        assert_true(m.clients[i].have_final);
        assert_int_equal(m.clients[i].final_checksum, m.sums[600]);
        assert_in_range(m.clients[i].me, 0, 2);
        players |= 1 << m.clients[i].me;
    }
    assert_int_equal(players, 7);
    assert_int_equal(m.server.game.paddles[3].y, empty_y);
    /* tempo-pong's server ticks on after its final tick until every client
     * says it has a snapshot of it: within a round trip and a tick. */
    assert_false(pong_server_all_acked(&m.server, 600));
    match_run(&m, m.now_us + 80000u + TICK_US, false);
    assert_true(pong_server_all_acked(&m.server, 600));
    assert_int_equal(m.server.game.frame, 600);
    match_stop(&m);
}

/* The link to one client is cut from two ticks before the final
 * snapshot to three after: it never gets the snapshot of the final tick,
 * takes a later one (the server's game stopped at the final tick) and
 * still prints the final line. A client with the wrong --frames that
 * misses its tick notices that the states it gets are other ticks'. */
static void test_a_client_that_lost_the_final_snapshot_takes_a_later_one(void **state)
{
    (void)state;
    static net_match m;
    match_start(&m, 2, 300, 20000, 0, 0.0);
    pong_client *cut = match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    pong_client *other = match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    /* Snapshot T leaves at the server's tick T, in the poll after
     * ADVANCE(T - 1): at T * TICK_US, to the next millisecond. */
    uint64_t sent = 300u * TICK_US;
    assert_int_equal(tempo_simnet_add_blackout(m.net, &m.server_addr, &m.client_addr[0],
                                               sent - 2 * TICK_US, sent + 3 * TICK_US),
                     TEMPO_OK);
    match_run(&m, 20000000u, true);
    assert_true(cut->have_final && other->have_final);
    for (int t = 298; t <= 302; t++)
        assert_false(m.placed[0][t]);
    assert_true(m.placed[1][300] || m.placed[1][301]);
    assert_true(m.server.tick > 302);
    assert_int_equal(cut->final_checksum, m.sums[300]);
    assert_int_equal(other->final_checksum, m.sums[300]);
    assert_false(cut->wrong_final || other->wrong_final);
    assert_int_equal(m.mismatched, 0);
    match_stop(&m);

    /* A client told --frames 250 by mistake, which misses the snapshot of
     * tick 250: the later ones hold later ticks' states (the server plays
     * on to 300), and it says so instead of printing one of them. */
    match_start(&m, 2, 300, 20000, 0, 0.0);
    pong_client *wrong = match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    m.client_opt[0].frames = 250;
    sent = 250u * TICK_US;
    assert_int_equal(tempo_simnet_add_blackout(m.net, &m.server_addr, &m.client_addr[0],
                                               sent - 2 * TICK_US, sent + 3 * TICK_US),
                     TEMPO_OK);
    match_run(&m, 6000000u, false);
    assert_false(wrong->have_final);
    assert_true(wrong->wrong_final);
    match_stop(&m);
}

/* 60 ms each way. With replay the server's snapshots never move our
 * paddle (the server played every input of ours on time); with none each
 * one drags it back by the inputs still on their way, several pixels on
 * average. Both still print the server's final line. */
static void test_replay_keeps_our_paddle_none_drags_it_back(void **state)
{
    (void)state;
    static net_match m;
    match_start(&m, 2, 900, 60000, 5000, 0.0);
    pong_client *replay = match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    pong_client *none = match_client(&m, TEMPO_RECONCILE_NONE, 0);
    match_run(&m, 40000000u, true);
    tempo_client_stats a = client_stats(replay), b = client_stats(none);
    printf("    replay: %llu corrections, largest jump %.1f px, %llu late inputs\n",
           (unsigned long long)a.corrections, a.correction_max, (unsigned long long)a.late_inputs);
    printf("    none:   %llu corrections, mean jump %.1f px, largest %.1f px\n",
           (unsigned long long)b.corrections,
           b.corrections ? b.correction_sum / (double)b.corrections : 0.0, b.correction_max);
    assert_true(replay->have_final && none->have_final);
    assert_int_equal(replay->final_checksum, m.sums[900]);
    assert_int_equal(none->final_checksum, m.sums[900]);
    assert_int_equal(m.mismatched, 0);
    assert_true(a.resim_frames > 900);
    assert_int_equal(a.late_inputs, 0);
    assert_true(a.correction_max == 0.0);
    assert_int_equal(b.resim_frames, 0);
    assert_true(b.corrections > 200);
    assert_true(b.correction_sum / (double)b.corrections > 2.0);
    match_stop(&m);
}

/* What the window's R key does, to a player who keeps moving: a replaying
 * client switched to none starts to see its paddle dragged back, and
 * switched back to replay stops (after the switch's own snapshot); every
 * snapshot is still the server's. */
static void test_switching_reconciliation_at_run_time(void **state)
{
    (void)state;
    static net_match m;
    match_start(&m, 2, 0, 60000, 5000, 0.0);
    pong_client *pc = match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    m.client_opt[0].bot = false;
    m.keys[0] = true;
    match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    match_run(&m, 5000000u, false);
    tempo_client_stats before = client_stats(pc);
    assert_true(before.snapshots > 200);
    assert_true(before.correction_sum == 0.0);

    assert_int_equal(pong_client_set_reconcile(pc, TEMPO_RECONCILE_NONE), TEMPO_OK);
    match_run(&m, 10000000u, false);
    tempo_client_stats off = client_stats(pc);
    printf("    5 s with none: %llu corrections moving our paddle %.0f px in all\n",
           (unsigned long long)(off.corrections - before.corrections), off.correction_sum);
    assert_true(off.correction_sum > 100.0);

    assert_int_equal(pong_client_set_reconcile(pc, TEMPO_RECONCILE_REPLAY), TEMPO_OK);
    match_run(&m, 10500000u, false);
    tempo_client_stats settled = client_stats(pc);
    match_run(&m, 15000000u, false);
    tempo_client_stats on = client_stats(pc);
    assert_true(on.snapshots > settled.snapshots + 200);
    assert_true(on.correction_sum == settled.correction_sum);
    assert_int_equal(m.mismatched, 0);
    match_stop(&m);
}

/* A dumb client predicts nothing: after every tick its game is exactly
 * the newest snapshot. */
static void test_dumb_client_shows_only_the_server(void **state)
{
    (void)state;
    static net_match m;
    match_start(&m, 2, 300, 30000, 2000, 0.0);
    pong_client *dumb = match_client(&m, TEMPO_RECONCILE_DUMB, 0);
    match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    match_run(&m, 20000000u, true);
    assert_true(dumb->have_final);
    assert_int_equal(dumb->final_checksum, m.sums[300]);
    assert_int_equal(m.dumb_differs, 0);
    assert_int_equal(client_stats(dumb).resim_frames, 0);
    assert_int_equal(m.mismatched, 0);
    match_stop(&m);
}

/* 5% loss and jitter, no final tick: snapshots are lost and arrive out of
 * order, and still every one a client puts in place is the server's state
 * of its tick. */
static void test_lossy_link_never_shows_a_wrong_state(void **state)
{
    (void)state;
    static net_match m;
    match_start(&m, 2, 0, 50000, 15000, 0.05);
    match_client(&m, TEMPO_RECONCILE_REPLAY, 0);
    match_client(&m, TEMPO_RECONCILE_NONE, 0);
    match_run(&m, 15000000u, false);
    printf("    %d snapshots compared over %d server ticks\n", m.compared, m.server.tick);
    assert_true(m.server.tick > 800);
    assert_true(m.compared > 2 * 400);
    assert_int_equal(m.mismatched, 0);
    tempo_client_stats st = client_stats(&m.clients[0]);
    assert_true(st.snapshots < (uint64_t)m.server.tick); /* some were lost */
    match_stop(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clients_take_the_servers_state_of_every_snapshot),
        cmocka_unit_test(test_a_client_that_lost_the_final_snapshot_takes_a_later_one),
        cmocka_unit_test(test_replay_keeps_our_paddle_none_drags_it_back),
        cmocka_unit_test(test_switching_reconciliation_at_run_time),
        cmocka_unit_test(test_dumb_client_shows_only_the_server),
        cmocka_unit_test(test_lossy_link_never_shows_a_wrong_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
