/* SPDX-License-Identifier: MIT */
/*
 * ws_server.c — WebSocket connections carrying datagrams (ws_server.h).
 *
 * Each connection slot owns, from open on, an input buffer (in[0..in_len)
 * not yet parsed) and a ring of queue_datagrams output slots, each one
 * whole frame; out_off bytes of the head slot are already written. A slot
 * being written is never dropped; when the ring is full, the oldest slot
 * after it that holds a datagram goes. Control frames and HTTP answers
 * take slots too but are never dropped (a full ring of them closes the
 * connection instead).
 */
#include "ws_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws_frame.h"

#define SLOT_SIZE (WS_HEADER_MAX + TEMPO_MAX_DATAGRAM + 2)
#define CLOSE_LINGER_US 1000000u /* a closing connection's last bytes get this long */
#define ACCEPTS_PER_POLL 64

static const uint8_t id_prefix[2] = {'w', 's'};

bool ws_server_is_address(const tempo_address *a)
{
    return a && a->family == TEMPO_ADDRESS_OPAQUE && a->id_size == WS_ID_SIZE &&
           memcmp(a->bytes, id_prefix, 2) == 0;
}

void ws_server_config_default(ws_server_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bind = tempo_address_ipv4(0, 0, 0, 0, 0);
    cfg->max_connections = 256;
    cfg->queue_datagrams = 64;
    cfg->handshake_ms = 3000;
    cfg->frame_ms = 2000;
    cfg->idle_ms = 10000;
}

uint64_t ws_server_refused(const ws_server_stats *st)
{
    return st->refused_full + st->bad_handshake + st->bad_origin + st->head_too_long +
           st->handshake_timeouts + st->frame_timeouts + st->idle_timeouts + st->unmasked +
           st->oversize + st->control_fragmented + st->bad_frames;
}

#ifdef _WIN32

ws_server *ws_server_open(const ws_server_config *cfg, char *why, size_t why_size)
{
    (void)cfg;
    snprintf(why, why_size, "WebSocket members need a POSIX system");
    return NULL;
}
void ws_server_close(ws_server *s) { (void)s; }
uint16_t ws_server_port(const ws_server *s) { (void)s; return 0; }
int ws_server_fds(const ws_server *s, int *fds, int cap) { (void)s; (void)fds; (void)cap; return 0; }
void ws_server_poll(ws_server *s, uint64_t now_us) { (void)s; (void)now_us; }
int ws_server_recv(ws_server *s, tempo_address *from, uint8_t *buf, size_t cap)
{
    (void)s; (void)from; (void)buf; (void)cap;
    return 0;
}
int ws_server_send(ws_server *s, const tempo_address *to, const uint8_t *data, size_t n)
{
    (void)s; (void)to; (void)data; (void)n;
    return TEMPO_E_ADDRESS;
}
void ws_server_flush(ws_server *s, uint64_t now_us) { (void)s; (void)now_us; }
void ws_server_get_stats(const ws_server *s, ws_server_stats *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
}

#else

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

enum conn_state { C_FREE = 0, C_HEAD, C_OPEN, C_PAGE, C_CLOSING };

typedef struct ws_conn {
    int fd;
    uint8_t state;
    uint32_t generation;
    uint64_t since_us;        /* accepted */
    uint64_t last_in_us;      /* bytes last came */
    uint64_t partial_us;      /* a frame began and has not ended since (0: none) */
    uint64_t closing_us;      /* closing since */
    uint8_t *in;
    size_t in_len;
    uint8_t *out;             /* queue slots of SLOT_SIZE bytes */
    uint16_t *out_len;
    uint8_t *out_kind;        /* 1: a datagram (droppable), 0: must go */
    int head, count;
    size_t out_off;
    int page_fd;              /* a file being served, -1 */
} ws_conn;

struct ws_server {
    ws_server_config cfg;
    int listen_fd;
    uint16_t port;
    ws_conn *conns;
    int cursor;               /* where ws_server_recv looks first */
    struct pollfd *pfd;
    int *pfd_conn;
    char origins[WS_ORIGINS_MAX][WS_ORIGIN_MAX + 1];
    int origin_count;
    char page_dir[512];
    ws_server_stats st;
    uint8_t *memory;
};

static bool parse_origins(ws_server *s, const char *list, char *why, size_t why_size)
{
    s->origin_count = 0;
    if (!list)
        return true;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        size_t n = (size_t)(e - p);
        while (n && p[n - 1] == ' ')
            n--;
        if (n) {
            if (s->origin_count == WS_ORIGINS_MAX || n > WS_ORIGIN_MAX) {
                snprintf(why, why_size, "origins: at most %d of at most %d characters",
                         WS_ORIGINS_MAX, WS_ORIGIN_MAX);
                return false;
            }
            memcpy(s->origins[s->origin_count], p, n);
            s->origins[s->origin_count][n] = '\0';
            s->origin_count++;
        }
        p = e;
    }
    return true;
}

static bool origin_allowed(const ws_server *s, const ws_request *rq)
{
    if (s->origin_count == 0 || !rq->has_origin)
        return true;
    for (int i = 0; i < s->origin_count; i++)
        if (strcmp(s->origins[i], rq->origin) == 0)
            return true;
    return false;
}

static bool set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL, 0);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

ws_server *ws_server_open(const ws_server_config *cfg, char *why, size_t why_size)
{
    if (!cfg || cfg->max_connections < 1 || cfg->max_connections > 65536 ||
        cfg->queue_datagrams < 2 || cfg->queue_datagrams > 4096 || cfg->handshake_ms < 100 ||
        cfg->handshake_ms > 60000 || cfg->frame_ms < 100 || cfg->frame_ms > 60000 ||
        cfg->idle_ms < 1000 || cfg->idle_ms > 600000 ||
        (cfg->bind.family != TEMPO_ADDRESS_IPV4 && cfg->bind.family != TEMPO_ADDRESS_IPV6)) {
        snprintf(why, why_size, "a WebSocket setting out of range");
        return NULL;
    }
    ws_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "no memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->cfg.origins = NULL;
    s->cfg.page_dir = NULL;
    s->listen_fd = -1;
    if (!parse_origins(s, cfg->origins, why, why_size)) {
        free(s);
        return NULL;
    }
    if (cfg->page_dir) {
        if (strlen(cfg->page_dir) >= sizeof s->page_dir - WS_PATH_MAX - 2) {
            snprintf(why, why_size, "the page folder's name is too long");
            free(s);
            return NULL;
        }
        snprintf(s->page_dir, sizeof s->page_dir, "%s", cfg->page_dir);
    }
    size_t n = (size_t)cfg->max_connections, q = (size_t)cfg->queue_datagrams;
    size_t per = WS_IN_CAP + q * (SLOT_SIZE + sizeof(uint16_t) + 1);
    s->conns = calloc(n, sizeof *s->conns);
    s->pfd = calloc(n, sizeof *s->pfd);
    s->pfd_conn = calloc(n, sizeof *s->pfd_conn);
    s->memory = malloc(n * per);
    if (!s->conns || !s->pfd || !s->pfd_conn || !s->memory) {
        snprintf(why, why_size, "no memory for %zu connections", n);
        ws_server_close(s);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        ws_conn *c = &s->conns[i];
        uint8_t *m = s->memory + i * per;
        c->fd = -1;
        c->page_fd = -1;
        c->in = m;
        c->out = m + WS_IN_CAP;
        c->out_len = (uint16_t *)(void *)(c->out + q * SLOT_SIZE);
        c->out_kind = (uint8_t *)(c->out_len + q);
    }

    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (cfg->bind.family == TEMPO_ADDRESS_IPV4) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(cfg->bind.port);
        memcpy(&a->sin_addr, cfg->bind.bytes, 4);
        len = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(cfg->bind.port);
        memcpy(&a->sin6_addr, cfg->bind.bytes, 16);
        len = sizeof *a;
    }
    s->listen_fd = socket(ss.ss_family, SOCK_STREAM, 0);
    int one = 1;
    if (s->listen_fd < 0 ||
        setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(s->listen_fd, (struct sockaddr *)&ss, len) != 0 || listen(s->listen_fd, 128) != 0 ||
        !set_nonblocking(s->listen_fd)) {
        snprintf(why, why_size, "TCP port %u: %s%s", cfg->bind.port, strerror(errno),
                 errno == EADDRINUSE ? " (another program holds it)" : "");
        ws_server_close(s);
        return NULL;
    }
    len = sizeof ss;
    getsockname(s->listen_fd, (struct sockaddr *)&ss, &len);
    s->port = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                      : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return s;
}

static void conn_release(ws_server *s, ws_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    if (c->page_fd >= 0)
        close(c->page_fd);
    c->fd = -1;
    c->page_fd = -1;
    c->state = C_FREE;
    c->in_len = 0;
    c->head = c->count = 0;
    c->out_off = 0;
    s->st.open--;
}

void ws_server_close(ws_server *s)
{
    if (!s)
        return;
    if (s->conns)
        for (int i = 0; i < s->cfg.max_connections; i++)
            if (s->conns[i].state != C_FREE)
                conn_release(s, &s->conns[i]);
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    free(s->conns);
    free(s->pfd);
    free(s->pfd_conn);
    free(s->memory);
    free(s);
}

uint16_t ws_server_port(const ws_server *s)
{
    return s->port;
}

/* A free slot at the queue's tail, or NULL when it is full. */
static uint8_t *slot_push(ws_server *s, ws_conn *c, uint8_t kind)
{
    int q = s->cfg.queue_datagrams;
    if (c->count == q)
        return NULL;
    int at = (c->head + c->count) % q;
    c->count++;
    c->out_kind[at] = kind;
    return c->out + (size_t)at * SLOT_SIZE;
}

/* Make room for one more by dropping the oldest datagram not being
 * written; false when every slot must go (control frames, answers). */
static bool slot_drop_oldest(ws_server *s, ws_conn *c)
{
    int q = s->cfg.queue_datagrams;
    if (c->out_off == 0 && c->out_kind[c->head]) { /* the usual case: the head goes */
        c->head = (c->head + 1) % q;
        c->count--;
        return true;
    }
    for (int k = c->out_off ? 1 : 0; k < c->count; k++) {
        int at = (c->head + k) % q;
        if (!c->out_kind[at])
            continue;
        /* close the gap: move the younger ones one place toward the head */
        for (int j = k; j + 1 < c->count; j++) {
            int dst = (c->head + j) % q, src = (c->head + j + 1) % q;
            memcpy(c->out + (size_t)dst * SLOT_SIZE, c->out + (size_t)src * SLOT_SIZE,
                   c->out_len[src]);
            c->out_len[dst] = c->out_len[src];
            c->out_kind[dst] = c->out_kind[src];
        }
        c->count--;
        return true;
    }
    return false;
}

static void begin_closing(ws_conn *c, uint64_t now_us)
{
    if (c->state != C_CLOSING) {
        c->state = C_CLOSING;
        c->closing_us = now_us;
    }
}

/* Queue raw bytes that must go (an HTTP answer, a control frame). */
static bool queue_raw(ws_server *s, ws_conn *c, const void *data, size_t n)
{
    uint8_t *slot = n <= SLOT_SIZE ? slot_push(s, c, 0) : NULL;
    if (!slot)
        return false;
    memcpy(slot, data, n);
    c->out_len[(c->head + c->count - 1) % s->cfg.queue_datagrams] = (uint16_t)n;
    return true;
}

/* A control frame; a queue too full of frames that must go for one more
 * (a peer that pings and never reads) ends the connection. */
static void queue_control(ws_server *s, ws_conn *c, uint8_t op, const uint8_t *payload, size_t n,
                          uint64_t now_us)
{
    uint8_t frame[WS_HEADER_MAX + 125];
    size_t len = ws_frame_write(frame, sizeof frame, op, payload, n, NULL);
    if (len && !queue_raw(s, c, frame, len))
        begin_closing(c, now_us);
}

static void close_with(ws_server *s, ws_conn *c, uint16_t code, uint64_t now_us)
{
    uint8_t p[2] = {(uint8_t)(code >> 8), (uint8_t)code};
    if (c->state == C_OPEN)
        queue_control(s, c, WS_OP_CLOSE, p, 2, now_us);
    begin_closing(c, now_us);
}

static void http_answer(ws_server *s, ws_conn *c, const char *status, uint64_t now_us)
{
    char text[160];
    int n = snprintf(text, sizeof text,
                     "HTTP/1.1 %s\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", status);
    if (n > 0)
        queue_raw(s, c, text, (size_t)n);
    begin_closing(c, now_us);
}

static void accept_new(ws_server *s, uint64_t now_us)
{
    for (int k = 0; k < ACCEPTS_PER_POLL; k++) {
        int fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0)
            return;
        ws_conn *c = NULL;
        for (int i = 0; i < s->cfg.max_connections && !c; i++)
            if (s->conns[i].state == C_FREE)
                c = &s->conns[i];
        if (!c || !set_nonblocking(fd)) {
            s->st.refused_full += c == NULL;
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->fd = fd;
        c->state = C_HEAD;
        c->generation++;
        c->since_us = c->last_in_us = now_us;
        c->partial_us = c->closing_us = 0;
        c->in_len = 0;
        c->head = c->count = 0;
        c->out_off = 0;
        s->st.accepted++;
        s->st.open++;
    }
}

static const char *content_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return "application/octet-stream";
    if (strcmp(dot, ".html") == 0)
        return "text/html; charset=utf-8";
    if (strcmp(dot, ".js") == 0)
        return "text/javascript";
    if (strcmp(dot, ".wasm") == 0)
        return "application/wasm";
    if (strcmp(dot, ".css") == 0)
        return "text/css";
    if (strcmp(dot, ".png") == 0)
        return "image/png";
    return "application/octet-stream";
}

/* A plain GET: one file directly in page_dir ("/" is index.html), its
 * name of letters, digits, '.', '-', '_' not starting with '.'. The page
 * is sent cross-origin isolated (COOP and COEP), which gives its clock
 * the fine grain its timings of tempo's work need. */
static void serve_page(ws_server *s, ws_conn *c, const ws_request *rq, uint64_t now_us)
{
    char name[WS_PATH_MAX + 16];
    size_t n = strcspn(rq->path + 1, "?#");
    if (n == 0)
        snprintf(name, sizeof name, "index.html");
    else {
        memcpy(name, rq->path + 1, n);
        name[n] = '\0';
    }
    bool ok = s->page_dir[0] && name[0] != '.';
    for (size_t i = 0; ok && name[i]; i++) {
        char ch = name[i];
        ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '.' || ch == '-' || ch == '_';
    }
    char path[sizeof s->page_dir + sizeof name];
    struct stat sb;
    int fd = -1;
    if (ok) {
        snprintf(path, sizeof path, "%s/%s", s->page_dir, name);
        fd = open(path, O_RDONLY);
    }
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0)
            close(fd);
        s->st.pages_missing++;
        http_answer(s, c, "404 Not Found", now_us);
        return;
    }
    char head[384];
    int len = snprintf(head, sizeof head,
                       "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %lld\r\n"
                       "Cache-Control: no-cache\r\nCross-Origin-Opener-Policy: same-origin\r\n"
                       "Cross-Origin-Embedder-Policy: require-corp\r\nConnection: close\r\n\r\n",
                       content_type(name), (long long)sb.st_size);
    queue_raw(s, c, head, (size_t)len);
    c->page_fd = fd;
    c->state = C_PAGE;
    s->st.pages_served++;
}

static void handle_head(ws_server *s, ws_conn *c, uint64_t now_us)
{
    ws_request rq;
    ws_request_result r = ws_request_parse(c->in, c->in_len, WS_HEAD_MAX, &rq);
    if (r == WS_REQ_MORE)
        return;
    if (r == WS_REQ_TOO_LONG) {
        s->st.head_too_long++;
        http_answer(s, c, "431 Request Header Fields Too Large", now_us);
        return;
    }
    if (r == WS_REQ_BAD) {
        s->st.bad_handshake++;
        http_answer(s, c, "400 Bad Request", now_us);
        return;
    }
    if (!origin_allowed(s, &rq)) {
        s->st.bad_origin++;
        http_answer(s, c, "403 Forbidden", now_us);
        return;
    }
    /* what followed the head (a client may send a frame at once) stays */
    memmove(c->in, c->in + rq.head_size, c->in_len - rq.head_size);
    c->in_len -= rq.head_size;
    if (r == WS_REQ_PLAIN_GET) {
        c->in_len = 0;
        serve_page(s, c, &rq, now_us);
        return;
    }
    char answer[256];
    size_t n = ws_response_write(rq.key, answer, sizeof answer);
    if (!n || !queue_raw(s, c, answer, n)) {
        s->st.bad_handshake++;
        begin_closing(c, now_us);
        return;
    }
    c->state = C_OPEN;
    s->st.upgraded++;
}

int ws_server_fds(const ws_server *s, int *fds, int cap)
{
    int n = 0;
    if (n < cap)
        fds[n++] = s->listen_fd;
    for (int i = 0; i < s->cfg.max_connections && n < cap; i++) {
        const ws_conn *c = &s->conns[i];
        if (c->state != C_FREE && c->in_len < WS_IN_CAP)
            fds[n++] = c->fd;
    }
    return n;
}

/* Read what the socket holds, as far as the buffer has room. False when
 * the connection is gone (closed by the peer, an error). */
static bool conn_read(ws_server *s, ws_conn *c, uint64_t now_us)
{
    while (c->in_len < WS_IN_CAP) {
        ssize_t r = recv(c->fd, c->in + c->in_len, WS_IN_CAP - c->in_len, 0);
        if (r > 0) {
            c->in_len += (size_t)r;
            c->last_in_us = now_us;
            if (c->state == C_CLOSING || c->state == C_PAGE)
                c->in_len = 0; /* nothing more is read from it */
            continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            if (c->state == C_OPEN || c->state == C_HEAD)
                s->st.closed_by_peer++;
            return false;
        }
        if (errno != EINTR)
            break;
    }
    return true;
}

/* Deadlines: slowloris in the head or in a frame, silence. */
static void check_times(ws_server *s, ws_conn *c, uint64_t now_us)
{
    if (c->state == C_HEAD && now_us - c->since_us > (uint64_t)s->cfg.handshake_ms * 1000u) {
        s->st.handshake_timeouts++;
        http_answer(s, c, "408 Request Timeout", now_us);
    } else if (c->state == C_OPEN && c->partial_us &&
               now_us - c->partial_us > (uint64_t)s->cfg.frame_ms * 1000u) {
        s->st.frame_timeouts++;
        close_with(s, c, WS_CLOSE_POLICY, now_us);
    } else if (c->state == C_OPEN && now_us - c->last_in_us > (uint64_t)s->cfg.idle_ms * 1000u) {
        s->st.idle_timeouts++;
        close_with(s, c, WS_CLOSE_GOING_AWAY, now_us);
    } else if (c->state == C_PAGE && now_us - c->since_us > (uint64_t)s->cfg.idle_ms * 1000u) {
        s->st.idle_timeouts++; /* a page nobody reads holds no slot for long */
        begin_closing(c, now_us);
    }
}

void ws_server_poll(ws_server *s, uint64_t now_us)
{
    accept_new(s, now_us);
    int n = 0;
    for (int i = 0; i < s->cfg.max_connections; i++) {
        ws_conn *c = &s->conns[i];
        if (c->state == C_FREE)
            continue;
        s->pfd[n].fd = c->fd;
        s->pfd[n].events = c->in_len < WS_IN_CAP ? POLLIN : 0;
        s->pfd[n].revents = 0;
        s->pfd_conn[n++] = i;
    }
    if (n > 0 && poll(s->pfd, (nfds_t)n, 0) < 0)
        n = 0;
    for (int k = 0; k < n; k++) {
        ws_conn *c = &s->conns[s->pfd_conn[k]];
        if (s->pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (!conn_read(s, c, now_us)) {
                conn_release(s, c);
                continue;
            }
            if (c->state == C_HEAD)
                handle_head(s, c, now_us);
        }
        check_times(s, c, now_us);
    }
}

/* The next frame of c: a datagram into buf (its size), 0 when none is
 * whole; control frames are answered on the way. */
static int conn_next(ws_server *s, ws_conn *c, uint8_t *buf, size_t cap, uint64_t now_us)
{
    while (c->state == C_OPEN && c->in_len > 0) {
        ws_frame f;
        long r = ws_frame_parse(c->in, c->in_len, true, TEMPO_MAX_DATAGRAM, &f);
        if (r == WS_FRAME_MORE) {
            if (!c->partial_us)
                c->partial_us = now_us ? now_us : 1;
            return 0;
        }
        if (r < 0) {
            switch (r) {
            case WS_FRAME_UNMASKED: s->st.unmasked++; break;
            case WS_FRAME_TOO_BIG: s->st.oversize++; break;
            case WS_FRAME_CONTROL: s->st.control_fragmented++; break;
            default: s->st.bad_frames++; break;
            }
            c->in_len = 0;
            close_with(s, c, r == WS_FRAME_TOO_BIG ? WS_CLOSE_TOO_BIG : WS_CLOSE_PROTOCOL, now_us);
            return 0;
        }
        uint8_t *payload = c->in + f.header_size;
        ws_mask(payload, f.payload_size, f.mask);
        int out = 0;
        if (f.opcode == WS_OP_BINARY) {
            if (f.payload_size == 0) {
                s->st.bad_frames++; /* an empty datagram: nothing tempo sends */
            } else {
                memcpy(buf, payload, f.payload_size < cap ? f.payload_size : cap);
                out = (int)f.payload_size;
                s->st.datagrams_in++;
                s->st.bytes_in += f.payload_size;
            }
        } else if (f.opcode == WS_OP_PING) {
            s->st.pings++;
            queue_control(s, c, WS_OP_PONG, payload, f.payload_size, now_us);
        } else if (f.opcode == WS_OP_CLOSE) {
            s->st.closes_received++;
            /* answer with its code (RFC 6455 5.5.1), or a plain close */
            queue_control(s, c, WS_OP_CLOSE, payload, f.payload_size >= 2 ? 2 : 0, now_us);
            begin_closing(c, now_us);
        }
        memmove(c->in, c->in + r, c->in_len - (size_t)r);
        c->in_len -= (size_t)r;
        c->partial_us = 0;
        if (out)
            return out;
    }
    if (c->in_len == 0)
        c->partial_us = 0;
    return 0;
}

int ws_server_recv(ws_server *s, tempo_address *from, uint8_t *buf, size_t cap)
{
    int n = s->cfg.max_connections;
    for (int k = 0; k < n; k++) {
        int i = (s->cursor + k) % n;
        ws_conn *c = &s->conns[i];
        if (c->state != C_OPEN || c->in_len == 0)
            continue;
        int got = conn_next(s, c, buf, cap, c->last_in_us);
        if (got > 0) {
            uint8_t id[WS_ID_SIZE] = {'w', 's'};
            uint32_t slot = (uint32_t)i;
            for (int b = 0; b < 4; b++) {
                id[2 + b] = (uint8_t)(slot >> (24 - 8 * b));
                id[6 + b] = (uint8_t)(c->generation >> (24 - 8 * b));
            }
            tempo_address_opaque(from, id, sizeof id, 0);
            s->cursor = i; /* the same connection first next time: its backlog in order */
            return got;
        }
    }
    return 0;
}

static ws_conn *conn_of(ws_server *s, const tempo_address *a)
{
    if (!ws_server_is_address(a))
        return NULL;
    uint32_t slot = 0, gen = 0;
    for (int b = 0; b < 4; b++) {
        slot = slot << 8 | a->bytes[2 + b];
        gen = gen << 8 | a->bytes[6 + b];
    }
    if (slot >= (uint32_t)s->cfg.max_connections)
        return NULL;
    ws_conn *c = &s->conns[slot];
    return c->state == C_OPEN && c->generation == gen ? c : NULL;
}

int ws_server_send(ws_server *s, const tempo_address *to, const uint8_t *data, size_t n)
{
    if (!s || !to || !data || n == 0 || n > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    ws_conn *c = conn_of(s, to);
    if (!c) {
        s->st.send_unknown++;
        return TEMPO_E_ADDRESS;
    }
    if (c->count == s->cfg.queue_datagrams) {
        if (!slot_drop_oldest(s, c)) {
            s->st.out_dropped++;
            return 0; /* only frames that must go: this one is lost */
        }
        s->st.out_dropped++;
    }
    uint8_t *slot = slot_push(s, c, 1);
    size_t len = ws_frame_write(slot, SLOT_SIZE, WS_OP_BINARY, data, n, NULL);
    c->out_len[(c->head + c->count - 1) % s->cfg.queue_datagrams] = (uint16_t)len;
    s->st.datagrams_out++;
    s->st.bytes_out += n;
    return 0;
}

/* Refill the queue from the file being served, as slots free up. */
static void page_refill(ws_server *s, ws_conn *c)
{
    while (c->page_fd >= 0 && c->count < s->cfg.queue_datagrams) {
        uint8_t *slot = slot_push(s, c, 0);
        ssize_t r = read(c->page_fd, slot, SLOT_SIZE);
        if (r <= 0) {
            c->count--;
            close(c->page_fd);
            c->page_fd = -1;
            begin_closing(c, c->last_in_us);
            return;
        }
        c->out_len[(c->head + c->count - 1) % s->cfg.queue_datagrams] = (uint16_t)r;
    }
}

/* Write the queue as far as the socket takes it. False when the
 * connection failed. */
static bool conn_write(ws_server *s, ws_conn *c)
{
    int q = s->cfg.queue_datagrams;
    while (c->count > 0) {
        struct iovec iov[16];
        int k = 0;
        for (; k < c->count && k < 16; k++) {
            int at = (c->head + k) % q;
            size_t off = k == 0 ? c->out_off : 0;
            iov[k].iov_base = c->out + (size_t)at * SLOT_SIZE + off;
            iov[k].iov_len = c->out_len[at] - off;
        }
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)k;
        ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (w < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        size_t left = (size_t)w;
        while (left > 0) {
            size_t rest = c->out_len[c->head] - c->out_off;
            if (left < rest) {
                c->out_off += left;
                return true; /* the socket is full */
            }
            left -= rest;
            c->out_off = 0;
            c->head = (c->head + 1) % q;
            c->count--;
        }
        if (c->state == C_PAGE)
            page_refill(s, c);
    }
    return true;
}

void ws_server_flush(ws_server *s, uint64_t now_us)
{
    for (int i = 0; i < s->cfg.max_connections; i++) {
        ws_conn *c = &s->conns[i];
        if (c->state == C_FREE)
            continue;
        if (c->state == C_PAGE)
            page_refill(s, c);
        if (c->count > 0 && !conn_write(s, c)) {
            conn_release(s, c);
            continue;
        }
        if (c->state == C_CLOSING &&
            (c->count == 0 || now_us - c->closing_us > CLOSE_LINGER_US))
            conn_release(s, c);
    }
}

void ws_server_get_stats(const ws_server *s, ws_server_stats *out)
{
    *out = s->st;
}

#endif
