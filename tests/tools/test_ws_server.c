/* SPDX-License-Identifier: MIT */
/*
 * test_ws_server.c — the relay's WebSocket server (tools/common/
 * ws_server.h) over loopback TCP, its clock given by the test: datagrams
 * both ways, ping and close; every hostile input refused, counted in its
 * own counter, while an honest connection beside it keeps flowing; the
 * slowloris deadlines; a full queue losing its oldest datagrams; a full
 * server; addresses that outlive their connection; the page files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ws_frame.h"
#include "ws_server.h"

#define T0 1000000000u /* the server's clock at the start, µs */

static ws_server *open_server(int max, int queue, const char *origins, const char *pages)
{
    ws_server_config cfg;
    ws_server_config_default(&cfg);
    cfg.bind = tempo_address_ipv4(127, 0, 0, 1, 0);
    cfg.max_connections = max;
    cfg.queue_datagrams = queue;
    cfg.origins = origins;
    cfg.page_dir = pages;
    char why[128];
    ws_server *s = ws_server_open(&cfg, why, sizeof why);
    if (!s)
        fprintf(stderr, "ws_server_open: %s\n", why);
    assert_non_null(s);
    return s;
}

static void nap(void)
{
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
}

static void pump(ws_server *s, uint64_t now)
{
    ws_server_poll(s, now);
    ws_server_flush(s, now);
}

static int raw_connect(ws_server *s)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(ws_server_port(s));
    a.sin_addr.s_addr = htonl(0x7f000001u);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

static void send_all(int fd, const void *data, size_t n)
{
    assert_int_equal(send(fd, data, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* Pump the server and read what fd gets, until `want` bytes or ~1 s.
 * Returns the bytes read; *eof is set when the server closed. */
static size_t pump_read(ws_server *s, uint64_t now, int fd, uint8_t *buf, size_t want, bool *eof)
{
    size_t got = 0;
    if (eof)
        *eof = false;
    for (int k = 0; k < 500 && got < want; k++) {
        pump(s, now);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 2) <= 0)
            continue;
        ssize_t r = recv(fd, buf + got, want - got, 0);
        if (r <= 0) {
            if (eof)
                *eof = true;
            break;
        }
        got += (size_t)r;
    }
    return got;
}

/* Read until the server closes the connection (true) or ~1 s passes;
 * the frames the server reads on the way must give no datagram. */
static bool closed_by_server(ws_server *s, uint64_t now, int fd)
{
    uint8_t junk[4096];
    bool eof = false;
    tempo_address from;
    for (int k = 0; k < 20 && !eof; k++) {
        pump_read(s, now, fd, junk, sizeof junk, &eof);
        assert_int_equal(ws_server_recv(s, &from, junk, sizeof junk), 0);
    }
    return eof;
}

/* Connect and upgrade (with Origin when given); returns the socket. */
static int upgrade(ws_server *s, uint64_t now, const char *origin)
{
    int fd = raw_connect(s);
    uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    char key_text[WS_KEY_TEXT + 1], req[512];
    size_t n = ws_client_request_write("127.0.0.1", "/", key, key_text, req, sizeof req);
    assert_true(n > 0);
    if (origin) {
        n -= 2;
        n += (size_t)snprintf(req + n, sizeof req - n, "Origin: %s\r\n\r\n", origin);
    }
    send_all(fd, req, n);
    uint8_t buf[512];
    size_t got = 0, head = 0;
    int r = 0;
    for (int k = 0; k < 400 && r == 0; k++) {
        got += pump_read(s, now, fd, buf + got, 1, NULL);
        r = ws_response_check(buf, got, sizeof buf, key_text, &head);
    }
    assert_int_equal(r, 1);
    assert_int_equal(head, got);
    return fd;
}

static void send_frame(int fd, uint8_t op, const void *payload, size_t n, bool masked)
{
    uint8_t frame[2048];
    uint8_t mask[4] = {0xa1, 0xb2, 0xc3, 0xd4};
    size_t w = ws_frame_write(frame, sizeof frame, op, payload, n, masked ? mask : NULL);
    assert_true(w > 0);
    send_all(fd, frame, w);
}

/* The server's next datagram, waiting up to ~1 s: its size, 0 if none. */
static int server_next(ws_server *s, uint64_t now, tempo_address *from, uint8_t *buf)
{
    for (int k = 0; k < 500; k++) {
        pump(s, now);
        int r = ws_server_recv(s, from, buf, TEMPO_MAX_DATAGRAM);
        if (r != 0)
            return r;
        nap();
    }
    return 0;
}

/* Read one server frame from fd: its opcode, payload into buf. */
static int client_frame(ws_server *s, uint64_t now, int fd, uint8_t *buf, size_t *n)
{
    uint8_t in[2048];
    size_t got = 0;
    for (int k = 0; k < 2000; k++) {
        ws_frame f;
        long r = ws_frame_parse(in, got, false, 2000, &f);
        assert_true(r >= 0);
        if (r > 0) {
            memcpy(buf, in + f.header_size, f.payload_size);
            *n = f.payload_size;
            return f.opcode;
        }
        got += pump_read(s, now, fd, in + got, 1, NULL);
    }
    fail_msg("no frame came");
    return -1;
}

static void test_datagrams_go_both_ways_and_pings_and_closes_are_answered(void **state)
{
    (void)state;
    ws_server *s = open_server(4, 16, NULL, NULL);
    int fd = upgrade(s, T0, NULL);
    send_frame(fd, WS_OP_BINARY, "abc", 3, true);
    send_frame(fd, WS_OP_BINARY, "defg", 4, true);
    tempo_address from, from2;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    assert_int_equal(server_next(s, T0, &from, buf), 3);
    assert_memory_equal(buf, "abc", 3);
    assert_true(ws_server_is_address(&from));
    assert_int_equal(server_next(s, T0, &from2, buf), 4);
    assert_memory_equal(buf, "defg", 4);
    assert_true(tempo_address_equal(&from, &from2));
    assert_int_equal(ws_server_send(s, &from, (const uint8_t *)"xyz", 3), 0);
    size_t n;
    assert_int_equal(client_frame(s, T0, fd, buf, &n), WS_OP_BINARY);
    assert_int_equal(n, 3);
    assert_memory_equal(buf, "xyz", 3);
    /* a ping is answered with its payload */
    send_frame(fd, WS_OP_PING, "p1", 2, true);
    assert_int_equal(server_next(s, T0, &from2, buf), 0);
    assert_int_equal(client_frame(s, T0, fd, buf, &n), WS_OP_PONG);
    assert_int_equal(n, 2);
    assert_memory_equal(buf, "p1", 2);
    /* a close is answered with its code, then the connection ends */
    uint8_t code[2] = {0x03, 0xe8};
    send_frame(fd, WS_OP_CLOSE, code, 2, true);
    assert_int_equal(server_next(s, T0, &from2, buf), 0);
    assert_int_equal(client_frame(s, T0, fd, buf, &n), WS_OP_CLOSE);
    assert_int_equal(n, 2);
    assert_memory_equal(buf, code, 2);
    assert_true(closed_by_server(s, T0, fd));
    ws_server_stats st;
    ws_server_get_stats(s, &st);
    assert_int_equal(st.upgraded, 1);
    assert_int_equal(st.datagrams_in, 2);
    assert_int_equal(st.datagrams_out, 1);
    assert_int_equal(st.pings, 1);
    assert_int_equal(st.closes_received, 1);
    assert_int_equal(st.open, 0);
    assert_int_equal(ws_server_refused(&st), 0);
    /* its address now names nothing */
    assert_int_equal(ws_server_send(s, &from, (const uint8_t *)"x", 1), TEMPO_E_ADDRESS);
    ws_server_get_stats(s, &st);
    assert_int_equal(st.send_unknown, 1);
    close(fd);
    ws_server_close(s);
}

/* One hostile connection: its bytes, the counter that must move. */
typedef struct hostile_case {
    const char *name;
    const uint8_t *bytes;
    size_t n;
    bool upgraded; /* sent after an upgrade (a frame), or instead of one */
    size_t counter; /* offsetof(ws_server_stats, ...) */
} hostile_case;

static void test_hostile_input_is_refused_counted_and_leaves_others_alone(void **state)
{
    (void)state;
    ws_server *s = open_server(8, 16, "https://game.example,null", NULL);
    int honest = upgrade(s, T0, "https://game.example");
    static const uint8_t bad_head[] = "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n";
    static const uint8_t unmasked[] = {0x82, 0x03, 'a', 'b', 'c'};
    static const uint8_t oversize[] = {0x82, 0xfe, 0x04, 0xb1, 1, 2, 3, 4}; /* 1201 bytes */
    static const uint8_t huge[] = {0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4};
    static const uint8_t frag_ping[] = {0x09, 0x81, 1, 2, 3, 4, 'x'};
    static const uint8_t text[] = {0x81, 0x81, 1, 2, 3, 4, 'x'};
    static const uint8_t frag_data[] = {0x02, 0x81, 1, 2, 3, 4, 'x'};
    static const uint8_t rsv[] = {0xa2, 0x81, 1, 2, 3, 4, 'x'};
    const hostile_case cases[] = {
        {"bad handshake", bad_head, sizeof bad_head - 1, false,
         offsetof(ws_server_stats, bad_handshake)},
        {"unmasked", unmasked, sizeof unmasked, true, offsetof(ws_server_stats, unmasked)},
        {"oversize", oversize, sizeof oversize, true, offsetof(ws_server_stats, oversize)},
        {"huge", huge, sizeof huge, true, offsetof(ws_server_stats, oversize)},
        {"fragmented ping", frag_ping, sizeof frag_ping, true,
         offsetof(ws_server_stats, control_fragmented)},
        {"text", text, sizeof text, true, offsetof(ws_server_stats, bad_frames)},
        {"fragmented data", frag_data, sizeof frag_data, true,
         offsetof(ws_server_stats, bad_frames)},
        {"reserved bits", rsv, sizeof rsv, true, offsetof(ws_server_stats, bad_frames)},
    };
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ws_server_stats before, after;
        ws_server_get_stats(s, &before);
        int fd = cases[i].upgraded ? upgrade(s, T0, NULL) : raw_connect(s);
        send_all(fd, cases[i].bytes, cases[i].n);
        /* the honest member's datagram still comes, and nothing else */
        uint8_t seq = (uint8_t)i;
        send_frame(honest, WS_OP_BINARY, &seq, 1, true);
        assert_int_equal(server_next(s, T0, &from, buf), 1);
        assert_int_equal(buf[0], seq);
        while (ws_server_recv(s, &from, buf, sizeof buf) != 0)
            fail_msg("%s: a datagram came from the hostile connection", cases[i].name);
        if (!closed_by_server(s, T0, fd))
            fail_msg("%s: the connection stayed open", cases[i].name);
        ws_server_get_stats(s, &after);
        uint64_t b = *(const uint64_t *)(const void *)((const char *)&before + cases[i].counter);
        uint64_t a = *(const uint64_t *)(const void *)((const char *)&after + cases[i].counter);
        if (a != b + 1)
            fail_msg("%s: its counter moved from %llu to %llu", cases[i].name,
                     (unsigned long long)b, (unsigned long long)a);
        assert_int_equal(ws_server_refused(&after), ws_server_refused(&before) + 1);
        assert_int_equal(after.datagrams_in, before.datagrams_in + 1);
        close(fd);
    }
    /* an Origin not on the list: 403; "null" (a file page) is on it */
    ws_server_stats st;
    int fd = raw_connect(s);
    static const char other[] = "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                                "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                "Origin: https://evil.example\r\n\r\n";
    send_all(fd, other, sizeof other - 1);
    uint8_t answer[64];
    bool eof;
    size_t got = pump_read(s, T0, fd, answer, 12, &eof);
    assert_int_equal(got, 12);
    assert_memory_equal(answer, "HTTP/1.1 403", 12);
    assert_true(closed_by_server(s, T0, fd));
    close(fd);
    close(upgrade(s, T0, "null"));
    ws_server_get_stats(s, &st);
    assert_int_equal(st.bad_origin, 1);
    /* and the honest member goes on */
    send_frame(honest, WS_OP_BINARY, "ok", 2, true);
    assert_int_equal(server_next(s, T0, &from, buf), 2);
    assert_int_equal(ws_server_send(s, &from, (const uint8_t *)"back", 4), 0);
    size_t n;
    assert_int_equal(client_frame(s, T0, honest, buf, &n), WS_OP_BINARY);
    assert_memory_equal(buf, "back", 4);
    close(honest);
    ws_server_close(s);
}

static void test_slow_heads_frames_and_silence_are_cut_off(void **state)
{
    (void)state;
    ws_server *s = open_server(8, 16, NULL, NULL);
    /* half a head, then nothing: 408 after the handshake time (3 s) */
    int slow_head = raw_connect(s);
    send_all(slow_head, "GET / HTTP/1.1\r\nHost: x\r\n", 25);
    pump(s, T0);
    pump(s, T0 + 2900000u);
    ws_server_stats st;
    ws_server_get_stats(s, &st);
    assert_int_equal(st.handshake_timeouts, 0);
    uint8_t answer[16];
    bool eof;
    assert_int_equal(pump_read(s, T0 + 3100000u, slow_head, answer, 12, &eof), 12);
    assert_memory_equal(answer, "HTTP/1.1 408", 12);
    ws_server_get_stats(s, &st);
    assert_int_equal(st.handshake_timeouts, 1);
    close(slow_head);
    /* a frame begun, its payload never finished: cut after 2 s */
    int slow_frame = upgrade(s, T0, NULL);
    static const uint8_t part[] = {0x82, 0x8a, 1, 2, 3, 4, 'a', 'b'}; /* 10 bytes promised */
    send_all(slow_frame, part, sizeof part);
    tempo_address from;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    assert_int_equal(server_next(s, T0, &from, buf), 0); /* seen, incomplete */
    pump(s, T0 + 1900000u);
    ws_server_get_stats(s, &st);
    assert_int_equal(st.frame_timeouts, 0);
    pump(s, T0 + 2100000u);
    assert_true(closed_by_server(s, T0 + 2100000u, slow_frame));
    ws_server_get_stats(s, &st);
    assert_int_equal(st.frame_timeouts, 1);
    close(slow_frame);
    /* an open connection silent for 10 s is closed */
    int quiet = upgrade(s, T0, NULL);
    pump(s, T0 + 9000000u);
    ws_server_get_stats(s, &st);
    assert_int_equal(st.idle_timeouts, 0);
    assert_true(closed_by_server(s, T0 + 10100000u, quiet));
    ws_server_get_stats(s, &st);
    assert_int_equal(st.idle_timeouts, 1);
    assert_int_equal(st.open, 0);
    close(quiet);
    ws_server_close(s);
}

static void test_a_full_queue_loses_its_oldest_datagrams(void **state)
{
    (void)state;
    ws_server *s = open_server(4, 8, NULL, NULL);
    int fd = upgrade(s, T0, NULL);
    send_frame(fd, WS_OP_BINARY, "hi", 2, true);
    tempo_address to;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    assert_int_equal(server_next(s, T0, &to, buf), 2);
    /* 20 datagrams with no flush between: the queue holds 8 */
    for (uint8_t i = 0; i < 20; i++)
        assert_int_equal(ws_server_send(s, &to, &i, 1), 0);
    ws_server_stats st;
    ws_server_get_stats(s, &st);
    assert_int_equal(st.out_dropped, 12);
    assert_int_equal(st.datagrams_out, 20);
    for (uint8_t want = 12; want < 20; want++) {
        size_t n;
        assert_int_equal(client_frame(s, T0, fd, buf, &n), WS_OP_BINARY);
        assert_int_equal(n, 1);
        assert_int_equal(buf[0], want);
    }
    /* a pong at the head must go: the datagrams behind it make the room */
    send_frame(fd, WS_OP_PING, "p", 1, true);
    for (int k = 0; k < 500 && st.pings == 0; k++) {
        ws_server_poll(s, T0); /* read, and no flush */
        assert_int_equal(ws_server_recv(s, &to, buf, sizeof buf), 0);
        ws_server_get_stats(s, &st);
        nap();
    }
    assert_int_equal(st.pings, 1);
    for (uint8_t i = 0; i < 20; i++)
        assert_int_equal(ws_server_send(s, &to, &i, 1), 0);
    ws_server_get_stats(s, &st);
    assert_int_equal(st.out_dropped, 12 + 13);
    size_t n;
    assert_int_equal(client_frame(s, T0, fd, buf, &n), WS_OP_PONG);
    for (uint8_t want = 13; want < 20; want++) {
        assert_int_equal(client_frame(s, T0, fd, buf, &n), WS_OP_BINARY);
        assert_int_equal(buf[0], want);
    }
    close(fd);
    ws_server_close(s);
}

static void test_a_full_server_closes_one_more_and_slots_get_new_names(void **state)
{
    (void)state;
    ws_server *s = open_server(2, 4, NULL, NULL);
    int a = upgrade(s, T0, NULL);
    int b = upgrade(s, T0, NULL);
    int c = raw_connect(s);
    assert_true(closed_by_server(s, T0, c));
    close(c);
    ws_server_stats st;
    ws_server_get_stats(s, &st);
    assert_int_equal(st.refused_full, 1);
    assert_int_equal(st.open, 2);
    /* a's slot, once free, serves another connection under another name */
    tempo_address old, fresh;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    send_frame(a, WS_OP_BINARY, "a", 1, true);
    assert_int_equal(server_next(s, T0, &old, buf), 1);
    close(a);
    for (int k = 0; k < 100 && st.open == 2; k++) {
        pump(s, T0);
        nap();
        ws_server_get_stats(s, &st);
    }
    assert_int_equal(st.open, 1);
    int d = upgrade(s, T0, NULL);
    send_frame(d, WS_OP_BINARY, "d", 1, true);
    assert_int_equal(server_next(s, T0, &fresh, buf), 1);
    assert_false(tempo_address_equal(&old, &fresh));
    assert_int_equal(ws_server_send(s, &old, (const uint8_t *)"x", 1), TEMPO_E_ADDRESS);
    assert_int_equal(ws_server_send(s, &fresh, (const uint8_t *)"y", 1), 0);
    close(b);
    close(d);
    ws_server_close(s);
}

static void test_plain_gets_are_served_from_the_page_folder_only(void **state)
{
    (void)state;
    char dir[] = "/tmp/tempo_ws_pagesXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/index.html", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* larger than a queue of slots, so it is sent as they free up */
    for (int i = 0; i < 4000; i++)
        fprintf(f, "line %04d\n", i);
    fclose(f);
    ws_server *s = open_server(4, 4, NULL, dir);
    int fd = raw_connect(s);
    send_all(fd, "GET /?bot=1 HTTP/1.1\r\nHost: x\r\n\r\n", 33);
    static uint8_t got[60000];
    bool eof = false;
    size_t n = 0;
    for (int k = 0; k < 50 && !eof; k++)
        n += pump_read(s, T0, fd, got + n, sizeof got - n, &eof);
    close(fd);
    assert_true(n > 40000);
    assert_memory_equal(got, "HTTP/1.1 200 OK", 15);
    assert_non_null(strstr((const char *)got, "Content-Length: 40000\r\n"));
    assert_memory_equal(got + n - 10, "line 3999\n", 10);
    const char *bad[] = {"GET /../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
                         "GET /.hidden HTTP/1.1\r\nHost: x\r\n\r\n",
                         "GET /missing.js HTTP/1.1\r\nHost: x\r\n\r\n"};
    for (int i = 0; i < 3; i++) {
        fd = raw_connect(s);
        send_all(fd, bad[i], strlen(bad[i]));
        assert_int_equal(pump_read(s, T0, fd, got, 12, &eof), 12);
        assert_memory_equal(got, "HTTP/1.1 404", 12);
        close(fd);
    }
    ws_server_stats st;
    ws_server_get_stats(s, &st);
    assert_int_equal(st.pages_served, 1);
    assert_int_equal(st.pages_missing, 3);
    ws_server_close(s);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datagrams_go_both_ways_and_pings_and_closes_are_answered),
        cmocka_unit_test(test_hostile_input_is_refused_counted_and_leaves_others_alone),
        cmocka_unit_test(test_slow_heads_frames_and_silence_are_cut_off),
        cmocka_unit_test(test_a_full_queue_loses_its_oldest_datagrams),
        cmocka_unit_test(test_a_full_server_closes_one_more_and_slots_get_new_names),
        cmocka_unit_test(test_plain_gets_are_served_from_the_page_folder_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
