/* SPDX-License-Identifier: MIT */
/*
 * test_ws_frame.c — RFC 6455's bytes (tools/common/ws_frame.h): SHA-1
 * against FIPS 180's examples, base64 against RFC 4648's, the accept value
 * and frames against RFC 6455's own examples, every refusal by its code,
 * and frames written then parsed back at every length class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ws_frame.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha1(const void *data, size_t n, const char *want)
{
    uint8_t dg[WS_SHA1_SIZE];
    char text[2 * WS_SHA1_SIZE + 1];
    ws_sha1(data, n, dg);
    hex(dg, sizeof dg, text);
    assert_string_equal(text, want);
}

static void test_sha1_matches_the_standard_examples(void **state)
{
    (void)state;
    check_sha1("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    check_sha1("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha1(two, strlen(two), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    /* one million 'a': many blocks */
    size_t n = 1000000;
    uint8_t *a = malloc(n);
    assert_non_null(a);
    memset(a, 'a', n);
    check_sha1(a, n, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    free(a);
    /* lengths around the padding's edges (55, 56, 63, 64 bytes) against
     * the two-block example cut short: digests all differ */
    uint8_t prev[WS_SHA1_SIZE] = {0}, dg[WS_SHA1_SIZE];
    for (size_t k = 54; k <= 65; k++) {
        ws_sha1((const uint8_t *)two, k < strlen(two) ? k : strlen(two), dg);
        if (k < strlen(two))
            assert_memory_not_equal(dg, prev, sizeof dg);
        memcpy(prev, dg, sizeof dg);
    }
}

static void test_base64_matches_rfc4648(void **state)
{
    (void)state;
    static const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char buf[16];
        size_t n = ws_base64((const uint8_t *)in[i], strlen(in[i]), buf, sizeof buf);
        assert_int_equal(n, strlen(out[i]));
        assert_string_equal(buf, out[i]);
    }
    char small[4];
    assert_int_equal(ws_base64((const uint8_t *)"foo", 3, small, sizeof small), 0);
}

/* RFC 6455 1.3's example request and its accept value. */
static const char rfc_request[] = "GET /chat HTTP/1.1\r\n"
                                  "Host: server.example.com\r\n"
                                  "Upgrade: websocket\r\n"
                                  "Connection: Upgrade\r\n"
                                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                  "Origin: http://example.com\r\n"
                                  "Sec-WebSocket-Protocol: chat, superchat\r\n"
                                  "Sec-WebSocket-Version: 13\r\n"
                                  "\r\n";

static void test_the_rfc_handshake_is_accepted_with_its_accept_value(void **state)
{
    (void)state;
    char accept[WS_ACCEPT_TEXT + 1];
    assert_true(ws_accept_for("dGhlIHNhbXBsZSBub25jZQ==", 24, accept));
    assert_string_equal(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    ws_request rq;
    size_t n = sizeof rfc_request - 1;
    assert_int_equal(ws_request_parse((const uint8_t *)rfc_request, n, 2048, &rq), WS_REQ_UPGRADE);
    assert_string_equal(rq.path, "/chat");
    assert_string_equal(rq.key, "dGhlIHNhbXBsZSBub25jZQ==");
    assert_true(rq.has_origin);
    assert_string_equal(rq.origin, "http://example.com");
    assert_int_equal(rq.head_size, n);
    /* every prefix is "more", never a verdict */
    for (size_t k = 0; k < n; k++)
        assert_int_equal(ws_request_parse((const uint8_t *)rfc_request, k, 2048, &rq), WS_REQ_MORE);
    /* the answer carries the accept value, and a client checks it */
    char answer[256];
    size_t an = ws_response_write(rq.key, answer, sizeof answer);
    assert_true(an > 0);
    assert_non_null(strstr(answer, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));
    size_t head = 0;
    assert_int_equal(ws_response_check((const uint8_t *)answer, an, 2048, rq.key, &head), 1);
    assert_int_equal(head, an);
    assert_int_equal(ws_response_check((const uint8_t *)answer, an, 2048,
                                       "AAAAAAAAAAAAAAAAAAAAAA==", &head), -1);
}

/* The RFC request with one line replaced by `line` (or dropped when "") */
static ws_request_result parse_with(const char *from, const char *line)
{
    static char buf[1024];
    const char *at = strstr(rfc_request, from);
    assert_non_null(at);
    const char *eol = strstr(at, "\r\n") + 2;
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - rfc_request), rfc_request, line, eol);
    ws_request rq;
    return ws_request_parse((const uint8_t *)buf, strlen(buf), 2048, &rq);
}

static void test_bad_handshakes_are_refused(void **state)
{
    (void)state;
    assert_int_equal(parse_with("GET", "POST /chat HTTP/1.1\r\n"), WS_REQ_BAD);
    assert_int_equal(parse_with("GET", "GET /chat HTTP/1.0\r\n"), WS_REQ_BAD);
    assert_int_equal(parse_with("GET", "GET chat HTTP/1.1\r\n"), WS_REQ_BAD);
    assert_int_equal(parse_with("Upgrade:", "Upgrade: h2c\r\n"), WS_REQ_BAD);
    assert_int_equal(parse_with("Connection:", "Connection: keep-alive\r\n"), WS_REQ_BAD);
    assert_int_equal(parse_with("Connection:", ""), WS_REQ_BAD);
    assert_int_equal(parse_with("Sec-WebSocket-Version:", "Sec-WebSocket-Version: 8\r\n"),
                     WS_REQ_BAD);
    assert_int_equal(parse_with("Sec-WebSocket-Key:", "Sec-WebSocket-Key: short==\r\n"),
                     WS_REQ_BAD);
    assert_int_equal(parse_with("Sec-WebSocket-Key:",
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25j*Q==\r\n"),
                     WS_REQ_BAD);
    assert_int_equal(parse_with("Sec-WebSocket-Key:", ""), WS_REQ_BAD);
    assert_int_equal(parse_with("Host:", ""), WS_REQ_BAD);
    assert_int_equal(parse_with("Host:", "Host server.example.com\r\n"), WS_REQ_BAD);
    /* two keys: which one would the answer be for? */
    assert_int_equal(parse_with("Origin:", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"),
                     WS_REQ_BAD);
    /* case does not matter in names and tokens */
    assert_int_equal(parse_with("Connection:", "connection: keep-alive, UPGRADE\r\n"),
                     WS_REQ_UPGRADE);
    /* no Upgrade at all: a plain GET (a page), if it has a Host */
    ws_request rq;
    const char *page = "GET /index.html?bot=3 HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_int_equal(ws_request_parse((const uint8_t *)page, strlen(page), 2048, &rq),
                     WS_REQ_PLAIN_GET);
    assert_string_equal(rq.path, "/index.html"); /* the query is the page's */
    /* a head that does not end within the limit */
    char big[600];
    memset(big, 'a', sizeof big);
    memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
    assert_int_equal(ws_request_parse((const uint8_t *)big, sizeof big, 512, &rq), WS_REQ_TOO_LONG);
    assert_int_equal(ws_request_parse((const uint8_t *)big, 300, 512, &rq), WS_REQ_MORE);
    /* an Origin too long to compare */
    char longo[300];
    memset(longo, 'o', sizeof longo);
    snprintf(longo, sizeof longo, "Origin: http://%0200d\r\n", 0);
    assert_int_equal(parse_with("Origin:", longo), WS_REQ_BAD);
}

static void test_the_rfc_frames_parse(void **state)
{
    (void)state;
    ws_frame f;
    /* 5.7: a masked "Hello" (as binary: tempo refuses text) */
    uint8_t masked[] = {0x82, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
    assert_int_equal(ws_frame_parse(masked, sizeof masked, true, 1200, &f), sizeof masked);
    assert_int_equal(f.opcode, WS_OP_BINARY);
    assert_int_equal(f.header_size, 6);
    assert_int_equal(f.payload_size, 5);
    ws_mask(masked + 6, 5, f.mask);
    assert_memory_equal(masked + 6, "Hello", 5);
    /* the same from a server: unmasked; a client refuses a masked one */
    uint8_t plain[] = {0x82, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
    assert_int_equal(ws_frame_parse(plain, sizeof plain, false, 1200, &f), sizeof plain);
    assert_int_equal(ws_frame_parse(plain, sizeof plain, true, 1200, &f), WS_FRAME_UNMASKED);
    uint8_t masked2[] = {0x82, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58};
    assert_int_equal(ws_frame_parse(masked2, sizeof masked2, false, 1200, &f), WS_FRAME_MASKED);
    /* the text "Hello" of 5.7 is refused: tempo speaks binary */
    uint8_t text[] = {0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
    assert_int_equal(ws_frame_parse(text, sizeof text, false, 1200, &f), WS_FRAME_OPCODE);
    /* 5.7: a fragmented text message, its first frame */
    uint8_t frag[] = {0x01, 0x03, 0x48, 0x65, 0x6c};
    assert_int_equal(ws_frame_parse(frag, sizeof frag, false, 1200, &f), WS_FRAME_FRAGMENTED);
    uint8_t cont[] = {0x80, 0x02, 0x6c, 0x6f};
    assert_int_equal(ws_frame_parse(cont, sizeof cont, false, 1200, &f), WS_FRAME_FRAGMENTED);
    /* 5.7: an unmasked ping "Hello" from a server */
    uint8_t ping[] = {0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
    assert_int_equal(ws_frame_parse(ping, sizeof ping, false, 1200, &f), sizeof ping);
    assert_int_equal(f.opcode, WS_OP_PING);
    /* 5.7: 256 bytes in one binary frame: the 16-bit length */
    uint8_t h256[] = {0x82, 0x7e, 0x01, 0x00};
    assert_int_equal(ws_frame_parse(h256, sizeof h256, false, 1200, &f), WS_FRAME_MORE);
    assert_int_equal(ws_frame_parse(h256, sizeof h256, false, 255, &f), WS_FRAME_TOO_BIG);
    /* 5.7: 64 KiB: the 64-bit length, over any limit of tempo's */
    uint8_t h64k[] = {0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0};
    assert_int_equal(ws_frame_parse(h64k, sizeof h64k, false, 1200, &f), WS_FRAME_TOO_BIG);
    assert_int_equal(ws_frame_parse(h64k, 9, false, 1200, &f), WS_FRAME_MORE);
}

static void test_each_refusal_has_its_code(void **state)
{
    (void)state;
    ws_frame f;
    uint8_t rsv[] = {0xc2, 0x80, 1, 2, 3, 4};
    assert_int_equal(ws_frame_parse(rsv, sizeof rsv, true, 1200, &f), WS_FRAME_RESERVED);
    uint8_t op3[] = {0x83, 0x80, 1, 2, 3, 4};
    assert_int_equal(ws_frame_parse(op3, sizeof op3, true, 1200, &f), WS_FRAME_OPCODE);
    uint8_t opb[] = {0x8b, 0x80, 1, 2, 3, 4};
    assert_int_equal(ws_frame_parse(opb, sizeof opb, true, 1200, &f), WS_FRAME_OPCODE);
    uint8_t ping_nofin[] = {0x09, 0x80, 1, 2, 3, 4};
    assert_int_equal(ws_frame_parse(ping_nofin, sizeof ping_nofin, true, 1200, &f),
                     WS_FRAME_CONTROL);
    uint8_t ping_long[] = {0x89, 0xfe, 0x00, 0x7e};
    assert_int_equal(ws_frame_parse(ping_long, sizeof ping_long, true, 1200, &f), WS_FRAME_CONTROL);
    uint8_t unmasked[] = {0x82, 0x01, 0x00};
    assert_int_equal(ws_frame_parse(unmasked, sizeof unmasked, true, 1200, &f), WS_FRAME_UNMASKED);
    uint8_t long16[] = {0x82, 0xfe, 0x00, 0x10};
    assert_int_equal(ws_frame_parse(long16, sizeof long16, true, 1200, &f), WS_FRAME_LENGTH);
    uint8_t long64[] = {0x82, 0xff, 0, 0, 0, 0, 0, 0, 0x04, 0x00};
    assert_int_equal(ws_frame_parse(long64, sizeof long64, true, 1200, &f), WS_FRAME_LENGTH);
    uint8_t top64[] = {0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1};
    assert_int_equal(ws_frame_parse(top64, sizeof top64, true, 1200, &f), WS_FRAME_LENGTH);
    uint8_t big[] = {0x82, 0xfe, 0x04, 0xb1}; /* 1201 */
    assert_int_equal(ws_frame_parse(big, sizeof big, true, 1200, &f), WS_FRAME_TOO_BIG);
    /* the refusal comes before the payload: one header is enough */
    assert_int_equal(ws_frame_parse(big, 4, true, 1200, &f), WS_FRAME_TOO_BIG);
    assert_string_equal(ws_frame_result_name(WS_FRAME_UNMASKED), "unmasked");
}

static void test_written_frames_parse_back_at_every_length(void **state)
{
    (void)state;
    static uint8_t payload[70000], frame[70100], copy[70000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 7 + 3);
    size_t lengths[] = {0, 1, 125, 126, 127, 1200, 65535, 65536, 69999};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        size_t n = lengths[k];
        for (int masked = 0; masked < 2; masked++) {
            uint8_t mask[4] = {0x11, 0x22, 0x33, (uint8_t)(0x44 + k)};
            size_t w = ws_frame_write(frame, sizeof frame, WS_OP_BINARY, payload, n,
                                      masked ? mask : NULL);
            assert_true(w >= n + 2);
            ws_frame f;
            long r = ws_frame_parse(frame, w, masked, 70000, &f);
            assert_int_equal(r, (long)w);
            assert_int_equal(f.payload_size, n);
            memcpy(copy, frame + f.header_size, n);
            if (masked)
                ws_mask(copy, n, f.mask);
            assert_memory_equal(copy, payload, n);
            /* cut anywhere: more is needed, never a verdict */
            assert_int_equal(ws_frame_parse(frame, w - 1, masked, 70000, &f), WS_FRAME_MORE);
            /* too small a buffer writes nothing */
            assert_int_equal(ws_frame_write(frame, w - 1, WS_OP_BINARY, payload, n,
                                            masked ? mask : NULL), 0);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha1_matches_the_standard_examples),
        cmocka_unit_test(test_base64_matches_rfc4648),
        cmocka_unit_test(test_the_rfc_handshake_is_accepted_with_its_accept_value),
        cmocka_unit_test(test_bad_handshakes_are_refused),
        cmocka_unit_test(test_the_rfc_frames_parse),
        cmocka_unit_test(test_each_refusal_has_its_code),
        cmocka_unit_test(test_written_frames_parse_back_at_every_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
