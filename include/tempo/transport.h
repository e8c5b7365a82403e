/* SPDX-License-Identifier: MIT */
/*
 * transport.h — addresses and the datagram transport interface.
 *
 * tempo's protocol never touches a socket: it sends and receives datagrams
 * through a tempo_transport. tempo ships a UDP transport (tempo/udp.h) and a
 * seeded simulated network (tempo/simnet.h); a game can plug in its own
 * (Steam networking, WebRTC data channels, a relay) by filling the struct.
 */
#ifndef TEMPO_TRANSPORT_H
#define TEMPO_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tempo_address_family {
    TEMPO_ADDRESS_NONE = 0,
    TEMPO_ADDRESS_OPAQUE = 1, /* a peer id of a transport that names peers itself */
    TEMPO_ADDRESS_IPV4 = 4,
    TEMPO_ADDRESS_IPV6 = 6
} tempo_address_family;

/* Longest opaque id: a Steam id, a WebRTC peer id, a relay's member id. */
#define TEMPO_ADDRESS_ID_MAX 16

/* A network address: a plain value, compared with tempo_address_equal.
 * IPv4 uses bytes[0..3]; IPv6 uses bytes[0..15]; OPAQUE uses
 * bytes[0..id_size-1], an id of 1..TEMPO_ADDRESS_ID_MAX bytes that tempo
 * never interprets. port is in host order (for OPAQUE a channel, or 0);
 * id_size is 0 for the other families. */
typedef struct tempo_address {
    uint8_t family; /* tempo_address_family */
    uint8_t bytes[16];
    uint8_t id_size;
    uint16_t port;
} tempo_address;

/* Longest text tempo_address_format writes, terminator included
 * ("[ffff:...:ffff]:65535"). */
#define TEMPO_ADDRESS_STRLEN 48

/* Parse "1.2.3.4:5678", "[::1]:5678", for IPv6 without a port "::1" (port
 * 0), or an opaque id "id:0123abcd" (1..16 bytes as an even number of hex
 * digits, port 0) or "id:0123abcd:7". No name lookup. Returns TEMPO_OK (0),
 * or TEMPO_E_ADDRESS for malformed text (out is then zeroed),
 * TEMPO_E_INVALID_ARG for NULL. */
TEMPO_API int tempo_address_parse(tempo_address *out, const char *text);

/* Write the address as text ("1.2.3.4:5678", "[::1]:5678", "id:0a1b"
 * (lowercase hex; ":port" follows when the port is not 0), "none").
 * Returns the length written (without terminator), or TEMPO_E_FULL if size is
 * too small (buf then holds a terminated prefix when size > 0),
 * TEMPO_E_INVALID_ARG for NULL. */
TEMPO_API int tempo_address_format(const tempo_address *a, char *buf, size_t size);

/* True when both have the same family, bytes (of that family; for OPAQUE the
 * same id_size and id bytes) and port. */
TEMPO_API bool tempo_address_equal(const tempo_address *a, const tempo_address *b);

/* Build an opaque address from an id of `size` bytes (1..16) and a port;
 * TEMPO_E_INVALID_ARG (out zeroed) for a NULL or a size out of range. */
TEMPO_API int tempo_address_opaque(tempo_address *out, const uint8_t *id, size_t size,
                                   uint16_t port);

/* Build an IPv4 address from its four bytes and a port. */
TEMPO_API tempo_address tempo_address_ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d,
                                           uint16_t port);

/* Largest datagram tempo sends or accepts. */
#define TEMPO_MAX_DATAGRAM 1200

/* The transport interface. tempo calls these from tempo_session_poll and
 * tempo_session_advance only, never concurrently.
 *
 * send: queue one datagram of `size` bytes (1..TEMPO_MAX_DATAGRAM) to `to`.
 *   Never blocks. Returns 0 on success (a datagram may still be lost, as UDP
 *   may lose it) or a negative tempo_result; tempo counts failures and carries
 *   on, since lost datagrams are part of its model.
 * recv: take the next datagram that has arrived: copy at most `capacity`
 *   bytes into buf, its source into *from, and return its full size (> 0);
 *   return 0 when nothing is waiting; a negative tempo_result on error. A
 *   datagram larger than capacity is truncated; tempo then drops it as
 *   malformed.
 * flush: the end of a round of sends. tempo calls it before returning from
 *   every call that may have sent (a session's poll and advance, a
 *   server's or client's poll and advance, a relay's update, a lockstep
 *   machine's poll, leaving, ...), so a transport may hold what send gave
 *   it until then and hand it to the system at once (the UDP transport
 *   with batch_send: one sendmmsg per tick instead of one sendto per
 *   datagram). Datagrams must leave in the order they were sent. Returns
 *   the datagrams that left, or a negative tempo_result; tempo ignores the
 *   result. NULL means send already sends: nothing is held. A struct
 *   filled field by field must be zeroed first (memset, or = {0}) so a
 *   transport without flush leaves it NULL; a positional initializer of
 *   the first three members leaves it NULL too.
 * ctx is passed back untouched. A wrapper around another transport (to
 * count, delay or drop datagrams) forwards flush too, or the datagrams the
 * inner one holds wait for its queue to fill. */
typedef struct tempo_transport {
    int (*send)(void *ctx, const tempo_address *to, const uint8_t *data, size_t size);
    int (*recv)(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity);
    void *ctx;
    int (*flush)(void *ctx);
} tempo_transport;

/* Call t's flush if it has one: the end of a round of sends. Returns what
 * flush returned, 0 without one, TEMPO_E_INVALID_ARG for NULL. */
TEMPO_API int tempo_transport_flush(const tempo_transport *t);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_TRANSPORT_H */
