/* SPDX-License-Identifier: MIT */
/*
 * ws_frame.h — the bytes of RFC 6455 (WebSocket), without sockets: the
 * opening handshake's request and its Sec-WebSocket-Accept (SHA-1 and
 * base64, written here: libsodium has no SHA-1), and frames, parsed and
 * written. ws_server.c (the relay's side) and ws_client.c (a native
 * member's side) put them on TCP; the fuzz target fuzz_ws drives the
 * parsers with arbitrary bytes.
 *
 * What is refused, each with its own code so a server can count it: a
 * request that is not a GET with Upgrade: websocket, Connection: upgrade,
 * Sec-WebSocket-Version: 13, a Host and a key of 16 bytes in base64; a
 * head longer than the buffer it must fit; a frame with reserved bits set
 * (no extension is ever agreed), an unknown opcode, a text frame (tempo
 * carries binary datagrams only), a fragmented message (a browser sends a
 * message of at most TEMPO_MAX_DATAGRAM bytes in one frame), a control
 * frame fragmented or longer than 125 bytes, a length longer than the
 * caller's limit or not in its shortest form, and a frame from a client
 * without a mask (or from a server with one).
 *
 * Nothing here allocates; every function reads only the bytes it is given.
 */
#ifndef TOOLS_WS_FRAME_H
#define TOOLS_WS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WS_SHA1_SIZE 20
#define WS_KEY_TEXT 24    /* a Sec-WebSocket-Key: 16 bytes in base64 */
#define WS_ACCEPT_TEXT 28 /* a Sec-WebSocket-Accept: 20 bytes in base64 */
#define WS_ORIGIN_MAX 128 /* the longest Origin kept (a longer one is refused) */
#define WS_PATH_MAX 128   /* the longest request path, query aside (longer: refused) */
#define WS_HEADER_MAX 14  /* the longest frame header: 2 + 8 length + 4 mask */

/* The opcodes (RFC 6455 5.2). */
enum {
    WS_OP_CONTINUATION = 0x0,
    WS_OP_TEXT = 0x1,
    WS_OP_BINARY = 0x2,
    WS_OP_CLOSE = 0x8,
    WS_OP_PING = 0x9,
    WS_OP_PONG = 0xA
};

/* Close codes (RFC 6455 7.4.1) tempo sends. */
enum {
    WS_CLOSE_NORMAL = 1000,
    WS_CLOSE_GOING_AWAY = 1001,
    WS_CLOSE_PROTOCOL = 1002,
    WS_CLOSE_UNSUPPORTED = 1003,
    WS_CLOSE_POLICY = 1008,
    WS_CLOSE_TOO_BIG = 1009
};

/* SHA-1 (FIPS 180-4) of data[0..n): out gets the 20-byte digest. */
void ws_sha1(const uint8_t *data, size_t n, uint8_t out[WS_SHA1_SIZE]);

/* Base64 (RFC 4648, with padding) of in[0..n) into out, terminated.
 * Returns the length written, or 0 when cap cannot hold it and the NUL. */
size_t ws_base64(const uint8_t *in, size_t n, char *out, size_t cap);

/* Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key +
 * "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")). key: the key's text as sent,
 * key_len bytes (at most 64; false otherwise). out gets 28 characters and
 * a NUL. */
bool ws_accept_for(const char *key, size_t key_len, char out[WS_ACCEPT_TEXT + 1]);

/* ---- the opening handshake ---------------------------------------------- */

typedef enum ws_request_result {
    WS_REQ_MORE = 0,      /* the head has not ended yet: read more */
    WS_REQ_UPGRADE = 1,   /* a valid WebSocket upgrade */
    WS_REQ_PLAIN_GET = 2, /* a valid GET without Upgrade (a page to serve) */
    WS_REQ_BAD = -1,      /* malformed or not a WebSocket request */
    WS_REQ_TOO_LONG = -2  /* the head did not end within the bytes allowed */
} ws_request_result;

typedef struct ws_request {
    char path[WS_PATH_MAX + 1];     /* the request target up to its '?', NUL-terminated */
    char key[WS_KEY_TEXT + 1];      /* Sec-WebSocket-Key (UPGRADE only) */
    char origin[WS_ORIGIN_MAX + 1]; /* Origin, "" when absent */
    bool has_origin;
    size_t head_size;               /* bytes of the head, up to its blank line */
} ws_request;

/* Parse an HTTP/1.1 request head from buf[0..n). max_head: the most bytes
 * the head may take (a head not ended within them, or within n when n >=
 * max_head, is WS_REQ_TOO_LONG). A request line other than "GET <path>
 * HTTP/1.1", a header line without a colon, a path or origin too long, a
 * header repeated, or an Upgrade without every field above is WS_REQ_BAD.
 * *out is filled on UPGRADE and PLAIN_GET. */
ws_request_result ws_request_parse(const uint8_t *buf, size_t n, size_t max_head,
                                   ws_request *out);

/* The server's answer to a valid upgrade: "HTTP/1.1 101 ..." with the
 * accept value, into out. Returns its length, or 0 when cap is too small. */
size_t ws_response_write(const char *key, char *out, size_t cap);

/* A client's upgrade request for host (the Host header) and path, with a
 * key of 16 bytes given by the caller (random in real use). Returns its
 * length, or 0 when cap is too small; key_text gets the key in base64 to
 * check the answer with ws_response_check. */
size_t ws_client_request_write(const char *host, const char *path, const uint8_t key[16],
                               char key_text[WS_KEY_TEXT + 1], char *out, size_t cap);

/* Check a server's answer head in buf[0..n) (up to max_head bytes): 1 when
 * it is a 101 with Upgrade, Connection and the accept of key_text (*head_size
 * gets the head's length), 0 when the head has not ended, -1 otherwise. */
int ws_response_check(const uint8_t *buf, size_t n, size_t max_head, const char *key_text,
                      size_t *head_size);

/* ---- frames --------------------------------------------------------------- */

typedef enum ws_frame_result {
    WS_FRAME_MORE = 0,          /* the frame has not all arrived */
    WS_FRAME_RESERVED = -1,     /* RSV bits set */
    WS_FRAME_OPCODE = -2,       /* an unknown opcode, or text */
    WS_FRAME_FRAGMENTED = -3,   /* a data message in several frames */
    WS_FRAME_CONTROL = -4,      /* a control frame fragmented or over 125 bytes */
    WS_FRAME_TOO_BIG = -5,      /* payload over the limit */
    WS_FRAME_LENGTH = -6,       /* length not in its shortest form, or 2^63 and over */
    WS_FRAME_UNMASKED = -7,     /* a client frame without a mask */
    WS_FRAME_MASKED = -8        /* a server frame with a mask */
} ws_frame_result;

typedef struct ws_frame {
    uint8_t opcode;
    bool masked;
    uint8_t mask[4];
    size_t header_size;  /* bytes before the payload */
    size_t payload_size;
} ws_frame;

/* Parse one frame at buf[0..n). from_client: frames must be masked (a
 * server reads them) or must not be (a client reads them). max_payload:
 * the longest payload allowed. Returns the frame's whole size (header plus
 * payload, > 0) once all of it is in buf, with *f filled; WS_FRAME_MORE
 * (0) when more bytes are needed; a negative ws_frame_result when the
 * frame is refused (the connection should be closed: its stream can no
 * longer be framed). A refusal is reported as soon as the header shows it,
 * before the payload arrives. */
long ws_frame_parse(const uint8_t *buf, size_t n, bool from_client, size_t max_payload,
                    ws_frame *f);

/* XOR data[0..n) with the mask, in place (masking and unmasking alike). */
void ws_mask(uint8_t *data, size_t n, const uint8_t mask[4]);

/* Write one final frame of `opcode` carrying payload[0..n) into out: masked
 * with `mask` when it is not NULL (a client's frame), plain otherwise.
 * Returns the frame's size, or 0 when cap is too small. payload may be
 * NULL when n is 0. */
size_t ws_frame_write(uint8_t *out, size_t cap, uint8_t opcode, const uint8_t *payload, size_t n,
                      const uint8_t *mask);

/* A short name of a ws_frame_result for messages ("unmasked", ...). */
const char *ws_frame_result_name(long r);

#ifdef __cplusplus
}
#endif

#endif /* TOOLS_WS_FRAME_H */
