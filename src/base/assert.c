/* SPDX-License-Identifier: MIT */
/*
 * assert.c — the handler behind TEMPO_ASSERT: tempo's own invariants only
 * (never a caller's mistake, never network data). The default prints and
 * aborts; tests replace it to observe a failure.
 */
#include "base/common.h"

#include <stdio.h>
#include <stdlib.h>

static void default_assert_handler(const char *expr, const char *file, int line)
{
    fprintf(stderr, "tempo: invariant failed: %s (%s:%d)\n", expr, file, line);
    abort();
}

static tempo_assert_fn assert_handler = default_assert_handler;

void tempo__set_assert_handler(tempo_assert_fn fn)
{
    assert_handler = fn ? fn : default_assert_handler;
}

void tempo__assert_fail(const char *expr, const char *file, int line)
{
    assert_handler(expr, file, line);
}
