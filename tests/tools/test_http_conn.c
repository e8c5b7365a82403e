/* SPDX-License-Identifier: MIT */
/*
 * test_http_conn.c — tempo's non-blocking HTTP/1.1 client
 * (tools/common/http_conn.h) against a scripted server in the same thread
 * (tests/support/fake_http.h): answers by length, by chunks and until
 * close, keep-alive, streamed lines, and every broken or hostile answer
 * failing the request with its reason, without harm to the next one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_http.h"
#include "http_conn.h"
#include "platform.h"

/* What the server answers every request with, verbatim. */
static const char *script;
static size_t script_len;
static bool script_close; /* the server closes after answering */

static long answer_script(fake_http *f, const fake_request *r, char *out, size_t cap)
{
    (void)r;
    f->close_after = script_close;
    if (!script)
        return 0;
    size_t n = script_len ? script_len : strlen(script);
    if (n > cap)
        n = cap;
    memcpy(out, script, n);
    return (long)n;
}

static uint64_t now_us(void)
{
    return platform_now_us();
}

/* Step the client (and the server) until an event or max_ms. */
static http_event drive(http_conn *c, fake_http *f, int max_ms)
{
    uint64_t until = now_us() + (uint64_t)max_ms * 1000u;
    for (;;) {
        fake_step(f);
        http_event ev = http_conn_step(c, now_us());
        if (ev != HTTP_NOTHING)
            return ev;
        if (now_us() >= until)
            return HTTP_NOTHING;
        platform_sleep_until_us(now_us() + 500);
    }
}

typedef struct rig {
    fake_http f;
    http_conn c;
} rig;

static rig *rig_open(size_t body_cap, uint32_t timeout_ms)
{
    rig *g = calloc(1, sizeof *g);
    assert_non_null(g);
    assert_true(fake_open(&g->f, 0, answer_script, NULL));
    tempo_address to = tempo_address_ipv4(127, 0, 0, 1, (uint16_t)g->f.port);
    assert_true(http_conn_init(&g->c, &to, NULL, body_cap, timeout_ms));
    return g;
}

static void rig_close(rig *g)
{
    http_conn_free(&g->c);
    fake_close(&g->f);
    free(g);
}

static http_event ask(rig *g, const char *method, const char *path, bool stream)
{
    assert_true(http_conn_request(&g->c, method, path, NULL, "{}", 2, stream, now_us()));
    http_event ev = drive(&g->c, &g->f, 3000);
    if (ev == HTTP_FAILED)
        print_message("%s %s failed: %s\n", method, path, g->c.why);
    return ev;
}

static void test_answers_by_length_by_chunks_and_until_close(void **state)
{
    (void)state;
    rig *g = rig_open(4096, 2000);
    script = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-Other: x\r\n\r\n{\"a\":\"bc\"}!";
    assert_int_equal(ask(g, "POST", "/ready", false), HTTP_RESPONSE);
    assert_int_equal(g->c.status, 200);
    assert_string_equal(g->c.body, "{\"a\":\"bc\"}!");
    assert_string_equal(g->f.log[0].method, "POST");
    assert_string_equal(g->f.log[0].path, "/ready");
    assert_string_equal(g->f.log[0].body, "{}");
    /* keep-alive: the second request rides the same connection */
    script = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n1;ext=1\r\nd\r\n"
             "0\r\nTrailer: t\r\n\r\n";
    assert_int_equal(ask(g, "GET", "/gameserver", false), HTTP_RESPONSE);
    assert_string_equal(g->c.body, "abcd");
    assert_int_equal(g->f.accepted, 1);
    /* an interim 100 then the answer; then no length: until the server closes */
    script = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\nnone";
    script_close = true;
    assert_int_equal(ask(g, "GET", "/x", false), HTTP_RESPONSE);
    script_close = false;
    assert_int_equal(g->c.status, 404);
    assert_string_equal(g->c.body, "none");
    script = "HTTP/1.0 204 No Content\r\n\r\n";
    assert_int_equal(ask(g, "GET", "/y", false), HTTP_RESPONSE);
    assert_int_equal(g->c.status, 204);
    assert_int_equal(g->c.body_len, 0);
    assert_int_equal(g->f.accepted, 2); /* Connection: close made a new one */
    rig_close(g);
}

/* The server sends the answer a byte at a time: it is put together. */
static void test_an_answer_in_single_bytes_is_put_together(void **state)
{
    (void)state;
    rig *g = rig_open(4096, 3000);
    script = NULL;
    assert_true(http_conn_request(&g->c, "POST", "/health", NULL, "{}", 2, false, now_us()));
    const char *a = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    http_event ev = HTTP_NOTHING;
    for (size_t i = 0; a[i] && ev == HTTP_NOTHING;) {
        fake_step(&g->f);
        ev = http_conn_step(&g->c, now_us());
        if (g->f.nlog > 0)
            fake_send(&g->f, g->f.log[0].conn, a + i++, 1);
        platform_sleep_until_us(now_us() + 200);
        if (ev == HTTP_NOTHING)
            ev = http_conn_step(&g->c, now_us());
    }
    if (ev == HTTP_NOTHING)
        ev = drive(&g->c, &g->f, 1000);
    assert_int_equal(ev, HTTP_RESPONSE);
    assert_string_equal(g->c.body, "hello");
    rig_close(g);
}

/* A body larger than the cap is read to its end and cut: body_over, and
 * the connection stays usable. */
static void test_a_body_past_the_cap_is_cut_not_failed(void **state)
{
    (void)state;
    rig *g = rig_open(16, 2000);
    static char big[200];
    int n = snprintf(big, sizeof big, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
    memset(big + n, 'x', 100);
    script = big;
    script_len = (size_t)n + 100;
    assert_int_equal(ask(g, "GET", "/gameserver", false), HTTP_RESPONSE);
    script_len = 0;
    assert_true(g->c.body_over);
    assert_int_equal(g->c.body_len, 16);
    script = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    assert_int_equal(ask(g, "GET", "/gameserver", false), HTTP_RESPONSE);
    assert_false(g->c.body_over);
    assert_string_equal(g->c.body, "ok");
    assert_int_equal(g->f.accepted, 1);
    rig_close(g);
}

/* A stream's lines come one per event, however the chunks cut them; a
 * line longer than the cap is dropped and counted, the next one is whole. */
static void test_a_stream_comes_as_lines(void **state)
{
    (void)state;
    rig *g = rig_open(32, 1000);
    script = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\none\n\r\n";
    assert_int_equal(ask(g, "GET", "/watch/gameserver", true), HTTP_LINE);
    assert_string_equal(g->c.body, "one");
    int conn = g->f.log[0].conn;
    fake_send_text(&g->f, conn, "6\r\ntwo\nth\r\n5\r\nree\r\n\r\n");
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_LINE);
    assert_string_equal(g->c.body, "two");
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_LINE);
    assert_string_equal(g->c.body, "three"); /* "\r\n" inside a chunk ends the line too */
    /* quiet for longer than the timeout: a stream past its headers waits */
    assert_int_equal(drive(&g->c, &g->f, 1300), HTTP_NOTHING);
    char chunk[128];
    snprintf(chunk, sizeof chunk, "2e\r\n%040d\nfour\n\r\n", 7); /* 46 bytes */
    fake_send_text(&g->f, conn, chunk);
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_LINE);
    assert_true(g->c.body_over); /* the 40-byte line, cut: the caller drops it */
    assert_int_equal(g->c.lines_dropped, 1);
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_LINE);
    assert_false(g->c.body_over);
    assert_string_equal(g->c.body, "four");
    /* the stream ends: the response is over */
    fake_send_text(&g->f, conn, "0\r\n\r\n");
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_RESPONSE);
    assert_int_equal(g->c.status, 200);
    rig_close(g);
}

typedef struct hostile {
    const char *name;
    const char *answer;
    const char *why; /* part of the reason */
} hostile;

/* Each broken answer fails its request with a reason and closes the
 * connection; the next request (a good answer) goes through on a new one. */
static void test_hostile_answers_fail_the_request_and_nothing_else(void **state)
{
    (void)state;
    static char long_header[10000], many_headers[4000];
    int n = snprintf(long_header, sizeof long_header, "HTTP/1.1 200 OK\r\nX: ");
    memset(long_header + n, 'a', 9000);
    strcpy(long_header + n + 9000, "\r\n\r\n");
    n = snprintf(many_headers, sizeof many_headers, "HTTP/1.1 200 OK\r\n");
    for (int i = 0; i < 70; i++)
        n += snprintf(many_headers + n, sizeof many_headers - (size_t)n, "X-%d: y\r\n", i);
    snprintf(many_headers + n, sizeof many_headers - (size_t)n, "\r\n");
    const hostile cases[] = {
        {"headers too long", long_header, "longer than 8192"},
        {"too many header lines", many_headers, "more than 64 header lines"},
        {"status of 4 digits", "HTTP/1.1 2000 OK\r\n\r\n", "status line"},
        {"not HTTP", "FTP/1.0 200 OK\r\n\r\n", "status line"},
        {"status of 2 digits", "HTTP/1.1 20 OK\r\n\r\n", "status line"},
        {"status 999", "HTTP/1.1 999 What\r\n\r\n", "status line"},
        {"length not digits", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length"},
        {"length too long", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
         "Content-Length"},
        {"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab",
         "two different"},
        {"gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "Transfer-Encoding"},
        {"chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
         "chunk size"},
        {"chunk size of 17 digits",
         "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", "chunk size"},
        {"chunk longer than its size",
         "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "longer than its size"},
        {"header without a colon", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed header"},
        {"control byte in a value", "HTTP/1.1 200 OK\r\nX: a\x01z\r\n\r\n", "control character"},
        {"closed mid-body", "HTTP/1.1 200 OK\r\nContent-Length: 50\r\nConnection: close\r\n\r\nshort",
         NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rig *g = rig_open(4096, 1000);
        script = cases[i].answer;
        http_event ev = ask(g, "POST", "/ready", false);
        if (ev != HTTP_FAILED)
            fail_msg("%s: event %d, status %d", cases[i].name, (int)ev, g->c.status);
        if (cases[i].why && !strstr(g->c.why, cases[i].why))
            fail_msg("%s: reason '%s'", cases[i].name, g->c.why);
        assert_int_equal(g->c.fd, -1);
        assert_false(g->c.busy);
        script = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        if (i + 1 == sizeof cases / sizeof cases[0]) /* the server closed: reconnect */
            assert_int_equal(ask(g, "POST", "/ready", false), HTTP_RESPONSE);
        else
            assert_int_equal(ask(g, "POST", "/ready", false), HTTP_RESPONSE);
        assert_string_equal(g->c.body, "ok");
        rig_close(g);
    }
}

/* No answer, or one trickling in for longer than the timeout, fails; so
 * does a connection nobody listens for, and bytes with no request out. */
static void test_silence_refusal_and_stray_bytes_fail_with_their_reason(void **state)
{
    (void)state;
    rig *g = rig_open(4096, 300);
    script = NULL; /* the server hangs */
    assert_true(http_conn_request(&g->c, "POST", "/ready", NULL, "{}", 2, false, now_us()));
    assert_int_equal(drive(&g->c, &g->f, 2000), HTTP_FAILED);
    assert_non_null(strstr(g->c.why, "no whole response within the timeout"));
    /* trickle: a header line every 100 ms, never ending */
    assert_true(http_conn_request(&g->c, "POST", "/ready", NULL, "{}", 2, false, now_us()));
    http_event ev = HTTP_NOTHING;
    bool status_sent = false;
    for (int i = 0; i < 30 && ev == HTTP_NOTHING; i++) {
        fake_step(&g->f);
        int c = g->f.nlog > 1 ? g->f.log[1].conn : -1;
        if (c >= 0)
            fake_send_text(&g->f, c, status_sent ? "X-Slow: 1\r\n" : "HTTP/1.1 200 OK\r\n");
        status_sent = status_sent || c >= 0;
        ev = drive(&g->c, &g->f, 100);
    }
    assert_int_equal(ev, HTTP_FAILED);
    if (!strstr(g->c.why, "timeout"))
        fail_msg("trickle: %s", g->c.why);
    /* bytes with no request out */
    script = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    assert_int_equal(ask(g, "POST", "/ready", false), HTTP_RESPONSE);
    fake_send_text(&g->f, g->f.log[g->f.nlog - 1].conn, "HTTP/1.1 200 OK\r\n\r\n");
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_FAILED);
    assert_non_null(strstr(g->c.why, "no request out"));
    /* nobody listening */
    int port = g->f.port;
    fake_close(&g->f);
    assert_true(fake_open(&g->f, 0, answer_script, NULL)); /* the rig's server again, elsewhere */
    http_conn c2;
    tempo_address dead = tempo_address_ipv4(127, 0, 0, 1, (uint16_t)port);
    assert_true(http_conn_init(&c2, &dead, "localhost", 64, 300));
    assert_true(http_conn_request(&c2, "POST", "/ready", NULL, NULL, 0, false, now_us()));
    assert_int_equal(drive(&c2, &g->f, 2000), HTTP_FAILED);
    assert_non_null(strstr(c2.why, "connect"));
    assert_false(c2.busy);
    /* a request that does not fit is refused before anything is sent */
    static char huge[HTTP_REQUEST_MAX];
    memset(huge, 'a', sizeof huge);
    assert_false(http_conn_request(&c2, "PUT", "/metadata/label", NULL, huge, sizeof huge, false,
                                   now_us()));
    assert_false(c2.busy);
    http_conn_free(&c2);
    rig_close(g);
}

/* Hostile streams: a line that never ends costs no memory past the cap
 * and the connection goes on reading; a stream of many lines comes out
 * one line per step. */
static void test_a_line_that_never_ends_is_bounded(void **state)
{
    (void)state;
    rig *g = rig_open(64, 1000);
    script = "HTTP/1.1 200 OK\r\n\r\n"; /* no length: a stream until close */
    assert_true(http_conn_request(&g->c, "GET", "/watch/gameserver", NULL, NULL, 0, true, now_us()));
    assert_int_equal(drive(&g->c, &g->f, 200), HTTP_NOTHING);
    int conn = g->f.log[0].conn;
    static char junk[100000];
    memset(junk, 'j', sizeof junk);
    for (int i = 0; i < 10; i++) {
        fake_send(&g->f, conn, junk, sizeof junk);
        assert_int_equal(drive(&g->c, &g->f, 20), HTTP_NOTHING);
    }
    assert_true(g->c.body_over);
    assert_int_equal(g->c.body_len, 64);
    fake_send_text(&g->f, conn, "\nnext\n");
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_LINE);
    assert_true(g->c.body_over);
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_LINE);
    assert_string_equal(g->c.body, "next");
    fake_drop(&g->f, conn);
    assert_int_equal(drive(&g->c, &g->f, 1000), HTTP_RESPONSE); /* the close ends it */
    rig_close(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answers_by_length_by_chunks_and_until_close),
        cmocka_unit_test(test_an_answer_in_single_bytes_is_put_together),
        cmocka_unit_test(test_a_body_past_the_cap_is_cut_not_failed),
        cmocka_unit_test(test_a_stream_comes_as_lines),
        cmocka_unit_test(test_hostile_answers_fail_the_request_and_nothing_else),
        cmocka_unit_test(test_silence_refusal_and_stray_bytes_fail_with_their_reason),
        cmocka_unit_test(test_a_line_that_never_ends_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
