/* SPDX-License-Identifier: MIT */
/*
 * tempo_ws.h — tempo's transport in a browser: datagrams over a WebSocket
 * (WebAssembly builds only, made with Emscripten).
 *
 * A browser cannot send UDP; it can hold a WebSocket to a server, and
 * tempo-relay takes members over WebSocket (--ws-port). Each tempo
 * datagram is one binary WebSocket message. The socket itself lives in
 * JavaScript (tempo_ws.js: a TempoSocket object set as Module.tempoSocket
 * before the first poll); send and recv here call into it:
 *
 * send: hands the datagram to WebSocket.send. While the socket is not
 *   open yet, or when more than TEMPO_WS_BUFFERED bytes wait unsent in the
 *   browser (a stalled connection), the datagram is dropped and counted,
 *   as a full UDP buffer drops one: tempo resends what matters.
 * recv: takes the oldest message the socket has received (JavaScript
 *   keeps at most 512; beyond that the oldest is dropped and counted), with
 *   `peer` as its source; TEMPO_E_TRANSPORT once the socket has closed.
 *
 * A page polls tempo from its own loop (a timer at the simulation rate) as
 * a native game does; nothing here blocks or keeps time.
 */
#ifndef TEMPO_WS_H
#define TEMPO_WS_H

#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEMPO_WS_BUFFERED 65536

/* The transport; recv names `peer` (copied) as every datagram's source,
 * so a relay member session created with the same address hears it. */
tempo_transport tempo_ws_transport(const tempo_address *peer);

/* Milliseconds spent in the JavaScript half (WebSocket.send, taking
 * messages from the queue) since the page loaded: the browser's share of
 * what a tick costs. */
double tempo_ws_spent_ms(void);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_WS_H */
