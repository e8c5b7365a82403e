/* SPDX-License-Identifier: MIT */
/*
 * memstream.c — open_memstream for Windows (memstream.h says how it works).
 *
 * Open memory streams are few and short-lived in the tools, so a small table
 * remembers where each one's result goes; the table is the tool's, never the
 * library's. An open beyond the table's size fails like an out-of-memory
 * open_memstream (NULL).
 */
#ifdef _WIN32
#include <stdbool.h>
#include <stdlib.h>
#include <windows.h>

#include "memstream.h"

#undef fclose

#define MAX_STREAMS 8

static struct {
    FILE *f;
    char **buf;
    size_t *len;
} streams[MAX_STREAMS];

FILE *tempo_win32_open_memstream(char **buf, size_t *len)
{
    int slot = -1;
    for (int i = 0; i < MAX_STREAMS && slot < 0; i++)
        if (!streams[i].f)
            slot = i;
    char dir[MAX_PATH], path[MAX_PATH];
    if (slot < 0 || !buf || !len || GetTempPathA(sizeof dir, dir) == 0 ||
        GetTempFileNameA(dir, "tmp", 0, path) == 0)
        return NULL;
    /* T: keep it in memory when the cache allows; D: delete on close. */
    FILE *f = fopen(path, "w+bTD");
    if (!f)
        return NULL;
    streams[slot].f = f;
    streams[slot].buf = buf;
    streams[slot].len = len;
    *buf = NULL;
    *len = 0;
    return f;
}

/* Read the whole stream back into a new buffer; false when out of memory or
 * on a read error. */
static bool read_back(FILE *f, char **buf, size_t *len)
{
    if (fflush(f) != 0 || fseek(f, 0, SEEK_END) != 0)
        return false;
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
        return false;
    char *b = malloc((size_t)size + 1);
    if (!b)
        return false;
    if (fread(b, 1, (size_t)size, f) != (size_t)size) {
        free(b);
        return false;
    }
    b[size] = '\0';
    *buf = b;
    *len = (size_t)size;
    return true;
}

int tempo_win32_fclose(FILE *f)
{
    for (int i = 0; i < MAX_STREAMS; i++) {
        if (f && streams[i].f == f) {
            bool ok = read_back(f, streams[i].buf, streams[i].len);
            streams[i].f = NULL;
            int rc = fclose(f);
            return ok ? rc : EOF;
        }
    }
    return fclose(f);
}
#else
/* ISO C wants a declaration in every translation unit. */
typedef int tempo_win32_memstream_not_elsewhere;
#endif
