/* SPDX-License-Identifier: MIT */
/*
 * http_conn.h — one HTTP/1.1 client connection over TCP, non-blocking,
 * driven by calls from a program's loop: how tempo's programs talk to the
 * local services beside them (Agones' SDK server, a hosting platform's
 * self-stop URL). Plain HTTP, no TLS; one request at a time on a
 * keep-alive connection, reconnected on the next request after a close.
 *
 * Everything the server sends is read within fixed bounds, so a broken or
 * hostile server can cost time but never memory or a crash: the status
 * line and headers together at most HTTP_HEADER_MAX bytes in at most
 * HTTP_HEADER_LINES lines, a strict status line, one Content-Length of
 * digits only, "chunked" as the only transfer coding, chunk sizes of at
 * most 15 hex digits, a body kept up to the cap given at init (the rest
 * read and dropped, body_over set), at most HTTP_READ_MAX bytes read per
 * step, and a whole response within the timeout. Any breach fails the
 * request with the reason in `why` and closes the connection.
 *
 * A streaming request (a watch) gets its body as lines: each '\n' ends
 * one, a line longer than the cap is dropped (counted, and reported once
 * with body_over), and once the headers are in no timeout applies.
 *
 * Single-threaded; allocates only at init.
 */
#ifndef TOOLS_HTTP_CONN_H
#define TOOLS_HTTP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tempo/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HTTP_HEADER_MAX 8192   /* status line and headers of one response, bytes */
#define HTTP_HEADER_LINES 64   /* header lines of one response */
#define HTTP_REQUEST_MAX 2048  /* one request as sent, bytes */
#define HTTP_READ_MAX 16384    /* bytes read in one http_conn_step */

typedef enum http_event {
    HTTP_NOTHING = 0, /* nothing new: call again later */
    HTTP_RESPONSE,    /* a whole response: status, body[0..body_len) */
    HTTP_LINE,        /* a streaming request's next line in body[0..body_len), no '\n' */
    HTTP_FAILED       /* the request failed (or the server misbehaved while
                         idle); why says how; the connection is closed */
} http_event;

typedef struct http_conn {
    tempo_address to;
    char host[128];           /* the Host header */
    int fd;                   /* -1: closed */
    bool connected;
    bool busy;                /* a request is out, its response not yet whole */
    bool stream;              /* the request's body comes as lines */
    bool lines;               /*   and the response is a 2xx: split it */
    bool line_pending;        /* body holds a line handed out by the last step */
    bool close_after;         /* the server said Connection: close, or no length */
    uint32_t timeout_ms;      /* connect and whole response */
    uint64_t deadline_us;     /* 0: none (a stream past its headers) */
    char out[HTTP_REQUEST_MAX];
    size_t out_len, out_off;
    char *in;                 /* raw bytes received, in[in_off..in_len) not yet parsed */
    size_t in_cap, in_len, in_off;
    char *body;               /* the body, or the current line; NUL-terminated */
    size_t body_cap, body_len;
    bool body_over;           /* bytes past body_cap were dropped */
    int phase;                /* where the response parser is */
    int status;               /* the response's status code */
    bool chunked, has_length;
    uint64_t remaining;       /* bytes left of the body or the chunk */
    size_t header_bytes;
    int header_lines;
    uint64_t lines_dropped;   /* stream lines longer than body_cap */
    char why[192];            /* the reason of the last HTTP_FAILED */
} http_conn;

/* Set up a connection to `to` (nothing is sent yet), with Host header
 * `host` (NULL: the address), bodies kept up to body_cap bytes and
 * timeout_ms for the connect and for each whole response. False if the
 * buffers cannot be allocated. */
bool http_conn_init(http_conn *c, const tempo_address *to, const char *host, size_t body_cap,
                    uint32_t timeout_ms);

/* Close the connection and free its buffers. */
void http_conn_free(http_conn *c);

/* Send a request: method and path as given, the Host header, extra_headers
 * (each line ending "\r\n"; NULL for none), and body[0..body_len) (NULL for
 * none) as application/json with its Content-Length. Connects first when
 * closed. stream: the response's body comes as lines (HTTP_LINE), with no
 * timeout once its headers are in. False (nothing sent) if a request is
 * already out or the request would not fit in HTTP_REQUEST_MAX. */
bool http_conn_request(http_conn *c, const char *method, const char *path,
                       const char *extra_headers, const char *body, size_t body_len, bool stream,
                       uint64_t now_us);

/* Do what can be done now without waiting (connect, send, receive,
 * parse) and return the first event; call again until HTTP_NOTHING. */
http_event http_conn_step(http_conn *c, uint64_t now_us);

/* Drop the connection (a request out fails silently). */
void http_conn_close(http_conn *c);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_HTTP_CONN_H */
