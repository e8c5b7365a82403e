/* SPDX-License-Identifier: MIT */
/*
 * udp.h — the UDP transport: POSIX sockets, or Winsock 2 on Windows.
 *
 * One non-blocking socket, bound to an IPv4 or IPv6 address. recv drains what
 * the kernel has queued, one datagram per call. The UDP transport is the only
 * part of the library that talks to the operating system's network.
 * On Windows each open socket holds one WSAStartup, released by
 * tempo_udp_close, so a game need not start Winsock for tempo.
 *
 * The socket asks the kernel for a large receive buffer (4 MiB unless told
 * otherwise), so a burst of datagrams between two polls waits in the kernel
 * instead of being dropped there; the buffer the kernel granted and the
 * datagrams it dropped for want of room are in tempo_udp_stats. A session
 * (tempo_p2p) drains at most 4096 datagrams from its transport per poll.
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

/* Socket buffer sizes, in bytes; 0 picks the default. */
#define TEMPO_UDP_DEFAULT_RECV_BUFFER (4u * 1024u * 1024u)
#define TEMPO_UDP_DEFAULT_SEND_BUFFER (1024u * 1024u)
#define TEMPO_UDP_MIN_BUFFER 4096u
#define TEMPO_UDP_MAX_BUFFER (256u * 1024u * 1024u)

/* Options for tempo_udp_open_ex. Zero-initialised means the defaults.
 * recv_buffer_bytes: the receive buffer asked for (SO_RCVBUF), 0 for
 *   TEMPO_UDP_DEFAULT_RECV_BUFFER, else TEMPO_UDP_MIN_BUFFER to
 *   TEMPO_UDP_MAX_BUFFER. The kernel may grant less: Linux caps it at
 *   net.core.rmem_max (raise that sysctl for more), and a failure to set it
 *   leaves the system's default without failing the open.
 * send_buffer_bytes: the same for the send buffer (SO_SNDBUF, capped by
 *   net.core.wmem_max on Linux), 0 for TEMPO_UDP_DEFAULT_SEND_BUFFER.
 * batch_send: on Linux, datagrams sent through the transport wait in a
 *   queue of 32 and leave together, in order (one sendmmsg), when it is
 *   full or at the transport's flush (tempo_udp_flush). Every tempo role
 *   (sessions, lockstep, server, client, relay) flushes at the end of each
 *   call that sent, so a p2p peer makes one send system call per tick
 *   whatever the number of peers; a caller that sends through the
 *   transport itself calls tempo_udp_flush after its round of sends. The
 *   transport's send returns 0 for a queued datagram; failures are counted
 *   in the stats when it leaves. Other systems send at once. Default
 *   false: send calls sendto at once. */
typedef struct tempo_udp_options {
    uint32_t recv_buffer_bytes;
    uint32_t send_buffer_bytes;
    bool batch_send;
} tempo_udp_options;

/* tempo_udp_open with options; opts NULL means the defaults, which is what
 * tempo_udp_open uses. Errors: those of tempo_udp_open, and
 * TEMPO_E_INVALID_ARG for a buffer size outside its range. */
TEMPO_API tempo_result tempo_udp_open_ex(const tempo_address *bind_addr,
                                         const tempo_udp_options *opts,
                                         const tempo_allocator *alloc, tempo_udp **out);

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
 * unreachable) that the kernel reported on recv; they mean "nothing now".
 * recv_buffer_bytes is the receive buffer the kernel granted, as getsockopt
 * reads it back; Linux reports twice the size it accepted (the other half
 * pays for its bookkeeping), so 4 MiB asked under a 4 MiB rmem_max reads
 * 8 MiB, while asking beyond rmem_max reads 2 * rmem_max.
 * kernel_drops counts datagrams the kernel dropped because the receive
 * buffer was full. On Linux it comes with each received datagram
 * (SO_RXQ_OVFL), so it is as new as the last datagram read and covers
 * drops since the socket was opened. On macOS, the BSDs and Windows:
 * not reported on this platform, always 0.
 * send_calls and recv_calls count the system calls made to send and to
 * receive (a sendmmsg or recvmmsg of many datagrams is one), failed and
 * "nothing now" ones included: what batching saves shows here. */
typedef struct tempo_udp_stats {
    uint64_t sent, send_errors;
    uint64_t received, recv_errors, recv_refused, truncated;
    uint64_t bytes_sent, bytes_received;
    uint64_t recv_buffer_bytes;
    uint64_t kernel_drops;
    uint64_t send_calls, recv_calls;
} tempo_udp_stats;

/* Copy u's counters. Errors: TEMPO_E_INVALID_ARG. */
TEMPO_API tempo_result tempo_udp_get_stats(const tempo_udp *u, tempo_udp_stats *out);

/* Send what a batch_send socket has queued (the transport's flush).
 * Returns how many datagrams left (0 for a socket that does not batch, or
 * an empty queue, which makes no system call), or TEMPO_E_INVALID_ARG
 * (NULL). */
TEMPO_API int tempo_udp_flush(tempo_udp *u);

/* Close the socket and free u (what is queued is sent first). NULL is
 * allowed. */
TEMPO_API void tempo_udp_close(tempo_udp *u);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_UDP_H */
