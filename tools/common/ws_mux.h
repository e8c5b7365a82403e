/* SPDX-License-Identifier: MIT */
/*
 * ws_mux.h — one tempo_transport over a UDP transport and a ws_server:
 * tempo-relay's members arrive by either, and the relay never knows which.
 * A datagram to an address of the ws_server's form (ws_server_is_address)
 * goes to that WebSocket connection, any other to UDP; receiving takes
 * from the two in turn, so neither starves the other.
 */
#ifndef TOOLS_WS_MUX_H
#define TOOLS_WS_MUX_H

#include "tempo/transport.h"
#include "ws_server.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ws_mux {
    tempo_transport udp;
    ws_server *ws;      /* NULL: UDP only */
    unsigned turn;      /* which one recv asks first */
} ws_mux;

/* Fill m and return the transport over it (its ctx is m, which must
 * outlive it). ws may be NULL. */
tempo_transport ws_mux_transport(ws_mux *m, const tempo_transport *udp, ws_server *ws);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_WS_MUX_H */
