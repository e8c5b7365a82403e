/* SPDX-License-Identifier: MIT */
/*
 * test_event_name.c — every event kind has its own name; other values are
 * "unknown".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tempo/session.h"

static void every_event_kind_has_a_distinct_name(void **state)
{
    (void)state;
    for (int a = TEMPO_EVENT_CONNECTED; a <= TEMPO_EVENT_AUTH_FAILED; a++) {
        const char *name = tempo_event_name((tempo_event_kind)a);
        assert_non_null(name);
        assert_string_not_equal(name, "unknown");
        for (int b = TEMPO_EVENT_CONNECTED; b < a; b++)
            assert_string_not_equal(name, tempo_event_name((tempo_event_kind)b));
    }
    assert_string_equal(tempo_event_name(TEMPO_EVENT_SYNCHRONIZING), "synchronizing");
    assert_string_equal(tempo_event_name(TEMPO_EVENT_WAITING_OVER), "waiting_over");
}

static void values_outside_the_enum_are_unknown(void **state)
{
    (void)state;
    assert_string_equal(tempo_event_name((tempo_event_kind)0), "unknown");
    assert_string_equal(tempo_event_name((tempo_event_kind)(TEMPO_EVENT_AUTH_FAILED + 1)),
                        "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_event_kind_has_a_distinct_name),
        cmocka_unit_test(values_outside_the_enum_are_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
