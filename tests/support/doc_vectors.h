/* SPDX-License-Identifier: MIT */
/*
 * doc_vectors.h — reading the test vectors a document carries. The wire
 * specs (docs/PROTOCOL.md, docs/REPLAY.md) hold lines "KIND NAME HEX..."
 * that the tests parse, so the document and the code cannot drift apart.
 */
#ifndef TEMPO_TESTS_DOC_VECTORS_H
#define TEMPO_TESTS_DOC_VECTORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Hex pairs (spaces between them allowed) up to the end of the line into
 * out: the byte count, or -1 if a pair is malformed or cap is exceeded. */
static inline int from_hex(const char *text, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = text; *p != '\0' && *p != '\n';) {
        unsigned v;
        if (*p == ' ') {
            p++;
            continue;
        }
        if (n == cap || sscanf(p, "%2x", &v) != 1)
            return -1;
        out[n++] = (uint8_t)v;
        p += 2;
    }
    return (int)n;
}

/* The next line of f that reads "KIND NAME HEX...": copies NAME into name
 * (64 bytes) and returns the text after it, or NULL at the end of f. line
 * (cap bytes) holds the line the result points into. */
static inline const char *doc_next(FILE *f, const char *kind, char *line, size_t cap, char *name)
{
    size_t k = strlen(kind);
    while (fgets(line, (int)cap, f) != NULL) {
        int at;
        if (strncmp(line, kind, k) == 0 && line[k] == ' ' &&
            sscanf(line + k + 1, "%63s %n", name, &at) == 1)
            return line + k + 1 + at;
    }
    return NULL;
}

#endif /* TEMPO_TESTS_DOC_VECTORS_H */
