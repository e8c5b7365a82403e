/* SPDX-License-Identifier: MIT */
/*
 * ws_mux.c — UDP and WebSocket members behind one transport (ws_mux.h).
 */
#include "ws_mux.h"

static int mux_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    ws_mux *m = ctx;
    if (ws_server_is_address(to))
        return m->ws ? ws_server_send(m->ws, to, data, size) : TEMPO_E_ADDRESS;
    return m->udp.send(m->udp.ctx, to, data, size);
}

static int mux_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    ws_mux *m = ctx;
    if (!m->ws)
        return m->udp.recv(m->udp.ctx, from, buf, capacity);
    /* alternate which is asked first, so a backlog of one cannot starve
     * the other within the relay's batch */
    for (int k = 0; k < 2; k++) {
        bool ws_first = (m->turn + (unsigned)k) & 1u;
        int r = ws_first ? ws_server_recv(m->ws, from, buf, capacity)
                         : m->udp.recv(m->udp.ctx, from, buf, capacity);
        if (r != 0) {
            m->turn++;
            return r;
        }
    }
    return 0;
}

/* The UDP side's held datagrams go at the end of tempo's round of sends;
 * the WebSocket side is written by ws_server_flush from the loop. */
static int mux_flush(void *ctx)
{
    ws_mux *m = ctx;
    return tempo_transport_flush(&m->udp);
}

tempo_transport ws_mux_transport(ws_mux *m, const tempo_transport *udp, ws_server *ws)
{
    m->udp = *udp;
    m->ws = ws;
    m->turn = 0;
    tempo_transport t = {mux_send, mux_recv, m, mux_flush};
    return t;
}
