/* SPDX-License-Identifier: MIT */
/*
 * test_spectator_start.c — a spectator's start when handshake datagrams
 * are lost. Each side of the spectator's link finishes its own handshake:
 * the spectator may finish first and start while its host's last request
 * is lost, and the host takes nothing but the handshake from it until the
 * host's own handshake is done. The spectator must then keep the link
 * alive and its host must still finish, however long the host's requests
 * are lost: the spectator never gives up a host that answers it, and once
 * a request gets through it plays the match from frame 0.
 *
 * Two peers (players 0 and 1) and one spectator of peer 0 on LAN links; a
 * filter in front of a machine's receive drops chosen handshake datagrams.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "p2p_harness.h"

#include "wire/codec.h"
#include "wire/packet.h"

#define SPEC 2         /* the spectator's machine */
#define FRAMES 900     /* 15 s of match */

/* What the filter drops: handshake datagrams (SYNC_REQUEST or SYNC_REPLY)
 * arriving at machine `at` from machine `from`. */
typedef struct filter {
    int at, from;
    int type;            /* 0: either handshake type */
    int first, last;     /* drop the first..last such datagram (1-based) */
    uint64_t until_us;   /* ... and any after `last` until then (0: none) */
    int seen, dropped;
    tempo_transport inner; /* the machine's own receive */
    harness *h;
} filter;

static filter g_filter;

static bool handshake_type(const uint8_t *buf, int got, int type)
{
    if (got < PACKET_HEADER_SIZE)
        return false;
    int t = buf[7] & 0x7f;
    if (type != 0)
        return t == type;
    return t == TEMPO_MSG_SYNC_REQUEST || t == TEMPO_MSG_SYNC_REPLY;
}

static int filtered_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    filter *f = &g_filter;
    tempo_address src = h_addr(f->from);
    for (;;) {
        int got = f->inner.recv(ctx, from, buf, capacity);
        if (got <= 0 || !tempo_address_equal(from, &src) || !handshake_type(buf, got, f->type))
            return got;
        int k = ++f->seen;
        bool drop = (k >= f->first && k <= f->last) || (k > f->last && f->h->now_us < f->until_us);
        if (!drop)
            return got;
        f->dropped++;
    }
}

/* Install the filter in front of machine f->at's receive. */
static void filter_install(harness *h, const filter *spec)
{
    g_filter = *spec;
    g_filter.h = h;
    g_filter.seen = g_filter.dropped = 0;
    h_peer *p = &h->peer[spec->at];
    g_filter.inner = p->tr;
    p->tr.recv = filtered_recv; /* the harness's ears call p->tr.recv */
}

static void start_world(harness *h, uint64_t seed)
{
    tempo_config c = harness_cfg(2);
    uint32_t masks[2];
    harness_one_each(masks, 2);
    harness_init(h, &c, 2, masks, 1, "lan", seed);
}

/* The spectator played the match: it kept its host, holds (nearly) every
 * frame, and agrees with the players on all it confirmed. */
static void check_spectator_played(harness *h, const char *what, uint64_t seed, int32_t at_least)
{
    h_peer *s = &h->peer[SPEC];
    int32_t checked = 0;
    if (s->disconnect_events != 0)
        fail_msg("%s, seed %llu: the spectator gave up its host (%d DISCONNECTED, filter dropped %d)",
                 what, (unsigned long long)seed, s->disconnect_events, g_filter.dropped);
    if (tempo_session_frame(s->s) < at_least)
        fail_msg("%s, seed %llu: the spectator played %d frames, expected at least %d (filter dropped %d)",
                 what, (unsigned long long)seed, (int)tempo_session_frame(s->s), (int)at_least,
                 g_filter.dropped);
    assert_true(harness_converged(h, true, &checked));
    assert_true(checked >= at_least - 10);
}

/* The host's handshake requests to the spectator are lost for 5 s, longer
 * than the 3 s disconnect timeout, from its k-th request on (k = 1..5, so
 * the spectator may have finished its own handshake or not), while
 * everything else gets through. The spectator must not take the host for
 * gone, and must start and catch up once the requests get through. */
static void host_requests_lost_longer_than_the_timeout(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (int k = 1; k <= 5; k++) {
            harness h;
            start_world(&h, seed * 97 + (uint64_t)k);
            filter f = {SPEC, 0, TEMPO_MSG_SYNC_REQUEST, k, k, 5000000u, 0, 0, {0}, NULL};
            filter_install(&h, &f);
            harness_run(&h, FRAMES, 40000000u);
            assert_true(g_filter.dropped >= 10); /* the requests were lost for 5 s */
            char what[64];
            snprintf(what, sizeof what, "host requests lost from request %d on for 5 s", k);
            /* 5 s behind at the release, catching up one frame a tick */
            check_spectator_played(&h, what, seed, FRAMES - 330);
            harness_free(&h);
        }
}

/* Any one handshake datagram of the spectator's link lost, in either
 * direction: the spectator still starts and plays the whole match. */
static void any_one_handshake_datagram_lost(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++)
        for (int dir = 0; dir < 2; dir++)
            for (int i = 1; i <= 10; i++) {
                harness h;
                start_world(&h, seed * 1009 + (uint64_t)(dir * 10 + i));
                filter f = {dir == 0 ? SPEC : 0, dir == 0 ? 0 : SPEC, 0, i, i, 0, 0, 0, {0}, NULL};
                filter_install(&h, &f);
                harness_run(&h, FRAMES / 3, 20000000u);
                assert_int_equal(g_filter.dropped, 1);
                char what[64];
                snprintf(what, sizeof what, "handshake datagram %d %s lost", i,
                         dir == 0 ? "host to spectator" : "spectator to host");
                check_spectator_played(&h, what, seed, FRAMES / 3 - 30);
                harness_free(&h);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_requests_lost_longer_than_the_timeout),
        cmocka_unit_test(any_one_handshake_datagram_lost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
