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

#endif /* TEMPO_TESTS_DOC_VECTORS_H */
