/* SPDX-License-Identifier: MIT */
/*
 * ws_server.h — a WebSocket server (RFC 6455) for datagrams: how browser
 * members reach tempo-relay. Each binary message is one tempo datagram;
 * each connection is named by an opaque tempo_address ("ws" + slot +
 * generation), so the relay sees a WebSocket member as one more address.
 *
 * Non-blocking and single-threaded, driven from the program's loop:
 * ws_server_poll accepts and reads, ws_server_recv hands out the next
 * datagram, ws_server_send queues one, ws_server_flush writes. Every
 * buffer is allocated at open, from the config: per connection an input
 * buffer of WS_IN_CAP bytes and an output queue of queue_datagrams frames;
 * a connection allocates nothing after accept.
 *
 * A slow or stalled browser cannot hold up the others: its output queue is
 * bounded, and when a datagram finds it full the oldest unsent datagram is
 * dropped (counted in out_dropped): the member becomes a lossy member,
 * which tempo's protocol already survives. Input is read only while the
 * connection's buffer has room, so a flood from one connection waits in
 * its own TCP window.
 *
 * Refused and counted, the connection closed: a head that is not a valid
 * upgrade (400) or not whole within WS_HEAD_MAX bytes (431) or within
 * handshake_ms (slowloris); an Origin not on the allow-list (403); and, on
 * an open connection, every frame ws_frame_parse refuses (unmasked,
 * oversized, fragmented control, reserved bits, unknown opcode, text,
 * fragmented data; closed with 1002 or 1009), a frame begun and not
 * finished within frame_ms (slowloris again), and silence for idle_ms.
 * Pings are answered with pongs; a close is answered with a close.
 *
 * A plain GET (no Upgrade) is answered from page_dir when one is set
 * (tempo-relay --serve-page): the files directly in it, nothing else.
 *
 * POSIX only: on Windows ws_server_open fails with a message.
 */
#ifndef TOOLS_WS_SERVER_H
#define TOOLS_WS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WS_IN_CAP 4096     /* bytes of input held per connection */
#define WS_HEAD_MAX 2048   /* the longest request head accepted */
#define WS_ORIGINS_MAX 8   /* entries of the Origin allow-list */
#define WS_ID_SIZE 10      /* an address id: "ws", slot (4 bytes), generation (4) */

typedef struct ws_server_config {
    tempo_address bind;       /* IPv4 or IPv6 address and TCP port (port 0: any free one) */
    int max_connections;      /* open at once, 1..65536; one more is closed at accept */
    int queue_datagrams;      /* output queue per connection, 2..4096 datagrams */
    /* Comma-separated Origins a browser may connect from ("https://game.example,
     * http://127.0.0.1:8000"; "null" for a page opened from a file), at most
     * WS_ORIGINS_MAX of at most 128 characters. NULL or "": any origin. A
     * request without an Origin (not a browser) is always let in: the
     * list protects players' browsers from other sites' pages, and a native
     * program can send any Origin it likes. */
    const char *origins;
    uint32_t handshake_ms;    /* the whole request head within this, 100..60000 */
    uint32_t frame_ms;        /* a frame, once begun, whole within this, 100..60000 */
    uint32_t idle_ms;         /* an open connection silent this long is closed, 1000..600000 */
    const char *page_dir;     /* plain GETs get files from here; NULL: 404 */
} ws_server_config;

/* Defaults: 0.0.0.0 port 0, 256 connections, 64 datagrams, any origin,
 * 3000, 2000 and 10000 ms, no pages. */
void ws_server_config_default(ws_server_config *cfg);

typedef struct ws_server_stats {
    int open;                       /* connections now, in any state */
    uint64_t accepted, refused_full;
    uint64_t upgraded, pages_served, pages_missing;
    uint64_t bad_handshake, bad_origin, head_too_long;
    uint64_t handshake_timeouts, frame_timeouts, idle_timeouts;
    uint64_t unmasked, oversize, control_fragmented, bad_frames;
    uint64_t closes_received, closed_by_peer, pings;
    uint64_t datagrams_in, datagrams_out, bytes_in, bytes_out; /* out: queued, dropped ones too */
    uint64_t out_dropped;           /* oldest unsent datagrams dropped, queues full */
    uint64_t send_unknown;          /* sends to a connection gone or not open */
} ws_server_stats;

typedef struct ws_server ws_server;

/* Listen on cfg->bind and allocate every buffer. Returns the server, or
 * NULL with the reason in why (a config field out of range, the port
 * taken, no memory, Windows). */
ws_server *ws_server_open(const ws_server_config *cfg, char *why, size_t why_size);
/* Close every connection and the socket, free everything. NULL is fine. */
void ws_server_close(ws_server *s);

/* The TCP port it listens on (the one the system chose for port 0). */
uint16_t ws_server_port(const ws_server *s);

/* The sockets to wait on for readability: the listening one and every
 * connection's with room to read, at most cap into fds. Returns how many. */
int ws_server_fds(const ws_server *s, int *fds, int cap);

/* Accept waiting connections, read what the sockets hold, answer
 * handshakes, close those past their time (now_us: a monotonic clock in
 * microseconds). */
void ws_server_poll(ws_server *s, uint64_t now_us);

/* The next datagram of any open connection: copies at most cap bytes into
 * buf and the connection's address into *from, and returns the
 * datagram's size (larger than cap: truncated); 0 when none is waiting.
 * Control frames met on the way are handled here. */
int ws_server_recv(ws_server *s, tempo_address *from, uint8_t *buf, size_t cap);

/* Queue data[0..n) (1..TEMPO_MAX_DATAGRAM bytes) as one binary message to
 * the connection named `to`. Returns 0 (queued; the oldest unsent datagram
 * dropped if the queue was full), TEMPO_E_ADDRESS when `to` names no open
 * connection, TEMPO_E_INVALID_ARG for a size out of range. */
int ws_server_send(ws_server *s, const tempo_address *to, const uint8_t *data, size_t n);

/* Write what the connections' queues hold, as far as their sockets take
 * it; close those whose closing is done. */
void ws_server_flush(ws_server *s, uint64_t now_us);

/* Whether `a` names a connection of a ws_server (by its form alone). */
bool ws_server_is_address(const tempo_address *a);

void ws_server_get_stats(const ws_server *s, ws_server_stats *out);

/* The refusals summed: every connection or frame refused. */
uint64_t ws_server_refused(const ws_server_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_WS_SERVER_H */
