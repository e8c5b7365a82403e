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
        assert_true(to_spectator || ((n->local_mask >> p) & 1u));
        for (int f = 0; f < in->count; f++) {
            uint8_t want[TEMPO_MAX_INPUT_SIZE];
            assert_true(to_spectator ? log_reference((void *)(uintptr_t)n, p, in->start + f, want)
                                     : iq_real(&n->sync->q[p], in->start + f, want));
            assert_memory_equal(in->data + ((size_t)i * (size_t)in->count + (size_t)f) * is, want, is);
        }
        i++;
    }
    uint8_t again[PACKET_MAX_BODY];
    int k = tempo_codec_encode_body(&m, &ctx, again, sizeof again);
    assert_int_equal(k, (int)body_size);
    assert_memory_equal(again, body, body_size);
    checked++;
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

static void one_mesh(int peers, const char *profile, uint64_t seed)
{
    tempo_config c = harness_cfg(peers);
    uint32_t m[H_MAX];
    harness_one_each(m, peers);
    harness_init(&h, &c, peers, m, 2, profile, seed);
    for (int i = 0; i < h.npeers; i++) { /* h_ears_send calls tr.send: caught there */
        wire_of[i] = h.peer[i].tr;
        h.peer[i].tr.send = catching_send;
    }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_input_sent_is_the_whole_coding_over_many_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
