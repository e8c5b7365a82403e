/* SPDX-License-Identifier: MIT */
/*
 * test_relay_turns.c — lockstep machines through a relay
 * (tempo_lockstep_create_relay_member, docs/RELAY.md "Lockstep turns"),
 * judged from outside over simnet in virtual time. Each machine runs a bot
 * that gives orders in bursts and a game whose state hashes every list it
 * executed: every machine must compute the same state after every turn; a
 * machine on a terrible link must not freeze the others, its lists
 * substituted, the substitutes executed by everyone alike; hostile
 * datagrams are dropped and counted while honest traffic flows; nothing
 * allocates after create. Seeds are fixed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count_malloc.h"
#include "tempo/lockstep.h"
#include "tempo/relay.h"
#include "tempo/rng.h"
#include "tempo/secure.h"
#include "tempo/simnet.h"
#include "wire/connect.h"
#include "wire/packet.h"
#include "wire/turn_msg.h"

#define N 4
#define T_MAX 2048
#define TICK_US 16667u
#define MATCH 91u

typedef struct bot {
    tempo_lockstep *ls;
    tempo_transport net;
    tempo_address addr;
    uint64_t state;
    int32_t turns;
    uint64_t sum[T_MAX];
    uint8_t subst[T_MAX];      /* players whose list was substituted, by turn */
    uint64_t next_tick_us;
    tempo_rng rng;
    uint32_t waiting_mask;     /* every missing mask a WAITING named, or-ed */
    int waiting;
    uint64_t added;
    int32_t corrupt_turn;      /* its state goes wrong after this turn (0: never) */
    bool heavy;                /* fills every turn's 1 KiB budget */
} bot;

typedef struct world {
    tempo_simnet *net;
    tempo_relay *relay;
    tempo_transport relay_net;
    tempo_address relay_addr;
    bot b[N];
    uint64_t relay_next_us;
} world;

static world w;
static uint8_t hash_buf[8 + 4 + N * (5 + TURN_LIST_BYTES)];

static void world_init_sealed(uint64_t seed, const char *profile, bool sealed)
{
    memset(&w, 0, sizeof w);
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    nc.seed = seed;
    assert_int_equal(tempo_link_profile(profile, &nc.default_link), TEMPO_OK);
    assert_int_equal(tempo_simnet_create(&nc, &w.net), TEMPO_OK);
    w.relay_addr = tempo_address_ipv4(10, 0, 0, 100, 9000);
    assert_int_equal(tempo_simnet_add_node(w.net, &w.relay_addr, &w.relay_net), TEMPO_OK);
    tempo_relay_config rc;
    tempo_relay_config_default(&rc);
    rc.cookie_key[0] = 1;
    rc.max_matches = 2;
    rc.max_members = 8;
    rc.max_turn_matches = 1;
    if (sealed) {
        rc.has_private_key = true;
        rc.protocol_id = 0x1234;
        for (int i = 0; i < TEMPO_KEY_SIZE; i++)
            rc.private_key[i] = (uint8_t)(200 - i);
    }
    assert_int_equal(tempo_relay_create(&rc, &w.relay_net, &w.relay), TEMPO_OK);
    for (int i = 0; i < N; i++) {
        bot *b = &w.b[i];
        b->addr = tempo_address_ipv4(10, 0, 0, (uint8_t)(i + 1), 7000);
        assert_int_equal(tempo_simnet_add_node(w.net, &b->addr, &b->net), TEMPO_OK);
        tempo_lockstep_config c;
        tempo_lockstep_config_default(&c);
        c.num_players = N;
        c.local_player = i;
        c.session_id = MATCH;
        c.turn_ms = 100;
        c.random_seed = seed * 31u + (uint64_t)i;
        uint8_t token[TEMPO_TOKEN_SIZE];
        if (sealed) {
            tempo_relay_join j = {MATCH, (uint8_t)(1u << i), N, 0, 0, 100, 2, false};
            uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE];
            assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_OK);
            assert_int_equal(tempo_token_create(rc.private_key, rc.protocol_id, 100 + (uint64_t)i,
                                                2000, 1000, &w.relay_addr, 1, ud, token),
                             TEMPO_OK);
        }
        assert_int_equal(tempo_lockstep_create_relay_member(&c, &b->net, &w.relay_addr,
                                                            sealed ? token : NULL, &b->ls),
                         TEMPO_OK);
        b->next_tick_us = (uint64_t)i * 1000u;
        tempo_rng_seed(&b->rng, seed, (uint64_t)i + 100u);
    }
}

static void world_init(uint64_t seed, const char *profile)
{
    world_init_sealed(seed, profile, false);
}

static void world_free(void)
{
    for (int i = 0; i < N; i++)
        tempo_lockstep_destroy(w.b[i].ls);
    tempo_relay_destroy(w.relay);
    tempo_simnet_destroy(w.net);
    memset(&w, 0, sizeof w);
}

/* The game's state after a turn hashes the state before and every
 * player's list, in player order. */
static void execute(bot *b, const tempo_lockstep_turn *t)
{
    size_t at = 0;
    memcpy(hash_buf + at, &b->state, 8);
    at += 8;
    memcpy(hash_buf + at, &t->turn, 4);
    at += 4;
    uint8_t subst = 0;
    for (int p = 0; p < t->num_players; p++) {
        uint32_t size = t->player[p].list_size;
        memcpy(hash_buf + at, &size, 4);
        at += 4;
        hash_buf[at++] = t->player[p].substituted ? 1 : 0;
        if (size > 0) {
            memcpy(hash_buf + at, t->player[p].list, size);
            at += size;
        }
        if (t->player[p].substituted)
            subst |= (uint8_t)(1u << p);
    }
    b->state = tempo_checksum(hash_buf, at);
    if (b->corrupt_turn != 0 && t->turn == b->corrupt_turn)
        b->state ^= 1u;
    if (t->turn < T_MAX)
        b->subst[t->turn] = subst;
}

static void tick(bot *b, uint64_t now)
{
    assert_int_equal(tempo_lockstep_poll(b->ls, now), TEMPO_OK);
    tempo_lockstep_event ev;
    while (tempo_lockstep_next_event(b->ls, &ev) == 1)
        if (ev.kind == TEMPO_LOCKSTEP_WAITING) {
            b->waiting++;
            b->waiting_mask |= ev.u.waiting.missing_mask;
        }
    tempo_lockstep_stats st;
    assert_int_equal(tempo_lockstep_get_stats(b->ls, &st), TEMPO_OK);
    if (st.running && b->heavy) {
        uint8_t big[200];
        for (size_t k = 0; k < sizeof big; k++)
            big[k] = (uint8_t)tempo_rng_next(&b->rng);
        tempo_result r = tempo_lockstep_add_command(b->ls, big, sizeof big, now);
        assert_true(r == TEMPO_OK || r == TEMPO_E_FULL);
        b->added += r == TEMPO_OK;
    } else if (st.running && tempo_rng_below(&b->rng, 3) == 0) {
        uint8_t cmd[24];
        size_t size = 1 + tempo_rng_below(&b->rng, sizeof cmd);
        for (size_t k = 0; k < size; k++)
            cmd[k] = (uint8_t)tempo_rng_next(&b->rng);
        tempo_result r = tempo_lockstep_add_command(b->ls, cmd, size, now);
        assert_true(r == TEMPO_OK || r == TEMPO_E_FULL);
        b->added += r == TEMPO_OK;
    }
    tempo_lockstep_turn t;
    int r;
    while ((r = tempo_lockstep_next_turn(b->ls, now, &t)) == 1) {
        assert_int_equal(t.turn, b->turns);
        execute(b, &t);
        if (t.turn < T_MAX)
            b->sum[t.turn] = b->state;
        b->turns++;
        assert_int_equal(tempo_lockstep_turn_done(b->ls, t.turn, b->state, 1000), TEMPO_OK);
    }
    assert_true(r == 0);
    b->next_tick_us = now + TICK_US;
}

/* The relay updates every millisecond; each machine every tick. */
static void run_until(uint64_t end_us)
{
    for (;;) {
        int i = -1;
        for (int k = 0; k < N; k++)
            if (w.b[k].ls && (i < 0 || w.b[k].next_tick_us < w.b[i].next_tick_us))
                i = k;
        if (i < 0)
            break;
        uint64_t now = w.b[i].next_tick_us;
        if (w.relay_next_us <= now)
            now = w.relay_next_us;
        if (now >= end_us)
            break;
        tempo_simnet_set_time(w.net, now);
        if (now == w.relay_next_us) {
            assert_int_equal(tempo_relay_update(w.relay, now, 1000), TEMPO_OK);
            w.relay_next_us += 1000;
            continue;
        }
        tick(&w.b[i], now);
    }
}

static tempo_lockstep_stats stats_of(int i)
{
    tempo_lockstep_stats st;
    assert_int_equal(tempo_lockstep_get_stats(w.b[i].ls, &st), TEMPO_OK);
    return st;
}

/* Every machine computed the same state, and saw the same substitutes,
 * after every turn all executed; returns how many turns that is. */
static int32_t assert_same_turns(void)
{
    int32_t common = T_MAX;
    for (int i = 0; i < N; i++)
        if (w.b[i].ls && w.b[i].turns < common)
            common = w.b[i].turns;
    for (int i = 1; i < N; i++)
        for (int32_t t = 0; t < common && w.b[i].ls; t++) {
            if (w.b[i].sum[t] != w.b[0].sum[t])
                fail_msg("machine %d differs from machine 0 at turn %d", i, (int)t);
            assert_int_equal(w.b[i].subst[t], w.b[0].subst[t]);
        }
    return common;
}

static int count_substituted(int player, int32_t turns)
{
    int n = 0;
    for (int32_t t = 0; t < turns; t++)
        n += (w.b[0].subst[t] >> player) & 1u;
    return n;
}

static void four_machines_through_a_relay_agree_on_every_turn(void **state)
{
    (void)state;
    world_init(5, "lan");
    run_until(10000000);
    int32_t common = assert_same_turns();
    print_message("lan, 10 s: %d turns in common, freezes %llu %llu %llu %llu\n", (int)common,
                  (unsigned long long)stats_of(0).freezes, (unsigned long long)stats_of(1).freezes,
                  (unsigned long long)stats_of(2).freezes, (unsigned long long)stats_of(3).freezes);
    assert_true(common >= 95); /* 100 ms turns, the start's 200 ms delay */
    for (int i = 0; i < N; i++) {
        assert_int_equal(stats_of(i).freezes, 0);
        assert_int_equal(stats_of(i).lists_substituted, 0);
        assert_true(stats_of(i).commands_executed > 0);
    }
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(w.relay, MATCH, &ms), TEMPO_OK);
    assert_int_equal(ms.members, N);
    for (int p = 0; p < N; p++)
        assert_int_equal(ms.substitutions[p], 0);
    print_message("the relay compared %llu checksums\n", (unsigned long long)ms.checksums);
    assert_true(ms.checksums >= 90);
    assert_int_equal(ms.desyncs, 0);
    world_free();
}

static void a_machine_on_a_terrible_link_is_substituted_and_freezes_nobody(void **state)
{
    (void)state;
    world_init(9, "lan");
    tempo_link_params bad;
    assert_int_equal(tempo_link_profile("terrible", &bad), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(w.net, &w.b[3].addr, &w.relay_addr, &bad), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(w.net, &w.relay_addr, &w.b[3].addr, &bad), TEMPO_OK);
    run_until(30000000);
    int32_t common = assert_same_turns();
    int subst3 = count_substituted(3, common);
    print_message("terrible player 3, 30 s: %d turns in common, %d of its lists substituted, "
                  "its freezes %llu, others %llu %llu %llu\n",
                  (int)common, subst3, (unsigned long long)stats_of(3).freezes,
                  (unsigned long long)stats_of(0).freezes, (unsigned long long)stats_of(1).freezes,
                  (unsigned long long)stats_of(2).freezes);
    assert_true(subst3 > 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(w.b[i].waiting_mask & 0x8u, 0); /* never waited for player 3 */
        assert_int_equal(stats_of(i).freezes, 0);
        assert_true(w.b[i].turns >= 290);
        assert_int_equal(count_substituted(i, common), 0);
    }
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(w.relay, MATCH, &ms), TEMPO_OK);
    assert_true(ms.substitutions[3] >= (uint64_t)subst3);
    assert_int_equal(ms.substitutions[0] + ms.substitutions[1] + ms.substitutions[2], 0);
    world_free();
}

/* A machine that leaves: from the turn the relay hears it, its lists are
 * empty and substituted at once, and the others go on without waiting. */
static void the_others_go_on_at_once_when_a_machine_leaves(void **state)
{
    (void)state;
    world_init(11, "lan");
    run_until(3000000);
    int32_t left_at = w.b[2].turns;
    tempo_lockstep_destroy(w.b[2].ls);
    w.b[2].ls = NULL;
    run_until(8000000);
    int32_t common = assert_same_turns();
    int after = count_substituted(2, common);
    print_message("player 2 left after turn %d: %d of the %d turns after substituted\n",
                  (int)left_at, after, (int)(common - left_at));
    assert_true(common >= 75);
    assert_true(after >= common - left_at - 3); /* the turns it had sent still ran */
    for (int32_t t = left_at + 3; t < common; t++) {
        assert_true((w.b[0].subst[t] >> 2) & 1u);
    }
    for (int i = 0; i < N; i++)
        if (w.b[i].ls) {
            assert_int_equal(stats_of(i).freezes, 0);
            assert_int_equal(w.b[i].waiting_mask & 0x4u, 0);
        }
    world_free();
}

/* Every machine fills its 1 KiB a turn: a turn's lists take several
 * datagrams each way, and every machine still agrees without freezing. */
static void full_turns_take_several_datagrams_and_still_agree(void **state)
{
    (void)state;
    world_init(23, "lan");
    for (int i = 0; i < N; i++)
        w.b[i].heavy = true;
    run_until(8000000);
    int32_t common = assert_same_turns();
    tempo_relay_stats rs;
    assert_int_equal(tempo_relay_get_stats(w.relay, &rs), TEMPO_OK);
    print_message("full turns, 8 s: %d turns in common, relay sent %llu datagrams, "
                  "substituted %llu, freezes %llu\n",
                  (int)common, (unsigned long long)rs.datagrams_out,
                  (unsigned long long)rs.substitutions, (unsigned long long)stats_of(0).freezes);
    assert_true(common >= 75);
    for (int i = 0; i < N; i++) {
        assert_int_equal(stats_of(i).freezes, 0);
        assert_true(stats_of(i).commands_executed >= 5u * 70u);
    }
    assert_int_equal(rs.substitutions, 0);
    world_free();
}

/* A machine whose state goes wrong: the relay's comparison finds it. */
static void the_relay_finds_a_machine_whose_state_differs(void **state)
{
    (void)state;
    world_init(19, "lan");
    w.b[1].corrupt_turn = 30;
    run_until(6000000);
    tempo_relay_match_stats ms;
    assert_int_equal(tempo_relay_get_match_stats(w.relay, MATCH, &ms), TEMPO_OK);
    assert_true(ms.desyncs >= 1);
    world_free();
}

static void send_to(int from, const tempo_address *to, const uint8_t *buf, size_t size)
{
    assert_true(w.b[from].net.send(w.b[from].net.ctx, to, buf, size) >= 0);
}

static void hostile_datagrams_are_dropped_and_counted(void **state)
{
    (void)state;
    world_init(13, "lan");
    run_until(2000000);
    tempo_lockstep_stats before = stats_of(0);
    tempo_relay_stats rbefore;
    assert_int_equal(tempo_relay_get_stats(w.relay, &rbefore), TEMPO_OK);
    uint8_t d[64];
    memset(d, 0, sizeof d);
    /* Forgeries carry sequences a little ahead of the real ones (from the
     * datagrams each way so far), so they are judged by what they say; one
     * far ahead would be held unread. */
    tempo_relay_member_stats ms0, ms1;
    assert_int_equal(tempo_relay_get_member_stats(w.relay, MATCH, 0, &ms0), TEMPO_OK);
    assert_int_equal(tempo_relay_get_member_stats(w.relay, MATCH, 1, &ms1), TEMPO_OK);
    const uint16_t up = (uint16_t)(ms1.datagrams_up + 60), down = (uint16_t)(ms0.datagrams_down + 60);
    /* to machine 0 from machine 1's address (not the relay): unknown */
    send_to(1, &w.b[0].addr, d, 20);
    /* from the relay's address is impossible to forge in simnet; a
     * member's turns naming another player, to the relay: not owned */
    turn_msg m;
    memset(&m, 0, sizeof m);
    m.type = TURN_MSG_TURNS;
    m.u.turns.sum_turn = TURN_NONE;
    m.u.turns.rtt_ms = TURN_RTT_UNKNOWN;
    m.u.turns.ack = 2;
    m.u.turns.nlists = 1;
    m.u.turns.list[0] = (turn_list){0, 0, 40, 0, 0, 0, NULL};
    int body = turn_msg_encode(&m, d + PACKET_HEADER_SIZE, sizeof d - PACKET_HEADER_SIZE);
    assert_true(body > 0);
    tempo_packet_header h = {connect_session_id(TEMPO_RELAY_PLAIN_PROTOCOL), up,
                             TURN_MSG_TURNS, false, false};
    assert_true(packet_write(&h, d, sizeof d) > 0);
    send_to(1, &w.relay_addr, d, PACKET_HEADER_SIZE + (size_t)body);
    /* the same from machine 1 with a substituted flag on its own list: malformed */
    m.u.turns.list[0] = (turn_list){1, TURN_LIST_SUBSTITUTED, 40, 0, 0, 0, NULL};
    body = turn_msg_encode(&m, d + PACKET_HEADER_SIZE, sizeof d - PACKET_HEADER_SIZE);
    h.sequence = (uint16_t)(up + 1);
    assert_true(packet_write(&h, d, sizeof d) > 0);
    send_to(1, &w.relay_addr, d, PACKET_HEADER_SIZE + (size_t)body);
    /* a truncated turns body: malformed */
    h.sequence = (uint16_t)(up + 2);
    assert_true(packet_write(&h, d, sizeof d) > 0);
    send_to(1, &w.relay_addr, d, PACKET_HEADER_SIZE + 5);
    /* "from the relay" (a forger on its address): machine 0's own list
     * unsubstituted, then a truncated notice: both malformed */
    memset(&m, 0, sizeof m);
    m.type = TURN_MSG_RELAY;
    m.u.relay.first = 2;
    m.u.relay.final = 2;
    m.u.relay.nlists = 1;
    m.u.relay.list[0] = (turn_list){0, 0, 40, 0, 0, 0, NULL};
    body = turn_msg_encode(&m, d + PACKET_HEADER_SIZE, sizeof d - PACKET_HEADER_SIZE);
    assert_true(body > 0);
    tempo_packet_header hr = {connect_session_id(TEMPO_RELAY_PLAIN_PROTOCOL), down,
                              TURN_MSG_RELAY, false, false};
    assert_true(packet_write(&hr, d, sizeof d) > 0);
    assert_true(w.relay_net.send(w.relay_net.ctx, &w.b[0].addr, d,
                                 PACKET_HEADER_SIZE + (size_t)body) >= 0);
    hr.sequence = (uint16_t)(down + 1);
    assert_true(packet_write(&hr, d, sizeof d) > 0);
    assert_true(w.relay_net.send(w.relay_net.ctx, &w.b[0].addr, d, PACKET_HEADER_SIZE + 9) >= 0);
    run_until(4000000);
    tempo_lockstep_stats after = stats_of(0);
    tempo_relay_stats rafter;
    assert_int_equal(tempo_relay_get_stats(w.relay, &rafter), TEMPO_OK);
    assert_int_equal(after.dropped_unknown - before.dropped_unknown, 1);
    assert_int_equal(after.dropped_malformed - before.dropped_malformed, 2);
    assert_int_equal(rafter.dropped_not_owned - rbefore.dropped_not_owned, 1);
    assert_int_equal(rafter.dropped_malformed - rbefore.dropped_malformed, 2);
    assert_int_equal(rafter.substitutions, 0); /* nothing was stored from the forgeries */
    assert_int_equal(rafter.held_jumps, rbefore.held_jumps);
    int32_t common = assert_same_turns();
    assert_true(common >= 35);
    for (int i = 0; i < N; i++)
        assert_int_equal(stats_of(i).freezes, 0);
    world_free();
}

/* With a private key, machines come with tokens naming the match and
 * their player; everything is sealed; a datagram "from the relay" that
 * is plain, or sealed with other keys, is dropped as forged. */
static void machines_with_tokens_play_a_sealed_match(void **state)
{
    (void)state;
    if (!tempo_secure_available())
        skip();
    world_init_sealed(21, "lan", true);
    run_until(3000000);
    tempo_lockstep_stats before = stats_of(0);
    uint8_t d[64];
    memset(d, 0, sizeof d);
    tempo_packet_header h = {connect_session_id(0x1234), 1000, TURN_MSG_RELAY, false, false};
    assert_true(packet_write(&h, d, sizeof d) > 0);
    assert_true(w.relay_net.send(w.relay_net.ctx, &w.b[0].addr, d, PACKET_HEADER_SIZE + 23) >= 0);
    h.sealed = true;
    h.sequence = 1001;
    assert_true(packet_write(&h, d, sizeof d) > 0);
    assert_true(w.relay_net.send(w.relay_net.ctx, &w.b[0].addr, d, PACKET_HEADER_SIZE + 40) >= 0);
    run_until(6000000);
    assert_int_equal(stats_of(0).dropped_forged - before.dropped_forged, 2);
    int32_t common = assert_same_turns();
    print_message("sealed lan, 6 s: %d turns in common\n", (int)common);
    assert_true(common >= 55);
    for (int i = 0; i < N; i++) {
        assert_int_equal(stats_of(i).freezes, 0);
        tempo_relay_member_stats es;
        assert_int_equal(tempo_relay_get_member_stats(w.relay, MATCH, i, &es), TEMPO_OK);
        assert_true(es.sealed);
    }
    world_free();
}

static void nothing_allocates_after_create(void **state)
{
    (void)state;
    world_init(17, "lan");
    tempo_link_params bad;
    assert_int_equal(tempo_link_profile("terrible", &bad), TEMPO_OK);
    assert_int_equal(tempo_simnet_set_link(w.net, &w.b[2].addr, &w.relay_addr, &bad), TEMPO_OK);
    if (!count_malloc_start()) {
        print_message("malloc not counted (%s)\n", count_malloc_unavailable);
        world_free();
        skip();
    }
    uint64_t before = count_malloc_total();
    run_until(8000000);
    assert_int_equal(count_malloc_total() - before, 0);
    assert_true(assert_same_turns() >= 70);
    world_free();
}

static void the_join_of_a_lockstep_match_reads_back(void **state)
{
    (void)state;
    tempo_relay_join j = {0x0102030405060708ull, 0x04, 3, 0, 0, 150, 3, false}, back;
    uint8_t ud[TEMPO_TOKEN_USER_DATA_SIZE];
    assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_OK);
    static const uint8_t expected[TEMPO_RELAY_JOIN_TURNS_SIZE] = {8, 7, 6, 5, 4, 3, 2, 1, 4,
                                                                   3, 0, 0, 0, 1, 150, 0, 3};
    assert_memory_equal(ud, expected, sizeof expected);
    assert_int_equal(tempo_relay_join_read(ud, &back), TEMPO_OK);
    assert_int_equal(back.turn_ms, 150);
    assert_int_equal(back.execution_delay, 3);
    j.slots = 0x05; /* a lockstep member has one player */
    assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_E_INVALID_ARG);
    j.slots = 0x04;
    j.input_size = 4; /* no frames in a lockstep match */
    assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_E_INVALID_ARG);
    j.input_size = 0;
    j.execution_delay = 1;
    assert_int_equal(tempo_relay_join_write(&j, ud), TEMPO_E_INVALID_ARG);
}

static void the_api_refuses_what_it_cannot_do(void **state)
{
    (void)state;
    world_init(3, "lan");
    tempo_lockstep_config c;
    tempo_lockstep_config_default(&c);
    c.session_id = MATCH;
    tempo_lockstep *ls = (tempo_lockstep *)&c;
    tempo_address none;
    memset(&none, 0, sizeof none);
    assert_int_equal(tempo_lockstep_create_relay_member(&c, &w.b[0].net, NULL, NULL, &ls),
                     TEMPO_E_INVALID_ARG);
    assert_null(ls);
    assert_int_equal(tempo_lockstep_create_relay_member(&c, &w.b[0].net, &none, NULL, &ls),
                     TEMPO_E_INVALID_ARG);
    c.session_id = 0; /* the match id */
    assert_int_equal(tempo_lockstep_create_relay_member(&c, &w.b[0].net, &w.relay_addr, NULL, &ls),
                     TEMPO_E_INVALID_ARG);
    c.session_id = MATCH;
    c.has_match_key = true; /* sealing comes from the token */
    assert_int_equal(tempo_lockstep_create_relay_member(&c, &w.b[0].net, &w.relay_addr, NULL, &ls),
                     TEMPO_E_INVALID_ARG);
    c.has_match_key = false;
    c.turn_ms = 5000;
    assert_int_equal(tempo_lockstep_create_relay_member(&c, &w.b[0].net, &w.relay_addr, NULL, &ls),
                     TEMPO_E_INVALID_ARG);
    c.turn_ms = 100;
    uint8_t junk[TEMPO_TOKEN_SIZE];
    memset(junk, 0xEE, sizeof junk);
    assert_int_equal(tempo_lockstep_create_relay_member(&c, &w.b[0].net, &w.relay_addr, junk, &ls),
                     TEMPO_E_MALFORMED);
    /* peers are at the relay */
    assert_int_equal(tempo_lockstep_add_peer(w.b[0].ls, 1, &w.b[1].addr), TEMPO_E_STATE);
    world_free();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_join_of_a_lockstep_match_reads_back),
        cmocka_unit_test(the_api_refuses_what_it_cannot_do),
        cmocka_unit_test(four_machines_through_a_relay_agree_on_every_turn),
        cmocka_unit_test(a_machine_on_a_terrible_link_is_substituted_and_freezes_nobody),
        cmocka_unit_test(the_others_go_on_at_once_when_a_machine_leaves),
        cmocka_unit_test(full_turns_take_several_datagrams_and_still_agree),
        cmocka_unit_test(the_relay_finds_a_machine_whose_state_differs),
        cmocka_unit_test(hostile_datagrams_are_dropped_and_counted),
        cmocka_unit_test(machines_with_tokens_play_a_sealed_match),
        cmocka_unit_test(nothing_allocates_after_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
