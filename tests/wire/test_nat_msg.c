/* SPDX-License-Identifier: MIT */
/*
 * test_nat_msg.c — NAT traversal's messages: round trips, a vector for
 * the probe, every truncation and every extension refused, every single
 * bit flipped in a probe refused, random bytes never read out of bounds
 * (ASan watches) and never accepted as a probe.
 *
 * `test_nat_msg --write-corpus DIR` writes seed inputs for fuzz_nat_msg
 * to DIR/nat_msg instead of running the tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tempo/rng.h"
#include "wire/nat_msg.h"

static void secret_of(uint8_t s[NAT_SECRET_SIZE], uint8_t v)
{
    for (int i = 0; i < NAT_SECRET_SIZE; i++)
        s[i] = (uint8_t)(v + i);
}

static nat_intro sample_intro(void)
{
    nat_intro in;
    memset(&in, 0, sizeof in);
    in.flags = NAT_FLAG_ALL_IN;
    in.slots = 0x01;
    secret_of(in.secret, 9);
    in.count = 2;
    in.members[0].slots = 0x02;
    in.members[0].public_addr = tempo_address_ipv4(203, 0, 113, 11, 7000);
    in.members[0].ncand = 1;
    in.members[0].cand[0] = tempo_address_ipv4(10, 0, 1, 11, 7000);
    in.members[1].slots = 0x0C;
    in.members[1].public_addr = tempo_address_ipv4(203, 0, 113, 12, 4242);
    return in;
}

static void test_intro_round_trip_and_every_cut(void **state)
{
    (void)state;
    nat_intro in = sample_intro(), out;
    uint8_t body[PACKET_MAX_BODY + 1];
    size_t n = nat_intro_write(body, &in);
    assert_int_equal(n, 3 + NAT_SECRET_SIZE + 2 * (1 + NAT_ADDRESS_SIZE + 1) + NAT_ADDRESS_SIZE);
    assert_true(nat_intro_read(body, n, &out));
    assert_int_equal(out.count, 2);
    assert_int_equal(out.members[1].slots, 0x0C);
    assert_true(tempo_address_equal(&out.members[0].cand[0], &in.members[0].cand[0]));
    assert_memory_equal(out.secret, in.secret, NAT_SECRET_SIZE);
    for (size_t k = 0; k < n; k++)
        assert_false(nat_intro_read(body, k, &out));
    body[n] = 0;
    assert_false(nat_intro_read(body, n + 1, &out));
    /* a player named twice, ours among them; unknown flags; no slots */
    uint8_t copy[PACKET_MAX_BODY];
    memcpy(copy, body, n);
    copy[3 + NAT_SECRET_SIZE] = 0x01; /* member 0 claims our player */
    assert_false(nat_intro_read(copy, n, &out));
    memcpy(copy, body, n);
    copy[0] = 0x80;
    assert_false(nat_intro_read(copy, n, &out));
    memcpy(copy, body, n);
    copy[1] = 0;
    assert_false(nat_intro_read(copy, n, &out));
    /* an address with no port, an unknown family, bytes beyond IPv4 */
    size_t addr0 = 3 + NAT_SECRET_SIZE + 1;
    memcpy(copy, body, n);
    copy[addr0 + 17] = 0;
    copy[addr0 + 18] = 0;
    assert_false(nat_intro_read(copy, n, &out));
    memcpy(copy, body, n);
    copy[addr0] = 5;
    assert_false(nat_intro_read(copy, n, &out));
    memcpy(copy, body, n);
    copy[addr0 + 9] = 1;
    assert_false(nat_intro_read(copy, n, &out));
}

static void test_candidates(void **state)
{
    (void)state;
    tempo_address c[NAT_MAX_LOCAL + 1], out[NAT_MAX_LOCAL];
    for (int i = 0; i < NAT_MAX_LOCAL; i++)
        c[i] = tempo_address_ipv4(10, 0, 0, (uint8_t)(2 + i), 7000);
    uint8_t body[PACKET_MAX_BODY];
    int count = -1;
    size_t n = nat_candidates_write(body, c, NAT_MAX_LOCAL);
    assert_true(nat_candidates_read(body, n, out, &count));
    assert_int_equal(count, NAT_MAX_LOCAL);
    n = nat_candidates_write(body, c, 0);
    assert_true(nat_candidates_read(body, n, out, &count));
    assert_int_equal(count, 0);
    /* more than four, a count that disagrees with the size */
    c[NAT_MAX_LOCAL] = c[0];
    n = nat_candidates_write(body, c, NAT_MAX_LOCAL + 1);
    assert_false(nat_candidates_read(body, n, out, &count));
    n = nat_candidates_write(body, c, 2);
    assert_false(nat_candidates_read(body, n - 1, out, &count));
    assert_false(nat_candidates_read(body, 0, out, &count));
}

static void test_probe_vector_and_every_flip(void **state)
{
    (void)state;
    uint8_t secret[NAT_SECRET_SIZE], other[NAT_SECRET_SIZE];
    secret_of(secret, 1);
    secret_of(other, 2);
    nat_probe p = {NAT_TYPE_PROBE, 0, 1, NAT_FLAG_DIRECT, 0xA1B2C3D4u}, q;
    uint8_t pkt[NAT_PROBE_SIZE];
    assert_int_equal(nat_probe_write(pkt, &p, secret), NAT_PROBE_SIZE);
    /* the header as docs/NAT.md gives it: magic and version, the session
     * id (the secret's bytes 16..19), sequence 0, the type */
    static const uint8_t head[PACKET_HEADER_SIZE] = {0xB4, 17, 18, 19, 20, 0, 0, NAT_TYPE_PROBE};
    assert_memory_equal(pkt, head, sizeof head);
    assert_true(nat_is_probe(pkt, sizeof pkt));
    tempo_drop_reason why = TEMPO_DROP_BAD_MAGIC;
    assert_true(nat_probe_read(pkt, sizeof pkt, secret, &q, &why));
    assert_int_equal(why, TEMPO_DROP_NONE);
    assert_int_equal(q.nonce, p.nonce);
    assert_int_equal(q.from, 0);
    assert_int_equal(q.to, 1);
    assert_false(nat_probe_read(pkt, sizeof pkt, other, &q, &why));
    assert_int_equal(why, TEMPO_DROP_SESSION); /* another match's secret */
    for (size_t i = 0; i < sizeof pkt; i++)
        for (int b = 0; b < 8; b++) {
            uint8_t f[NAT_PROBE_SIZE];
            memcpy(f, pkt, sizeof f);
            f[i] ^= (uint8_t)(1u << b);
            assert_false(nat_probe_read(f, sizeof f, secret, &q, &why));
            assert_int_not_equal(why, TEMPO_DROP_NONE);
            if (i >= sizeof pkt - 8) /* the tag's own bytes */
                assert_int_equal(why, TEMPO_DROP_FORGED);
        }
    assert_false(nat_probe_read(pkt, sizeof pkt - 1, secret, &q, &why));
    assert_int_equal(why, TEMPO_DROP_TRUNCATED);
    /* from == to, a player beyond 7: refused even with a good tag */
    p.to = 0;
    nat_probe_write(pkt, &p, secret);
    assert_false(nat_probe_read(pkt, sizeof pkt, secret, &q, &why));
    assert_int_equal(why, TEMPO_DROP_BAD_VALUE);
    p.to = 9;
    nat_probe_write(pkt, &p, secret);
    assert_false(nat_probe_read(pkt, sizeof pkt, secret, &q, NULL));
}

static void test_random_bytes(void **state)
{
    (void)state;
    tempo_rng rng;
    tempo_rng_seed(&rng, 26, 1);
    uint8_t secret[NAT_SECRET_SIZE];
    secret_of(secret, 1);
    uint8_t buf[PACKET_MAX_BODY];
    for (int k = 0; k < 20000; k++) {
        size_t n = tempo_rng_below(&rng, 200);
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)tempo_rng_next(&rng);
        nat_intro in;
        tempo_address c[NAT_MAX_LOCAL];
        int count;
        nat_probe q;
        (void)nat_intro_read(buf, n, &in);
        (void)nat_candidates_read(buf, n, c, &count);
        assert_false(nat_probe_read(buf, n, secret, &q, NULL));
    }
}

#ifdef _WIN32 /* Windows' mkdir takes no mode */
#include <direct.h>
#define mkdir(path, mode) ((void)(mode), _mkdir(path))
#endif

/* One seed: the reader's byte (0 intro, 1 candidates, 2 probe), then the bytes. */
static int write_seed(const char *dir, int k, uint8_t which, const uint8_t *bytes, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/nat_msg/seed_%d", dir, k);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    int bad = fwrite(&which, 1, 1, f) != 1 || fwrite(bytes, 1, n, f) != n;
    return fclose(f) != 0 || bad;
}

static int write_corpus(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/nat_msg", dir);
    mkdir(path, 0755);
    uint8_t body[PACKET_MAX_BODY];
    nat_intro in = sample_intro();
    int bad = write_seed(dir, 0, 0, body, nat_intro_write(body, &in));
    tempo_address c[2] = {tempo_address_ipv4(10, 0, 0, 2, 7000), tempo_address_ipv4(192, 168, 1, 9, 7001)};
    bad |= write_seed(dir, 1, 1, body, nat_candidates_write(body, c, 2));
    uint8_t secret[NAT_SECRET_SIZE];
    memset(secret, 0x5C, sizeof secret); /* the fuzz target's */
    nat_probe p = {NAT_TYPE_PROBE_ACK, 3, 1, 0, 77};
    bad |= write_seed(dir, 2, 2, body, nat_probe_write(body, &p, secret));
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intro_round_trip_and_every_cut),
        cmocka_unit_test(test_candidates),
        cmocka_unit_test(test_probe_vector_and_every_flip),
        cmocka_unit_test(test_random_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
