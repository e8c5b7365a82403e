/* SPDX-License-Identifier: MIT */
/*
 * tempo_ws.c — the browser transport's C half (tempo_ws.h); the JavaScript
 * half is tempo_ws.js.
 */
#include "tempo_ws.h"

#include <emscripten.h>

/* clang-format off */
EM_JS(int, tempo_ws_js_send, (const uint8_t *data, int size), {
    var s = Module.tempoSocket;
    return s ? s.send(HEAPU8.subarray(data, data + size)) : -1;
});

EM_JS(int, tempo_ws_js_recv, (uint8_t *buf, int capacity), {
    var s = Module.tempoSocket;
    return s ? s.recv(HEAPU8, buf, capacity) : 0;
});
/* clang-format on */

static tempo_address ws_peer;
static double ws_spent_ms; /* inside the JavaScript half, summed */

double tempo_ws_spent_ms(void)
{
    return ws_spent_ms;
}

static int ws_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    (void)ctx;
    (void)to; /* one peer: the relay at the socket's other end */
    if (!data || size == 0 || size > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    double t0 = emscripten_get_now();
    int r = tempo_ws_js_send(data, (int)size);
    ws_spent_ms += emscripten_get_now() - t0;
    return r < 0 ? TEMPO_E_TRANSPORT : 0;
}

static int ws_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    (void)ctx;
    double t0 = emscripten_get_now();
    int n = tempo_ws_js_recv(buf, (int)capacity);
    ws_spent_ms += emscripten_get_now() - t0;
    if (n > 0)
        *from = ws_peer;
    return n < 0 ? TEMPO_E_TRANSPORT : n;
}

tempo_transport tempo_ws_transport(const tempo_address *peer)
{
    ws_peer = *peer;
    tempo_transport t = {ws_send, ws_recv, NULL, NULL};
    return t;
}
