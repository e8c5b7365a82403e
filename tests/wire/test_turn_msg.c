/* SPDX-License-Identifier: MIT */
/*
 * test_turn_msg.c — turn-based lockstep's message bodies (wire/turn_msg.h):
 * the byte layout of a hello and of a turns message against hand-written
 * bytes, round trips, the registry's names, and hostile bodies: every
 * prefix of a valid body, trailing bytes, reserved bits, counts and budgets
 * out of range, each refused with its reason.
 *
 * `test_turn_msg --write-corpus DIR` writes seed inputs for fuzz_turn_msg
 * to DIR/turn_msg instead of running the tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "doc_vectors.h"
#include "tempo/base.h"
#include "wire/codec.h"
#include "wire/turn_msg.h"

#ifdef _WIN32 /* Windows' mkdir takes no mode */
#include <direct.h>
#define mkdir(path, mode) ((void)(mode), _mkdir(path))
#endif

static void names_are_in_the_registry(void **state)
{
    (void)state;
    assert_string_equal(tempo_msg_type_name(30), "turn_hello");
    assert_string_equal(tempo_msg_type_name(31), "turn_hello_reply");
    assert_string_equal(tempo_msg_type_name(32), "turn_start");
    assert_string_equal(tempo_msg_type_name(33), "turns");
    assert_string_equal(tempo_msg_type_name(34), "turn_leave");
    assert_string_equal(tempo_msg_type_name(35), "turn_relay");
    assert_false(tempo_msg_type_known(33)); /* coded in turn_msg.c, not by the codec */
}

static void a_hello_is_ten_bytes(void **state)
{
    (void)state;
    turn_msg m;
    memset(&m, 0, sizeof m);
    m.type = TURN_MSG_HELLO;
    m.u.hello.nonce = 0x04030201u;
    m.u.hello.config_hash = 0xDDCCBBAAu;
    m.u.hello.player = 5;
    m.u.hello.ready = true;
    uint8_t buf[64];
    static const uint8_t want[] = {1, 2, 3, 4, 0xAA, 0xBB, 0xCC, 0xDD, 5, 1};
    assert_int_equal(turn_msg_encode(&m, buf, sizeof buf), 10);
    assert_memory_equal(buf, want, sizeof want);
    turn_msg out;
    assert_int_equal(turn_msg_decode(TURN_MSG_HELLO_REPLY, buf, 10, &out, NULL), TEMPO_OK);
    assert_int_equal(out.u.hello.nonce, m.u.hello.nonce);
    assert_int_equal(out.u.hello.config_hash, m.u.hello.config_hash);
    assert_int_equal(out.u.hello.player, 5);
    assert_true(out.u.hello.ready);
}

/* Two lists: player 2's turn 7 with commands "ab" and "c" and a length of
 * 120 ms, then its empty turn 8. */
static const uint8_t cmds7[] = {1, 'a', 'b', 0, 'c'};

static void fill_turns(turn_msg *m)
{
    memset(m, 0, sizeof *m);
    m->type = TURN_MSG_TURNS;
    turn_turns *t = &m->u.turns;
    t->ack = 9;
    t->sum_turn = 6;
    t->sum = 0x1122334455667788ull;
    t->sim_us = 1500;
    t->rtt_ms = 150;
    t->rttvar_ms = 10;
    t->ping = 0x04030201u;
    t->pong = 0x80000001u;
    t->nlists = 2;
    t->list[0] = (turn_list){2, TURN_LIST_HAS_LENGTH, 7, 120, 2, sizeof cmds7, cmds7};
    t->list[1] = (turn_list){2, 0, 8, 0, 0, 0, NULL};
    wire_ack_make(&t->dack, true, 0x12A, 0xFFFFFFFEu); /* 0x129 lost */
    t->dack_delay_ms = 12;
}

static const uint8_t turns_bytes[] = {
    9, 0, 0, 0,                                     /* ack */
    6, 0, 0, 0,                                     /* sum_turn */
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* sum */
    0xDC, 0x05, 0, 0,                               /* sim_us 1500 */
    150, 0, 10, 0,                                  /* rtt, rttvar */
    1, 2, 3, 4, 1, 0, 0, 0x80,                      /* ping, pong */
    0,                                              /* no lost player */
    2,                                              /* lists */
    2, 1, 7, 0, 0, 0, 120, 0, 2, 1, 'a', 'b', 0, 'c',
    2, 0, 8, 0, 0, 0, 0,
    2, 0x2A, 12, 0xFE, 0xFF, 0xFF, 0xFF};              /* ack with bits, held 12 ms */

static void a_turns_message_matches_its_bytes(void **state)
{
    (void)state;
    turn_msg m;
    fill_turns(&m);
    uint8_t buf[256];
    int n = turn_msg_encode(&m, buf, sizeof buf);
    assert_int_equal(n, (int)sizeof turns_bytes);
    assert_memory_equal(buf, turns_bytes, sizeof turns_bytes);
    assert_int_equal(turn_list_wire_size(&m.u.turns.list[0]), 14);
    turn_msg out;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, buf, (size_t)n, &out, NULL), TEMPO_OK);
    const turn_turns *t = &out.u.turns;
    assert_int_equal(t->ack, 9);
    assert_int_equal(t->sum, 0x1122334455667788ull);
    assert_int_equal(t->ping, 0x04030201u);
    assert_int_equal(t->pong, 0x80000001u);
    assert_int_equal(t->nlists, 2);
    assert_int_equal(t->list[0].turn, 7);
    assert_int_equal(t->list[0].length_ms, 120);
    assert_int_equal(t->list[0].count, 2);
    assert_int_equal(t->list[0].cmds_size, 5);
    assert_memory_equal(t->list[0].cmds, cmds7, 5);
    assert_int_equal(t->list[1].turn, 8);
    assert_int_equal(t->list[1].count, 0);
    assert_true(t->dack.present);
    assert_int_equal(t->dack.ack, 0x2A);
    assert_int_equal(t->dack.bits, 0xFFFFFFFEu);
    assert_int_equal(t->dack_delay_ms, 12);
}

/* The ack's three spellings: none (1 byte), all received (3), bits (7). */
static void the_datagram_ack_takes_one_three_or_seven_bytes(void **state)
{
    (void)state;
    turn_msg m, out;
    fill_turns(&m);
    uint8_t buf[256];
    wire_ack_make(&m.u.turns.dack, false, 0, 0);
    assert_int_equal(turn_msg_encode(&m, buf, sizeof buf), (int)sizeof turns_bytes - 6);
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, buf, sizeof turns_bytes - 6, &out, NULL), TEMPO_OK);
    assert_false(out.u.turns.dack.present);
    wire_ack_make(&m.u.turns.dack, true, 7, 0xFFFFFFFFu);
    assert_int_equal(turn_msg_encode(&m, buf, sizeof buf), (int)sizeof turns_bytes - 4);
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, buf, sizeof turns_bytes - 4, &out, NULL), TEMPO_OK);
    assert_true(out.u.turns.dack.present);
    assert_int_equal(out.u.turns.dack.ack, 7);
    assert_int_equal(out.u.turns.dack.bits, 0xFFFFFFFFu);
    assert_int_equal(out.u.turns.dack_delay_ms, 12);
}

/* docs/PROTOCOL.md section 16 carries these two bodies as vectors. */
static void the_spec_vectors_are_these_bytes(void **state)
{
    (void)state;
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/PROTOCOL.md", "r");
    assert_non_null(f);
    char line[512], name[64];
    uint8_t got[128];
    const char *hex = doc_next(f, "turns", line, sizeof line, name);
    assert_non_null(hex);
    assert_string_equal(name, "example");
    assert_int_equal(from_hex(hex, got, sizeof got), (int)sizeof turns_bytes);
    assert_memory_equal(got, turns_bytes, sizeof turns_bytes);
    rewind(f);
    hex = doc_next(f, "hello", line, sizeof line, name);
    assert_non_null(hex);
    static const uint8_t hello[] = {1, 2, 3, 4, 0xAA, 0xBB, 0xCC, 0xDD, 5, 1};
    assert_int_equal(from_hex(hex, got, sizeof got), (int)sizeof hello);
    assert_memory_equal(got, hello, sizeof hello);
    fclose(f);
}

static void every_prefix_of_a_body_is_truncated(void **state)
{
    (void)state;
    turn_msg out;
    for (size_t n = 0; n < sizeof turns_bytes; n++) {
        tempo_drop_reason why = TEMPO_DROP_NONE;
        assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, turns_bytes, n, &out, &why),
                         TEMPO_E_MALFORMED);
        assert_int_equal(why, TEMPO_DROP_TRUNCATED);
    }
    for (size_t n = 0; n < 10; n++) {
        tempo_drop_reason why = TEMPO_DROP_NONE;
        assert_int_equal(turn_msg_decode(TURN_MSG_HELLO, turns_bytes, n, &out, &why),
                         TEMPO_E_MALFORMED);
        assert_int_equal(why, TEMPO_DROP_TRUNCATED);
    }
}

static tempo_drop_reason decode_changed(size_t at, uint8_t value)
{
    uint8_t buf[sizeof turns_bytes];
    memcpy(buf, turns_bytes, sizeof buf);
    buf[at] = value;
    turn_msg out;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    int r = turn_msg_decode(TURN_MSG_TURNS, buf, sizeof buf, &out, &why);
    assert_int_equal(r == TEMPO_OK, why == TEMPO_DROP_NONE);
    return why;
}

static void bodies_no_honest_sender_writes_are_refused(void **state)
{
    (void)state;
    assert_int_equal(decode_changed(33, TURN_MSG_MAX_LISTS + 1), TEMPO_DROP_BAD_VALUE);
    assert_int_equal(decode_changed(35, 0x05), TEMPO_DROP_BAD_VALUE);  /* reserved list flag */
    assert_int_equal(decode_changed(39, 0x80), TEMPO_DROP_BAD_VALUE);  /* turn above INT32_MAX */
    assert_int_equal(decode_changed(40, 0), TEMPO_DROP_BAD_VALUE);     /* length 0 ... */
    assert_int_equal(decode_changed(41, 0), TEMPO_DROP_NONE);          /* ... 120 is fine */
    assert_int_equal(decode_changed(42, TURN_MAX_COMMANDS + 1), TEMPO_DROP_BAD_VALUE);
    assert_int_equal(decode_changed(33, 1), TEMPO_DROP_TRAILING);      /* one list, bytes left */
    assert_int_equal(decode_changed(sizeof turns_bytes - 7, 3), TEMPO_DROP_BAD_VALUE); /* no such ack kind */
    /* the long spelling of "all received" */
    uint8_t ones[sizeof turns_bytes];
    memcpy(ones, turns_bytes, sizeof ones);
    ones[sizeof ones - 4] = 0xFF;
    turn_msg dec1;
    tempo_drop_reason w1;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, ones, sizeof ones, &dec1, &w1), TEMPO_E_MALFORMED);
    assert_int_equal(w1, TEMPO_DROP_BAD_VALUE);
    assert_int_equal(decode_changed(46, 0xFF), TEMPO_DROP_TRUNCATED);  /* a command runs past the end */
    /* a lost player whose turn number follows: the lists count is read as
     * part of it, and what follows no longer parses */
    assert_int_not_equal(decode_changed(32, 1), TEMPO_DROP_NONE);
    /* an unknown round trip with a deviation */
    uint8_t rtt[sizeof turns_bytes];
    memcpy(rtt, turns_bytes, sizeof rtt);
    rtt[20] = rtt[21] = 0xFF;
    turn_msg dec;
    tempo_drop_reason rwhy;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, rtt, sizeof rtt, &dec, &rwhy),
                     TEMPO_E_MALFORMED);
    assert_int_equal(rwhy, TEMPO_DROP_BAD_VALUE);
    /* a "none" checksum turn with a checksum */
    assert_int_equal(decode_changed(4, 0xFF) == TEMPO_DROP_NONE, true);
    uint8_t buf[sizeof turns_bytes];
    memcpy(buf, turns_bytes, sizeof buf);
    memset(buf + 4, 0xFF, 4);
    turn_msg out;
    tempo_drop_reason why;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, buf, sizeof buf, &out, &why),
                     TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
}

static void lost_players_carry_how_far_the_sender_holds_them(void **state)
{
    (void)state;
    turn_msg m;
    memset(&m, 0, sizeof m);
    m.type = TURN_MSG_TURNS;
    m.u.turns.sum_turn = TURN_NONE;
    m.u.turns.rtt_ms = TURN_RTT_UNKNOWN;
    m.u.turns.lost = 0x05; /* players 0 and 2 */
    m.u.turns.have[0] = 0x11223344u;
    m.u.turns.have[2] = 7;
    m.u.turns.have[1] = 99; /* not lost: not sent */
    uint8_t buf[64];
    int n = turn_msg_encode(&m, buf, sizeof buf);
    assert_int_equal(n, TURN_HEADER_SIZE + 8 + 1); /* and no datagram ack */
    static const uint8_t tail[] = {0x05, 0x44, 0x33, 0x22, 0x11, 7, 0, 0, 0, 0};
    assert_memory_equal(buf + 32, tail, sizeof tail);
    turn_msg out;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, buf, (size_t)n, &out, NULL), TEMPO_OK);
    assert_int_equal(out.u.turns.lost, 0x05);
    assert_int_equal(out.u.turns.have[0], 0x11223344u);
    assert_int_equal(out.u.turns.have[1], 0);
    assert_int_equal(out.u.turns.have[2], 7);
    buf[36] = 0x80; /* player 0's turn above INT32_MAX */
    tempo_drop_reason why;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, buf, (size_t)n, &out, &why),
                     TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
}

static void a_list_over_the_budget_is_refused(void **state)
{
    (void)state;
    /* five commands of 256 bytes: 1280 > 1024 */
    static uint8_t body[TURN_HEADER_SIZE + 7 + 5 * 257];
    memset(body, 0, sizeof body);
    body[TURN_HEADER_SIZE - 1] = 1;
    body[4] = body[5] = body[6] = body[7] = 0xFF; /* no checksum */
    uint8_t *l = body + TURN_HEADER_SIZE;
    l[0] = 1;
    l[2] = 9;
    l[6] = 5;
    for (int i = 0; i < 5; i++)
        l[7 + i * 257] = 255;
    turn_msg out;
    tempo_drop_reason why;
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, body, sizeof body, &out, &why),
                     TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
    /* four are within it */
    l[6] = 4;
    l[7 + 4 * 257] = 0; /* then no datagram ack */
    assert_int_equal(turn_msg_decode(TURN_MSG_TURNS, body, sizeof body - 256, &out, &why),
                     TEMPO_OK);
    assert_int_equal(out.u.turns.list[0].count, 4);
    assert_false(turn_cmds_valid(l + 7, 5 * 257, 5));
    l[7 + 4 * 257] = 255;
    assert_true(turn_cmds_valid(l + 7, 4 * 257, 4));
}

static void other_types_and_empty_bodies(void **state)
{
    (void)state;
    turn_msg out;
    tempo_drop_reason why;
    assert_int_equal(turn_msg_decode(TURN_MSG_START, NULL, 0, &out, &why), TEMPO_OK);
    assert_int_equal(turn_msg_decode(TURN_MSG_LEAVE, turns_bytes, 1, &out, &why),
                     TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_TRAILING);
    assert_int_equal(turn_msg_decode(35, NULL, 0, &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_TRUNCATED); /* a relay's notice has a body */
    assert_int_equal(turn_msg_decode(36, NULL, 0, &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_TYPE);
    assert_int_equal(turn_msg_decode(TEMPO_MSG_INPUT, turns_bytes, 8, &out, &why),
                     TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_TYPE);
    /* a hello with nonce 0 or a player above 7 */
    uint8_t hello[10] = {0, 0, 0, 0, 1, 2, 3, 4, 1, 0};
    assert_int_equal(turn_msg_decode(TURN_MSG_HELLO, hello, 10, &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
    hello[0] = 7;
    hello[8] = 8;
    assert_int_equal(turn_msg_decode(TURN_MSG_HELLO, hello, 10, &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
}

static void the_encoder_refuses_what_it_cannot_write(void **state)
{
    (void)state;
    turn_msg m;
    fill_turns(&m);
    uint8_t buf[256];
    assert_int_equal(turn_msg_encode(&m, buf, sizeof turns_bytes - 1), TEMPO_E_FULL);
    m.u.turns.list[0].count = 3; /* the commands say two */
    assert_int_equal(turn_msg_encode(&m, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    fill_turns(&m);
    m.u.turns.list[1].player = 8;
    assert_int_equal(turn_msg_encode(&m, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    m.type = 35;
    assert_int_equal(turn_msg_encode(&m, buf, sizeof buf), TEMPO_E_INVALID_ARG);
}

static int write_seed(const char *dir, int n, uint8_t type, const uint8_t *body, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/turn_msg/seed-%02d", dir, n);
    FILE *f = fopen(path, "wb");
    uint8_t t = (uint8_t)(type - TURN_MSG_FIRST);
    bool ok = f != NULL && fwrite(&t, 1, 1, f) == 1 && fwrite(body, 1, size, f) == size;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok ? 0 : 1;
}

/* A sample of each type for the corpus: every type from TURN_MSG_FIRST to
 * TURN_MSG_LAST has one, so a new type cannot go unfuzzed (the writer fails
 * on a type it has no sample for). Returns the message. */
static bool corpus_sample(uint8_t type, turn_msg *m)
{
    static uint8_t cmds[TURN_LIST_BYTES];
    for (int i = 0; i < 4; i++) { /* a full list: four commands of 256 bytes */
        cmds[i * 257] = 255;
        memset(cmds + i * 257 + 1, i + 1, 256);
    }
    memset(m, 0, sizeof *m);
    m->type = type;
    switch (type) {
    case TURN_MSG_HELLO:
    case TURN_MSG_HELLO_REPLY:
        m->u.hello = (turn_hello){0x04030201u, 0xDDCCBBAAu, 5, true};
        return true;
    case TURN_MSG_START:
    case TURN_MSG_LEAVE:
        return true;
    case TURN_MSG_TURNS:
        m->u.turns.sum_turn = TURN_NONE;
        m->u.turns.rtt_ms = TURN_RTT_UNKNOWN;
        m->u.turns.lost = 0x06;
        m->u.turns.have[1] = 40;
        m->u.turns.have[2] = 41;
        m->u.turns.nlists = 2;
        m->u.turns.list[0] = (turn_list){1, 0, 40, 0, 4, 4 * 257, cmds};
        m->u.turns.list[1] = (turn_list){0, TURN_LIST_HAS_LENGTH, 41, 150, 0, 0, NULL};
        return true;
    case TURN_MSG_RELAY: /* a relay's final lists, one substituted */
        m->u.relay.started = true;
        m->u.relay.clock = 42;
        m->u.relay.into_us = 1000;
        m->u.relay.ack = 43;
        m->u.relay.first = 40;
        m->u.relay.final = 42;
        m->u.relay.nlists = 2;
        m->u.relay.list[0] = (turn_list){1, 0, 40, 0, 4, 4 * 257, cmds};
        m->u.relay.list[1] =
            (turn_list){0, TURN_LIST_SUBSTITUTED | TURN_LIST_HAS_LENGTH, 41, 150, 0, 0, NULL};
        return true;
    default:
        return false;
    }
}

static int write_corpus(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/turn_msg", dir);
    mkdir(path, 0755);
    int bad = write_seed(dir, 0, TURN_MSG_TURNS, turns_bytes, sizeof turns_bytes);
    for (int t = TURN_MSG_FIRST; t <= TURN_MSG_LAST; t++) {
        turn_msg m;
        static uint8_t buf[4096];
        if (!corpus_sample((uint8_t)t, &m)) {
            fprintf(stderr, "test_turn_msg: no corpus sample for type %d\n", t);
            return 1;
        }
        int n = turn_msg_encode(&m, buf, sizeof buf);
        bad |= n < 0 || write_seed(dir, 1 + t - TURN_MSG_FIRST, (uint8_t)t, buf, (size_t)n);
    }
    return bad;
}

/* A relay's notice: 22 header bytes, then lists as in turns; a list keeps
 * its substituted flag; a started byte of 2 and final below first are
 * refused; every prefix is truncated. */
static void a_relay_notice_matches_its_bytes(void **state)
{
    (void)state;
    static const uint8_t cmds[] = {1, 0xAA, 0xBB};
    turn_msg m;
    memset(&m, 0, sizeof m);
    m.type = TURN_MSG_RELAY;
    m.u.relay.started = true;
    m.u.relay.clock = -2;
    m.u.relay.into_us = 0x0102;
    m.u.relay.ack = 5;
    m.u.relay.first = 3;
    m.u.relay.final = 4;
    m.u.relay.nlists = 1;
    m.u.relay.list[0] = (turn_list){2, TURN_LIST_SUBSTITUTED, 3, 0, 1, sizeof cmds, cmds};
    uint8_t buf[64];
    int n = turn_msg_encode(&m, buf, sizeof buf);
    static const uint8_t want[] = {1, 0xFE, 0xFF, 0xFF, 0xFF, 0x02, 0x01, 0, 0, 5, 0, 0, 0,
                                   3, 0, 0, 0, 4, 0, 0, 0, 1, 2, 2, 3, 0, 0, 0, 1, 1, 0xAA, 0xBB};
    assert_int_equal(n, (int)sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    turn_msg out;
    assert_int_equal(turn_msg_decode(TURN_MSG_RELAY, buf, (size_t)n, &out, NULL), TEMPO_OK);
    assert_int_equal(out.u.relay.clock, -2);
    assert_int_equal(out.u.relay.final, 4);
    assert_int_equal(out.u.relay.list[0].flags, TURN_LIST_SUBSTITUTED);
    assert_memory_equal(out.u.relay.list[0].cmds, cmds, sizeof cmds);
    tempo_drop_reason why;
    for (int k = 0; k < n; k++) {
        assert_int_equal(turn_msg_decode(TURN_MSG_RELAY, buf, (size_t)k, &out, &why),
                         TEMPO_E_MALFORMED);
        assert_int_equal(why, TEMPO_DROP_TRUNCATED);
    }
    buf[0] = 2;
    assert_int_equal(turn_msg_decode(TURN_MSG_RELAY, buf, (size_t)n, &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
    buf[0] = 1;
    buf[17] = 2; /* final 2 < first 3 */
    assert_int_equal(turn_msg_decode(TURN_MSG_RELAY, buf, (size_t)n, &out, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_are_in_the_registry),
        cmocka_unit_test(a_hello_is_ten_bytes),
        cmocka_unit_test(a_turns_message_matches_its_bytes),
        cmocka_unit_test(the_datagram_ack_takes_one_three_or_seven_bytes),
        cmocka_unit_test(the_spec_vectors_are_these_bytes),
        cmocka_unit_test(every_prefix_of_a_body_is_truncated),
        cmocka_unit_test(bodies_no_honest_sender_writes_are_refused),
        cmocka_unit_test(lost_players_carry_how_far_the_sender_holds_them),
        cmocka_unit_test(a_list_over_the_budget_is_refused),
        cmocka_unit_test(other_types_and_empty_bodies),
        cmocka_unit_test(the_encoder_refuses_what_it_cannot_write),
        cmocka_unit_test(a_relay_notice_matches_its_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
