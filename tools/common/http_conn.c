/* SPDX-License-Identifier: MIT */
/*
 * http_conn.c — the non-blocking HTTP/1.1 client connection (http_conn.h).
 *
 * The response parser is a small state machine over the bytes received:
 * the status line and headers are taken a line at a time from `in`; body
 * bytes (by length, by chunks, or until the server closes) go straight on
 * to `body`, so `in` only ever holds one unfinished line. Invariant: while
 * a request is out, `phase` says what the next received byte is; between
 * requests it is P_IDLE and any byte received is the server's fault.
 */
#include "http_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"

enum {
    P_IDLE,       /* no request out */
    P_STATUS,     /* the status line */
    P_HEADERS,    /* header lines, up to the empty one */
    P_BODY,       /* `remaining` bytes of a body with a Content-Length */
    P_CHUNK_SIZE, /* a chunk's size line */
    P_CHUNK_DATA, /* `remaining` bytes of a chunk */
    P_CHUNK_END,  /* the CRLF after a chunk */
    P_TRAILERS,   /* trailer lines after the last chunk, up to the empty one */
    P_UNTIL_CLOSE /* a body without a length: until the server closes */
};

#define CHUNK_LINE_MAX 1024 /* a chunk size line with its extensions */
#define IN_CAP (HTTP_HEADER_MAX + 1024)

bool http_conn_init(http_conn *c, const tempo_address *to, const char *host, size_t body_cap,
                    uint32_t timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->to = *to;
    if (host)
        snprintf(c->host, sizeof c->host, "%s", host);
    else
        tempo_address_format(to, c->host, sizeof c->host);
    c->timeout_ms = timeout_ms;
    c->in_cap = IN_CAP;
    c->body_cap = body_cap;
    c->in = malloc(c->in_cap);
    c->body = malloc(body_cap + 1);
    if (!c->in || !c->body) {
        http_conn_free(c);
        return false;
    }
    c->body[0] = '\0';
    return true;
}

void http_conn_free(http_conn *c)
{
    http_conn_close(c);
    free(c->in);
    free(c->body);
    c->in = NULL;
    c->body = NULL;
}

static void reset_response(http_conn *c)
{
    c->phase = c->busy ? P_STATUS : P_IDLE;
    c->status = 0;
    c->chunked = c->has_length = c->lines = c->close_after = false;
    c->remaining = 0;
    c->header_bytes = 0;
    c->header_lines = 0;
    c->body_len = 0;
    c->body_over = false;
    c->body[0] = '\0';
    c->line_pending = false;
}

void http_conn_close(http_conn *c)
{
    platform_tcp_close(c->fd);
    c->fd = -1;
    c->connected = false;
    c->busy = false;
    c->out_len = c->out_off = 0;
    c->in_len = c->in_off = 0;
    if (c->body)
        reset_response(c);
}

/* Fail the request (why: msg, or what a call below already wrote there). */
static http_event fail(http_conn *c, const char *msg)
{
    if (msg)
        snprintf(c->why, sizeof c->why, "%s", msg);
    http_conn_close(c);
    return HTTP_FAILED;
}

bool http_conn_request(http_conn *c, const char *method, const char *path,
                       const char *extra_headers, const char *body, size_t body_len, bool stream,
                       uint64_t now_us)
{
    if (c->busy || !method || !path)
        return false;
    int n = snprintf(c->out, sizeof c->out,
                     "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: tempo\r\nAccept: application/json\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n%s\r\n",
                     method, path, c->host, body ? body_len : 0, extra_headers ? extra_headers : "");
    if (n < 0 || (size_t)n >= sizeof c->out || (body && body_len > sizeof c->out - (size_t)n))
        return false;
    if (body) {
        memcpy(c->out + n, body, body_len);
        n += (int)body_len;
    }
    c->out_len = (size_t)n;
    c->out_off = 0;
    c->busy = true;
    c->stream = stream;
    reset_response(c);
    c->deadline_us = now_us + (uint64_t)c->timeout_ms * 1000u;
    c->why[0] = '\0';
    if (c->fd < 0) {
        c->in_len = c->in_off = 0;
        c->fd = platform_tcp_connect(&c->to, c->why, sizeof c->why);
        c->connected = false;
        /* a refusal on the spot is reported by the next step */
    }
    return true;
}

/* ---- the response parser -------------------------------------------------- */

/* The next line in `in` (without its "\r\n" or "\n"): 1 and *line, *len;
 * 0 if it has not all come; -1 if it is longer than limit. */
static int take_line(http_conn *c, size_t limit, char **line, size_t *len)
{
    char *start = c->in + c->in_off;
    size_t avail = c->in_len - c->in_off;
    char *nl = memchr(start, '\n', avail);
    if (!nl)
        return avail > limit ? -1 : 0;
    size_t l = (size_t)(nl - start);
    if (l > limit)
        return -1;
    c->in_off += l + 1;
    if (l > 0 && start[l - 1] == '\r')
        l--;
    start[l] = '\0';
    *line = start;
    *len = l;
    return 1;
}

static bool same_name(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b);
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}

static bool parse_status(http_conn *c, const char *line, size_t len)
{
    /* HTTP/1.x SP 3DIGIT [SP reason] */
    if (len < 12 || memcmp(line, "HTTP/1.", 7) != 0 || (line[7] != '0' && line[7] != '1') ||
        line[8] != ' ')
        return false;
    int code = 0;
    for (int i = 9; i < 12; i++) {
        if (line[i] < '0' || line[i] > '9')
            return false;
        code = code * 10 + (line[i] - '0');
    }
    if (len > 12 && line[12] != ' ')
        return false;
    if (code < 100 || code > 599)
        return false;
    c->status = code;
    return true;
}

/* One header line; false with why on a malformed or unsupported one. */
static bool parse_header(http_conn *c, char *line, size_t len)
{
    char *colon = memchr(line, ':', len);
    if (!colon || colon == line) {
        snprintf(c->why, sizeof c->why, "malformed header line");
        return false;
    }
    size_t nlen = (size_t)(colon - line);
    for (size_t i = 0; i < nlen; i++)
        if (line[i] <= ' ' || line[i] >= 127) {
            snprintf(c->why, sizeof c->why, "malformed header name");
            return false;
        }
    char *v = colon + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vlen = (size_t)(end - v);
    for (size_t i = 0; i < vlen; i++)
        if ((unsigned char)v[i] < ' ' && v[i] != '\t') {
            snprintf(c->why, sizeof c->why, "control character in a header value");
            return false;
        }
    if (same_name(line, nlen, "content-length")) {
        uint64_t x = 0;
        if (vlen == 0 || vlen > 15) {
            snprintf(c->why, sizeof c->why, "bad Content-Length");
            return false;
        }
        for (size_t i = 0; i < vlen; i++) {
            if (v[i] < '0' || v[i] > '9') {
                snprintf(c->why, sizeof c->why, "bad Content-Length");
                return false;
            }
            x = x * 10u + (uint64_t)(v[i] - '0');
        }
        if (c->has_length && x != c->remaining) {
            snprintf(c->why, sizeof c->why, "two different Content-Lengths");
            return false;
        }
        c->has_length = true;
        c->remaining = x;
    } else if (same_name(line, nlen, "transfer-encoding")) {
        if (!same_name(v, vlen, "chunked")) {
            snprintf(c->why, sizeof c->why, "unsupported Transfer-Encoding");
            return false;
        }
        c->chunked = true;
    } else if (same_name(line, nlen, "connection")) {
        if (same_name(v, vlen, "close"))
            c->close_after = true;
    }
    return true;
}

/* After the empty line that ends the headers: where the body goes. */
static void body_begins(http_conn *c)
{
    c->lines = c->stream && c->status >= 200 && c->status < 300;
    if (c->lines)
        c->deadline_us = 0; /* a watch may stay quiet for hours */
    if (c->chunked) {
        c->phase = P_CHUNK_SIZE;
        c->has_length = false;
    } else if (c->status == 204 || c->status == 304) {
        c->phase = P_BODY;
        c->remaining = 0;
    } else if (c->has_length) {
        c->phase = P_BODY;
    } else {
        c->phase = P_UNTIL_CLOSE;
        c->close_after = true;
    }
}

/* Body bytes p[0..n): into body (a whole response) or the current line.
 * Returns how many were taken; *line_done when a line ended. */
static size_t sink(http_conn *c, const char *p, size_t n, bool *line_done)
{
    const char *nl = c->lines ? memchr(p, '\n', n) : NULL;
    size_t upto = nl ? (size_t)(nl - p) : n;
    size_t room = c->body_cap - c->body_len;
    size_t k = upto < room ? upto : room;
    memcpy(c->body + c->body_len, p, k);
    c->body_len += k;
    c->body[c->body_len] = '\0';
    if (k < upto)
        c->body_over = true;
    if (!nl)
        return n;
    if (c->body_len > 0 && c->body[c->body_len - 1] == '\r')
        c->body[--c->body_len] = '\0';
    if (c->body_over)
        c->lines_dropped++;
    *line_done = true;
    c->line_pending = true;
    return upto + 1;
}

static http_event response_done(http_conn *c)
{
    c->busy = false;
    c->phase = P_IDLE;
    c->deadline_us = 0;
    if (c->close_after) {
        platform_tcp_close(c->fd);
        c->fd = -1;
        c->connected = false;
        c->in_len = c->in_off = 0;
    }
    return HTTP_RESPONSE;
}

/* Parse what `in` holds: the first event, or HTTP_NOTHING for more bytes. */
static http_event parse(http_conn *c)
{
    for (;;) {
        char *line;
        size_t len;
        int got;
        switch (c->phase) {
        case P_IDLE:
            return HTTP_NOTHING;
        case P_STATUS:
        case P_HEADERS:
        case P_TRAILERS:
            got = take_line(c, HTTP_HEADER_MAX, &line, &len);
            if (got == 0)
                return HTTP_NOTHING;
            if (got > 0)
                c->header_bytes += len + 2;
            if (got < 0 || c->header_bytes > HTTP_HEADER_MAX)
                return fail(c, "response headers longer than 8192 bytes");
            if (memchr(line, '\0', len))
                return fail(c, "NUL in the response headers");
            if (c->phase == P_STATUS) {
                if (!parse_status(c, line, len))
                    return fail(c, "malformed status line");
                c->phase = P_HEADERS;
            } else if (len == 0) {
                if (c->phase == P_TRAILERS)
                    return response_done(c);
                if (c->status < 200) { /* an interim 1xx: the real one follows */
                    c->phase = P_STATUS;
                    c->has_length = c->chunked = false;
                    continue;
                }
                body_begins(c);
            } else if (++c->header_lines > HTTP_HEADER_LINES) {
                return fail(c, "more than 64 header lines");
            } else if (c->phase == P_HEADERS && !parse_header(c, line, len)) {
                return fail(c, NULL);
            }
            continue;
        case P_CHUNK_SIZE: {
            got = take_line(c, CHUNK_LINE_MAX, &line, &len);
            if (got == 0)
                return HTTP_NOTHING;
            if (got < 0)
                return fail(c, "chunk size line too long");
            uint64_t size = 0;
            size_t i = 0;
            for (; i < len && i < 16; i++) {
                char h = line[i];
                int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
                if (d < 0)
                    break;
                size = size << 4 | (uint64_t)d;
            }
            if (i == 0 || i > 15 || (i < len && line[i] != ';' && line[i] != ' ' && line[i] != '\t'))
                return fail(c, "malformed chunk size");
            c->remaining = size;
            c->phase = size == 0 ? P_TRAILERS : P_CHUNK_DATA;
            continue;
        }
        case P_CHUNK_END:
            got = take_line(c, 2, &line, &len);
            if (got == 0)
                return HTTP_NOTHING;
            if (got < 0 || len != 0)
                return fail(c, "a chunk is longer than its size");
            c->phase = P_CHUNK_SIZE;
            continue;
        case P_BODY:
        case P_CHUNK_DATA:
        case P_UNTIL_CLOSE: {
            size_t avail = c->in_len - c->in_off;
            if (c->phase != P_UNTIL_CLOSE && avail > c->remaining)
                avail = (size_t)c->remaining;
            if (avail == 0 && !(c->phase == P_BODY && c->remaining == 0))
                return HTTP_NOTHING;
            bool line_done = false;
            size_t k = avail ? sink(c, c->in + c->in_off, avail, &line_done) : 0;
            c->in_off += k;
            if (c->phase != P_UNTIL_CLOSE)
                c->remaining -= k;
            if (c->phase == P_BODY && c->remaining == 0 && !line_done)
                return response_done(c);
            if (c->phase == P_CHUNK_DATA && c->remaining == 0)
                c->phase = P_CHUNK_END;
            if (line_done)
                return HTTP_LINE;
            continue;
        }
        default:
            return fail(c, "internal parser state");
        }
    }
}

http_event http_conn_step(http_conn *c, uint64_t now_us)
{
    if (c->line_pending) { /* the caller has read the last line */
        c->line_pending = false;
        c->body_len = 0;
        c->body_over = false;
        c->body[0] = '\0';
    }
    if (c->fd < 0)
        return c->busy ? fail(c, NULL) : HTTP_NOTHING; /* why says the connect failed */
    if (!c->connected) {
        int r = platform_tcp_connected(c->fd, c->why, sizeof c->why);
        if (r < 0)
            return fail(c, NULL);
        if (r == 0) {
            if (c->deadline_us && now_us >= c->deadline_us)
                return fail(c, "connect: no answer within the timeout");
            return HTTP_NOTHING;
        }
        c->connected = true;
    }
    while (c->out_off < c->out_len) {
        long w = platform_tcp_send(c->fd, c->out + c->out_off, c->out_len - c->out_off, c->why,
                                   sizeof c->why);
        if (w < 0)
            return fail(c, NULL);
        if (w == 0)
            break;
        c->out_off += (size_t)w;
    }
    http_event ev = parse(c);
    if (ev != HTTP_NOTHING)
        return ev;
    size_t read = 0;
    while (read < HTTP_READ_MAX && c->fd >= 0) {
        if (c->in_off > 0) { /* keep the unfinished line at the front */
            memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
            c->in_len -= c->in_off;
            c->in_off = 0;
        }
        if (c->in_len == c->in_cap)
            return fail(c, "a response line longer than 8192 bytes");
        long r = platform_tcp_recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, c->why,
                                   sizeof c->why);
        if (r == 0)
            break;
        if (r == -1)
            return fail(c, NULL);
        if (r == -2) {
            if (c->busy && c->phase == P_UNTIL_CLOSE)
                return response_done(c);
            if (c->busy)
                return fail(c, "the server closed the connection before the response ended");
            http_conn_close(c); /* an idle keep-alive connection closed: reconnect later */
            return HTTP_NOTHING;
        }
        if (!c->busy)
            return fail(c, "the server sent bytes with no request out");
        c->in_len += (size_t)r;
        read += (size_t)r;
        ev = parse(c);
        if (ev != HTTP_NOTHING)
            return ev;
    }
    if (c->busy && c->deadline_us && now_us >= c->deadline_us)
        return fail(c, "no whole response within the timeout");
    return HTTP_NOTHING;
}
