/* SPDX-License-Identifier: MIT */
/*
 * test_checksum.c — tempo_checksum is XXH3-64 (seed 0) and accepts empty input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "tempo/base.h"

static void checksum_is_xxh3_and_tolerates_empty_input(void **state)
{
    (void)state;
    uint8_t data[100];
    for (int i = 0; i < 100; i++)
        data[i] = (uint8_t)i;
    uint64_t a = tempo_checksum(data, sizeof data);
    data[50] ^= 1;
    assert_true(a != tempo_checksum(data, sizeof data));
    assert_true(tempo_checksum(NULL, 0) == tempo_checksum(data, 0));
    /* XXH3-64 of the empty input, seed 0 (xxHash's published value) */
    assert_true(tempo_checksum(NULL, 0) == 0x2D06800538D394C2ULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checksum_is_xxh3_and_tolerates_empty_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
