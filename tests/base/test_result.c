/* SPDX-License-Identifier: MIT */
/*
 * test_result.c — every result code has a name and a sentence; the version
 * macros and the linked version agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "tempo/base.h"

static void every_result_has_a_name_and_a_message(void **state)
{
    (void)state;
    for (int r = 0; r >= TEMPO_RESULT_MIN_; r--) {
        assert_string_not_equal(tempo_strerror(r), "unknown result");
        assert_string_not_equal(tempo_result_name(r), "TEMPO_UNKNOWN");
    }
    assert_string_equal(tempo_result_name(TEMPO_E_STATE), "TEMPO_E_STATE");
    assert_string_equal(tempo_strerror(-999), "unknown result");
    assert_string_equal(tempo_result_name(5), "TEMPO_UNKNOWN");
}

static void version_number_and_string_agree(void **state)
{
    (void)state;
    assert_int_equal(tempo_version(), TEMPO_VERSION_NUMBER);
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", TEMPO_VERSION_MAJOR, TEMPO_VERSION_MINOR,
             TEMPO_VERSION_PATCH);
    assert_string_equal(tempo_version_string(), buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_result_has_a_name_and_a_message),
        cmocka_unit_test(version_number_and_string_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
