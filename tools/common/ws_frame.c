/* SPDX-License-Identifier: MIT */
/*
 * ws_frame.c — RFC 6455's bytes: SHA-1, base64, the opening handshake and
 * frames (ws_frame.h). Every parser reads within the length it is given
 * and keeps nothing between calls: a caller holds the bytes and calls
 * again when more arrive.
 */
#include "ws_frame.h"

#include <stdio.h>
#include <string.h>

/* ---- SHA-1 (FIPS 180-4, 6.1) --------------------------------------------- */

static uint32_t rol32(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static void sha1_block(uint32_t h[5], const uint8_t b[64])
{
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)b[4 * t] << 24 | (uint32_t)b[4 * t + 1] << 16 |
               (uint32_t)b[4 * t + 2] << 8 | (uint32_t)b[4 * t + 3];
    for (int t = 16; t < 80; t++)
        w[t] = rol32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (bb & c) | (~bb & d);
            k = 0x5A827999u;
        } else if (t < 40) {
            f = bb ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (t < 60) {
            f = (bb & c) | (bb & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = bb ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        uint32_t tmp = rol32(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rol32(bb, 30);
        bb = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += bb;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void ws_sha1(const uint8_t *data, size_t n, uint8_t out[WS_SHA1_SIZE])
{
    uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    size_t done = 0;
    while (n - done >= 64) {
        sha1_block(h, data + done);
        done += 64;
    }
    /* the tail, the 0x80 marker and the bit length, in one or two blocks */
    uint8_t tail[128];
    size_t rest = n - done;
    memset(tail, 0, sizeof tail);
    if (rest)
        memcpy(tail, data + done, rest);
    tail[rest] = 0x80;
    size_t blocks = rest + 1 + 8 <= 64 ? 1 : 2;
    uint64_t bits = (uint64_t)n * 8u;
    for (int i = 0; i < 8; i++)
        tail[blocks * 64 - 1 - (size_t)i] = (uint8_t)(bits >> (8 * i));
    for (size_t i = 0; i < blocks; i++)
        sha1_block(h, tail + 64 * i);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (uint8_t)(h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(h[i] >> 8);
        out[4 * i + 3] = (uint8_t)h[i];
    }
}

/* ---- base64 (RFC 4648, 4) ------------------------------------------------ */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t ws_base64(const uint8_t *in, size_t n, char *out, size_t cap)
{
    size_t len = (n + 2) / 3 * 4;
    if (cap < len + 1)
        return 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = b64_alphabet[v >> 18 & 63];
        out[o++] = b64_alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? b64_alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

bool ws_accept_for(const char *key, size_t key_len, char out[WS_ACCEPT_TEXT + 1])
{
    uint8_t joined[64 + sizeof ws_guid];
    if (key_len > 64)
        return false;
    memcpy(joined, key, key_len);
    memcpy(joined + key_len, ws_guid, sizeof ws_guid - 1);
    uint8_t digest[WS_SHA1_SIZE];
    ws_sha1(joined, key_len + sizeof ws_guid - 1, digest);
    return ws_base64(digest, sizeof digest, out, WS_ACCEPT_TEXT + 1) == WS_ACCEPT_TEXT;
}

/* ---- the handshake --------------------------------------------------------- */

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool same_ci(const uint8_t *a, size_t n, const char *b)
{
    if (strlen(b) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower(a[i]) != lower((unsigned char)b[i]))
            return false;
    return true;
}

/* Does the comma-separated list v[0..n) hold `token` (any case)? */
static bool has_token(const uint8_t *v, size_t n, const char *token)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e > s && same_ci(v + s, e - s, token))
            return true;
    }
    return false;
}

static bool base64_char(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '/';
}

/* Where the head ends (just past its blank line) within buf[0..n), or 0. */
static size_t head_end(const uint8_t *buf, size_t n)
{
    for (size_t i = 3; i < n; i++)
        if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
            return i + 1;
    return 0;
}

enum { H_UPGRADE = 1, H_CONNECTION = 2, H_VERSION = 4, H_KEY = 8, H_HOST = 16, H_ORIGIN = 32 };

ws_request_result ws_request_parse(const uint8_t *buf, size_t n, size_t max_head,
                                   ws_request *out)
{
    size_t lim = n < max_head ? n : max_head;
    size_t end = head_end(buf, lim);
    if (end == 0)
        return n >= max_head ? WS_REQ_TOO_LONG : WS_REQ_MORE;
    memset(out, 0, sizeof *out);
    out->head_size = end;
    /* the request line: GET SP path SP HTTP/1.1 CRLF */
    size_t i = 0;
    if (end < 4 || memcmp(buf, "GET ", 4) != 0)
        return WS_REQ_BAD;
    i = 4;
    size_t ps = i;
    while (i < end && buf[i] != ' ' && buf[i] != '\r')
        i++;
    if (i == ps || buf[ps] != '/')
        return WS_REQ_BAD;
    for (size_t k = ps; k < i; k++)
        if (buf[k] < 0x21 || buf[k] > 0x7e)
            return WS_REQ_BAD;
    /* the path is kept, the query after it is not (a page reads its own) */
    size_t plen = 0;
    while (ps + plen < i && buf[ps + plen] != '?')
        plen++;
    if (plen > WS_PATH_MAX)
        return WS_REQ_BAD;
    memcpy(out->path, buf + ps, plen);
    static const char version[] = " HTTP/1.1\r\n";
    if (end - i < sizeof version - 1 || memcmp(buf + i, version, sizeof version - 1) != 0)
        return WS_REQ_BAD;
    i += sizeof version - 1;
    unsigned seen = 0, valid = 0;
    while (i + 2 <= end && !(buf[i] == '\r' && buf[i + 1] == '\n')) {
        size_t ls = i;
        while (i < end && buf[i] != '\r')
            i++;
        if (i + 1 >= end || buf[i + 1] != '\n')
            return WS_REQ_BAD;
        size_t le = i;
        i += 2;
        size_t colon = ls;
        while (colon < le && buf[colon] != ':')
            colon++;
        if (colon == le || colon == ls)
            return WS_REQ_BAD;
        for (size_t k = ls; k < le; k++)
            if (buf[k] < 0x20 && buf[k] != '\t')
                return WS_REQ_BAD;
        size_t vs = colon + 1, ve = le;
        while (vs < ve && (buf[vs] == ' ' || buf[vs] == '\t'))
            vs++;
        while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
            ve--;
        const uint8_t *name = buf + ls, *v = buf + vs;
        size_t nlen = colon - ls, vlen = ve - vs;
        unsigned bit = same_ci(name, nlen, "upgrade")                 ? H_UPGRADE
                       : same_ci(name, nlen, "connection")            ? H_CONNECTION
                       : same_ci(name, nlen, "sec-websocket-version") ? H_VERSION
                       : same_ci(name, nlen, "sec-websocket-key")     ? H_KEY
                       : same_ci(name, nlen, "host")                  ? H_HOST
                       : same_ci(name, nlen, "origin")                ? H_ORIGIN
                                                                      : 0;
        if (!bit)
            continue;
        if (seen & bit)
            return WS_REQ_BAD; /* one of each: two keys or origins would be ambiguous */
        seen |= bit;
        switch (bit) {
        case H_UPGRADE:
            if (has_token(v, vlen, "websocket"))
                valid |= bit;
            break;
        case H_CONNECTION:
            if (has_token(v, vlen, "upgrade"))
                valid |= bit;
            break;
        case H_VERSION:
            if (vlen == 2 && v[0] == '1' && v[1] == '3')
                valid |= bit;
            break;
        case H_KEY:
            if (vlen == WS_KEY_TEXT && v[22] == '=' && v[23] == '=') {
                bool ok = true;
                for (size_t k = 0; k < 22; k++)
                    ok = ok && base64_char(v[k]);
                if (ok) {
                    memcpy(out->key, v, WS_KEY_TEXT);
                    valid |= bit;
                }
            }
            break;
        case H_HOST:
            if (vlen > 0)
                valid |= bit;
            break;
        case H_ORIGIN:
            if (vlen > WS_ORIGIN_MAX)
                return WS_REQ_BAD;
            memcpy(out->origin, v, vlen);
            out->has_origin = true;
            valid |= bit;
            break;
        }
    }
    if (!(seen & H_UPGRADE))
        return (valid & H_HOST) ? WS_REQ_PLAIN_GET : WS_REQ_BAD;
    unsigned need = H_UPGRADE | H_CONNECTION | H_VERSION | H_KEY | H_HOST;
    return (valid & need) == need ? WS_REQ_UPGRADE : WS_REQ_BAD;
}

size_t ws_response_write(const char *key, char *out, size_t cap)
{
    char accept[WS_ACCEPT_TEXT + 1];
    if (!ws_accept_for(key, strlen(key), accept))
        return 0;
    int len = snprintf(out, cap,
                       "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                       accept);
    return len > 0 && (size_t)len < cap ? (size_t)len : 0;
}

size_t ws_client_request_write(const char *host, const char *path, const uint8_t key[16],
                               char key_text[WS_KEY_TEXT + 1], char *out, size_t cap)
{
    if (ws_base64(key, 16, key_text, WS_KEY_TEXT + 1) != WS_KEY_TEXT)
        return 0;
    int len = snprintf(out, cap,
                       "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n",
                       path, host, key_text);
    return len > 0 && (size_t)len < cap ? (size_t)len : 0;
}

int ws_response_check(const uint8_t *buf, size_t n, size_t max_head, const char *key_text,
                      size_t *head_size)
{
    size_t lim = n < max_head ? n : max_head;
    size_t end = head_end(buf, lim);
    if (end == 0)
        return n >= max_head ? -1 : 0;
    static const char status[] = "HTTP/1.1 101 ";
    if (end < sizeof status - 1 || memcmp(buf, status, sizeof status - 1) != 0)
        return -1;
    char want[WS_ACCEPT_TEXT + 1];
    if (!ws_accept_for(key_text, strlen(key_text), want))
        return -1;
    unsigned valid = 0;
    size_t i = 0;
    while (i < end && buf[i] != '\n')
        i++;
    i++;
    while (i + 2 <= end && !(buf[i] == '\r' && buf[i + 1] == '\n')) {
        size_t ls = i;
        while (i < end && buf[i] != '\r')
            i++;
        if (i + 1 >= end)
            return -1;
        size_t le = i;
        i += 2;
        size_t colon = ls;
        while (colon < le && buf[colon] != ':')
            colon++;
        if (colon == le)
            return -1;
        size_t vs = colon + 1, ve = le;
        while (vs < ve && buf[vs] == ' ')
            vs++;
        while (ve > vs && buf[ve - 1] == ' ')
            ve--;
        const uint8_t *name = buf + ls, *v = buf + vs;
        size_t nlen = colon - ls, vlen = ve - vs;
        if (same_ci(name, nlen, "upgrade") && has_token(v, vlen, "websocket"))
            valid |= H_UPGRADE;
        else if (same_ci(name, nlen, "connection") && has_token(v, vlen, "upgrade"))
            valid |= H_CONNECTION;
        else if (same_ci(name, nlen, "sec-websocket-accept") && vlen == WS_ACCEPT_TEXT &&
                 memcmp(v, want, WS_ACCEPT_TEXT) == 0)
            valid |= H_KEY;
    }
    if (valid != (H_UPGRADE | H_CONNECTION | H_KEY))
        return -1;
    *head_size = end;
    return 1;
}

/* ---- frames (RFC 6455, 5.2) ------------------------------------------------ */

long ws_frame_parse(const uint8_t *buf, size_t n, bool from_client, size_t max_payload,
                    ws_frame *f)
{
    if (n < 2)
        return WS_FRAME_MORE;
    bool fin = buf[0] & 0x80;
    uint8_t op = buf[0] & 0x0f;
    bool masked = buf[1] & 0x80;
    if (buf[0] & 0x70)
        return WS_FRAME_RESERVED;
    bool control = op >= 0x8;
    if (control) {
        if (op != WS_OP_CLOSE && op != WS_OP_PING && op != WS_OP_PONG)
            return WS_FRAME_OPCODE;
        if (!fin || (buf[1] & 0x7f) > 125)
            return WS_FRAME_CONTROL;
    } else {
        if (op == WS_OP_CONTINUATION || !fin)
            return WS_FRAME_FRAGMENTED;
        if (op != WS_OP_BINARY)
            return WS_FRAME_OPCODE;
    }
    if (from_client && !masked)
        return WS_FRAME_UNMASKED;
    if (!from_client && masked)
        return WS_FRAME_MASKED;
    uint64_t len = buf[1] & 0x7f;
    size_t h = 2;
    if (len == 126) {
        if (n < 4)
            return WS_FRAME_MORE;
        len = (uint64_t)buf[2] << 8 | buf[3];
        if (len < 126)
            return WS_FRAME_LENGTH;
        h = 4;
    } else if (len == 127) {
        if (n < 10)
            return WS_FRAME_MORE;
        len = 0;
        for (int i = 0; i < 8; i++)
            len = len << 8 | buf[2 + i];
        if (len >> 63 || len <= 0xffff)
            return WS_FRAME_LENGTH;
        h = 10;
    }
    if (len > max_payload)
        return WS_FRAME_TOO_BIG;
    if (masked) {
        if (n < h + 4)
            return WS_FRAME_MORE;
        memcpy(f->mask, buf + h, 4);
        h += 4;
    } else {
        memset(f->mask, 0, 4);
    }
    if (n - h < len)
        return WS_FRAME_MORE;
    f->opcode = op;
    f->masked = masked;
    f->header_size = h;
    f->payload_size = (size_t)len;
    return (long)(h + (size_t)len);
}

void ws_mask(uint8_t *data, size_t n, const uint8_t mask[4])
{
    for (size_t i = 0; i < n; i++)
        data[i] ^= mask[i & 3];
}

size_t ws_frame_write(uint8_t *out, size_t cap, uint8_t opcode, const uint8_t *payload, size_t n,
                      const uint8_t *mask)
{
    size_t h = 2 + (n > 0xffff ? 8 : n > 125 ? 2 : 0) + (mask ? 4 : 0);
    if (cap < h || cap - h < n)
        return 0;
    out[0] = (uint8_t)(0x80 | (opcode & 0x0f));
    uint8_t m = mask ? 0x80 : 0;
    size_t i = 2;
    if (n > 0xffff) {
        out[1] = m | 127;
        for (int k = 7; k >= 0; k--)
            out[i++] = (uint8_t)((uint64_t)n >> (8 * k));
    } else if (n > 125) {
        out[1] = m | 126;
        out[i++] = (uint8_t)(n >> 8);
        out[i++] = (uint8_t)n;
    } else {
        out[1] = (uint8_t)(m | n);
    }
    if (mask) {
        memcpy(out + i, mask, 4);
        i += 4;
    }
    if (n) {
        memcpy(out + i, payload, n);
        if (mask)
            ws_mask(out + i, n, mask);
    }
    return i + n;
}

const char *ws_frame_result_name(long r)
{
    switch (r) {
    case WS_FRAME_MORE: return "incomplete";
    case WS_FRAME_RESERVED: return "reserved bits";
    case WS_FRAME_OPCODE: return "opcode";
    case WS_FRAME_FRAGMENTED: return "fragmented";
    case WS_FRAME_CONTROL: return "control frame";
    case WS_FRAME_TOO_BIG: return "too big";
    case WS_FRAME_LENGTH: return "length form";
    case WS_FRAME_UNMASKED: return "unmasked";
    case WS_FRAME_MASKED: return "masked";
    default: return r > 0 ? "frame" : "unknown";
    }
}
