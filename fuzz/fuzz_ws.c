/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ws.c — RFC 6455's parsers (tools/common/ws_frame.h) against
 * arbitrary bytes: what a browser member, or anyone, can send the relay's
 * WebSocket port, and what a server can send a native member.
 *
 * The first byte picks the parser: 0 a request head, 1 a stream of client
 * frames (the relay's side), 2 a stream of server frames (a member's
 * side), 3 an answer to an upgrade; the rest is copied into an exactly
 * sized buffer, so ASan sees any read past it. Properties: a head that
 * parses lies within the bytes and the limit, its fields terminated and
 * within their sizes; a frame that parses lies within the bytes, carries
 * at most the limit, and written again from its fields gives exactly the
 * same bytes (one encoding per frame: the shortest length, the mask as
 * sent); any frame cut short reads as "more", never as a verdict.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "ws_frame.h"

#define LIMIT 1200

static uint8_t again[WS_HEADER_MAX + LIMIT];

static void frames(const uint8_t *b, size_t n, bool from_client)
{
    size_t at = 0;
    while (at < n) {
        ws_frame f;
        long r = ws_frame_parse(b + at, n - at, from_client, LIMIT, &f);
        if (r <= 0)
            return;
        if ((size_t)r > n - at || f.header_size + f.payload_size != (size_t)r ||
            f.payload_size > LIMIT || f.masked != from_client)
            abort();
        size_t w = ws_frame_write(again, sizeof again, f.opcode, b + at + f.header_size,
                                  f.payload_size, NULL);
        /* the payload as sent is already masked: write it plain, then put
         * the mask bit and key where a masked header has them */
        if (f.masked) {
            size_t h = f.header_size - 4;
            if (w != (size_t)r - 4)
                abort();
            memmove(again + h + 4, again + h, f.payload_size);
            memcpy(again + h, f.mask, 4);
            again[1] |= 0x80;
            w += 4;
        }
        if (w != (size_t)r || memcmp(again, b + at, w) != 0)
            abort();
        ws_frame g;
        if (ws_frame_parse(b + at, (size_t)r - 1, from_client, LIMIT, &g) != WS_FRAME_MORE)
            abort();
        at += (size_t)r;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = size - 1;
    uint8_t *b = malloc(n ? n : 1);
    if (b == NULL)
        abort();
    if (n > 0)
        memcpy(b, data + 1, n);
    switch (data[0] % 4) {
    case 0: {
        ws_request rq;
        ws_request_result r = ws_request_parse(b, n, 1024, &rq);
        if (r == WS_REQ_UPGRADE || r == WS_REQ_PLAIN_GET) {
            if (rq.head_size > n || rq.head_size > 1024 || strlen(rq.path) > WS_PATH_MAX ||
                strlen(rq.origin) > WS_ORIGIN_MAX || rq.path[0] != '/')
                abort();
            if (r == WS_REQ_UPGRADE && strlen(rq.key) != WS_KEY_TEXT)
                abort();
        } else if (r != WS_REQ_MORE && r != WS_REQ_BAD && r != WS_REQ_TOO_LONG) {
            abort();
        }
        break;
    }
    case 1:
        frames(b, n, true);
        break;
    case 2:
        frames(b, n, false);
        break;
    default: {
        size_t head = 0;
        int r = ws_response_check(b, n, 1024, "dGhlIHNhbXBsZSBub25jZQ==", &head);
        if (r > 0 && (head > n || head > 1024))
            abort();
        break;
    }
    }
    free(b);
    return 0;
}
