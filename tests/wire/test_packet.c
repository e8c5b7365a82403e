/* SPDX-License-Identifier: MIT */
/*
 * test_packet.c — the datagram header: exact bytes, the header vectors of
 * docs/PROTOCOL.md both ways, every refusal with its reason, the session
 * peek, and 64-bit sequence recovery across the 16-bit wrap and at the
 * edges of its window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "doc_vectors.h"

#include "tempo/rng.h"
#include "wire/packet.h"

/* ---- vectors: "header NAME HEX" lines of PROTOCOL.md ---- */

static const struct {
    const char *name;
    tempo_packet_header h;
    size_t size; /* of the whole datagram the line lists */
} headers[] = {
    {"plain", {0x12345678u, 0xBEEF, 3, false, false}, 8},
    {"fragment", {0x12345678u, 0x0001, 0x7F, true, false}, 8},
    {"sealed", {0xCAFEF00Du, 0xFFFF, 1, false, true}, 24},
};
#define HEADER_COUNT ((int)(sizeof headers / sizeof headers[0]))

static bool header_equal(const tempo_packet_header *a, const tempo_packet_header *b)
{
    return a->session_id == b->session_id && a->sequence == b->sequence && a->type == b->type &&
           a->fragment == b->fragment && a->sealed == b->sealed;
}

static void test_header_vectors_of_protocol_md_both_ways(void **state)
{
    (void)state;
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/PROTOCOL.md", "r");
    assert_non_null(f);
    char line[4096];
    int found = 0;
    char name[64];
    const char *hex;
    while ((hex = doc_next(f, "header", line, sizeof line, name)) != NULL) {
        int i = 0;
        while (i < HEADER_COUNT && strcmp(headers[i].name, name) != 0)
            i++;
        if (i == HEADER_COUNT)
            fail_msg("PROTOCOL.md header %s is not in test_packet.c", name);
        uint8_t doc[TEMPO_MAX_DATAGRAM], mine[PACKET_HEADER_SIZE];
        int n = from_hex(hex, doc, sizeof doc);
        assert_int_equal(n, (int)headers[i].size);
        /* document -> fields */
        tempo_packet_view v;
        tempo_drop_reason why;
        assert_int_equal(packet_read(doc, (size_t)n, &v, &why), TEMPO_OK);
        assert_true(header_equal(&v.h, &headers[i].h));
        assert_int_equal(v.body, PACKET_HEADER_SIZE);
        assert_int_equal(v.body_size, (size_t)n - PACKET_HEADER_SIZE - (v.h.sealed ? PACKET_TAG_SIZE : 0));
        /* fields -> document */
        assert_int_equal(packet_write(&headers[i].h, mine, sizeof mine), PACKET_HEADER_SIZE);
        if (memcmp(mine, doc, PACKET_HEADER_SIZE) != 0)
            fail_msg("header %s: written bytes differ from PROTOCOL.md", name);
        found++;
    }
    fclose(f);
    assert_int_equal(found, HEADER_COUNT);
}

static void test_header_bytes_are_exact(void **state)
{
    (void)state;
    uint8_t b[PACKET_HEADER_SIZE];
    tempo_packet_header h = {0x12345678u, 0xBEEF, 3, false, false};
    static const uint8_t plain[] = {0xB4, 0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0x03};
    assert_int_equal(packet_write(&h, b, sizeof b), 8);
    assert_memory_equal(b, plain, 8);
    h.sealed = h.fragment = true;
    static const uint8_t both[] = {0xBC, 0x78, 0x56, 0x34, 0x12, 0xEF, 0xBE, 0x83};
    assert_int_equal(packet_write(&h, b, sizeof b), 8);
    assert_memory_equal(b, both, 8);
    assert_int_equal(packet_protocol_byte(false), 0xB4);
    assert_int_equal(packet_protocol_byte(true), 0xBC);
}

static void test_write_refuses_bad_headers(void **state)
{
    (void)state;
    uint8_t b[PACKET_HEADER_SIZE];
    tempo_packet_header h = {1, 2, 0, false, false};
    assert_int_equal(packet_write(&h, b, sizeof b), TEMPO_E_INVALID_ARG);
    h.type = 128;
    assert_int_equal(packet_write(&h, b, sizeof b), TEMPO_E_INVALID_ARG);
    h.type = 127;
    assert_int_equal(packet_write(&h, b, 7), TEMPO_E_FULL);
    assert_int_equal(packet_write(NULL, b, sizeof b), TEMPO_E_INVALID_ARG);
    assert_int_equal(packet_write(&h, NULL, sizeof b), TEMPO_E_INVALID_ARG);
}

static tempo_drop_reason read_reason(const uint8_t *d, size_t n)
{
    tempo_packet_view v;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    int rc = packet_read(d, n, &v, &why);
    assert_int_equal(rc, why == TEMPO_DROP_NONE ? TEMPO_OK : TEMPO_E_MALFORMED);
    return why;
}

static void test_read_refuses_each_bad_header_with_its_reason(void **state)
{
    (void)state;
    static uint8_t d[TEMPO_MAX_DATAGRAM + 1];
    tempo_packet_header h = {7, 9, 5, false, false};
    packet_write(&h, d, sizeof d);
    assert_int_equal(read_reason(d, 8), TEMPO_DROP_NONE);
    assert_int_equal(read_reason(d, TEMPO_MAX_DATAGRAM), TEMPO_DROP_NONE);
    assert_int_equal(read_reason(d, TEMPO_MAX_DATAGRAM + 1), TEMPO_DROP_TOO_LONG);
    for (size_t n = 0; n < 8; n++)
        assert_int_equal(read_reason(d, n), TEMPO_DROP_TOO_SHORT);
    d[0] = 0xA3; /* magic 1010 */
    assert_int_equal(read_reason(d, 8), TEMPO_DROP_BAD_MAGIC);
    d[0] = 0xB2; /* version 2 */
    assert_int_equal(read_reason(d, 8), TEMPO_DROP_BAD_VERSION);
    d[0] = 0xB3; /* version 3, before the cipher offers */
    assert_int_equal(read_reason(d, 8), TEMPO_DROP_BAD_VERSION);
    d[0] = 0xBB;
    assert_int_equal(read_reason(d, 24), TEMPO_DROP_BAD_VERSION);
    d[0] = 0xB4;
    d[7] = 0x00;
    assert_int_equal(read_reason(d, 8), TEMPO_DROP_BAD_TYPE);
    d[7] = 0x80; /* a fragment of type 0 */
    assert_int_equal(read_reason(d, 8), TEMPO_DROP_BAD_TYPE);
    d[7] = 0x05;
    d[0] = 0xBC; /* sealed: the tag must fit */
    assert_int_equal(read_reason(d, 23), TEMPO_DROP_TOO_SHORT);
    assert_int_equal(read_reason(d, 24), TEMPO_DROP_NONE);
    tempo_packet_view v;
    assert_int_equal(packet_read(d, 100, &v, NULL), TEMPO_OK);
    assert_true(v.h.sealed);
    assert_int_equal(v.body_size, 100 - 8 - 16);
    assert_int_equal(v.tag, 100 - 16);
    assert_int_equal(packet_read(NULL, 8, &v, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(packet_read(d, 8, NULL, NULL), TEMPO_E_INVALID_ARG);
}

static void test_session_id_is_read_before_anything_else(void **state)
{
    (void)state;
    uint8_t d[24] = {0};
    tempo_packet_header h = {0xA1B2C3D4u, 1, 2, false, false};
    packet_write(&h, d, sizeof d);
    uint32_t sid = 0;
    tempo_drop_reason why;
    assert_int_equal(packet_peek_session(d, 8, &sid, &why), TEMPO_OK);
    assert_int_equal(sid, 0xA1B2C3D4u);
    d[7] = 0; /* the type is not the peek's business */
    assert_int_equal(packet_peek_session(d, 8, &sid, NULL), TEMPO_OK);
    d[0] = 0x00;
    assert_int_equal(packet_peek_session(d, 8, &sid, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_BAD_MAGIC);
    assert_int_equal(packet_peek_session(d, 4, &sid, &why), TEMPO_E_MALFORMED);
    assert_int_equal(why, TEMPO_DROP_TOO_SHORT);
    assert_int_equal(packet_peek_session(d, 8, NULL, &why), TEMPO_E_INVALID_ARG);
}

/* ---- sequence recovery ---- */

static uint64_t recover(uint64_t seq, uint64_t highest)
{
    return packet_sequence_recover((uint16_t)seq, highest);
}

static void test_sequence_recovers_at_the_window_edges(void **state)
{
    (void)state;
    const uint64_t h = 1000000;
    assert_int_equal(recover(h, h), h);
    assert_int_equal(recover(h + PACKET_SEQ_AHEAD, h), h + PACKET_SEQ_AHEAD);
    assert_int_equal(recover(h - PACKET_SEQ_BEHIND, h), h - PACKET_SEQ_BEHIND);
    /* one past either edge lands a whole wrap away */
    assert_int_equal(recover(h + PACKET_SEQ_AHEAD + 1, h), h + PACKET_SEQ_AHEAD + 1 - 65536);
    assert_int_equal(recover(h - PACKET_SEQ_BEHIND - 1, h), h - PACKET_SEQ_BEHIND - 1 + 65536);
    /* the start: nothing below 0 */
    assert_int_equal(recover(0, 0), 0);
    assert_int_equal(recover(40000, 0), 40000);
    assert_int_equal(recover(65535, 0), 65535);
    assert_int_equal(recover(65000, 100), 65000);
    /* across the 16-bit wrap, both ways */
    assert_int_equal(recover(65536 + 3, 65530), 65536 + 3);
    assert_int_equal(recover(65530, 65536 + 3), 65530);
    assert_int_equal(recover(((uint64_t)7 << 40) + 2, ((uint64_t)7 << 40) - 2), ((uint64_t)7 << 40) + 2);
    /* the top: nothing past 2^64 - 1 */
    assert_true(recover(UINT64_MAX, UINT64_MAX - 5) == UINT64_MAX);
    assert_true(recover(4, UINT64_MAX) == UINT64_MAX - 65531);
}

static void test_sequence_recovers_anywhere_inside_the_window(void **state)
{
    (void)state;
    tempo_rng rng;
    tempo_rng_seed(&rng, 31, 1);
    for (int i = 0; i < 200000; i++) {
        uint64_t h = (uint64_t)tempo_rng_next(&rng) << (tempo_rng_below(&rng, 33));
        int64_t d = (int64_t)tempo_rng_range(&rng, -(int32_t)PACKET_SEQ_BEHIND, (int32_t)PACKET_SEQ_AHEAD);
        if ((int64_t)h + d < 0)
            continue;
        uint64_t seq = (uint64_t)((int64_t)h + d);
        assert_true(recover(seq, h) == seq);
    }
}

/* A sender's 64-bit counter through 200000 datagrams with loss, reordering
 * and a blackout: the receiver, recovering against the highest it has seen,
 * gets every surviving sequence right. */
static void test_sequence_survives_loss_reordering_and_a_blackout(void **state)
{
    (void)state;
    tempo_rng rng;
    tempo_rng_seed(&rng, 32, 1);
    uint64_t highest = 0, held[8];
    int nheld = 0;
    for (uint64_t seq = 0; seq < 200000; seq++) {
        if (seq >= 100000 && seq < 130000) /* 30000 lost in a row: inside the window */
            continue;
        if (tempo_rng_below(&rng, 10) == 0)
            continue;
        if (nheld < 8 && tempo_rng_below(&rng, 5) == 0) {
            held[nheld++] = seq; /* delivered late */
            continue;
        }
        uint64_t got = recover(seq, highest);
        assert_true(got == seq);
        highest = got > highest ? got : highest;
        if (nheld > 0 && tempo_rng_below(&rng, 3) == 0) {
            uint64_t late = held[--nheld];
            if (highest - late <= 1000) /* later than that: counted lost */
                assert_true(recover(late, highest) == late);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_vectors_of_protocol_md_both_ways),
        cmocka_unit_test(test_header_bytes_are_exact),
        cmocka_unit_test(test_write_refuses_bad_headers),
        cmocka_unit_test(test_read_refuses_each_bad_header_with_its_reason),
        cmocka_unit_test(test_session_id_is_read_before_anything_else),
        cmocka_unit_test(test_sequence_recovers_at_the_window_edges),
        cmocka_unit_test(test_sequence_recovers_anywhere_inside_the_window),
        cmocka_unit_test(test_sequence_survives_loss_reordering_and_a_blackout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
