/* SPDX-License-Identifier: MIT */
/*
 * test_cs_msg.c — the client-server messages (wire/cs_msg.h): round trips,
 * their names in the registry, and hostile bodies (every truncation, every
 * extra byte, values out of range) refused with the right reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire/codec.h"
#include "wire/cs_msg.h"

static void test_the_types_are_named_in_the_registry(void **state)
{
    (void)state;
    assert_string_equal(tempo_msg_type_name(CS_MSG_ACCEPT), "cs_accept");
    assert_string_equal(tempo_msg_type_name(CS_MSG_INPUT), "cs_input");
    assert_string_equal(tempo_msg_type_name(CS_MSG_SNAPSHOT), "cs_snapshot");
    assert_string_equal(tempo_msg_type_name(CS_MSG_BYE), "cs_bye");
    assert_string_equal(tempo_msg_type_name(24), "unknown");
    assert_false(tempo_msg_type_known(CS_MSG_INPUT)); /* sessions drop them */
}

static void test_accept_round_trips_and_refuses_every_truncation(void **state)
{
    (void)state;
    cs_msg_prefix p = {true, 0xBEEF, 0x80000001u};
    cs_msg_accept a = {300, 254, 2, 256, 4, 60, 1234, 2}, b;
    uint8_t buf[64];
    size_t n = cs_msg_write_accept(buf, sizeof buf, &p, &a);
    assert_int_equal(n, 22);
    assert_int_equal(cs_msg_read_accept(buf, n, &b), TEMPO_DROP_NONE);
    assert_int_equal(b.client, 300);
    assert_int_equal(b.first_slot, 254);
    assert_int_equal(b.num_slots, 2);
    assert_int_equal(b.num_players, 256);
    assert_int_equal(b.server_frame, 1234);
    /* slots that are not the match's, none, or more than a client takes */
    cs_msg_accept bad[3] = {a, a, a};
    bad[0].first_slot = 255;
    bad[1].num_slots = 0;
    bad[2].first_slot = 0, bad[2].num_slots = CS_MSG_MAX_SLOTS + 1;
    for (int k = 0; k < 3; k++) {
        uint8_t w[64];
        size_t m = cs_msg_write_accept(w, sizeof w, &p, &bad[k]);
        assert_int_equal(cs_msg_read_accept(w, m, &b), TEMPO_DROP_BAD_VALUE);
    }
    cs_msg_prefix q;
    assert_true(cs_msg_get_prefix(buf, n, &q));
    assert_true(q.has_ack && q.ack == 0xBEEF && q.ack_bits == 0x80000001u);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(cs_msg_read_accept(buf, k, &b), TEMPO_DROP_TRUNCATED);
    assert_int_equal(cs_msg_read_accept(buf, n + 1, &b), TEMPO_DROP_TRAILING);
    buf[0] = 2; /* an unknown flag */
    assert_int_equal(cs_msg_read_accept(buf, n, &b), TEMPO_DROP_BAD_VALUE);
}

static void test_input_carries_exactly_its_slots_inputs(void **state)
{
    (void)state;
    cs_msg_prefix p = {false, 0, 0};
    uint8_t inputs[3 * 2 * 4];
    for (size_t i = 0; i < sizeof inputs; i++)
        inputs[i] = (uint8_t)i;
    uint8_t buf[128];
    size_t n = cs_msg_write_input(buf, sizeof buf, &p, -1, 500, 3, inputs, sizeof inputs);
    assert_int_equal(n, 16 + sizeof inputs);
    cs_msg_input in;
    assert_int_equal(cs_msg_read_input(buf, n, 2, 4, &in), TEMPO_DROP_NONE);
    assert_int_equal(in.snapshot_ack, -1);
    assert_int_equal(in.first, 500);
    assert_int_equal(in.count, 3);
    assert_memory_equal(in.inputs, inputs, sizeof inputs);
    /* read as one slot: too long; as three: too short */
    assert_int_equal(cs_msg_read_input(buf, n, 1, 4, &in), TEMPO_DROP_TRAILING);
    assert_int_equal(cs_msg_read_input(buf, n, 3, 4, &in), TEMPO_DROP_TRUNCATED);
    for (size_t k = 0; k < n; k++)
        assert_int_not_equal(cs_msg_read_input(buf, k, 2, 4, &in), TEMPO_DROP_NONE);
    uint8_t far[128];
    size_t fn = cs_msg_write_input(far, sizeof far, &p, -1, CS_MSG_MAX_TICK, 0, NULL, 0);
    assert_int_equal(cs_msg_read_input(far, fn, 2, 4, &in), TEMPO_DROP_NONE);
    far[14] = 0x40; /* first tick 2^30 + ...: past every tick a server reaches */
    assert_int_equal(cs_msg_read_input(far, fn, 2, 4, &in), TEMPO_DROP_BAD_VALUE);
    buf[15] = CS_MSG_MAX_TICKS + 1; /* too many ticks */
    assert_int_equal(cs_msg_read_input(buf, n, 2, 4, &in), TEMPO_DROP_BAD_VALUE);
}

static void test_snapshot_round_trips_and_refuses_bad_values(void **state)
{
    (void)state;
    cs_msg_prefix p = {true, 7, 1};
    cs_msg_snapshot s = {0};
    s.tick = 100;
    s.baseline = 90;
    s.input_ack = 99;
    s.earliness_q8 = -300;
    s.num_players = 300;
    s.state_size = 16;
    uint8_t buf[128];
    size_t head = cs_msg_write_snapshot_head(buf, sizeof buf, &p, &s);
    assert_int_equal(head, 7 + 20);
    buf[head] = 0xAB; /* one delta byte */
    cs_msg_snapshot r;
    assert_int_equal(cs_msg_read_snapshot(buf, head + 1, 300, 64, &r), TEMPO_DROP_NONE);
    assert_int_equal(r.tick, 100);
    assert_int_equal(r.baseline, 90);
    assert_int_equal(r.input_ack, 99);
    assert_int_equal(r.earliness_q8, -300);
    assert_int_equal(r.num_players, 300);
    assert_int_equal(r.state_size, 16);
    assert_int_equal(r.delta_size, 1);
    assert_true(r.delta == buf + head);
    assert_int_equal(cs_msg_read_snapshot(buf, head, 300, 64, &r), TEMPO_DROP_TRUNCATED);
    assert_int_equal(cs_msg_read_snapshot(buf, head + 1, 44, 64, &r), TEMPO_DROP_BAD_VALUE);
    assert_int_equal(cs_msg_read_snapshot(buf, head + 1, 300, 8, &r), TEMPO_DROP_BAD_VALUE);
    for (size_t k = 0; k < head; k++)
        assert_int_not_equal(cs_msg_read_snapshot(buf, k, 300, 64, &r), TEMPO_DROP_NONE);
    s.baseline = 100; /* a baseline must be older than the tick */
    cs_msg_write_snapshot_head(buf, sizeof buf, &p, &s);
    assert_int_equal(cs_msg_read_snapshot(buf, head + 1, 300, 64, &r), TEMPO_DROP_BAD_VALUE);
}

static void test_player_statuses_are_checked_in_the_decoded_block(void **state)
{
    (void)state;
    uint8_t players[3 * 5] = {0, 1, 2, 3, 4, 1, 9, 9, 9, 9, 2, 0, 0, 0, 0};
    assert_int_equal(cs_msg_players_size(3, 4), sizeof players);
    assert_true(cs_msg_players_valid(players, 3, 4));
    players[10] = 3; /* a status that does not exist */
    assert_false(cs_msg_players_valid(players, 3, 4));
    players[10] = 2;
    players[1] = 0xFF; /* input bytes are the game's: anything goes */
    assert_true(cs_msg_players_valid(players, 3, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_types_are_named_in_the_registry),
        cmocka_unit_test(test_accept_round_trips_and_refuses_every_truncation),
        cmocka_unit_test(test_input_carries_exactly_its_slots_inputs),
        cmocka_unit_test(test_snapshot_round_trips_and_refuses_bad_values),
        cmocka_unit_test(test_player_statuses_are_checked_in_the_decoded_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
