/* SPDX-License-Identifier: MIT */
/*
 * log.c — one formatted line to the game's log hook, if its level passes.
 * Lines are cut at 511 bytes: logging never allocates. And the rate of
 * one kind of line, bounded (tempo__note).
 */
#include "base/common.h"

#include <stdarg.h>
#include <stdio.h>

void tempo__log(const tempo_logger *l, tempo_log_level level, const char *fmt, ...)
{
    if (!l || !l->fn || level > l->level)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    l->fn(l->ctx, level, line);
}

uint64_t tempo__note(tempo_note *n, uint64_t now_us, uint64_t period_us)
{
    n->unsaid++;
    if (n->at_us != 0 && now_us < n->at_us)
        return 0;
    uint64_t told = n->unsaid;
    n->unsaid = 0;
    n->at_us = now_us + period_us;
    if (n->at_us == 0)
        n->at_us = 1;
    return told;
}

void tempo__note_times(char *buf, size_t size, uint64_t told, uint64_t period_us)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    if (told > 1)
        snprintf(buf, size, " (%llu times in the last %llu s)", (unsigned long long)told,
                 (unsigned long long)(period_us / 1000000u));
}
