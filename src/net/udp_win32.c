/* SPDX-License-Identifier: MIT */
/*
 * udp_win32.c — the UDP transport's socket on Windows (Winsock 2). Compiled
 * to nothing elsewhere (udp_posix.c). net/udp_os.h states what this file
 * provides.
 *
 * Winsock differs from POSIX sockets where it matters here:
 * - It must be started: every open calls WSAStartup and every close (and
 *   every failed open) WSACleanup. Winsock counts these calls per process and
 *   tears down only at the last WSACleanup, so that count is the reference
 *   count and tempo keeps no global of its own; a game that started Winsock
 *   itself is not disturbed.
 * - Errors come from WSAGetLastError, not errno. WSAEWOULDBLOCK is "nothing
 *   now"; WSAEMSGSIZE on recvfrom is a datagram larger than the buffer, whose
 *   first bytes were stored and whose real size is not told. So a caller's
 *   buffer smaller than TEMPO__UDP_SLOT is filled through u->slot, and an
 *   oversized datagram reports its real size as on POSIX (up to the slot;
 *   past it, capacity + 1).
 * - Another process may bind a port already bound unless the first holder
 *   asked for SO_EXCLUSIVEADDRUSE; tempo asks, so a game's port cannot be
 *   taken over.
 * - An ICMP port unreachable makes the next recvfrom on the socket fail with
 *   WSAECONNRESET (WSAENETRESET for an expired TTL). SIO_UDP_CONNRESET turns
 *   that off; where the stack does not take it, those errors still count as
 *   recv_refused and read as "nothing now", as on POSIX.
 * - Non-blocking is ioctlsocket(FIONBIO); WSA_FLAG_NO_HANDLE_INHERIT keeps
 *   the socket out of child processes (FD_CLOEXEC's counterpart).
 * - An AF_INET6 socket is IPv6-only by default; tempo sets IPV6_V6ONLY anyway
 *   so both systems say the same thing.
 * Receiving is one recvfrom per datagram: Winsock has no recvmmsg.
 * Socket buffers are asked for with SO_RCVBUF and SO_SNDBUF as on POSIX;
 * Winsock has no counter of datagrams dropped for a full receive buffer, so
 * kernel_drops stays 0.
 */
#ifdef _WIN32

#include "base/common.h"
#include "net/udp_os.h"

#include <mswsock.h>
#include <string.h>

#ifndef SIO_UDP_CONNRESET /* mswsock.h of older SDKs lacks it */
#define SIO_UDP_CONNRESET _WSAIOW(IOC_VENDOR, 12)
#endif

/* ICMP errors reported on an unconnected socket: the peer is gone or
 * unreachable for now; not a failure of this transport. */
static bool is_remote_error(int e)
{
    return e == WSAECONNRESET || e == WSAENETRESET || e == WSAEHOSTUNREACH ||
           e == WSAENETUNREACH || e == WSAECONNREFUSED;
}

int tempo__udp_os_recv(tempo_udp *u, tempo_address *from, uint8_t *buf, size_t capacity)
{
    /* A buffer smaller than the slot would hide an oversized datagram's
     * size: receive into the slot then, and copy. */
    bool direct = capacity >= TEMPO__UDP_SLOT;
    char *into = direct ? (char *)buf : (char *)u->slot;
    int room = direct ? (capacity > INT32_MAX ? INT32_MAX : (int)capacity) : TEMPO__UDP_SLOT;
    for (int tries = 0; tries < TEMPO__UDP_MAX_EMPTY_SKIPPED; tries++) {
        struct sockaddr_storage ss;
        int sslen = (int)sizeof ss;
        int n = recvfrom(u->sock, into, room, 0, (struct sockaddr *)&ss, &sslen);
        u->stats.recv_calls++;
        bool truncated = false;
        if (n == SOCKET_ERROR) {
            int e = WSAGetLastError();
            if (e == WSAEMSGSIZE) {
                truncated = true; /* the first `room` bytes were stored */
                n = room;
            } else if (e == WSAEWOULDBLOCK || e == WSAEINTR) {
                return 0;
            } else if (is_remote_error(e)) {
                u->stats.recv_refused++;
                return 0;
            } else {
                u->stats.recv_errors++;
                return TEMPO_E_TRANSPORT;
            }
        }
        int got = tempo__udp_deliver(u, &ss, direct ? NULL : (const uint8_t *)into, (size_t)n,
                                     truncated, from, buf, capacity);
        if (got >= 0)
            return got;
    }
    return 0;
}

bool tempo__udp_os_send(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                        const uint8_t *data, size_t size)
{
    /* size <= TEMPO_MAX_DATAGRAM, checked by the caller: fits an int. */
    int n = sendto(u->sock, (const char *)data, (int)size, 0, (const struct sockaddr *)ss,
                   (int)len);
    u->stats.send_calls++;
    return n == (int)size;
}

/* Best effort: an ICMP error then reads as WSAECONNRESET, counted as
 * recv_refused. */
static void disable_connreset(SOCKET s)
{
    BOOL off = FALSE;
    DWORD bytes = 0;
    (void)WSAIoctl(s, SIO_UDP_CONNRESET, &off, sizeof off, NULL, 0, &bytes, NULL, NULL);
}

/* Ask for the socket buffers and read back the receive buffer granted.
 * Best effort: a socket with the default buffers still works. */
static void size_buffers(tempo_udp *u, uint32_t recv_bytes, uint32_t send_bytes)
{
    int rcv = (int)recv_bytes, snd = (int)send_bytes; /* both <= TEMPO_UDP_MAX_BUFFER */
    (void)setsockopt(u->sock, SOL_SOCKET, SO_RCVBUF, (const char *)&rcv, sizeof rcv);
    (void)setsockopt(u->sock, SOL_SOCKET, SO_SNDBUF, (const char *)&snd, sizeof snd);
    int granted = 0;
    int glen = (int)sizeof granted;
    if (getsockopt(u->sock, SOL_SOCKET, SO_RCVBUF, (char *)&granted, &glen) == 0 && granted > 0)
        u->stats.recv_buffer_bytes = (uint64_t)granted;
}

bool tempo__udp_os_open(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                        uint32_t recv_bytes, uint32_t send_bytes)
{
    WSADATA wsa;
    int e = WSAStartup(MAKEWORD(2, 2), &wsa);
    if (e != 0) {
        WSASetLastError(e); /* WSAStartup returns its error instead of setting it */
        return false;
    }
    u->sock = WSASocketW(u->family, SOCK_DGRAM, IPPROTO_UDP, NULL, 0, WSA_FLAG_NO_HANDLE_INHERIT);
    if (u->sock == INVALID_SOCKET && WSAGetLastError() == WSAEINVAL) /* before Windows 7 SP1 */
        u->sock = WSASocketW(u->family, SOCK_DGRAM, IPPROTO_UDP, NULL, 0, 0);
    bool ok = u->sock != INVALID_SOCKET;
    u_long nonblocking = 1;
    ok = ok && ioctlsocket(u->sock, (long)FIONBIO, &nonblocking) == 0;
    if (ok && u->family == AF_INET6) {
        DWORD one = 1;
        ok = setsockopt(u->sock, IPPROTO_IPV6, IPV6_V6ONLY, (const char *)&one, sizeof one) == 0;
    }
    if (ok)
        size_buffers(u, recv_bytes, send_bytes);
    if (ok) { /* best effort: without it the socket still works */
        BOOL on = TRUE;
        (void)setsockopt(u->sock, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&on, sizeof on);
    }
    ok = ok && bind(u->sock, (const struct sockaddr *)ss, (int)len) == 0;
    if (!ok) {
        int saved = WSAGetLastError(); /* the reason, kept across close and cleanup */
        if (u->sock != INVALID_SOCKET)
            closesocket(u->sock);
        WSACleanup();
        WSASetLastError(saved);
        return false;
    }
    disable_connreset(u->sock);
    return true;
}

void tempo__udp_os_close(tempo_udp *u)
{
    closesocket(u->sock);
    WSACleanup();
}

bool tempo__udp_os_local(const tempo_udp *u, struct sockaddr_storage *ss)
{
    int len = (int)sizeof *ss;
    return getsockname(u->sock, (struct sockaddr *)ss, &len) == 0;
}

int tempo__udp_os_error(void) { return WSAGetLastError(); }
void tempo__udp_os_set_error(int e) { WSASetLastError(e); }

/* A SOCKET is a kernel handle, and handles keep 32 significant bits (they
 * may be truncated and sign-extended between 32- and 64-bit code), so the
 * int holds it whole; (SOCKET)(intptr_t)fd gives it back. */
int tempo_udp_fd(const tempo_udp *u) { return u ? (int)(intptr_t)u->sock : -1; }

#else
/* ISO C wants a declaration in every translation unit. */
typedef int tempo__udp_win32_not_elsewhere;
#endif
