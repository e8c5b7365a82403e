/* SPDX-License-Identifier: MIT */
/*
 * test_copy.c — tempo__copy_cold copies every byte, whatever the size and
 * the alignment of either side, below and above the size from which it
 * streams, and touches nothing outside the destination.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/common.h"
#include "tempo/rng.h"

static void copies_every_size_and_alignment(void **state)
{
    (void)state;
    const size_t big = TEMPO__COPY_STREAM_MIN + 4096;
    uint8_t *src = malloc(big + 64), *dst = malloc(big + 64 + 32);
    assert_non_null(src);
    assert_non_null(dst);
    tempo_rng rng;
    tempo_rng_seed(&rng, 5, 1);
    for (size_t i = 0; i < big + 64; i++)
        src[i] = (uint8_t)tempo_rng_next(&rng);
    const size_t sizes[] = {0, 1, 15, 64, 1000, TEMPO__COPY_STREAM_MIN - 1, TEMPO__COPY_STREAM_MIN,
                            TEMPO__COPY_STREAM_MIN + 1, TEMPO__COPY_STREAM_MIN + 63, big};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t so = 0; so < 3; so++)
            for (size_t dof = 0; dof < 17; dof += 3) {
                size_t n = sizes[k];
                memset(dst, 0xA5, big + 64 + 32);
                tempo__copy_cold(dst + 16 + dof, src + so, n);
                assert_memory_equal(dst + 16 + dof, src + so, n);
                for (size_t i = 0; i < 16 + dof; i++) /* nothing before ... */
                    assert_int_equal(dst[i], 0xA5);
                for (size_t i = 16 + dof + n; i < big + 64 + 32; i++) /* ... or after */
                    assert_int_equal(dst[i], 0xA5);
            }
    free(src);
    free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copies_every_size_and_alignment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
