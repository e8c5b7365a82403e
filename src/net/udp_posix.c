/* SPDX-License-Identifier: MIT */
/*
 * udp_posix.c — the UDP transport's socket on POSIX systems (Linux, macOS,
 * the BSDs): socket, fcntl, sendto, recvmsg, close. Compiled to nothing on
 * Windows (udp_win32.c). net/udp_os.h states what this file provides.
 *
 * On Linux, receiving is batched: one recvmmsg takes up to TEMPO__UDP_BATCH
 * datagrams, later calls hand them out, and a batch that came back short
 * means the socket was empty, so the call after its last datagram answers 0
 * without asking the kernel again. A tick that receives one datagram then
 * costs one system call instead of two. Elsewhere recvmsg takes one datagram
 * per call; MSG_TRUNC in its flags marks a truncated one.
 *
 * Sending is batched on Linux when the socket was opened with batch_send:
 * datagrams wait in a queue of TEMPO__UDP_SEND_BATCH and leave with one
 * sendmmsg when it is full or tempo_udp_flush is called (a relay sends a
 * datagram to each member per frame: one system call per 32 of them).
 * Elsewhere a batching socket sends at once.
 *
 * Socket buffers are asked for with SO_RCVBUF and SO_SNDBUF, and the granted
 * receive buffer read back. On Linux SO_RXQ_OVFL attaches the socket's drop
 * counter to each datagram received after a drop; refill reads it from the
 * last such datagram of a batch.
 */
#ifndef _WIN32
#define _GNU_SOURCE /* recvmmsg, sendmmsg; before any system header */

#include "base/common.h"
#include "net/udp_os.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* ICMP errors reported on an unconnected socket: the peer is gone or
 * unreachable for now; not a failure of this transport. */
static bool is_remote_error(int e)
{
    return e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH || e == ECONNRESET;
}

/* A failed receive: 0 for "nothing now", or an error. */
static int recv_failed(tempo_udp *u)
{
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    if (is_remote_error(errno)) {
        u->stats.recv_refused++;
        return 0;
    }
    u->stats.recv_errors++;
    return TEMPO_E_TRANSPORT;
}

#ifdef __linux__
/* The drop counter carried by msg, if any: the kernel attaches it only once
 * the socket has dropped something. */
static bool drop_counter(struct msghdr *msg, uint32_t *out)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
            c->cmsg_len >= CMSG_LEN(sizeof *out)) {
            memcpy(out, CMSG_DATA(c), sizeof *out);
            return true;
        }
    }
    return false;
}

/* Count the drops the kernel reports with the newest datagram of msgs that
 * carries its counter. The counter is 32 bits and wraps; the steps between
 * readings add up in stats.kernel_drops. */
static void note_drops(tempo_udp *u, struct mmsghdr *msgs, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        uint32_t now;
        if (drop_counter(&msgs[i].msg_hdr, &now)) {
            u->stats.kernel_drops += (uint32_t)(now - u->drops_seen);
            u->drops_seen = now;
            return;
        }
    }
}

/* Refill the batch with one recvmmsg. Returns the count, 0 for none, or an
 * error from recv_failed. */
static int refill(tempo_udp *u)
{
    tempo__udp_batch *b = &u->batch;
    struct mmsghdr *msgs = b->msgs;
    if (!b->hdr_ready) {
        memset(b->msgs, 0, sizeof b->msgs);
        for (int i = 0; i < TEMPO__UDP_BATCH; i++) {
            b->iov[i].iov_base = b->data[i];
            b->iov[i].iov_len = TEMPO__UDP_SLOT;
            msgs[i].msg_hdr.msg_name = &b->addr[i];
            msgs[i].msg_hdr.msg_iov = &b->iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_control = b->control[i].bytes;
        }
        b->hdr_ready = true;
        b->filled = TEMPO__UDP_BATCH;
    }
    for (int i = 0; i < b->filled; i++) { /* what the kernel wrote last time */
        msgs[i].msg_hdr.msg_namelen = sizeof b->addr[i];
        msgs[i].msg_hdr.msg_controllen = sizeof b->control[i].bytes;
        msgs[i].msg_hdr.msg_flags = 0;
        msgs[i].msg_len = 0;
    }
    /* MSG_TRUNC: Linux reports each datagram's real length. */
    int n = recvmmsg(u->sock, msgs, TEMPO__UDP_BATCH, MSG_TRUNC, NULL);
    u->stats.recv_calls++;
    b->count = b->next = 0;
    /* an empty socket wrote nothing; after another error reset them all */
    b->filled = n > 0 ? n : (errno == EAGAIN || errno == EWOULDBLOCK ? 0 : TEMPO__UDP_BATCH);
    if (n <= 0)
        return n == 0 ? 0 : recv_failed(u);
    for (int i = 0; i < n; i++) {
        b->size[i] = msgs[i].msg_len;
        b->truncated[i] = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) || b->size[i] > TEMPO__UDP_SLOT;
    }
    note_drops(u, msgs, n);
    b->count = n;
    b->drained = n < TEMPO__UDP_BATCH;
    return n;
}

int tempo__udp_os_recv(tempo_udp *u, tempo_address *from, uint8_t *buf, size_t capacity)
{
    tempo__udp_batch *b = &u->batch;
    for (int tries = 0; tries < TEMPO__UDP_MAX_EMPTY_SKIPPED; tries++) {
        if (b->next == b->count) {
            if (b->drained) {
                b->drained = false;
                return 0;
            }
            int n = refill(u);
            if (n <= 0)
                return n;
        }
        int i = b->next++;
        size_t size = b->size[i];
        bool trunc = b->truncated[i];
        size_t stored = size < TEMPO__UDP_SLOT ? size : TEMPO__UDP_SLOT;
        int got = tempo__udp_deliver(u, &b->addr[i], b->data[i], stored, false, from, buf,
                                     capacity);
        if (got < 0)
            continue;
        if (trunc && (size_t)got <= capacity) { /* bigger than our slot, so bigger than capacity */
            u->stats.truncated++;
            got = (int)capacity + 1;
        } else if (trunc) {
            got = size > (size_t)INT32_MAX ? INT32_MAX : (int)size;
        }
        return got;
    }
    return 0;
}
#else
int tempo__udp_os_recv(tempo_udp *u, tempo_address *from, uint8_t *buf, size_t capacity)
{
    for (int tries = 0; tries < TEMPO__UDP_MAX_EMPTY_SKIPPED; tries++) {
        struct sockaddr_storage ss;
        struct iovec iov = {.iov_base = buf, .iov_len = capacity};
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_name = &ss;
        msg.msg_namelen = sizeof ss;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        ssize_t n = recvmsg(u->sock, &msg, 0);
        u->stats.recv_calls++;
        if (n < 0)
            return recv_failed(u);
        int got = tempo__udp_deliver(u, &ss, NULL, (size_t)n, (msg.msg_flags & MSG_TRUNC) != 0,
                                     from, buf, capacity);
        if (got >= 0)
            return got;
    }
    return 0;
}
#endif

bool tempo__udp_os_send(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                        const uint8_t *data, size_t size)
{
    ssize_t n;
    do {
        n = sendto(u->sock, data, size, 0, (const struct sockaddr *)ss, (socklen_t)len);
        u->stats.send_calls++;
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)size;
}

#ifdef __linux__
int tempo__udp_os_flush(tempo_udp *u)
{
    tempo__udp_queue *q = &u->queue;
    struct mmsghdr msgs[TEMPO__UDP_SEND_BATCH];
    struct iovec iov[TEMPO__UDP_SEND_BATCH];
    memset(msgs, 0, sizeof msgs);
    for (int i = 0; i < q->count; i++) {
        iov[i].iov_base = q->data[i];
        iov[i].iov_len = q->size[i];
        msgs[i].msg_hdr.msg_name = &q->addr[i];
        msgs[i].msg_hdr.msg_namelen = (socklen_t)q->addr_len[i];
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    int sent = 0;
    for (int at = 0; at < q->count;) {
        int n = sendmmsg(u->sock, msgs + at, (unsigned)(q->count - at), 0);
        u->stats.send_calls++;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) { /* the first of the rest failed: dropped, as a router would */
            u->stats.send_errors++;
            at++;
            continue;
        }
        for (int i = at; i < at + n; i++) {
            u->stats.sent++;
            u->stats.bytes_sent += q->size[i];
        }
        sent += n;
        at += n;
    }
    q->count = 0;
    return sent;
}

bool tempo__udp_os_queue(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                         const uint8_t *data, size_t size)
{
    tempo__udp_queue *q = &u->queue;
    if (q->count == TEMPO__UDP_SEND_BATCH)
        (void)tempo__udp_os_flush(u);
    int i = q->count++;
    memcpy(&q->addr[i], ss, len);
    q->addr_len[i] = len;
    memcpy(q->data[i], data, size);
    q->size[i] = size;
    return true;
}
#endif /* __linux__: elsewhere udp.c's plain path sends each datagram at once */

static bool set_nonblocking_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    int fd_fl = fcntl(fd, F_GETFD);
    return fl >= 0 && fd_fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC) == 0;
}

/* Ask for the socket buffers (the kernel caps them, a refusal keeps its
 * defaults) and read back the receive buffer granted. Best effort: a socket
 * with the default buffers still works. */
static void size_buffers(tempo_udp *u, uint32_t recv_bytes, uint32_t send_bytes)
{
    int rcv = (int)recv_bytes, snd = (int)send_bytes; /* both <= TEMPO_UDP_MAX_BUFFER */
    (void)setsockopt(u->sock, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    (void)setsockopt(u->sock, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
    int granted = 0;
    socklen_t glen = sizeof granted;
    if (getsockopt(u->sock, SOL_SOCKET, SO_RCVBUF, &granted, &glen) == 0 && granted > 0)
        u->stats.recv_buffer_bytes = (uint64_t)granted;
#ifdef __linux__
    int one = 1;
    (void)setsockopt(u->sock, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
#endif
}

bool tempo__udp_os_open(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                        uint32_t recv_bytes, uint32_t send_bytes)
{
    u->sock = socket(u->family, SOCK_DGRAM, 0);
    bool ok = u->sock >= 0 && set_nonblocking_cloexec(u->sock);
    if (ok && u->family == AF_INET6) {
        int one = 1;
        ok = setsockopt(u->sock, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) == 0;
    }
    if (ok)
        size_buffers(u, recv_bytes, send_bytes);
    ok = ok && bind(u->sock, (const struct sockaddr *)ss, (socklen_t)len) == 0;
    if (!ok && u->sock >= 0) {
        int saved = errno; /* the reason, kept across close */
        close(u->sock);
        errno = saved;
    }
    return ok;
}

void tempo__udp_os_close(tempo_udp *u) { close(u->sock); }

bool tempo__udp_os_local(const tempo_udp *u, struct sockaddr_storage *ss)
{
    socklen_t len = sizeof *ss;
    return getsockname(u->sock, (struct sockaddr *)ss, &len) == 0;
}

int tempo__udp_os_error(void) { return errno; }
void tempo__udp_os_set_error(int e) { errno = e; }

int tempo_udp_fd(const tempo_udp *u) { return u ? u->sock : -1; }

#else
/* ISO C wants a declaration in every translation unit. */
typedef int tempo__udp_posix_not_on_windows;
#endif
