/* SPDX-License-Identifier: MIT */
/*
 * log_lines.h — a log hook (tempo_log_fn) that keeps the lines a server
 * or a relay tells, for tests that check what an operator would read.
 */
#ifndef TEMPO_TESTS_LOG_LINES_H
#define TEMPO_TESTS_LOG_LINES_H

#include <stdio.h>
#include <string.h>

#include "tempo/base.h"

typedef struct log_lines {
    int n;
    char line[32][256];
} log_lines;

/* The hook: ctx is a log_lines; every line passed is kept (the level
 * filter is the config's), the first 32. */
static inline void keep_line(void *ctx, tempo_log_level level, const char *message)
{
    log_lines *l = ctx;
    (void)level;
    if (l->n < 32)
        snprintf(l->line[l->n++], sizeof l->line[0], "%s", message);
}

/* How many kept lines contain text. */
static inline int lines_with(const log_lines *l, const char *text)
{
    int n = 0;
    for (int i = 0; i < l->n; i++)
        n += strstr(l->line[i], text) != NULL;
    return n;
}

/* Print the kept lines (a failing test shows what was told). */
static inline void print_lines(const log_lines *l)
{
    for (int i = 0; i < l->n; i++)
        printf("  log: %s\n", l->line[i]);
}

#endif /* TEMPO_TESTS_LOG_LINES_H */
