/*
 * test_robustness.c — what an adversarial review of the library found, kept
 * as one test per behaviour that must hold: hostile or broken peers cannot
 * wedge, freeze or crash a session; drops are agreed even when the peer
 * holding the missing inputs leaves; every checksum is compared; the engine
 * keeps its invariants under random scenarios; nothing allocates after
 * create; every call returns a code in every state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "p2p_harness.h"
#include "session/p2p.h"

/* Count the C library's malloc calls (glibc, builds without a sanitizer,
 * which brings its own malloc): for "no allocation after create". */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REVIEW_HAVE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define REVIEW_HAVE_ASAN 1
#endif
#if defined(__GLIBC__) && !defined(REVIEW_HAVE_ASAN)
#define REVIEW_COUNT_MALLOC 1
extern void *__libc_malloc(size_t size);
static int review_mallocs;
void *malloc(size_t size)
{
    review_mallocs++;
    return __libc_malloc(size);
}
#endif

static harness h;
static toy_driver fz_driver;

static uint64_t fz_next(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ULL;
    return toy_mix(*x, 0);
}

/* Send a crafted message from peer `from`'s address to peer `to`. */
static void send_crafted(int from, int to, tempo_msg *m)
{
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h.cfg.input_size;
    ctx.num_players = h.players;
    m->session_id = h.cfg.session_id;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int n = tempo_codec_encode(m, &ctx, buf, sizeof buf);
    assert_true(n > 0);
    assert_int_equal(h.peer[from].tr.send(h.peer[from].tr.ctx, &h.peer[to].addr, buf, (size_t)n), 0);
}

/* The endpoint of `victim` that stands for peer `sender`. */
static tempo_endpoint *endpoint_at(int victim, int sender)
{
    tempo_p2p *n = h.peer[victim].s->net;
    for (int i = 0; i < n->npeers; i++)
        if (tempo_address_equal(&n->peers[i].addr, &h.peer[sender].addr))
            return &n->peers[i];
    for (int i = 0; i < n->nspecs; i++)
        if (tempo_address_equal(&n->specs[i].addr, &h.peer[sender].addr))
            return &n->specs[i];
    fail_msg("no such endpoint");
    return NULL;
}

/* An INPUT without inputs, as peer `sender` would send it to `victim`. */
static void empty_input(int victim, int sender, tempo_msg *m)
{
    memset(m, 0, sizeof *m);
    tempo_endpoint *e = endpoint_at(victim, sender);
    m->type = TEMPO_MSG_INPUT;
    m->sequence = (uint16_t)(e->seq_max + 1);
    m->u.input.start = p2p_wanted_from(h.peer[victim].s, e);
    m->u.input.ack = 0;
    m->u.input.sender_frame = m->u.input.start;
}

/* ---- disconnect agreement --------------------------------------------- */

/* One INPUT with an inflated disconnect_frame must not wedge the survivor.
 * Gossip views were once taken as final without checking them against
 * have_until, so the survivor waited forever for inputs nobody held. */
static void gossip_view_beyond_every_input_does_not_wedge_the_survivor(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 41);
    harness_run(&h, 200, 60000000);
    tempo_msg msg;
    empty_input(0, 1, &msg);
    msg.u.input.disconnected_mask = 1u << 1;        /* "I hold player 1 dropped" */
    msg.u.input.disconnect_frame[1] = msg.u.input.start + 150;
    msg.u.input.have_until[1] = msg.u.input.start;
    send_crafted(1, 0, &msg);
    harness_kill(&h, 1);
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 600, h.now_us + 30000000);
    /* peer 0 is alone with a disconnected player 1: it must play on */
    assert_true(tempo_session_frame(h.peer[0].s) >= f0 + 600);
    harness_free(&h);
}

/* The agreed drop frame needed inputs only a departed peer held: the
 * survivors must settle on what they can back, not wait forever.
 * Three peers; D (peer 2) vanishes; C (peer 1) holds more of D's inputs
 * than A (peer 0), times D out first and tells A so, then vanishes before
 * relaying them (its relay waits for A's gossip, one round trip). A once
 * waited forever here; random 4-peer runs with one-way blackouts hit it
 * without crafted timing. */
static void survivor_plays_on_when_the_only_holder_of_missing_inputs_drops(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(3);
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&h, &c, 3, m, 0, "lan", 42);
    tempo_link_params slow;
    assert_int_equal(tempo_link_profile("lan", &slow), TEMPO_OK);
    slow.latency_us = 400000; /* A hears D last, so C times D out first */
    assert_int_equal(tempo_simnet_set_link(h.net, &h.peer[2].addr, &h.peer[0].addr, &slow), TEMPO_OK);
    harness_run(&h, 300, 60000000);
    /* D's last 100 ms of datagrams reach C but not A: C holds more of D */
    tempo_simnet_add_blackout(h.net, &h.peer[2].addr, &h.peer[0].addr, h.now_us, UINT64_MAX);
    harness_run(&h, INT32_MAX, h.now_us + 100000);
    harness_kill(&h, 2);
    tempo_p2p *a = h.peer[0].s->net;
    bool learned = false;
    for (int k = 0; k < 20000 && !learned; k++) {
        harness_run(&h, INT32_MAX, h.now_us + 1000); /* one millisecond */
        learned = a->drop_state[2] != DROP_NONE &&
                  a->drop_frame[2] > h.peer[0].s->sync.q[2].known_end;
    }
    assert_true(learned); /* A heard C's larger view of D */
    harness_kill(&h, 1);         /* ...and C is gone before its relay arrives */
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 600, h.now_us + 60000000);
    assert_true(tempo_session_frame(h.peer[0].s) >= f0 + 600);
    harness_free(&h);
}

/* Regression: one of three peers leaves cleanly; both survivors agree on
 * the same disconnect frame and converge (passes). */
static void survivors_agree_on_the_frame_of_a_peer_that_leaves(void **state)
{
    (void)state;
    for (uint64_t seed = 60; seed < 64; seed++) {
        tempo_config c = harness_cfg(3);
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 0, seed % 2 ? "mobile" : "continental", seed);
        harness_run(&h, 200, 60000000);
        assert_int_equal(tempo_session_leave(h.peer[2].s), TEMPO_OK);
        h.peer[2].dead = true;
        harness_run(&h, 600, 120000000);
        int32_t d0 = h.peer[0].s->sync.q[2].disconnect_frame;
        int32_t d1 = h.peer[1].s->sync.q[2].disconnect_frame;
        assert_true(d0 != IQ_NO_FRAME);
        assert_int_equal(d0, d1);
        int32_t checked;
        assert_true(harness_converged(&h, false, &checked));
        assert_true(checked >= 500);
        harness_free(&h);
    }
}

/* ---- time sync ----------------------------------------------------------- */

/* An absurd sender_frame (0, from a buggy or spoofed datagram whose
 * sequence keeps it "newest") is ignored. It once queued 327 stall ticks:
 * L was not range-checked like R and the stall count was unbounded. */
static void one_absurd_sender_frame_does_not_freeze_the_receiver(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 43);
    harness_run(&h, 1200, 60000000);
    tempo_msg msg;
    empty_input(0, 1, &msg);
    msg.sequence = (uint16_t)(endpoint_at(0, 1)->seq_max + 1000);
    msg.u.input.sender_frame = 0;
    send_crafted(1, 0, &msg);
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 600, h.now_us + 30000000); /* 30 s for 10 s of frames */
    tempo_session_stats st;
    tempo_session_get_stats(h.peer[0].s, &st);
    assert_true(st.timesync_stalls < 60);
    assert_true(tempo_session_frame(h.peer[0].s) >= f0 + 600);
    harness_free(&h);
}

/* ---- desync checks ------------------------------------------------------- */

/* Every check frame is compared, even when one tick confirms many after a
 * lag spike. A 4-entry checksum outbox once overwrote the surplus, and 14%
 * of check frames went uncompared on a lossless link. */
static void every_confirmed_check_frame_is_compared(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    c.desync_interval = 1;
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 44);
    tempo_link_params spiky;
    memset(&spiky, 0, sizeof spiky);
    spiky.latency_us = 20000;
    spiky.spike_enter = 0.03;
    spiky.spike_exit = 0.3;
    spiky.spike_us = 120000; /* no loss: every checksum datagram arrives */
    for (int i = 0; i < 2; i++)
        tempo_simnet_set_link(h.net, &h.peer[i].addr, &h.peer[1 - i].addr, &spiky);
    harness_run(&h, 900, 120000000);
    int32_t common = harness_common_confirmed(&h, false);
    for (int i = 0; i < 2; i++) {
        tempo_session_stats st;
        tempo_session_get_stats(h.peer[i].s, &st);
        /* every frame but the last few in flight */
        assert_true(st.desync_checks + 20 >= (uint64_t)common);
        assert_int_equal(st.desyncs, 0);
    }
    harness_free(&h);
}

/* A CHECKSUM as peer `sender` would send it to `victim`. */
static void crafted_sum(int victim, int sender, tempo_msg *m, int32_t frame, uint64_t sum, int32_t ack)
{
    memset(m, 0, sizeof *m);
    m->type = TEMPO_MSG_CHECKSUM;
    m->sequence = (uint16_t)(endpoint_at(victim, sender)->seq_max + 1);
    m->u.checksum.frame = frame;
    m->u.checksum.checksum = frame ? sum : 0;
    m->u.checksum.ack = ack;
}

/* Forged CHECKSUMs (a frame that is no check frame, frames and acks far
 * beyond anything sent, a repeat of a compared frame with another sum) are
 * ignored and counted one by one; none is compared, none raises a desync,
 * none moves what we resend, and the match goes on checking every frame. */
static void forged_checksums_are_ignored_and_counted(void **state)
{
    (void)state;
    tempo_config c = harness_cfg(2);
    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 0, "lan", 45);
    harness_run(&h, 300, 60000000);
    tempo_session_stats before, after;
    tempo_session_get_stats(h.peer[0].s, &before);
    assert_true(before.desync_checks >= 8);
    const tempo_endpoint *e = endpoint_at(0, 1);
    int32_t sent = e->sum_sent_max, top = INT32_MAX / 30 * 30;
    tempo_msg msg;
    struct { int32_t frame, ack; } forged[] = {
        {31, 0},                /* no check frame */
        {top, 0},               /* far beyond the window */
        {0, top},               /* acks a frame never sent */
        {0, sent + 30},         /* acks the next one, not sent yet */
        {top - 30, sent + 300}, /* both at once: counted once per part */
    };
    int parts = 6;
    for (size_t k = 0; k < sizeof forged / sizeof forged[0]; k++) {
        crafted_sum(0, 1, &msg, forged[k].frame, 0xBADull, forged[k].ack);
        send_crafted(1, 0, &msg);
    }
    uint64_t x = 46;
    for (int k = 0; k < 200; k++, parts += 2) { /* random huge frames and acks */
        int32_t f = (int32_t)(fz_next(&x) % (uint64_t)(INT32_MAX / 30 - 100000)) * 30 + 3000000;
        crafted_sum(0, 1, &msg, f, fz_next(&x), f);
        send_crafted(1, 0, &msg);
    }
    crafted_sum(0, 1, &msg, 30, 0xBADull, 0); /* a repeat: not compared again */
    send_crafted(1, 0, &msg);
    harness_run(&h, 330, 60000000);
    tempo_session_get_stats(h.peer[0].s, &after);
    assert_int_equal(after.checksums_ignored - before.checksums_ignored, parts);
    assert_int_equal(after.desyncs, 0);
    assert_int_equal(h.peer[0].desync_events, 0);
    assert_true(e->sum_acked <= e->sum_sent_max);
    assert_true(e->sum_sent_max <= tempo_session_confirmed_frame(h.peer[0].s));
    harness_run(&h, 900, 60000000);
    int32_t common = harness_common_confirmed(&h, false);
    for (int i = 0; i < 2; i++) {
        tempo_session_stats st;
        tempo_session_get_stats(h.peer[i].s, &st);
        assert_int_equal(st.desync_checks_missed, 0);
        assert_int_equal(st.desyncs, 0);
        assert_true(st.desync_checks + 2 >= (uint64_t)(common / 30)); /* all but the newest in flight */
        assert_true(st.desync_checks <= (uint64_t)(common / 30));
    }
    assert_int_equal(tempo_session_get_stats(h.peer[1].s, &after), TEMPO_OK);
    assert_int_equal(after.checksums_ignored, 0);
    harness_free(&h);
}

/* ---- the engine's checksum log ------------------------------------------ */

/* All 65 checksums of one catch-up tick are reported: a lockstep delay
 * decrease 64 -> 0 runs 65 confirmed frames in one tick with
 * desync_interval 1. A 32-entry log once dropped 33 of them silently. */
static void checksums_of_a_65_frame_catch_up_are_all_reported(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.max_prediction = 0;
    cfg.desync_interval = 1;
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t b[4] = {0};
    for (int f = 0; f < 300; f++)
        assert_int_equal(tempo_session_add_remote_input(s, 1, f, b, 4), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(s, 0, 64), TEMPO_OK);
    toy_driver_init(&fz_driver, 2, 4);
    int reported = 0;
    int32_t from = -1;
    for (int tick = 0; tick < 200; tick++) {
        if (tick == 150) {
            assert_int_equal(tempo_session_set_input_delay(s, 0, 0), TEMPO_OK);
            from = tempo_session_frame(s);
        }
        b[0] = (uint8_t)tick;
        tempo_session_add_local_input(s, 0, b, 4);
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        if (tick == 150)
            assert_int_equal(t.frames_advanced, 65);
        toy_driver_run(&fz_driver, s);
        assert_int_equal(fz_driver.errors, 0);
        sync_sum cs;
        while (sync_take_checksum(&s->sync, &cs)) /* a network session takes them each tick */
            if (from >= 0 && cs.frame >= from && cs.frame <= from + 64)
                reported++;
    }
    assert_int_equal(reported, 65); /* states F .. F + 64, saved by the catch-up tick */
    tempo_session_destroy(s);
}

/* ---- public API ------------------------------------------------------------ */

/* A fresh synctest session takes input delays: every player is local from
 * create (it once became so only at the first tick, and said TEMPO_E_PLAYER). */
static void synctest_players_take_an_input_delay_before_the_first_tick(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg);
    tempo_session *s;
    assert_int_equal(tempo_session_create_synctest(&cfg, 4, &s), TEMPO_OK);
    assert_int_equal(tempo_session_set_input_delay(s, 0, 2), TEMPO_OK);
    assert_int_equal(tempo_session_input_delay(s, 0), 2);
    tempo_session_destroy(s);
}

/* tempo.h: inputs up to 3 * max_prediction + 192 frames past the current
 * frame are always held; far beyond the ring they are refused (the header
 * once promised a bound the queue did not keep). */
static void remote_input_bounds_are_as_documented(void **state)
{
    (void)state;
    tempo_config cfg;
    tempo_config_default(&cfg); /* max_prediction 8: 216 frames are held */
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, NULL);
    uint8_t b[4] = {0};
    assert_int_equal(tempo_session_add_remote_input(s, 1, 3 * 8 + 192 - 1, b, 4), TEMPO_OK);
    assert_int_equal(tempo_session_add_remote_input(s, 1, 10000, b, 4), TEMPO_E_FRAME);
    assert_int_equal(tempo_session_add_remote_input(s, 1, -1, b, 4), TEMPO_E_FRAME);
    tempo_session_destroy(s);
}

typedef struct count_alloc {
    int allocs, frees, fail_at;
} count_alloc;

static void *ca_alloc(void *ctx, size_t size)
{
    count_alloc *c = ctx;
    if (c->allocs == c->fail_at) {
        c->allocs++;
        return NULL;
    }
    c->allocs++;
    return malloc(size);
}

static void ca_free(void *ctx, void *p)
{
    count_alloc *c = ctx;
    c->frees++;
    free(p);
}

/* Regression (passes): network sessions (p2p with spectators, spectator)
 * report every allocation failure in create cleanly, and a full match with
 * a drop and spectators allocates nothing after create. */
static void network_sessions_allocate_only_in_create(void **state)
{
    (void)state;
    tempo_address host = tempo_address_ipv4(10, 0, 0, 1, 7000);
    tempo_transport tr = {NULL, NULL, NULL};
    tempo_simnet *net;
    tempo_simnet_config nc;
    tempo_simnet_config_default(&nc);
    assert_int_equal(tempo_simnet_create(&nc, &net), TEMPO_OK);
    assert_int_equal(tempo_simnet_add_node(net, &host, &tr), TEMPO_OK);
    for (int kind = 0; kind < 2; kind++)
        for (int k = 0;; k++) {
            count_alloc ca = {0, 0, k};
            tempo_config c = harness_cfg(2);
            c.allocator.alloc = ca_alloc;
            c.allocator.free = ca_free;
            c.allocator.ctx = &ca;
            tempo_session *s = NULL;
            tempo_result r = kind ? tempo_session_create_spectator(&c, &tr, &host, &s)
                                  : tempo_session_create_p2p(&c, &tr, &s);
            if (r == TEMPO_OK) {
                tempo_session_destroy(s);
                assert_int_equal(ca.allocs - (ca.allocs > k ? 1 : 0), ca.frees);
                break;
            }
            assert_int_equal(r, TEMPO_E_NO_MEMORY);
            assert_null(s);
            assert_int_equal(ca.allocs - 1, ca.frees); /* all but the failed one freed */
        }
    tempo_simnet_destroy(net);

    count_alloc ca = {0, 0, -1};
    tempo_config c = harness_cfg(3);
    c.allocator.alloc = ca_alloc;
    c.allocator.free = ca_free;
    c.allocator.ctx = &ca;
    uint32_t m[3];
    harness_one_each(m, 3);
    harness_init(&h, &c, 3, m, 1, "mobile", 45);
    int after_create = ca.allocs;
    harness_run(&h, 300, 60000000);
    harness_kill(&h, 2);
    harness_run(&h, 600, 120000000);
    assert_int_equal(ca.allocs, after_create);
    harness_free(&h);
    assert_int_equal(ca.allocs, ca.frees);
}

/* Regression (passes since 3e21d70): time sync sorted its window with qsort
 * for a trimmed mean, and glibc's qsort mallocs a scratch buffer for 1024
 * bytes or more, i.e. a full window of 256 floats (timesync.window_frames
 * 256, or an auto-delay window of 256+ inputs): 16 mallocs in these 1200
 * ticks at 72004a1. Counts the C library's malloc (skipped under ASan). */
static void time_sync_decisions_never_allocate(void **state)
{
    (void)state;
#ifdef REVIEW_COUNT_MALLOC
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.timesync.window_frames = 256;
    cfg.auto_delay.enabled = true;
    cfg.auto_delay.window_frames = 300;
    tempo_timesync ts;
    timesync_init(&ts, &cfg);
    int before = review_mallocs;
    for (int tick = 0; tick < 1200; tick++) {
        timesync_on_local(&ts, 0, 1.0 + (tick % 3), 0.0);
        timesync_on_remote(&ts, 0, 1.0, 2.0 + (tick % 5));
        (void)timesync_decide(&ts, tick);
        (void)timesync_delay_tick(&ts, 0.0);
    }
    assert_int_equal(review_mallocs, before);
#else
    skip();
#endif
}

/* ---- hostile datagrams, fuzzed ------------------------------------------- */

static void review_assert_handler(const char *expr, const char *file, int line)
{
    fail_msg("TEMPO_ASSERT reached: %s (%s:%d)", expr, file, line);
}

static bool zero_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    (void)ctx;
    (void)player;
    (void)frame;
    memset(out, 0, TEMPO_MAX_INPUT_SIZE);
    return true;
}

/* A random message that decodes, as peer `from` could send it to `to`. */
static int hostile_datagram(uint64_t *x, int from, int to, uint8_t *buf)
{
    tempo_msg m;
    memset(&m, 0, sizeof m);
    tempo_endpoint *e = endpoint_at(to, from);
    m.session_id = h.cfg.session_id;
    m.sequence = (uint16_t)(fz_next(x) % 3 ? e->seq_max + 1 + fz_next(x) % 4 : fz_next(x));
    m.type = (uint8_t)(1 + fz_next(x) % (TEMPO_MSG_TYPE_COUNT_ - 1));
    int np = h.players;
    int32_t hint = p2p_wanted_from(h.peer[to].s, e);
    int32_t near = (int32_t)((int64_t)hint + (int64_t)(fz_next(x) % 401) - 200);
    int32_t wild = (int32_t)(fz_next(x) % 4 == 0 ? fz_next(x) % 0x7fffffffu : (uint64_t)(near < 0 ? 0 : near));
    switch (m.type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY:
        m.u.sync.nonce = (uint32_t)fz_next(x);
        m.u.sync.config_hash = h.peer[to].s->net->config_hash;
        m.u.sync.num_players = (uint8_t)np;
        m.u.sync.input_size = (uint8_t)h.cfg.input_size;
        m.u.sync.player_mask = (uint8_t)(fz_next(x) % 2 ? h.peer[from].local_mask
                                                       : fz_next(x) & ((1u << np) - 1));
        m.u.sync.ready_mask = (uint8_t)(fz_next(x) & ((1u << np) - 1));
        m.u.sync.ready = fz_next(x) % 2;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            m.u.sync.rtt_ms[p] = (uint16_t)fz_next(x);
        break;
    case TEMPO_MSG_INPUT: {
        tempo_msg_input *in = &m.u.input;
        int32_t start = near < 1 ? 1 : near;
        in->start = start;
        in->ack = (int32_t)(fz_next(x) % 2 ? start + (int32_t)(fz_next(x) % 80) - 40 : wild);
        if (in->ack < 0)
            in->ack = 0;
        in->sender_frame = (int32_t)(fz_next(x) % 2 ? start + (int32_t)(fz_next(x) % 80) - 40 : wild);
        if (in->sender_frame < 0)
            in->sender_frame = 0;
        in->player_mask = (uint8_t)(fz_next(x) % 2 ? h.peer[from].local_mask
                                                  : fz_next(x) & ((1u << np) - 1));
        in->count = 1 + (int)(fz_next(x) % TEMPO_MSG_MAX_FRAMES);
        for (size_t i = 0; i < 256; i++)
            in->data[i] = (uint8_t)(fz_next(x) % 7 == 0 ? fz_next(x) : 0);
        if (fz_next(x) % 300 == 0) { /* rare: it drops players for good */
            in->disconnected_mask = (uint8_t)(fz_next(x) & ((1u << np) - 1));
            for (int p = 0; p < np; p++) {
                in->disconnect_frame[p] = (int32_t)(fz_next(x) % 2 ? start + (int32_t)(fz_next(x) % 60) - 30 : wild);
                in->have_until[p] = (int32_t)(fz_next(x) % 2 ? start + (int32_t)(fz_next(x) % 60) - 30 : wild);
                if (in->disconnect_frame[p] < 0)
                    in->disconnect_frame[p] = 0;
                if (in->have_until[p] < 0)
                    in->have_until[p] = 0;
            }
        }
        break;
    }
    case TEMPO_MSG_INPUT_ACK:
        m.u.input_ack.ack = wild;
        m.u.input_ack.sender_frame = (int32_t)(fz_next(x) % 0x7fffffffu);
        break;
    case TEMPO_MSG_PING:
    case TEMPO_MSG_PONG: m.u.ping.time_us = (uint32_t)fz_next(x); break;
    case TEMPO_MSG_QUALITY: m.u.quality.advantage_q8 = (int16_t)fz_next(x); break;
    case TEMPO_MSG_CHECKSUM:
        m.u.checksum.frame = (int32_t)(fz_next(x) % 2 ? (uint64_t)(hint / 30 * 30 + 30 * (int32_t)(fz_next(x) % 5)) : (uint64_t)wild);
        m.u.checksum.checksum = fz_next(x);
        break;
    case TEMPO_MSG_DISCONNECT: /* a peer that leaves: rare, so the others keep playing */
        if (fz_next(x) % 300 != 0)
            m.type = TEMPO_MSG_PING;
        break;
    default: break;
    }
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = h.cfg.input_size;
    ctx.num_players = np;
    ctx.reference = zero_reference;
    return tempo_codec_encode(&m, &ctx, buf, TEMPO_MAX_DATAGRAM);
}

/* Regression (passes): a peer sending random well-formed messages (masks,
 * frames, acks, gossip, checksums at extremes), during the handshake or the
 * match, never makes the receiver assert, crash or read out of bounds (run
 * it under ASan/UBSan). */
static void hostile_peer_messages_never_crash_or_assert(void **state)
{
    (void)state;
    tempo__set_assert_handler(review_assert_handler);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        tempo_config c = harness_cfg(3);
        c.save_policy = seed % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        c.max_prediction = seed % 3 == 0 ? 0 : 8;
        c.timesync.method = (tempo_timesync_method)(seed % 4);
        uint32_t m[3];
        harness_one_each(m, 3);
        harness_init(&h, &c, 3, m, 1, "broadband", 70 + seed);
        if (seed > 2) /* seeds 1-2: from the first millisecond, through the handshake */
            harness_run(&h, 150, 60000000);
        uint64_t x = seed;
        for (int k = 0; k < 3000; k++) {
            uint8_t buf[TEMPO_MAX_DATAGRAM];
            int from = (int)(fz_next(&x) % 4), to = 0; /* 3: the spectator */
            if (from == 0)
                to = 3; /* the host to its spectator */
            int n = hostile_datagram(&x, from, to, buf);
            if (n > 0)
                h.peer[from].tr.send(h.peer[from].tr.ctx, &h.peer[to].addr, buf, (size_t)n);
            harness_run(&h, INT32_MAX, h.now_us + 2000);
        }
        harness_free(&h);
    }
    tempo__set_assert_handler(NULL);
}

/* Every public call on one session in its current state: never a crash or
 * an assert, and a result in the documented set. */
static void poke_every_call(tempo_session *s, int players)
{
    uint8_t in[TEMPO_MAX_INPUT_SIZE] = {0};
    tempo_tick t;
    tempo_event ev;
    tempo_session_stats st;
    tempo_endpoint_stats es;
    tempo_synctest_report rep;
    const tempo_request *r;
    tempo_address a = tempo_address_ipv4(10, 0, 0, 99, 1);
    for (int p = -1; p <= players; p++) {
        int rr = tempo_session_add_local_input(s, p, in, 4);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER);
        rr = tempo_session_add_remote_input(s, p, 0, in, 4);
        assert_true(rr <= 0 && rr >= TEMPO_RESULT_MIN_);
        rr = tempo_session_set_input_delay(s, p, 1);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER);
        assert_true(tempo_session_input_delay(s, p) >= TEMPO_E_PLAYER);
        rr = tempo_session_get_endpoint_stats(s, p, &es);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER || rr == TEMPO_E_UNSUPPORTED);
        rr = tempo_session_get_spectator_stats(s, p, &es);
        assert_true(rr == TEMPO_OK || rr == TEMPO_E_PLAYER || rr == TEMPO_E_UNSUPPORTED);
        rr = tempo_session_add_local_player(s, p);
        assert_true(rr <= 0 && rr >= TEMPO_RESULT_MIN_);
        rr = tempo_session_add_remote_player(s, p, &a);
        assert_true(rr <= 0 && rr >= TEMPO_RESULT_MIN_);
    }
    assert_int_equal(tempo_session_get_endpoint_stats(s, 0, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_get_spectator_stats(s, 0, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_add_spectator(s, NULL), TEMPO_E_INVALID_ARG);
    assert_true(tempo_session_add_spectator(s, &a) <= 0);
    assert_int_equal(tempo_session_advance(s, NULL), TEMPO_E_INVALID_ARG);
    assert_true(tempo_session_advance(s, &t) <= 0);
    while (tempo_session_next(s, &r) > 0)
        if (r->kind == TEMPO_REQUEST_SAVE)
            *r->checksum = 1;
    assert_int_equal(tempo_session_next(s, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_session_poll_event(s, NULL), TEMPO_E_INVALID_ARG);
    while (tempo_session_poll_event(s, &ev) > 0) {
    }
    assert_int_equal(tempo_session_get_stats(s, &st), TEMPO_OK);
    assert_true(tempo_session_synctest_report(s, &rep) <= 0);
    assert_int_equal(tempo_session_synctest_report(s, NULL), TEMPO_E_INVALID_ARG);
    (void)tempo_session_will_stall(s);
    assert_true(tempo_session_save_slots(s) > 0);
    assert_true(tempo_session_frame(s) >= 0);
    assert_true(tempo_session_confirmed_frame(s) >= 0);
}

/* Regression (passes): every public call, in every session kind and state
 * (before start, running, after leave, spectator, synctest), with good and
 * bad arguments, returns a code and never crashes or asserts. */
static void every_call_in_every_state_returns_a_code(void **state)
{
    (void)state;
    tempo__set_assert_handler(review_assert_handler);
    tempo_config c = harness_cfg(2);
    tempo_session *s;
    assert_int_equal(tempo_session_create_local(&c, &s), TEMPO_OK);
    poke_every_call(s, 2);
    tempo_session_add_local_player(s, 0);
    poke_every_call(s, 2);
    assert_int_equal(tempo_session_leave(s), TEMPO_E_UNSUPPORTED);
    tempo_session_destroy(s);
    assert_int_equal(tempo_session_create_synctest(&c, 3, &s), TEMPO_OK);
    poke_every_call(s, 2);
    poke_every_call(s, 2);
    tempo_session_destroy(s);

    uint32_t m[2];
    harness_one_each(m, 2);
    harness_init(&h, &c, 2, m, 1, "lan", 46);
    poke_every_call(h.peer[2].s, 2); /* spectator, before start */
    harness_run(&h, 100, 30000000);
    poke_every_call(h.peer[0].s, 2);
    poke_every_call(h.peer[2].s, 2);
    assert_int_equal(tempo_session_leave(h.peer[1].s), TEMPO_OK);
    assert_int_equal(tempo_session_leave(h.peer[1].s), TEMPO_E_STATE);
    poke_every_call(h.peer[1].s, 2);
    assert_int_equal(tempo_session_leave(h.peer[2].s), TEMPO_OK);
    poke_every_call(h.peer[2].s, 2);
    h.peer[1].dead = h.peer[2].dead = true;
    harness_run(&h, 300, 60000000);
    assert_true(tempo_session_frame(h.peer[0].s) >= 300);
    poke_every_call(h.peer[0].s, 2);
    harness_free(&h);
    tempo__set_assert_handler(NULL);
}

/* Regression (passes): synctest over random check distances up to 64, both
 * save policies, arena or not, with random input delay changes (a decrease
 * by up to 64 runs 65 frames in one tick): a deterministic game is never
 * reported, LOADs only name saved frames, and every input is used once. */
static void synctest_with_delay_changes_reports_no_false_desync(void **state)
{
    (void)state;
    tempo__set_assert_handler(review_assert_handler);
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint64_t x = seed * 31;
        tempo_config cfg;
        tempo_config_default(&cfg);
        cfg.num_players = 1 + (int)(fz_next(&x) % 3);
        cfg.max_prediction = (int)(1 + fz_next(&x) % 64);
        cfg.save_policy = fz_next(&x) % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
        int cd = (int)(1 + fz_next(&x) % (uint64_t)cfg.max_prediction);
        tempo_session *s;
        assert_int_equal(tempo_session_create_synctest(&cfg, cd, &s), TEMPO_OK);
        toy_driver_init(&fz_driver, cfg.num_players, 4);
        int32_t last = -1;
        for (int tick = 0; tick < 600; tick++) {
            if (tick > 0 && fz_next(&x) % 20 == 0)
                for (int p = 0; p < cfg.num_players; p++)
                    assert_int_equal(tempo_session_set_input_delay(s, p,
                        (int)(fz_next(&x) % (uint64_t)(cfg.max_prediction + 1))), TEMPO_OK);
            for (int p = 0; p < cfg.num_players; p++) {
                uint32_t v = (uint32_t)tick;
                uint8_t b[4];
                memcpy(b, &v, 4);
                assert_int_equal(tempo_session_add_local_input(s, p, b, 4), TEMPO_OK);
            }
            tempo_tick t;
            assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
            const tempo_request *r;
            while (tempo_session_next(s, &r) > 0)
                toy_driver_do(&fz_driver, r);
            assert_int_equal(fz_driver.errors, 0);
        }
        for (int32_t f = 0; f < tempo_session_frame(s); f++) {
            uint32_t idx;
            memcpy(&idx, fz_driver.used[f], 4);
            assert_true((int64_t)idx > (int64_t)last);
            last = (int32_t)idx;
        }
        tempo_synctest_report rep;
        assert_int_equal(tempo_session_synctest_report(s, &rep), TEMPO_OK);
        assert_int_equal(rep.mismatches, 0);
        assert_true(rep.checks > 0);
        tempo_session_destroy(s);
    }
    tempo__set_assert_handler(NULL);
}

/* ---- the engine, fuzzed ---------------------------------------------------- */

#define FZ_MAXF 1400
#define FZ_ISIZE 4

typedef struct fz_case {
    uint64_t seed;
    int players, locals, max_pred, interval;
    tempo_save_policy policy;
    int frames;
    int lat_max;
    int delay_cap;       /* largest delay the fuzzer picks */
    int delay_change_pct;
    int disconnect_tick; /* -1: none */
} fz_case;

static int fz_arrival[TEMPO_MAX_PLAYERS][FZ_MAXF];
static uint64_t fz_sum[FZ_MAXF];
static int fz_sum_count[FZ_MAXF];

/* A local session against remote inputs that arrive late, out of order and
 * in bursts, with random input delay changes (increases, big decreases) and
 * a disconnect. Checks the engine invariants of sync.h and DESIGN.md. */
static void fz_run(const fz_case *fc)
{
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = fc->players;
    cfg.input_size = FZ_ISIZE;
    cfg.max_prediction = fc->max_pred;
    cfg.save_policy = fc->policy;
    cfg.desync_interval = fc->interval;
    tempo_session *s = NULL;
    assert_int_equal(tempo_session_create_local(&cfg, &s), TEMPO_OK);
    for (int p = 0; p < fc->players; p++) {
        if (p < fc->locals)
            assert_int_equal(tempo_session_add_local_player(s, p), TEMPO_OK);
        else
            assert_int_equal(tempo_session_add_remote_player(s, p, NULL), TEMPO_OK);
    }
    int limit = fc->max_pred > 0 ? fc->max_pred : TEMPO_MAX_PREDICTION;
    int cap = fc->delay_cap < limit ? fc->delay_cap : limit;
    uint64_t r = fc->seed;
    for (int p = 0; p < fc->locals; p++)
        assert_int_equal(tempo_session_set_input_delay(s, p, (int)(fz_next(&r) % (uint64_t)(cap + 1))),
                         TEMPO_OK);
    for (int p = fc->locals; p < fc->players; p++)
        for (int f = 0; f < FZ_MAXF; f++) {
            int lat = (int)(fz_next(&r) % (uint64_t)(fc->lat_max + 1));
            fz_arrival[p][f] = f + lat + (fz_next(&r) % 9 == 0 ? (int)(fz_next(&r) % 4) * 5 : 0);
        }
    memset(fz_sum_count, 0, sizeof fz_sum_count);
    toy_driver *d = &fz_driver;
    toy_driver_init(d, fc->players, FZ_ISIZE);
    int32_t last_sample[TEMPO_MAX_PLAYERS];
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        last_sample[p] = -1;
    int32_t disc_frame = -1;
    int disc_player = fc->players - 1;
    int heal_from = -1;
    for (int tick = 0; tick < 30000; tick++) {
        bool healing = tempo_session_frame(s) >= fc->frames;
        if (healing && heal_from < 0)
            heal_from = tick;
        for (int p = fc->locals; p < fc->players; p++)
            for (int f = 0; f < FZ_MAXF; f++)
                if (fz_arrival[p][f] >= 0 && (fz_arrival[p][f] <= tick || healing)) {
                    uint8_t b[FZ_ISIZE];
                    toy_true_input(fc->seed, p, f, b, FZ_ISIZE);
                    tempo_result res = tempo_session_add_remote_input(s, p, f, b, FZ_ISIZE);
                    assert_true(res == TEMPO_OK || res == TEMPO_E_FRAME);
                    if (res == TEMPO_OK)
                        fz_arrival[p][f] = -1;
                }
        if (!healing && fc->delay_change_pct > 0 &&
            (int)(fz_next(&r) % 100) < fc->delay_change_pct) {
            int p = (int)(fz_next(&r) % (uint64_t)fc->locals);
            int to = (int)(fz_next(&r) % (uint64_t)(cap + 1));
            assert_int_equal(tempo_session_set_input_delay(s, p, to), TEMPO_OK);
        }
        if (tick == fc->disconnect_tick && fc->players > fc->locals) {
            assert_int_equal(tempo_session_disconnect_player(s, disc_player), TEMPO_OK);
            disc_frame = s->sync.q[disc_player].disconnect_frame;
        }
        for (int p = 0; p < fc->locals; p++) {
            uint8_t b[FZ_ISIZE];
            uint32_t sample = (uint32_t)tick;
            memcpy(b, &sample, FZ_ISIZE);
            assert_int_equal(tempo_session_add_local_input(s, p, b, FZ_ISIZE), TEMPO_OK);
        }
        tempo_tick t;
        assert_int_equal(tempo_session_advance(s, &t), TEMPO_OK);
        const tempo_request *rq;
        while (tempo_session_next(s, &rq) > 0) {
            toy_driver_do(d, rq);
            if (rq->kind == TEMPO_REQUEST_ADVANCE)
                for (int p = 0; p < fc->locals; p++) /* a local player never lacks input */
                    assert_int_equal(rq->status[p], TEMPO_INPUT_CONFIRMED);
        }
        assert_int_equal(d->errors, 0);
        assert_true(t.rollback_depth <= fc->max_pred);
        int32_t F = tempo_session_frame(s), C = tempo_session_confirmed_frame(s);
        assert_true(F - C <= fc->max_pred);
        sync_sum cs;
        while (sync_take_checksum(&s->sync, &cs)) {
            assert_true(cs.frame > 0 && cs.frame < FZ_MAXF && cs.frame % fc->interval == 0);
            assert_true(cs.frame <= C); /* only final states are reported */
            fz_sum[cs.frame] = cs.checksum;
            fz_sum_count[cs.frame]++;
        }
        if (healing && C == F && tick > heal_from + 2 * TEMPO_MAX_PREDICTION + 8)
            break;
    }
    int32_t F = tempo_session_frame(s);
    assert_true(F >= fc->frames);
    assert_int_equal(tempo_session_confirmed_frame(s), F);
    for (int32_t f = 0; f < F; f++) {
        for (int p = 0; p < fc->locals; p++) {
            uint32_t idx;
            memcpy(&idx, d->used[f] + p * FZ_ISIZE, FZ_ISIZE);
            assert_true((int64_t)idx > (int64_t)last_sample[p]); /* each input once, in order */
            last_sample[p] = (int32_t)idx;
        }
        for (int p = fc->locals; p < fc->players; p++) {
            uint8_t expect[FZ_ISIZE] = {0};
            bool gone = disc_frame >= 0 && p == disc_player && f >= disc_frame;
            if (!gone)
                toy_true_input(fc->seed, p, f, expect, FZ_ISIZE);
            assert_memory_equal(d->used[f] + p * FZ_ISIZE, expect, FZ_ISIZE);
            assert_int_equal(d->used_status[f][p] == TEMPO_INPUT_DISCONNECTED, gone);
        }
    }
    /* every check frame of the confirmed run: reported once, with its final state */
    for (int32_t f = fc->interval; f + 1 < F && f < FZ_MAXF; f += fc->interval) {
        if (fz_sum_count[f] != 1)
            fail_msg("seed %llu mp %d policy %d interval %d: check frame %d reported %d times",
                     (unsigned long long)fc->seed, fc->max_pred, (int)fc->policy, fc->interval,
                     (int)f, fz_sum_count[f]);
        assert_true(fz_sum[f] == d->hash_after[f - 1]);
    }
    assert_int_equal(s->sync.checks_skipped, 0);
    tempo_session_destroy(s);
}

static fz_case fz_make(uint64_t seed)
{
    static const int mps[] = {0, 1, 2, 3, 8, 16, 64};
    static const int intervals[] = {2, 3, 7, 60}; /* 1: see the catch-up test */
    uint64_t x = seed * 7919u;
    fz_case fc;
    memset(&fc, 0, sizeof fc);
    fc.seed = seed;
    fc.players = 2 + (int)(fz_next(&x) % 3);
    fc.locals = 1 + (int)(fz_next(&x) % 2);
    fc.max_pred = mps[fz_next(&x) % 7];
    fc.interval = intervals[fz_next(&x) % 4];
    fc.policy = fz_next(&x) % 2 ? TEMPO_SAVE_SPARSE : TEMPO_SAVE_EVERY_FRAME;
    fc.frames = 500;
    fc.lat_max = (int)(fz_next(&x) % (uint64_t)(fc.max_pred + 6));
    fc.delay_cap = fz_next(&x) % 4 == 0 ? 64 : 6;
    fc.delay_change_pct = (int)(fz_next(&x) % 6);
    fc.disconnect_tick = fz_next(&x) % 3 == 0 ? 100 + (int)(fz_next(&x) % 300) : -1;
    return fc;
}

/* Regression (passes): the engine keeps its invariants under random
 * scenarios, including max prediction 64, sparse saving and big delay
 * decreases. */
static void engine_keeps_its_invariants_under_random_scenarios(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        fz_case fc = fz_make(seed);
        fz_run(&fc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(survivors_agree_on_the_frame_of_a_peer_that_leaves),
        cmocka_unit_test(engine_keeps_its_invariants_under_random_scenarios),
        cmocka_unit_test(hostile_peer_messages_never_crash_or_assert),
        cmocka_unit_test(network_sessions_allocate_only_in_create),
        cmocka_unit_test(every_call_in_every_state_returns_a_code),
        cmocka_unit_test(synctest_with_delay_changes_reports_no_false_desync),
        cmocka_unit_test(time_sync_decisions_never_allocate),
        cmocka_unit_test(gossip_view_beyond_every_input_does_not_wedge_the_survivor),
        cmocka_unit_test(survivor_plays_on_when_the_only_holder_of_missing_inputs_drops),
        cmocka_unit_test(one_absurd_sender_frame_does_not_freeze_the_receiver),
        cmocka_unit_test(every_confirmed_check_frame_is_compared),
        cmocka_unit_test(checksums_of_a_65_frame_catch_up_are_all_reported),
        cmocka_unit_test(forged_checksums_are_ignored_and_counted),
        cmocka_unit_test(synctest_players_take_an_input_delay_before_the_first_tick),
        cmocka_unit_test(remote_input_bounds_are_as_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
