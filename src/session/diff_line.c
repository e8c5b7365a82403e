/* SPDX-License-Identifier: MIT */
/*
 * diff_line.c — one range of a desync diff as a line a person reads:
 * "peer 1 vs peer 0 at frame 1020: ships[2].x 4410 vs 4412". The game's
 * describer (tempo_config.describe_state) names the field at the range's
 * first byte; a field of 1, 2, 4 or 8 bytes is read as a little-endian
 * unsigned integer from both states, anything else is shown as hex bytes.
 * Without a describer, or where it names nothing, the line gives the byte
 * offsets. Writes only into the caller's buffer; never allocates.
 */
#include "session/session.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LINE_HEX_BYTES 16 /* bytes of a field or range shown in hex, at most */

/* Append to buf as snprintf would, keeping *len the length it would have. */
static void put(char *buf, size_t size, size_t *len, const char *fmt, ...) TEMPO_PRINTF(4, 5);
static void put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = *len < size ? buf + *len : NULL;
    int n = vsnprintf(at, at ? size - *len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n;
}

/* The bytes [off, off + n) of one state, as an integer or hex; "-" for
 * bytes the state does not have. */
static void put_value(char *buf, size_t size, size_t *len, const uint8_t *state, size_t state_size,
                      size_t off, size_t n, bool integer)
{
    if (off >= state_size || n > state_size - off) {
        put(buf, size, len, "-");
        return;
    }
    if (integer) {
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++)
            v |= (uint64_t)state[off + i] << (8 * i);
        put(buf, size, len, "%" PRIu64, v);
        return;
    }
    size_t shown = n < LINE_HEX_BYTES ? n : LINE_HEX_BYTES;
    for (size_t i = 0; i < shown; i++)
        put(buf, size, len, "%02x", state[off + i]);
    if (shown < n)
        put(buf, size, len, "...");
}

int session_diff_line(const tempo_config *cfg, const tempo_desync_diff *d, int index, char *buf,
                      size_t size)
{
    const tempo_diff_range *r = &d->ranges[index];
    size_t len = 0;
    if (size > 0)
        buf[0] = '\0';
    put(buf, size, &len, "peer %d vs peer %d at frame %" PRId32 ": ", d->local_player, d->player,
        d->frame);
    char name[64];
    size_t foff = 0, fsize = 0;
    name[0] = '\0';
    bool named = cfg->describe_state != NULL &&
                 cfg->describe_state(cfg->describe_ctx, r->offset, name, sizeof name, &foff, &fsize) &&
                 fsize > 0 && foff <= r->offset && r->offset - foff < fsize;
    name[sizeof name - 1] = '\0';
    size_t off = r->offset, n = r->length;
    bool integer = false;
    if (named) {
        off = foff;
        n = fsize;
        integer = fsize == 1 || fsize == 2 || fsize == 4 || fsize == 8;
        put(buf, size, &len, "%s ", name);
    } else {
        put(buf, size, &len, "bytes %" PRIu32 "..%" PRIu32 " ", r->offset, r->offset + r->length - 1);
    }
    put_value(buf, size, &len, d->local, d->local_size, off, n, integer);
    put(buf, size, &len, " vs ");
    put_value(buf, size, &len, d->remote, d->remote_size, off, n, integer);
    return len > INT32_MAX ? INT32_MAX : (int)len;
}
