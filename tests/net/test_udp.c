/* SPDX-License-Identifier: MIT */
/*
 * test_udp.c — the UDP transport on loopback: IPv4 and IPv6 round
 * trips, bind conflicts, truncation, draining, ICMP errors, bad arguments,
 * socket buffer sizes and the kernel's drop counter.
 * Waits use poll() (WSAPoll on Windows) with a generous limit and never
 * assert on time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#ifdef _WIN32
#include <winsock2.h>
#include <windows.h>
#endif

#include "platform.h"
#include "tempo/udp.h"

/* Long enough for a loaded machine; loopback normally answers at once. */
#define WAIT_MS 5000

static tempo_udp *open_at(const char *text)
{
    tempo_address a;
    assert_int_equal(tempo_address_parse(&a, text), TEMPO_OK);
    tempo_udp *u = NULL;
    assert_int_equal(tempo_udp_open(&a, NULL, &u), TEMPO_OK);
    assert_non_null(u);
    return u;
}

static tempo_address local_of(const tempo_udp *u)
{
    tempo_address a;
    assert_int_equal(tempo_udp_local_address(u, &a), TEMPO_OK);
    assert_int_not_equal(a.port, 0);
    return a;
}

/* recv one datagram, waiting for the socket to become readable. */
static int recv_wait(tempo_udp *u, tempo_address *from, uint8_t *buf, size_t cap)
{
    tempo_transport t = tempo_udp_transport(u);
    int n = t.recv(t.ctx, from, buf, cap);
    if (n != 0)
        return n;
    bool readable;
    int fd = tempo_udp_fd(u);
    if (platform_wait_readable(&fd, &readable, 1, WAIT_MS) <= 0)
        return 0;
    return t.recv(t.ctx, from, buf, cap);
}

static void assert_round_trip(tempo_udp *a, tempo_udp *b)
{
    tempo_address addr_a = local_of(a), addr_b = local_of(b);
    tempo_transport ta = tempo_udp_transport(a), tb = tempo_udp_transport(b);
    const uint8_t msg[] = "hello over loopback";
    assert_int_equal(ta.send(ta.ctx, &addr_b, msg, sizeof msg), 0);
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    assert_int_equal(recv_wait(b, &from, buf, sizeof buf), (int)sizeof msg);
    assert_memory_equal(buf, msg, sizeof msg);
    assert_true(tempo_address_equal(&from, &addr_a));
    /* And back, to the address the datagram came from. */
    assert_int_equal(tb.send(tb.ctx, &from, buf, 5), 0);
    assert_int_equal(recv_wait(a, &from, buf, sizeof buf), 5);
    assert_true(tempo_address_equal(&from, &addr_b));
    assert_int_equal(ta.recv(ta.ctx, &from, buf, sizeof buf), 0);

    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(a, &st), TEMPO_OK);
    assert_int_equal(st.sent, 1);
    assert_int_equal(st.received, 1);
    assert_int_equal(st.bytes_sent, sizeof msg);
    assert_int_equal(st.bytes_received, 5);
}

static void test_ipv4_loopback_round_trip(void **state)
{
    (void)state;
    tempo_udp *a = open_at("127.0.0.1:0"), *b = open_at("127.0.0.1:0");
    assert_round_trip(a, b);
    tempo_udp_close(a);
    tempo_udp_close(b);
}

static void test_ipv6_loopback_round_trip(void **state)
{
    (void)state;
    tempo_address v6;
    assert_int_equal(tempo_address_parse(&v6, "[::1]:0"), TEMPO_OK);
    tempo_udp *a = NULL;
    if (tempo_udp_open(&v6, NULL, &a) != TEMPO_OK) {
        skip(); /* this machine has no ::1 */
        return;
    }
    tempo_udp *b = open_at("[::1]:0");
    assert_int_equal(local_of(a).family, TEMPO_ADDRESS_IPV6);
    assert_round_trip(a, b);
    tempo_udp_close(a);
    tempo_udp_close(b);
}

static void test_bind_conflict_is_transport_error(void **state)
{
    (void)state;
    tempo_udp *a = open_at("127.0.0.1:0");
    tempo_address taken = local_of(a);
    tempo_udp *b = NULL;
#ifdef _WIN32 /* Winsock keeps its reason apart from errno */
    WSASetLastError(0);
    assert_int_equal(tempo_udp_open(&taken, NULL, &b), TEMPO_E_TRANSPORT);
    assert_int_equal(WSAGetLastError(), WSAEADDRINUSE);
#else
    errno = 0;
    assert_int_equal(tempo_udp_open(&taken, NULL, &b), TEMPO_E_TRANSPORT);
    assert_int_equal(errno, EADDRINUSE);
#endif
    assert_null(b);
    tempo_udp_close(a);
}

static void test_bind_to_foreign_address_fails(void **state)
{
    (void)state;
    /* 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
     * Binding only asks the kernel; nothing is sent. */
    tempo_address foreign = tempo_address_ipv4(192, 0, 2, 1, 0);
#ifdef _WIN32
    /* Wine (whose ntdll exports wine_get_version) accepts a bind to an
     * address that is not local, where Windows says WSAEADDRNOTAVAIL. */
    if (GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version"))
        skip();
#endif
    tempo_udp *u = NULL;
    assert_int_equal(tempo_udp_open(&foreign, NULL, &u), TEMPO_E_TRANSPORT);
    assert_null(u);
}

static void test_truncated_datagram_reports_full_size(void **state)
{
    (void)state;
    tempo_udp *a = open_at("127.0.0.1:0"), *b = open_at("127.0.0.1:0");
    tempo_address to = local_of(b);
    tempo_transport ta = tempo_udp_transport(a);
    uint8_t msg[1000];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 7);
    assert_int_equal(ta.send(ta.ctx, &to, msg, sizeof msg), 0);
    uint8_t buf[101];
    memset(buf, 0xee, sizeof buf);
    tempo_address from;
    assert_int_equal(recv_wait(b, &from, buf, 100), 1000);
    assert_memory_equal(buf, msg, 100);
    assert_int_equal(buf[100], 0xee); /* nothing written past capacity */
    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(b, &st), TEMPO_OK);
    assert_int_equal(st.truncated, 1);
    tempo_udp_close(a);
    tempo_udp_close(b);
}

static void test_drains_many_datagrams_in_order(void **state)
{
    (void)state;
    tempo_udp *a = open_at("127.0.0.1:0"), *b = open_at("127.0.0.1:0");
    tempo_address to = local_of(b);
    tempo_transport ta = tempo_udp_transport(a), tb = tempo_udp_transport(b);
    enum { ROUNDS = 16, PER_ROUND = 64 };
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < PER_ROUND; i++) {
            uint8_t msg[2] = {(uint8_t)round, (uint8_t)i};
            assert_int_equal(ta.send(ta.ctx, &to, msg, sizeof msg), 0);
        }
        /* Loopback queues synchronously; poll covers a slow kernel anyway. */
        int got = 0;
        uint8_t buf[16];
        tempo_address from;
        while (got < PER_ROUND) {
            int n = recv_wait(b, &from, buf, sizeof buf);
            assert_int_equal(n, 2);
            assert_int_equal(buf[0], round);
            assert_int_equal(buf[1], got);
            got++;
        }
        assert_int_equal(tb.recv(tb.ctx, &from, buf, sizeof buf), 0);
    }
    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(b, &st), TEMPO_OK);
    assert_int_equal(st.received, ROUNDS * PER_ROUND);
    tempo_udp_close(a);
    tempo_udp_close(b);
}

static void test_unreachable_peer_reads_as_nothing(void **state)
{
    (void)state;
    tempo_udp *a = open_at("127.0.0.1:0"), *gone = open_at("127.0.0.1:0");
    tempo_address to = local_of(gone);
    tempo_udp_close(gone); /* its port now answers with ICMP port unreachable */
    tempo_transport ta = tempo_udp_transport(a);
    uint8_t buf[16] = {1};
    tempo_address from;
    for (int i = 0; i < 4; i++) {
        assert_true(ta.send(ta.ctx, &to, buf, 4) <= 0);
        assert_int_equal(ta.recv(ta.ctx, &from, buf, sizeof buf), 0);
    }
    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(a, &st), TEMPO_OK);
    assert_int_equal(st.recv_errors, 0);
    tempo_udp_close(a);
}

static void test_wrong_family_destination(void **state)
{
    (void)state;
    tempo_udp *a = open_at("127.0.0.1:0");
    tempo_transport ta = tempo_udp_transport(a);
    tempo_address v6, none;
    assert_int_equal(tempo_address_parse(&v6, "[::1]:9"), TEMPO_OK);
    memset(&none, 0, sizeof none);
    uint8_t msg[4] = {0};
    assert_int_equal(ta.send(ta.ctx, &v6, msg, sizeof msg), TEMPO_E_ADDRESS);
    assert_int_equal(ta.send(ta.ctx, &none, msg, sizeof msg), TEMPO_E_ADDRESS);
    tempo_udp_close(a);
}

static int allocations;
static void *counting_alloc(void *ctx, size_t size)
{
    (void)ctx;
    allocations++;
    return test_malloc(size);
}
static void counting_free(void *ctx, void *p)
{
    (void)ctx;
    test_free(p);
}
static void *failing_alloc(void *ctx, size_t size)
{
    (void)ctx;
    (void)size;
    return NULL;
}

static void test_allocator_hooks(void **state)
{
    (void)state;
    tempo_address any = tempo_address_ipv4(127, 0, 0, 1, 0);
    tempo_allocator hooks = {counting_alloc, counting_free, NULL};
    tempo_udp *u = NULL;
    allocations = 0;
    assert_int_equal(tempo_udp_open(&any, &hooks, &u), TEMPO_OK);
    assert_int_equal(allocations, 1);
    tempo_udp_close(u); /* test_free reports a leak or a bad free */

    tempo_allocator failing = {failing_alloc, counting_free, NULL};
    assert_int_equal(tempo_udp_open(&any, &failing, &u), TEMPO_E_NO_MEMORY);
    assert_null(u);
}

static void test_bad_args(void **state)
{
    (void)state;
    tempo_address any = tempo_address_ipv4(127, 0, 0, 1, 0), none;
    memset(&none, 0, sizeof none);
    tempo_udp *u = NULL;
    assert_int_equal(tempo_udp_open(NULL, NULL, &u), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_udp_open(&any, NULL, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_udp_open(&none, NULL, &u), TEMPO_E_ADDRESS);
    tempo_address out;
    assert_int_equal(tempo_udp_local_address(NULL, &out), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_udp_fd(NULL), -1);
    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(NULL, &st), TEMPO_E_INVALID_ARG);
    tempo_udp_close(NULL);

    u = open_at("127.0.0.1:0");
    tempo_transport t = tempo_udp_transport(u);
    tempo_address to = local_of(u);
    uint8_t big[TEMPO_MAX_DATAGRAM + 1] = {0};
    assert_int_equal(t.send(t.ctx, &to, big, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.send(t.ctx, &to, big, sizeof big), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.send(t.ctx, NULL, big, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.send(t.ctx, &to, NULL, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.send(NULL, &to, big, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.recv(t.ctx, &out, big, 0), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.recv(t.ctx, NULL, big, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.recv(t.ctx, &out, NULL, 1), TEMPO_E_INVALID_ARG);
    assert_int_equal(t.recv(NULL, &out, big, 1), TEMPO_E_INVALID_ARG);
    /* The largest datagram is fine, to ourselves. */
    assert_int_equal(t.send(t.ctx, &to, big, TEMPO_MAX_DATAGRAM), 0);
    assert_int_equal(recv_wait(u, &out, big, sizeof big), TEMPO_MAX_DATAGRAM);
    tempo_udp_close(u);

    tempo_transport dead = tempo_udp_transport(NULL);
    assert_int_equal(dead.send(dead.ctx, &to, big, 1), TEMPO_E_INVALID_ARG);
}

/* The system's cap on a receive buffer, 0 when unknown. */
static uint64_t rmem_max(void)
{
#ifdef __linux__
    FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    int ok = fscanf(f, "%llu", &v);
    fclose(f);
    return ok == 1 ? (uint64_t)v : 0;
#else
    return 0;
#endif
}

/* What the kernel should grant for a request: all of it, or its cap. */
static uint64_t expected_grant(uint64_t asked, uint64_t cap)
{
    return asked < cap ? asked : cap;
}

static void test_receive_buffer_granted(void **state)
{
    (void)state;
    tempo_udp *u = open_at("127.0.0.1:0");
    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(u, &st), TEMPO_OK);
    tempo_udp_close(u);
    assert_true(st.recv_buffer_bytes > 0);
    uint64_t cap = rmem_max();
    print_message("receive buffer granted: %llu bytes (asked %u, system cap %llu)\n",
                  (unsigned long long)st.recv_buffer_bytes, TEMPO_UDP_DEFAULT_RECV_BUFFER,
                  (unsigned long long)cap);
    if (cap == 0) {
        print_message("system receive-buffer cap unknown here: granted size not checked\n");
        skip();
    }
    assert_true(st.recv_buffer_bytes >= expected_grant(TEMPO_UDP_DEFAULT_RECV_BUFFER, cap));

    /* A size of the caller's own. */
    tempo_address any;
    assert_int_equal(tempo_address_parse(&any, "127.0.0.1:0"), TEMPO_OK);
    tempo_udp_options o = {.recv_buffer_bytes = 64 * 1024, .send_buffer_bytes = 64 * 1024};
    assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &u), TEMPO_OK);
    assert_int_equal(tempo_udp_get_stats(u, &st), TEMPO_OK);
    tempo_udp_close(u);
    assert_true(st.recv_buffer_bytes >= expected_grant(64 * 1024, cap));
}

/* A batching socket: on Linux the first 64 sends wait in the queue, the
 * 65th sends them (one sendmmsg), and a flush sends the rest; every
 * datagram arrives once, in order, and the stats count them as they leave.
 * Elsewhere each send leaves at once and a flush sends nothing. */
static void test_batched_sends_leave_on_a_full_queue_or_a_flush(void **state)
{
    (void)state;
    tempo_address any;
    assert_int_equal(tempo_address_parse(&any, "127.0.0.1:0"), TEMPO_OK);
    tempo_udp_options o = {.batch_send = true};
    tempo_udp *a = NULL;
    assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &a), TEMPO_OK);
    tempo_udp *b = open_at("127.0.0.1:0");
    tempo_address to = local_of(b);
    tempo_transport ta = tempo_udp_transport(a);
    uint8_t msg[8] = {0};
    for (int i = 0; i < 72; i++) {
        msg[0] = (uint8_t)i;
        assert_int_equal(ta.send(ta.ctx, &to, msg, sizeof msg), 0);
    }
    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(a, &st), TEMPO_OK);
#ifdef __linux__
    assert_int_equal(st.sent, 64);
    assert_int_equal(tempo_udp_flush(a), 8);
#else
    assert_int_equal(st.sent, 72);
    assert_int_equal(tempo_udp_flush(a), 0);
#endif
    assert_int_equal(tempo_udp_flush(a), 0);
    assert_int_equal(tempo_udp_get_stats(a, &st), TEMPO_OK);
    assert_int_equal(st.sent, 72);
    assert_int_equal(st.bytes_sent, 72 * sizeof msg);
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    for (int i = 0; i < 72; i++) {
        assert_int_equal(recv_wait(b, &from, buf, sizeof buf), (int)sizeof msg);
        assert_int_equal(buf[0], i);
    }
    tempo_udp *plain = open_at("127.0.0.1:0");
    assert_int_equal(tempo_udp_flush(plain), 0);
    assert_int_equal(tempo_udp_flush(NULL), TEMPO_E_INVALID_ARG);
    tempo_udp_close(plain);
    tempo_udp_close(a);
    tempo_udp_close(b);
}

static void test_buffer_sizes_out_of_range(void **state)
{
    (void)state;
    tempo_address any;
    assert_int_equal(tempo_address_parse(&any, "127.0.0.1:0"), TEMPO_OK);
    tempo_udp *u = (tempo_udp *)&any; /* must be reset to NULL */
    tempo_udp_options o = {.recv_buffer_bytes = TEMPO_UDP_MIN_BUFFER - 1};
    assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &u), TEMPO_E_INVALID_ARG);
    assert_null(u);
    o.recv_buffer_bytes = TEMPO_UDP_MAX_BUFFER + 1;
    assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &u), TEMPO_E_INVALID_ARG);
    o.recv_buffer_bytes = 0;
    o.send_buffer_bytes = 1;
    assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &u), TEMPO_E_INVALID_ARG);
    /* The bounds themselves are accepted; NULL options are the defaults. */
    o.recv_buffer_bytes = TEMPO_UDP_MIN_BUFFER;
    o.send_buffer_bytes = TEMPO_UDP_MAX_BUFFER;
    assert_int_equal(tempo_udp_open_ex(&any, &o, NULL, &u), TEMPO_OK);
    tempo_udp_close(u);
    assert_int_equal(tempo_udp_open_ex(&any, NULL, NULL, &u), TEMPO_OK);
    tempo_udp_close(u);
}

/* A burst far larger than a 4 KiB receive buffer, sent while nobody reads:
 * the kernel drops most of it. Linux reports the drops with the next
 * datagram queued after them, so honest datagrams sent once the socket was
 * drained both arrive and bring the count. */
static void test_kernel_drops_counted(void **state)
{
    (void)state;
    tempo_address any;
    assert_int_equal(tempo_address_parse(&any, "127.0.0.1:0"), TEMPO_OK);
    tempo_udp_options tiny = {.recv_buffer_bytes = 4096};
    tempo_udp *victim = NULL, *flood = open_at("127.0.0.1:0");
    assert_int_equal(tempo_udp_open_ex(&any, &tiny, NULL, &victim), TEMPO_OK);
    tempo_address to = local_of(victim);
    tempo_transport tf = tempo_udp_transport(flood), tv = tempo_udp_transport(victim);

    enum { BURST = 2000, HONEST = 3 };
    uint8_t junk[64];
    memset(junk, 0xab, sizeof junk);
    for (int i = 0; i < BURST; i++)
        (void)tf.send(tf.ctx, &to, junk, sizeof junk); /* a full send buffer drops too */

    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_address from;
    int survivors = 0;
    while (tv.recv(tv.ctx, &from, buf, sizeof buf) > 0)
        survivors++;

    for (int i = 0; i < HONEST; i++) {
        uint8_t msg[8] = {'h', 'o', 'n', 'e', 's', 't', (uint8_t)i, 0};
        assert_int_equal(tf.send(tf.ctx, &to, msg, sizeof msg), 0);
    }
    int honest = 0;
    while (honest < HONEST) {
        int n = recv_wait(victim, &from, buf, sizeof buf);
        assert_true(n > 0);
        if (n == (int)sizeof junk && buf[0] == 0xab) { /* a late survivor of the burst */
            survivors++;
            continue;
        }
        assert_int_equal(n, 8);
        assert_memory_equal(buf, "honest", 6);
        assert_int_equal(buf[6], honest);
        honest++;
    }

    tempo_udp_stats st;
    assert_int_equal(tempo_udp_get_stats(victim, &st), TEMPO_OK);
    print_message("burst of %d: %d read, kernel_drops %llu, buffer %llu bytes\n", BURST,
                  survivors, (unsigned long long)st.kernel_drops,
                  (unsigned long long)st.recv_buffer_bytes);
    assert_true(survivors < BURST);
#ifdef __linux__
    assert_true(st.kernel_drops > 0);
    assert_true(st.kernel_drops <= BURST);
#else
    assert_int_equal(st.kernel_drops, 0); /* not reported on this platform */
#endif
    tempo_udp_close(flood);
    tempo_udp_close(victim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv4_loopback_round_trip),
        cmocka_unit_test(test_ipv6_loopback_round_trip),
        cmocka_unit_test(test_bind_conflict_is_transport_error),
        cmocka_unit_test(test_bind_to_foreign_address_fails),
        cmocka_unit_test(test_truncated_datagram_reports_full_size),
        cmocka_unit_test(test_drains_many_datagrams_in_order),
        cmocka_unit_test(test_unreachable_peer_reads_as_nothing),
        cmocka_unit_test(test_wrong_family_destination),
        cmocka_unit_test(test_allocator_hooks),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_receive_buffer_granted),
        cmocka_unit_test(test_buffer_sizes_out_of_range),
        cmocka_unit_test(test_batched_sends_leave_on_a_full_queue_or_a_flush),
        cmocka_unit_test(test_kernel_drops_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
