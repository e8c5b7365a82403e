/*
 * udp.c — the POSIX UDP transport: one non-blocking datagram socket.
 *
 * The only file of the library that talks to the operating system's network.
 * Invariant: u->fd is an open, non-blocking socket of u->family, bound, for
 * u's whole life. recv takes one datagram per call and reports "nothing now"
 * (0) for EAGAIN and for the ICMP errors the kernel attaches to a socket, so a
 * peer that went away never looks like a broken transport.
 *
 * On Linux, receiving is batched: one recvmmsg takes up to UDP_BATCH
 * datagrams, later calls hand them out, and a batch that came back short
 * means the socket was empty, so the call after its last datagram answers 0
 * without asking the kernel again. A tick that receives one datagram then
 * costs one system call instead of two.
 */
#define _GNU_SOURCE /* recvmmsg */
#include "base/common.h"

#include "tempo/udp.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef __linux__
#define UDP_BATCH 16
#define UDP_SLOT 2048 /* more than TEMPO_MAX_DATAGRAM: oversized datagrams show as such */
typedef struct udp_batch {
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH];
    struct sockaddr_storage addr[UDP_BATCH];
    uint8_t data[UDP_BATCH][UDP_SLOT];
    int count, next;
    bool drained; /* the last batch was short: the socket was empty */
} udp_batch;
#endif

struct tempo_udp {
    int fd;
    int family; /* AF_INET or AF_INET6 */
    tempo_udp_stats stats;
    tempo_allocator alloc;
#ifdef __linux__
    udp_batch batch;
#endif
};

/* tempo_address -> sockaddr; returns the length, 0 for an unusable family. */
static socklen_t to_sockaddr(const tempo_address *a, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (a->family == TEMPO_ADDRESS_IPV4) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(a->port);
        memcpy(&in->sin_addr, a->bytes, 4);
        return sizeof *in;
    }
    if (a->family == TEMPO_ADDRESS_IPV6) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(a->port);
        memcpy(&in6->sin6_addr, a->bytes, 16);
        return sizeof *in6;
    }
    return 0;
}

/* sockaddr -> tempo_address; false for a family tempo does not speak. */
static bool from_sockaddr(const struct sockaddr_storage *ss, tempo_address *a)
{
    memset(a, 0, sizeof *a);
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
        a->family = TEMPO_ADDRESS_IPV4;
        a->port = ntohs(in->sin_port);
        memcpy(a->bytes, &in->sin_addr, 4);
        return true;
    }
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
        a->family = TEMPO_ADDRESS_IPV6;
        a->port = ntohs(in6->sin6_port);
        memcpy(a->bytes, &in6->sin6_addr, 16);
        return true;
    }
    return false;
}

static int udp_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    tempo_udp *u = ctx;
    if (!u || !to || !data || size == 0 || size > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    struct sockaddr_storage ss;
    socklen_t len = to_sockaddr(to, &ss);
    if (len == 0 || ss.ss_family != u->family)
        return TEMPO_E_ADDRESS;
    ssize_t n;
    do
        n = sendto(u->fd, data, size, 0, (const struct sockaddr *)&ss, len);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)size) {
        /* A full socket buffer (EAGAIN) drops the datagram as a router would. */
        u->stats.send_errors++;
        return TEMPO_E_TRANSPORT;
    }
    u->stats.sent++;
    u->stats.bytes_sent += size;
    return 0;
}

/* ICMP errors reported on an unconnected socket: the peer is gone or
 * unreachable for now; not a failure of this transport. */
static bool is_remote_error(int e)
{
    return e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH || e == ECONNRESET;
}

/* Empty datagrams carry nothing, and returning 0 for one would read as "no
 * more": skip them, but only a bounded number per call. */
#define UDP_MAX_EMPTY_SKIPPED 64

/* Hand one received datagram to the caller: source, bytes, real size (more
 * than capacity when truncated). Returns -1 for a datagram to skip. */
static int deliver(tempo_udp *u, const struct sockaddr_storage *ss, const uint8_t *data,
                   size_t size, bool truncated, tempo_address *from, uint8_t *buf, size_t capacity)
{
    if (size == 0 || !from_sockaddr(ss, from))
        return -1;
    if (data)
        memcpy(buf, data, size < capacity ? size : capacity);
    if (truncated || size > capacity) {
        u->stats.truncated++;
        if (size <= capacity) /* real size unknown here: say "more" */
            size = capacity + 1;
    }
    u->stats.received++;
    u->stats.bytes_received += size;
    return size > (size_t)INT32_MAX ? INT32_MAX : (int)size;
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
static int udp_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    tempo_udp *u = ctx;
    if (!u || !from || !buf || capacity == 0)
        return TEMPO_E_INVALID_ARG;
    udp_batch *b = &u->batch;
    for (int tries = 0; tries < UDP_MAX_EMPTY_SKIPPED; tries++) {
        if (b->next == b->count) {
            if (b->drained) {
                b->drained = false;
                return 0;
            }
            for (int i = 0; i < UDP_BATCH; i++) {
                b->iov[i].iov_base = b->data[i];
                b->iov[i].iov_len = UDP_SLOT;
                memset(&b->msgs[i].msg_hdr, 0, sizeof b->msgs[i].msg_hdr);
                b->msgs[i].msg_hdr.msg_name = &b->addr[i];
                b->msgs[i].msg_hdr.msg_namelen = sizeof b->addr[i];
                b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
                b->msgs[i].msg_hdr.msg_iovlen = 1;
            }
            /* MSG_TRUNC: Linux reports each datagram's real length. */
            int n = recvmmsg(u->fd, b->msgs, UDP_BATCH, MSG_TRUNC, NULL);
            b->count = b->next = 0;
            if (n <= 0)
                return n == 0 ? 0 : recv_failed(u);
            b->count = n;
            b->drained = n < UDP_BATCH;
        }
        int i = b->next++;
        size_t size = b->msgs[i].msg_len;
        bool trunc = (b->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) || size > UDP_SLOT;
        size_t stored = size < UDP_SLOT ? size : UDP_SLOT;
        int got = deliver(u, &b->addr[i], b->data[i], stored, false, from, buf, capacity);
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
static int udp_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    tempo_udp *u = ctx;
    if (!u || !from || !buf || capacity == 0)
        return TEMPO_E_INVALID_ARG;
    for (int tries = 0; tries < UDP_MAX_EMPTY_SKIPPED; tries++) {
        struct sockaddr_storage ss;
        struct iovec iov = {.iov_base = buf, .iov_len = capacity};
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_name = &ss;
        msg.msg_namelen = sizeof ss;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        ssize_t n = recvmsg(u->fd, &msg, 0);
        if (n < 0)
            return recv_failed(u);
        int got = deliver(u, &ss, NULL, (size_t)n, (msg.msg_flags & MSG_TRUNC) != 0, from, buf,
                          capacity);
        if (got >= 0)
            return got;
    }
    return 0;
}
#endif

static bool set_nonblocking_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    int fd_fl = fcntl(fd, F_GETFD);
    return fl >= 0 && fd_fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC) == 0;
}

tempo_result tempo_udp_open(const tempo_address *bind_addr, const tempo_allocator *alloc,
                            tempo_udp **out)
{
    if (!bind_addr || !out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    struct sockaddr_storage ss;
    socklen_t len = to_sockaddr(bind_addr, &ss);
    if (len == 0)
        return TEMPO_E_ADDRESS;
    tempo_udp *u = tempo__calloc(alloc, 1, sizeof *u);
    if (!u)
        return TEMPO_E_NO_MEMORY;
    if (alloc)
        u->alloc = *alloc;
    u->family = ss.ss_family;
    u->fd = socket(u->family, SOCK_DGRAM, 0);
    bool ok = u->fd >= 0 && set_nonblocking_cloexec(u->fd);
    if (ok && u->family == AF_INET6) {
        int one = 1;
        ok = setsockopt(u->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) == 0;
    }
    ok = ok && bind(u->fd, (const struct sockaddr *)&ss, len) == 0;
    if (!ok) {
        int saved = errno; /* the reason, kept across close and free */
        if (u->fd >= 0)
            close(u->fd);
        tempo__free(alloc, u);
        errno = saved;
        return TEMPO_E_TRANSPORT;
    }
    *out = u;
    return TEMPO_OK;
}

tempo_transport tempo_udp_transport(tempo_udp *u)
{
    tempo_transport t = {udp_send, udp_recv, u};
    return t;
}

tempo_result tempo_udp_local_address(const tempo_udp *u, tempo_address *out)
{
    if (!u || !out)
        return TEMPO_E_INVALID_ARG;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(u->fd, (struct sockaddr *)&ss, &len) != 0 || !from_sockaddr(&ss, out))
        return TEMPO_E_TRANSPORT;
    return TEMPO_OK;
}

int tempo_udp_fd(const tempo_udp *u) { return u ? u->fd : -1; }

tempo_result tempo_udp_get_stats(const tempo_udp *u, tempo_udp_stats *out)
{
    if (!u || !out)
        return TEMPO_E_INVALID_ARG;
    *out = u->stats;
    return TEMPO_OK;
}

void tempo_udp_close(tempo_udp *u)
{
    if (!u)
        return;
    close(u->fd);
    tempo_allocator alloc = u->alloc;
    tempo__free(&alloc, u);
}
