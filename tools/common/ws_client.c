/* SPDX-License-Identifier: MIT */
/*
 * ws_client.c — a native WebSocket member's connection (ws_client.h).
 * in[0..in_len) holds the server's bytes not yet parsed, out[out_off..
 * out_len) the bytes the socket has not taken yet.
 */
#include "ws_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tempo/secure.h"
#include "ws_frame.h"

bool ws_url_split(const char *text, char *hostport, size_t hostport_size, char *path,
                  size_t path_size)
{
    if (strncmp(text, "ws://", 5) != 0)
        return false;
    const char *h = text + 5;
    size_t n = strcspn(h, "/");
    if (n == 0 || n >= hostport_size)
        return false;
    memcpy(hostport, h, n);
    hostport[n] = '\0';
    snprintf(path, path_size, "%s", h[n] ? h + n : "/");
    return true;
}

#ifdef _WIN32

ws_client *ws_client_connect(const tempo_address *server, const char *host, const char *path,
                             const char *origin, uint32_t timeout_ms, char *why, size_t why_size)
{
    (void)server; (void)host; (void)path; (void)origin; (void)timeout_ms;
    snprintf(why, why_size, "WebSocket members need a POSIX system");
    return NULL;
}
void ws_client_close(ws_client *c) { (void)c; }
tempo_transport ws_client_transport(ws_client *c, const tempo_address *peer)
{
    (void)peer;
    tempo_transport t = {NULL, NULL, c, NULL};
    return t;
}
void ws_client_flush(ws_client *c) { (void)c; }
int ws_client_fd(const ws_client *c) { (void)c; return -1; }
void ws_client_get_stats(const ws_client *c, ws_client_stats *out)
{
    (void)c;
    memset(out, 0, sizeof *out);
}

#else

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

#define IN_CAP 8192

struct ws_client {
    int fd;
    tempo_address peer;
    uint64_t mask_state;
    uint8_t in[IN_CAP];
    size_t in_len;
    uint8_t out[WS_CLIENT_OUT_CAP];
    size_t out_off, out_len;
    ws_client_stats st;
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void next_mask(ws_client *c, uint8_t mask[4])
{
    /* xorshift64*, seeded from the system's random source */
    c->mask_state ^= c->mask_state >> 12;
    c->mask_state ^= c->mask_state << 25;
    c->mask_state ^= c->mask_state >> 27;
    uint64_t v = c->mask_state * 2685821657736338717ull;
    for (int i = 0; i < 4; i++)
        mask[i] = (uint8_t)(v >> (8 * i + 24));
}

/* Wait for the socket to be readable (or writable), at most until the
 * deadline: false on timeout. */
static bool wait_fd(int fd, short events, uint64_t deadline_ms)
{
    for (;;) {
        uint64_t t = now_ms();
        if (t >= deadline_ms)
            return false;
        struct pollfd p = {.fd = fd, .events = events};
        int r = poll(&p, 1, (int)(deadline_ms - t));
        if (r > 0)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
    }
}

static void fail(char *why, size_t why_size, const char *what)
{
    snprintf(why, why_size, "%s: %s", what, errno ? strerror(errno) : "timed out");
}

ws_client *ws_client_connect(const tempo_address *server, const char *host, const char *path,
                             const char *origin, uint32_t timeout_ms, char *why, size_t why_size)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (server->family == TEMPO_ADDRESS_IPV4) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(server->port);
        memcpy(&a->sin_addr, server->bytes, 4);
        len = sizeof *a;
    } else if (server->family == TEMPO_ADDRESS_IPV6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(server->port);
        memcpy(&a->sin6_addr, server->bytes, 16);
        len = sizeof *a;
    } else {
        snprintf(why, why_size, "not an IP address");
        return NULL;
    }
    ws_client *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, why_size, "no memory");
        return NULL;
    }
    uint8_t seed[TEMPO_KEY_SIZE];
    if (tempo_key_generate(seed) != TEMPO_OK) {
        /* no secure source in this build: the clock and an address will do
         * for a test client; a browser makes its own masks */
        uint64_t t = now_ms() ^ (uint64_t)(uintptr_t)c;
        for (int i = 0; i < TEMPO_KEY_SIZE; i++)
            seed[i] = (uint8_t)(t >> (8 * (i % 8)) ^ (uint64_t)i * 151u);
    }
    for (int i = 0; i < 8; i++)
        c->mask_state = c->mask_state << 8 | seed[i];
    c->mask_state |= 1u;
    uint8_t key[16];
    memcpy(key, seed + 8, sizeof key);
    tempo_wipe(seed, sizeof seed);

    uint64_t deadline = now_ms() + timeout_ms;
    errno = 0;
    c->fd = socket(ss.ss_family, SOCK_STREAM, 0);
    if (c->fd < 0) {
        fail(why, why_size, "socket");
        free(c);
        return NULL;
    }
    int fl = fcntl(c->fd, F_GETFL, 0);
    fcntl(c->fd, F_SETFL, fl | O_NONBLOCK);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&ss, len) != 0 && errno != EINPROGRESS) {
        fail(why, why_size, "connect");
        ws_client_close(c);
        return NULL;
    }
    int err = 0;
    socklen_t elen = sizeof err;
    errno = 0;
    if (!wait_fd(c->fd, POLLOUT, deadline) ||
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0) {
        errno = err;
        fail(why, why_size, "connect");
        ws_client_close(c);
        return NULL;
    }
    char request[512], key_text[WS_KEY_TEXT + 1];
    size_t rn = ws_client_request_write(host, path ? path : "/", key, key_text, request,
                                        sizeof request - 64);
    if (rn && origin) { /* the Origin goes before the blank line */
        int extra = snprintf(request + rn - 2, sizeof request - rn + 2, "Origin: %s\r\n\r\n",
                             origin);
        rn = extra > 0 && (size_t)extra < sizeof request - rn + 2 ? rn - 2 + (size_t)extra : 0;
    }
    if (!rn) {
        snprintf(why, why_size, "host or path too long");
        ws_client_close(c);
        return NULL;
    }
    memcpy(c->out, request, rn);
    c->out_len = rn;
    while (c->out_off < c->out_len) {
        ws_client_flush(c);
        if (c->st.closed || (c->out_off < c->out_len && !wait_fd(c->fd, POLLOUT, deadline))) {
            fail(why, why_size, "sending the upgrade");
            ws_client_close(c);
            return NULL;
        }
    }
    c->out_off = c->out_len = 0;
    for (;;) {
        size_t head = 0;
        int r = ws_response_check(c->in, c->in_len, IN_CAP, key_text, &head);
        if (r > 0) {
            memmove(c->in, c->in + head, c->in_len - head);
            c->in_len -= head;
            break;
        }
        if (r < 0) {
            size_t line = strcspn((const char *)c->in, "\r\n");
            snprintf(why, why_size, "the server refused the upgrade: %.*s",
                     (int)(line < c->in_len && line < 80 ? line : 0), (const char *)c->in);
            ws_client_close(c);
            return NULL;
        }
        errno = 0;
        if (!wait_fd(c->fd, POLLIN, deadline)) {
            fail(why, why_size, "waiting for the upgrade");
            ws_client_close(c);
            return NULL;
        }
        ssize_t got = recv(c->fd, c->in + c->in_len, IN_CAP - 1 - c->in_len, 0);
        if (got <= 0 && !(got < 0 && (errno == EAGAIN || errno == EINTR))) {
            snprintf(why, why_size, "the server closed the connection during the upgrade");
            ws_client_close(c);
            return NULL;
        }
        if (got > 0) {
            c->in_len += (size_t)got;
            c->in[c->in_len] = '\0';
        }
    }
    return c;
}

void ws_client_close(ws_client *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

void ws_client_flush(ws_client *c)
{
    while (!c->st.closed && c->out_off < c->out_len) {
        ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (w > 0) {
            c->out_off += (size_t)w;
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            break;
        c->st.closed = true;
    }
    if (c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
}

/* Put one frame at the end of the output buffer: false when it is full. */
static bool queue_frame(ws_client *c, uint8_t op, const uint8_t *data, size_t n)
{
    if (c->out_off > 0 && WS_CLIENT_OUT_CAP - c->out_len < n + WS_HEADER_MAX) {
        memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
        c->out_len -= c->out_off;
        c->out_off = 0;
    }
    uint8_t mask[4];
    next_mask(c, mask);
    size_t w = ws_frame_write(c->out + c->out_len, WS_CLIENT_OUT_CAP - c->out_len, op, data, n,
                              mask);
    if (!w)
        return false;
    c->out_len += w;
    return true;
}

static int client_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    ws_client *c = ctx;
    (void)to;
    if (!data || size == 0 || size > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    if (c->st.closed)
        return TEMPO_E_TRANSPORT;
    if (!queue_frame(c, WS_OP_BINARY, data, size)) {
        c->st.dropped_full++;
        return 0; /* lost, as a full UDP socket buffer would lose it */
    }
    c->st.datagrams_out++;
    ws_client_flush(c);
    return 0;
}

static int client_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    ws_client *c = ctx;
    for (;;) {
        ws_frame f;
        long r = c->st.closed ? 0
                              : ws_frame_parse(c->in, c->in_len, false, TEMPO_MAX_DATAGRAM, &f);
        if (r < 0) {
            c->st.refused_frames++;
            c->st.closed = true;
        }
        if (r > 0) {
            const uint8_t *payload = c->in + f.header_size;
            int out = 0;
            if (f.opcode == WS_OP_BINARY && f.payload_size > 0) {
                memcpy(buf, payload, f.payload_size < capacity ? f.payload_size : capacity);
                *from = c->peer;
                out = (int)f.payload_size;
                c->st.datagrams_in++;
            } else if (f.opcode == WS_OP_PING) {
                c->st.pings++;
                queue_frame(c, WS_OP_PONG, payload, f.payload_size);
                ws_client_flush(c);
            } else if (f.opcode == WS_OP_CLOSE) {
                queue_frame(c, WS_OP_CLOSE, payload, f.payload_size >= 2 ? 2 : 0);
                ws_client_flush(c);
                c->st.closed = true;
            }
            memmove(c->in, c->in + r, c->in_len - (size_t)r);
            c->in_len -= (size_t)r;
            if (out)
                return out;
            continue;
        }
        if (c->st.closed)
            return TEMPO_E_TRANSPORT;
        if (c->in_len == IN_CAP)
            return 0;
        ssize_t got = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, 0);
        if (got > 0) {
            c->in_len += (size_t)got;
            continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return 0;
        c->st.closed = true;
        return TEMPO_E_TRANSPORT;
    }
}

tempo_transport ws_client_transport(ws_client *c, const tempo_address *peer)
{
    c->peer = *peer;
    tempo_transport t = {client_send, client_recv, c, NULL};
    return t;
}

int ws_client_fd(const ws_client *c)
{
    return c->fd;
}

void ws_client_get_stats(const ws_client *c, ws_client_stats *out)
{
    *out = c->st;
}

#endif
