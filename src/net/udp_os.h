/* SPDX-License-Identifier: MIT */
/*
 * udp_os.h — what the UDP transport's portable half (udp.c) and its
 * operating-system halves (udp_posix.c, udp_win32.c) share. Internal.
 *
 * udp.c owns the public functions, address conversion, counting and the
 * handing out of one datagram; the OS file owns the socket: opening it
 * non-blocking and bound, sending, receiving (batched where the system can),
 * naming its local address, closing it. Exactly one OS file is compiled in
 * (the other is empty on that platform), so the library is one set of
 * sources on every system.
 *
 * Invariant: u->sock is an open, non-blocking datagram socket of u->family,
 * bound, from a successful tempo__udp_os_open until tempo__udp_os_close.
 */
#ifndef TEMPO_NET_UDP_OS_H
#define TEMPO_NET_UDP_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/udp.h"

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
typedef SOCKET tempo__udp_socket;
#else
#include <netinet/in.h>
#include <sys/socket.h>
typedef int tempo__udp_socket;
#endif

/* A receive buffer larger than TEMPO_MAX_DATAGRAM, so an oversized
 * datagram shows its real size up to this many bytes. */
#define TEMPO__UDP_SLOT 2048

#ifdef __linux__
/* Linux receives up to TEMPO__UDP_BATCH datagrams with one recvmmsg and
 * hands them out one per call (udp_posix.c). The message headers are built
 * once and kept here with what outlives the call.
 * 64: a server of 256 clients takes a tick's inputs in 4 calls (128 KiB of
 * slots per socket). */
#define TEMPO__UDP_BATCH 64
typedef struct tempo__udp_batch {
    /* recvmmsg's headers, built once (hdr_ready); a call resets only the
     * fields the kernel wrote in the headers the previous call filled, so
     * a call costs what it received, not the batch's size */
    struct mmsghdr msgs[TEMPO__UDP_BATCH];
    struct iovec iov[TEMPO__UDP_BATCH];
    union { /* an SO_RXQ_OVFL control message, aligned for cmsghdr */
        size_t align; /* cmsg_len, a size_t on Linux */
        unsigned char bytes[CMSG_SPACE(sizeof(uint32_t))];
    } control[TEMPO__UDP_BATCH];
    bool hdr_ready;
    int filled;  /* headers the previous recvmmsg wrote */
    struct sockaddr_storage addr[TEMPO__UDP_BATCH];
    uint8_t data[TEMPO__UDP_BATCH][TEMPO__UDP_SLOT];
    size_t size[TEMPO__UDP_BATCH]; /* the datagram's real length */
    bool truncated[TEMPO__UDP_BATCH];
    int count, next;
    bool drained; /* the last batch was short: the socket was empty */
} tempo__udp_batch;
#endif

#ifdef __linux__
/* A batching socket (tempo_udp_options.batch_send) queues what it sends
 * and hands the queue to one sendmmsg when it is full or flushed (64: a
 * server's snapshots to 64 clients in one call). */
#define TEMPO__UDP_SEND_BATCH 64
typedef struct tempo__udp_queue {
    struct sockaddr_storage addr[TEMPO__UDP_SEND_BATCH];
    size_t addr_len[TEMPO__UDP_SEND_BATCH];
    uint8_t data[TEMPO__UDP_SEND_BATCH][TEMPO_MAX_DATAGRAM];
    size_t size[TEMPO__UDP_SEND_BATCH];
    int count;
} tempo__udp_queue;
#endif

struct tempo_udp {
    tempo__udp_socket sock;
    bool batch_send; /* sends are queued until tempo_udp_flush (Linux only) */
    int family; /* AF_INET or AF_INET6 */
    tempo_udp_stats stats;
    tempo_allocator alloc;
#ifdef __linux__
    tempo__udp_batch batch;
    tempo__udp_queue queue;
    /* The kernel's drop counter as last read (SO_RXQ_OVFL, 32 bits that
     * wrap); stats.kernel_drops adds up its steps. */
    uint32_t drops_seen;
#elif defined(_WIN32)
    /* Winsock truncates to the buffer it is given and hides the real size
     * (WSAEMSGSIZE), so a caller's small buffer is filled from here. */
    uint8_t slot[TEMPO__UDP_SLOT];
#endif
};

/* Empty datagrams carry nothing, and returning 0 for one would read as "no
 * more": the OS files skip them, but only this many per receive call. */
#define TEMPO__UDP_MAX_EMPTY_SKIPPED 64

/* udp.c: hand one received datagram to the caller: its source, its bytes
 * (data NULL: already in buf), its real size (more than capacity when
 * truncated; `truncated` says so when the size itself is unknown). Counts it.
 * Returns the size to report, or -1 for a datagram to skip (empty, or from a
 * family tempo does not speak). */
int tempo__udp_deliver(tempo_udp *u, const struct sockaddr_storage *ss, const uint8_t *data,
                       size_t size, bool truncated, tempo_address *from, uint8_t *buf,
                       size_t capacity);

/* The OS file. open: a socket for ss's family, non-blocking, not inherited
 * by child processes, IPv6-only for AF_INET6, bound to ss, asking for
 * recv_bytes and send_bytes of socket buffers (best effort) and storing the
 * granted receive buffer in u->stats.recv_buffer_bytes; false on failure
 * with nothing left open and the system's reason kept (errno, or
 * WSAGetLastError on Windows). */
bool tempo__udp_os_open(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                        uint32_t recv_bytes, uint32_t send_bytes);
void tempo__udp_os_close(tempo_udp *u);
/* Send one datagram; true when all of it left. */
bool tempo__udp_os_send(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                        const uint8_t *data, size_t size);
/* Batching sockets: queue one datagram for the next flush; false when the
 * system has no batch send (the caller sends it at once). The flush sends
 * the queue, counting what left and what failed in u->stats, and returns
 * the datagrams that left. */
bool tempo__udp_os_queue(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                         const uint8_t *data, size_t size);
int tempo__udp_os_flush(tempo_udp *u);
/* The transport's recv (tempo_transport.recv) with valid arguments. */
int tempo__udp_os_recv(tempo_udp *u, tempo_address *from, uint8_t *buf, size_t capacity);
bool tempo__udp_os_local(const tempo_udp *u, struct sockaddr_storage *ss);
/* The system's last error (errno, or WSAGetLastError), read and restored
 * around the cleanup of a failed open so the caller still sees the reason. */
int tempo__udp_os_error(void);
void tempo__udp_os_set_error(int e);

#endif /* TEMPO_NET_UDP_OS_H */
