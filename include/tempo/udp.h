/* SPDX-License-Identifier: MIT */
/*
 * udp.h — the UDP transport: POSIX sockets, or Winsock 2 on Windows.
 *
 * One non-blocking socket, bound to an IPv4 or IPv6 address. recv drains what
 * the kernel has queued, one datagram per call. The UDP transport is the only
 * part of the library that talks to the operating system's network.
 * On Windows each open socket holds one WSAStartup, released by
 * tempo_udp_close, so a game need not start Winsock for tempo.
 */
#ifndef TEMPO_UDP_H
#define TEMPO_UDP_H

#include "tempo/base.h"
#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tempo_udp tempo_udp;

/* Open a non-blocking UDP socket bound to bind_addr (its family picks IPv4 or
 * IPv6; port 0 picks a free port, see tempo_udp_local_address). IPv6 sockets
 * are IPv6-only. alloc may be NULL (malloc). On success *out owns the socket;
 * close it with tempo_udp_close.
 * Errors: TEMPO_E_INVALID_ARG (NULL), TEMPO_E_ADDRESS (family NONE),
 * TEMPO_E_TRANSPORT (socket or bind failed: port in use, address not local;
 * the reason is in errno, or WSAGetLastError() on Windows), TEMPO_E_NO_MEMORY. */
TEMPO_API tempo_result tempo_udp_open(const tempo_address *bind_addr, const tempo_allocator *alloc,
                                      tempo_udp **out);

/* The transport interface for u, valid until tempo_udp_close. */
TEMPO_API tempo_transport tempo_udp_transport(tempo_udp *u);

/* The address the socket is bound to (with the port the system chose).
 * Errors: TEMPO_E_INVALID_ARG, TEMPO_E_TRANSPORT. */
TEMPO_API tempo_result tempo_udp_local_address(const tempo_udp *u, tempo_address *out);

/* The socket's descriptor, to wait for datagrams with poll() or select();
 * -1 for NULL. It stays owned by u: do not read from or close it.
 * On Windows it is the SOCKET cast to int (a socket handle keeps 32
 * significant bits); (SOCKET)(intptr_t)fd gives it back for WSAPoll or
 * select. */
TEMPO_API int tempo_udp_fd(const tempo_udp *u);

/* Counters since tempo_udp_open. recv_refused counts ICMP errors (e.g. port
 * unreachable) that the kernel reported on recv; they mean "nothing now". */
typedef struct tempo_udp_stats {
    uint64_t sent, send_errors;
    uint64_t received, recv_errors, recv_refused, truncated;
    uint64_t bytes_sent, bytes_received;
} tempo_udp_stats;

/* Copy u's counters. Errors: TEMPO_E_INVALID_ARG. */
TEMPO_API tempo_result tempo_udp_get_stats(const tempo_udp *u, tempo_udp_stats *out);

/* Close the socket and free u. NULL is allowed. */
TEMPO_API void tempo_udp_close(tempo_udp *u);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_UDP_H */
