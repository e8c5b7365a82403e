/* SPDX-License-Identifier: MIT */
/*
 * test_allocation.c — when tempo allocates. Create allocates, through the
 * config's allocator, and reports a failure of any one of its allocations as
 * TEMPO_E_NO_MEMORY with nothing leaked, for every session kind. After
 * create nothing allocates: not the tick of a local, synctest or network
 * session (handshake, time sync, checksums, spectators, a dropped peer), not
 * time sync's decisions over full windows.
 *
 * Two counters watch: the config's allocator hook (every build), and every
 * malloc, calloc and realloc of the program (count_malloc.h: replaced malloc
 * in builds without a sanitizer, the sanitizer's hook under AddressSanitizer),
 * which also sees direct calls and the C library's own, such as qsort's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count_malloc.h"
#include "hook_count.h"
#include "p2p_harness.h"
#include "tempo/secure.h"
#include "timing/timesync.h"

static harness h;

static void use_hook(tempo_config *c, hook_count *hc)
{
    c->allocator.alloc = hc_alloc;
    c->allocator.free = hc_free;
    c->allocator.ctx = hc;
}

/* Whether the program's mallocs are counted here; if not, says why once. */
static bool counting_malloc(void)
{
    if (count_malloc_start())
        return true;
    print_message("malloc not counted (%s): only the allocator hook is checked\n",
                  count_malloc_unavailable);
    return false;
}

/* ---- create ------------------------------------------------------------- */

static void every_allocation_failure_in_create_is_clean(void **state)
{
    (void)state;
    for (int kind = 0; kind < 3; kind++) {
        int total = -1;
        for (int k = 0;; k++) {
            hook_count hc = {k, 0, 0};
            tempo_config cfg;
            tempo_config_default(&cfg);
            cfg.num_players = 4;
            use_hook(&cfg, &hc);
            uint8_t block[256];
            if (kind == 2) {
                cfg.arena = block;
                cfg.arena_size = sizeof block;
            }
            tempo_session *s = NULL;
            tempo_result r = kind == 1 ? tempo_session_create_synctest(&cfg, 4, &s)
                                       : tempo_session_create_local(&cfg, &s);
            if (r == TEMPO_OK) {
                assert_true(hc.count <= k); /* no failure was injected */
                total = k;
                tempo_session_destroy(s);
                assert_int_equal(hc.live, 0);
                break;
            }
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
            assert_null(s);
            assert_int_equal(hc.live, 0); /* nothing leaked */
        }
        assert_true(total > 3); /* several allocations were each made to fail */
    }
}

/* p2p and spectator sessions: each allocation of create, made to fail in
 * turn, gives TEMPO_E_NO_MEMORY, no session, and every other block freed. */
static void every_allocation_failure_in_network_create_is_clean(void **state)
{
    (void)state;
    tempo_address host = tempo_address_ipv4(10, 0, 0, 1, 7000);
    tempo_transport tr = {NULL, NULL, NULL, NULL};
    tempo_simnet *net;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_node(net, &host, &tr), TEMPO_OK);
    for (int kind = 0; kind < 2; kind++) {
        int failed = 0;
        for (int k = 0;; k++) {
            hook_count hc = {k, 0, 0};
            tempo_config c = harness_cfg(2);
            use_hook(&c, &hc);
            tempo_session *s = NULL;
            tempo_result r = kind ? tempo_session_create_spectator(&c, &tr, &host, &s)
                                  : tempo_session_create_p2p(&c, &tr, &s);
            if (r == TEMPO_OK) {
                assert_true(hc.count <= k); /* no failure was injected */
                tempo_session_destroy(s);
                assert_int_equal(hc.live, 0);
                break;
            }
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
            assert_null(s);
            assert_int_equal(hc.live, 0); /* all but the failed one freed */
            failed++;
        }
        assert_true(failed > 3);
    }
    tempo_simnet_destroy(net);
}

/* ---- after create --------------------------------------------------------- */

/* A local session against a remote player whose inputs come in bursts. */
static void ticking_a_local_session_never_allocates(void **state)
{
    (void)state;
    bool counting = counting_malloc();
    hook_count hc = {-1, 0, 0};
    tempo_config cfg;
    tempo_config_default(&cfg);
    use_hook(&cfg, &hc);
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    int after_create = hc.count;
    uint64_t mallocs = count_malloc_total();
    uint8_t in[4] = {0};
    for (int i = 0; i < 2000; i++) {
        if (i % 3 == 0)
            for (int f = i - 3; f < i; f++)
                if (f >= 0)
                    tempo_session_add_remote_input(s, 1, f, in, 4);
        in[0] = (uint8_t)(i / 7);
        tempo_session_add_local_input(s, 0, in, 4);
        tempo_tick t;
        tempo_session_advance(s, &t);
        const tempo_request *r;
        while (tempo_session_next(s, &r) > 0)
            if (r->kind == TEMPO_REQUEST_SAVE)
                *r->checksum = 1;
    }
    if (counting)
        assert_int_equal(count_malloc_total() - mallocs, 0);
    assert_int_equal(hc.count, after_create);
    assert_true(tempo_session_frame(s) >= 1900);
    tempo_session_destroy(s);
    assert_int_equal(hc.live, 0);
}

/* Three peers and a spectator with the automatic delay, on two link
 * profiles: handshake, inputs, time sync, checksums, spectating, and a peer
 * lost mid-match with its drop agreed; the second match sealed. */
static void ticking_network_sessions_never_allocates(void **state)
{
    (void)state;
    bool counting = counting_malloc();
    const char *profiles[] = {"mobile", "continental"};
    for (int k = 0; k < 2; k++) {
        hook_count hc = {-1, 0, 0};
        tempo_config c = harness_cfg(3);
        use_hook(&c, &hc);
        c.auto_delay.enabled = k == 1;
        if (k == 1 && tempo_secure_available()) { /* sealing and opening too */
            c.has_match_key = true;
            memset(c.match_key, 0x5a, sizeof c.match_key);
        }
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 1, profiles[k], 45 + (uint64_t)k * 1255);
        int after_create = hc.count;
        uint64_t mallocs = count_malloc_total();
        harness_run(&h, 300, 60000000);
        harness_kill(&h, 2);
        harness_run(&h, 600, 120000000);
        if (counting)
            assert_int_equal(count_malloc_total() - mallocs, 0);
        assert_int_equal(hc.count, after_create);
        assert_true(tempo_session_frame(h.peer[0].s) >= 600);
        assert_int_equal(h.peer[0].disconnect_events, 1); /* the drop really happened */
        assert_true(tempo_session_frame(h.peer[3].s) > 300); /* and the spectator watched */
        harness_free(&h);
        assert_int_equal(hc.live, 0);
    }
}

/* Time sync over full windows: 256 lag samples per peer (1 KiB, where
 * glibc's qsort takes a scratch buffer from malloc) and an automatic delay
 * window of 300. Time sync has no allocator of its own, so only the
 * program-wide count can see it allocate. */
static void time_sync_decisions_never_allocate(void **state)
{
    (void)state;
    if (!count_malloc_start()) {
        print_message("skipped: %s\n", count_malloc_unavailable);
        skip();
    }
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.timesync.window_frames = 256;
    cfg.auto_delay.enabled = true;
    cfg.auto_delay.window_frames = 300;
    tempo_timesync ts;
    timesync_init(&ts, &cfg);
    uint64_t before = count_malloc_total();
    int stalls = 0;
    for (int tick = 0; tick < 1200; tick++) {
        timesync_on_local(&ts, 0, 1.0 + (tick % 3), 0.0);
        timesync_on_remote(&ts, 0, 1.0, 2.0 + (tick % 5));
        stalls += timesync_decide(&ts, tick);
        (void)timesync_delay_tick(&ts, 0.0);
    }
    assert_int_equal(count_malloc_total() - before, 0);
    assert_true(stalls > 0); /* it ran ahead, so it decided, with full windows */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_allocation_failure_in_create_is_clean),
        cmocka_unit_test(every_allocation_failure_in_network_create_is_clean),
        cmocka_unit_test(ticking_a_local_session_never_allocates),
        cmocka_unit_test(ticking_network_sessions_never_allocates),
        cmocka_unit_test(time_sync_decisions_never_allocate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
