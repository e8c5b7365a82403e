/* SPDX-License-Identifier: MIT */
/*
 * keyfile.c — keys from text and files (keyfile.h).
 */
#include "keyfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool key_from_hex(const char *text, size_t len, uint8_t out[TEMPO_KEY_SIZE])
{
    if (len != 2 * TEMPO_KEY_SIZE) {
        tempo_wipe(out, TEMPO_KEY_SIZE);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        int v = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0) {
            tempo_wipe(out, TEMPO_KEY_SIZE);
            return false;
        }
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return true;
}

static bool blank(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool key_read_file(const char *path, uint8_t out[TEMPO_KEY_SIZE], char *why, size_t why_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s", strerror(errno));
        return false;
    }
    uint8_t buf[2 * TEMPO_KEY_SIZE + 8];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    bool ok;
    if (n == TEMPO_KEY_SIZE) {
        memcpy(out, buf, TEMPO_KEY_SIZE);
        ok = true;
    } else {
        size_t a = 0, b = n;
        while (a < b && blank(buf[a]))
            a++;
        while (b > a && blank(buf[b - 1]))
            b--;
        ok = key_from_hex((const char *)buf + a, b - a, out);
    }
    tempo_wipe(buf, sizeof buf);
    if (!ok) {
        tempo_wipe(out, TEMPO_KEY_SIZE);
        snprintf(why, why_size, "want 32 raw bytes or 64 hex digits");
    }
    return ok;
}
