/* SPDX-License-Identifier: MIT */
/*
 * udp.c — the UDP transport, the part every operating system shares: the
 * public functions, tempo_address <-> sockaddr, the counters, and handing one
 * received datagram to the caller. The socket itself belongs to udp_posix.c
 * or udp_win32.c behind net/udp_os.h, which also states the invariant.
 *
 * recv takes one datagram per call and reports "nothing now" (0) when the
 * socket is empty and for the ICMP errors a system attaches to a socket, so a
 * peer that went away never looks like a broken transport.
 */
#define _GNU_SOURCE /* struct mmsghdr in net/udp_os.h; before any system header */
#include "base/common.h"
#include "net/udp_os.h"

#include <string.h>

/* tempo_address -> sockaddr; returns the length, 0 for an unusable family. */
static size_t to_sockaddr(const tempo_address *a, struct sockaddr_storage *ss)
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

#ifndef __linux__
/* No batch send on this system (Winsock, the BSDs, macOS): a batching
 * socket sends at once. */
int tempo__udp_os_flush(tempo_udp *u)
{
    (void)u;
    return 0;
}

bool tempo__udp_os_queue(tempo_udp *u, const struct sockaddr_storage *ss, size_t len,
                         const uint8_t *data, size_t size)
{
    (void)u, (void)ss, (void)len, (void)data, (void)size;
    return false;
}
#endif

static int udp_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    tempo_udp *u = ctx;
    if (!u || !to || !data || size == 0 || size > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    struct sockaddr_storage ss;
    size_t len = to_sockaddr(to, &ss);
    if (len == 0 || ss.ss_family != u->family)
        return TEMPO_E_ADDRESS;
    if (u->batch_send && tempo__udp_os_queue(u, &ss, len, data, size))
        return 0; /* counted when it leaves */
    if (!tempo__udp_os_send(u, &ss, len, data, size)) {
        /* A full socket buffer drops the datagram as a router would. */
        u->stats.send_errors++;
        return TEMPO_E_TRANSPORT;
    }
    u->stats.sent++;
    u->stats.bytes_sent += size;
    return 0;
}

static int udp_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    tempo_udp *u = ctx;
    if (!u || !from || !buf || capacity == 0)
        return TEMPO_E_INVALID_ARG;
    return tempo__udp_os_recv(u, from, buf, capacity);
}

int tempo__udp_deliver(tempo_udp *u, const struct sockaddr_storage *ss, const uint8_t *data,
                       size_t size, bool truncated, tempo_address *from, uint8_t *buf,
                       size_t capacity)
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

/* A buffer size from the options: 0 picks def; false when out of range. */
static bool buffer_size(uint32_t asked, uint32_t def, uint32_t *out)
{
    if (asked == 0)
        asked = def;
    *out = asked;
    return asked >= TEMPO_UDP_MIN_BUFFER && asked <= TEMPO_UDP_MAX_BUFFER;
}

tempo_result tempo_udp_open_ex(const tempo_address *bind_addr, const tempo_udp_options *opts,
                               const tempo_allocator *alloc, tempo_udp **out)
{
    if (!bind_addr || !out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    tempo_udp_options o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    uint32_t recv_bytes, send_bytes;
    if (!buffer_size(o.recv_buffer_bytes, TEMPO_UDP_DEFAULT_RECV_BUFFER, &recv_bytes) ||
        !buffer_size(o.send_buffer_bytes, TEMPO_UDP_DEFAULT_SEND_BUFFER, &send_bytes))
        return TEMPO_E_INVALID_ARG;
    struct sockaddr_storage ss;
    size_t len = to_sockaddr(bind_addr, &ss);
    if (len == 0)
        return TEMPO_E_ADDRESS;
    tempo_udp *u = tempo__calloc(alloc, 1, sizeof *u);
    if (!u)
        return TEMPO_E_NO_MEMORY;
    if (alloc)
        u->alloc = *alloc;
    u->family = ss.ss_family;
    u->batch_send = o.batch_send;
    if (!tempo__udp_os_open(u, &ss, len, recv_bytes, send_bytes)) {
        int reason = tempo__udp_os_error(); /* kept across the free */
        tempo__free(alloc, u);
        tempo__udp_os_set_error(reason);
        return TEMPO_E_TRANSPORT;
    }
    *out = u;
    return TEMPO_OK;
}

tempo_result tempo_udp_open(const tempo_address *bind_addr, const tempo_allocator *alloc,
                            tempo_udp **out)
{
    return tempo_udp_open_ex(bind_addr, NULL, alloc, out);
}

int tempo_udp_flush(tempo_udp *u)
{
    if (!u)
        return TEMPO_E_INVALID_ARG;
    return u->batch_send ? tempo__udp_os_flush(u) : 0;
}

static int udp_flush(void *ctx) { return tempo_udp_flush(ctx); }

tempo_transport tempo_udp_transport(tempo_udp *u)
{
    tempo_transport t = {udp_send, udp_recv, u, udp_flush};
    return t;
}

tempo_result tempo_udp_local_address(const tempo_udp *u, tempo_address *out)
{
    if (!u || !out)
        return TEMPO_E_INVALID_ARG;
    struct sockaddr_storage ss;
    if (!tempo__udp_os_local(u, &ss) || !from_sockaddr(&ss, out))
        return TEMPO_E_TRANSPORT;
    return TEMPO_OK;
}

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
    if (u->batch_send)
        (void)tempo__udp_os_flush(u);
    tempo__udp_os_close(u);
    tempo_allocator alloc = u->alloc;
    tempo__free(&alloc, u);
}
