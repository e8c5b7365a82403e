/* SPDX-License-Identifier: MIT */
/*
 * test_p2p_input_run.c — a peer codes the inputs it sends several peers
 * once per round (wire/codec.h, tempo_codec_run); what leaves must be what
 * coding each INPUT whole gives. In meshes of 3 to 6 machines over lossy,
 * jittery links (so peers acknowledge different frames and inputs repeat),
 * two spectators watching the first, every INPUT a machine sends is caught
 * as it leaves and checked: it decodes against the sender's own inputs
 * (for a spectator, its confirmed-input log), carries exactly those inputs
 * of its frames and the sender's current frame, and coding the decoded
 * message whole gives the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "p2p/network.h"
#include "p2p_harness.h"
#include "session/session.h"
#include "wire/packet.h"

static harness h;
static int checked, several, fed; /* INPUTs checked; of several frames; to spectators */
static int gossiped;                /* ... with drops named */

/* The confirmed-input log's input, as the host feeds spectators. */
static bool log_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    const tempo_p2p *n = ctx;
    const uint8_t *in = input_log_input(&n->sync->confirmed_log, frame, player);
    if (in != NULL)
        memcpy(out, in, (size_t)n->cfg->input_size);
    return in != NULL;
}

static void check_input(const tempo_p2p *n, bool to_spectator, const uint8_t *data, size_t size)
{
    tempo_packet_view v;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    assert_int_equal(packet_read(data, size, &v, &why), TEMPO_OK);
    if (v.h.type != TEMPO_MSG_INPUT)
        return;
    tempo_codec_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.input_size = n->cfg->input_size;
    ctx.num_players = n->cfg->num_players;
    ctx.frame_hint = n->sync->frame;
    /* the sender's own inputs: what the receiver holds */
    ctx.reference = to_spectator ? log_reference : p2p_reference;
    ctx.reference_ctx = (void *)(uintptr_t)n;
    const uint8_t *body = data + PACKET_HEADER_SIZE;
    size_t body_size = size - PACKET_HEADER_SIZE;
    static tempo_msg m;
    assert_int_equal(tempo_codec_decode_body(v.h.type, body, body_size, &ctx, &m, &why), TEMPO_OK);
    const tempo_msg_input *in = &m.u.input;
    assert_int_equal(in->sender_frame, n->sync->frame);
    size_t is = (size_t)ctx.input_size;
    for (int p = 0, i = 0; p < ctx.num_players; p++) {
        if (!((in->player_mask >> p) & 1u))
            continue;
        /* a peer sends its own players, or relays one being dropped */
        bool relay = !to_spectator && !((n->local_mask >> p) & 1u);
        assert_true(!relay || n->drop_state[p] != DROP_NONE);
        for (int f = 0; f < in->count; f++) {
            uint8_t want[TEMPO_MAX_INPUT_SIZE];
            bool have = to_spectator ? log_reference((void *)(uintptr_t)n, p, in->start + f, want)
                                     : iq_real(&n->sync->q[p], in->start + f, want);
            assert_true(have || relay);
            if (have)
                assert_memory_equal(in->data + ((size_t)i * (size_t)in->count + (size_t)f) * is, want, is);
        }
        i++;
    }
    uint8_t again[PACKET_MAX_BODY];
    int k = tempo_codec_encode_body(&m, &ctx, again, sizeof again);
    assert_int_equal(k, (int)body_size);
    assert_memory_equal(again, body, body_size);
    checked++;
    gossiped += in->disconnected_mask != 0;
    several += in->count > 1;
    fed += to_spectator;
}

/* Every datagram a machine sends passes here on its way to the network. */
static tempo_transport wire_of[H_MAX]; /* each node's own transport */

static int catching_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    int i = 0;
    while (i < h.npeers && wire_of[i].ctx != ctx)
        i++;
    assert_true(i < h.npeers);
    bool to_spectator = false;
    for (int k = 0; k < h.npeers; k++)
        to_spectator |= h.peer[k].spectator && tempo_address_equal(&h.peer[k].addr, to);
    if (!h.peer[i].spectator) /* a spectator sends only acknowledgements */
        check_input(h.peer[i].s->net, to_spectator, data, size);
    return wire_of[i].send(ctx, to, data, size);
}

static void catch_sends(void)
{
    for (int i = 0; i < h.npeers; i++) { /* h_ears_send calls tr.send: caught there */
        wire_of[i] = h.peer[i].tr;
        h.peer[i].tr.send = catching_send;
    }
}

static void one_mesh(int peers, const char *profile, uint64_t seed)
{
    tempo_config c = harness_cfg(peers);
    uint32_t m[H_MAX];
    harness_one_each(m, peers);
    harness_init(&h, &c, peers, m, 2, profile, seed);
    catch_sends();
    harness_run(&h, 150, 4000000);
    assert_true(harness_common_confirmed(&h, false) >= 30); /* the match ran */
    harness_free(&h);
}

static void test_every_input_sent_is_the_whole_coding_over_many_seeds(void **state)
{
    (void)state;
    static const char *profiles[] = {"mobile", "terrible", "lan"};
    for (uint64_t seed = 1; seed <= 4; seed++)
        one_mesh(3 + (int)(seed % 4), profiles[seed % 3], seed);
    assert_true(checked > 5000);
    assert_true(several > 500); /* lost acks: runs of several frames went out too */
    assert_true(fed > 500);
}

/* Four machines, the first holding two players, two spectators; the last
 * machine vanishes mid-match, so INPUTs name a player being dropped (its
 * drop frame and what each sender holds of it, in the shared part) while
 * the survivors agree (a relay of its inputs, if one goes out, carries
 * what the sender holds). Every INPUT that leaves is checked as above. */
static void one_drop(const char *profile, uint64_t seed)
{
    tempo_config c = harness_cfg(5);
    uint32_t m[H_MAX] = {0x3u, 0x4u, 0x8u, 0x10u};
    harness_init(&h, &c, 4, m, 2, profile, seed);
    catch_sends();
    harness_run(&h, 60, 4000000);
    assert_true(harness_common_confirmed(&h, false) >= 20);
    harness_kill(&h, 3);
    int32_t f0 = tempo_session_frame(h.peer[0].s);
    harness_run(&h, f0 + 300, h.now_us + 30000000);
    for (int i = 0; i < 3; i++) { /* the survivors played on, player 4 dropped */
        assert_true(tempo_session_frame(h.peer[i].s) >= f0 + 300);
        assert_int_equal(h.peer[i].disconnect_events, 1);
        assert_int_equal(h.peer[i].desync_events, 0);
    }
    harness_free(&h);
}

static void test_every_input_sent_while_a_player_is_dropped_is_the_whole_coding(void **state)
{
    (void)state;
    checked = several = fed = gossiped = 0;
    one_drop("lan", 1);
    one_drop("terrible", 2);
    assert_true(checked > 3000);
    assert_true(gossiped > 100); /* the drops went out in the shared part */
    assert_true(fed > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_input_sent_is_the_whole_coding_over_many_seeds),
        cmocka_unit_test(test_every_input_sent_while_a_player_is_dropped_is_the_whole_coding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
