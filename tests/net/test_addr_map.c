/* SPDX-License-Identifier: MIT */
/*
 * test_addr_map.c — the address table (net/addr_map.h) against a plain
 * list over many seeds: random adds and removes of IPv4, IPv6 and opaque
 * addresses (many sharing bytes, some differing only in the port) keep
 * every lookup equal to the list's, the map refuses a second add of an
 * address and an add past its capacity, and equal addresses whose unused
 * bytes differ are one key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/addr_map.h"
#include "tempo/rng.h"

#define CAP 37

static tempo_address draw(tempo_rng *r)
{
    tempo_address a;
    memset(&a, 0, sizeof a);
    uint32_t k = tempo_rng_below(r, 3);
    a.family = k == 0 ? TEMPO_ADDRESS_IPV4 : k == 1 ? TEMPO_ADDRESS_IPV6 : TEMPO_ADDRESS_OPAQUE;
    size_t len = k == 0 ? 4 : 16;
    if (k == 2)
        len = a.id_size = (uint8_t)(1 + tempo_rng_below(r, 16));
    for (size_t i = 0; i < len; i++)
        a.bytes[i] = (uint8_t)tempo_rng_below(r, 2); /* few distinct: many near misses */
    a.port = (uint16_t)(40000 + tempo_rng_below(r, 8));
    return a;
}

static void test_map_matches_a_list(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        tempo_rng r;
        tempo_rng_seed(&r, seed, 7);
        addr_map_entry mem[128];
        assert_true(addr_map_entries(CAP) <= 128);
        uint8_t key[ADDR_MAP_KEY_SIZE];
        for (int i = 0; i < ADDR_MAP_KEY_SIZE; i++)
            key[i] = (uint8_t)tempo_rng_next(&r);
        addr_map m;
        addr_map_init(&m, mem, CAP, key);
        tempo_address list[CAP];
        int value[CAP], n = 0, next = 0;
        for (int step = 0; step < 400; step++) {
            tempo_address a = draw(&r);
            int in = -1;
            for (int i = 0; i < n; i++)
                if (tempo_address_equal(&list[i], &a))
                    in = i;
            assert_int_equal(addr_map_find(&m, &a), in < 0 ? -1 : value[in]);
            if (tempo_rng_below(&r, 3) != 0) {
                bool ok = addr_map_add(&m, &a, next);
                assert_int_equal(ok, in < 0 && n < CAP);
                if (ok) {
                    list[n] = a;
                    value[n++] = next++;
                }
            } else if (n > 0) {
                int i = (int)tempo_rng_below(&r, (uint32_t)n);
                addr_map_remove(&m, &list[i]);
                assert_int_equal(addr_map_find(&m, &list[i]), -1);
                list[i] = list[n - 1];
                value[i] = value[n - 1];
                n--;
            }
            assert_int_equal(m.count, n);
            for (int i = 0; i < n; i++)
                assert_int_equal(addr_map_find(&m, &list[i]), value[i]);
        }
    }
}

static void test_unused_bytes_do_not_split_a_key(void **state)
{
    (void)state;
    addr_map_entry mem[8];
    uint8_t key[ADDR_MAP_KEY_SIZE] = {1, 2, 3};
    addr_map m;
    addr_map_init(&m, mem, 2, key);
    tempo_address a = tempo_address_ipv4(127, 0, 0, 1, 5000), b = a;
    b.bytes[9] = 0xEE; /* past an IPv4 address: not compared */
    b.id_size = 3;
    assert_true(tempo_address_equal(&a, &b));
    assert_true(addr_map_add(&m, &a, 4));
    assert_int_equal(addr_map_find(&m, &b), 4);
    assert_false(addr_map_add(&m, &b, 5));
    b.port = 5001;
    assert_int_equal(addr_map_find(&m, &b), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_matches_a_list),
        cmocka_unit_test(test_unused_bytes_do_not_split_a_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
