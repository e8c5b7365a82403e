/* SPDX-License-Identifier: MIT */
/*
 * ws_client.h — one WebSocket connection from a native program to
 * tempo-relay, as a tempo_transport: what a browser member does, done
 * natively, so tests and load programs (tempo-arena --relay ws://...,
 * relay-load --ws) play through the relay's WebSocket path without a
 * browser.
 *
 * Connecting blocks (at most timeout_ms) through the TCP connect and the
 * upgrade; afterwards every call returns at once. Each datagram sent is
 * one masked binary frame (the mask from a generator seeded with random
 * bytes, as RFC 6455 10.3 asks of clients); what the socket does not take
 * at once waits in a buffer of WS_CLIENT_OUT_CAP bytes, and a datagram
 * that does not fit there is dropped and counted (a lossy member, as over
 * UDP). Pings are answered; a close or a refused frame from the server
 * ends the connection: recv then returns TEMPO_E_TRANSPORT.
 *
 * POSIX only: on Windows ws_client_connect fails with a message.
 */
#ifndef TOOLS_WS_CLIENT_H
#define TOOLS_WS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WS_CLIENT_OUT_CAP 65536

typedef struct ws_client ws_client;

typedef struct ws_client_stats {
    uint64_t datagrams_out, datagrams_in;
    uint64_t dropped_full;    /* datagrams dropped: the output buffer was full */
    uint64_t refused_frames;  /* frames from the server that broke the protocol */
    uint64_t pings;
    bool closed;              /* the connection has ended */
} ws_client_stats;

/* Connect to the WebSocket server at `server` (IPv4 or IPv6; its TCP
 * port), upgrading with Host `host` and request path `path` (NULL: "/"),
 * and Origin `origin` when not NULL. Returns the client, or NULL with the
 * reason in why (no connection, a refused upgrade and its status line,
 * timeout, no memory). */
ws_client *ws_client_connect(const tempo_address *server, const char *host, const char *path,
                             const char *origin, uint32_t timeout_ms, char *why,
                             size_t why_size);
void ws_client_close(ws_client *c);

/* A transport over the connection (ctx is c): send ignores `to` (there is
 * one peer); recv gives `peer` as every datagram's source, so a session
 * that names the relay by `peer` hears it. */
tempo_transport ws_client_transport(ws_client *c, const tempo_address *peer);

/* Write what waits in the output buffer, as far as the socket takes it
 * (send does too). */
void ws_client_flush(ws_client *c);

/* The socket, to wait for readability on. */
int ws_client_fd(const ws_client *c);

void ws_client_get_stats(const ws_client *c, ws_client_stats *out);

/* Parse "ws://HOST:PORT[/path]": true with the host text (for Host and a
 * lookup) and the path; false when text does not start with ws://. */
bool ws_url_split(const char *text, char *hostport, size_t hostport_size, char *path,
                  size_t path_size);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_WS_CLIENT_H */
