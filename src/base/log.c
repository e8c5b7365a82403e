/* SPDX-License-Identifier: MIT */
/*
 * log.c — one formatted line to the game's log hook, if its level passes.
 * Lines are cut at 255 bytes: logging never allocates.
 */
#include "base/common.h"

#include <stdarg.h>
#include <stdio.h>

void tempo__log(const tempo_logger *l, tempo_log_level level, const char *fmt, ...)
{
    if (!l || !l->fn || level > l->level)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    l->fn(l->ctx, level, line);
}
