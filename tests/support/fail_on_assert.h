/* SPDX-License-Identifier: MIT */
/*
 * fail_on_assert.h — a TEMPO_ASSERT reached inside the library fails the
 * running cmocka test with the assertion's text, instead of aborting the
 * program: for tests whose point is that no input can reach one.
 */
#ifndef TEMPO_TESTS_FAIL_ON_ASSERT_H
#define TEMPO_TESTS_FAIL_ON_ASSERT_H

#include "base/common.h"

static inline void fail_on_tempo_assert(const char *expr, const char *file, int line)
{
    fail_msg("TEMPO_ASSERT reached: %s (%s:%d)", expr, file, line);
}

/* Route the library's asserts to the running test (on), or back (off). */
static inline void fail_on_assert(bool on)
{
    tempo__set_assert_handler(on ? fail_on_tempo_assert : NULL);
}

#endif /* TEMPO_TESTS_FAIL_ON_ASSERT_H */
