/* SPDX-License-Identifier: MIT */
/*
 * test_codec.c — the wire format: round trips of every message type over
 * random contents, the test vectors of docs/PROTOCOL.md byte for byte,
 * truncated and corrupted datagrams, every drop reason, the 16-bit unwrap,
 * the INPUT size targets, and the encoder shrinking count to fit.
 *
 * `test_codec --write-corpus DIR` writes the fuzzers' seed corpus (valid
 * packets) to DIR/codec and DIR/bitpack, and streams of fragments to
 * DIR/fragment, instead of running the tests;
 * `test_codec --print-vectors` prints the vectors as PROTOCOL.md lists them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "doc_vectors.h"

#include "../../fuzz/fuzz_codec_ctx.h"
#include "wire/bitpack.h"
#include "wire/codec.h"
#include "wire/fragment.h"
#include "tempo/rng.h"

#ifdef _WIN32 /* Windows' mkdir takes no mode */
#include <direct.h>
#define mkdir(path, mode) ((void)(mode), _mkdir(path))
#endif

#define ROUND_TRIPS 5000
#define SESSION 0x12345678u

/* Messages are ~32 KB: the tests keep theirs here rather than on the stack. */
static tempo_msg msg_a, msg_b, msg_c;

/* ---- random messages ---- */

/* A frame: small, near a multiple of 65536, or anywhere up to 2^31 - 200. */
static int32_t random_frame(tempo_rng *rng)
{
    switch (tempo_rng_below(rng, 3)) {
    case 0: return tempo_rng_range(rng, 0, 300);
    case 1: return tempo_rng_range(rng, 0, 32000) * 65536 + tempo_rng_range(rng, -20, 20) + 20;
    default: return tempo_rng_range(rng, 0, INT32_MAX - 200);
    }
}

/* A frame near base: the common case is a few frames away. */
static int32_t near_frame(tempo_rng *rng, int32_t base)
{
    int64_t f = (int64_t)base + (tempo_rng_below(rng, 8) ? tempo_rng_range(rng, -20, 20)
                                                          : tempo_rng_range(rng, -100000, 100000));
    return f < 0 ? 0 : f > INT32_MAX ? INT32_MAX : (int32_t)f;
}

/* Next input of a player: mostly unchanged, sometimes a bit, a byte, two
 * bytes or everything changes (the shapes the delta coding is built for). */
static void random_step(tempo_rng *rng, uint8_t *in, int size)
{
    uint32_t r = tempo_rng_below(rng, 20);
    if (r < 12)
        return;
    if (r < 15) {
        int bit = (int)tempo_rng_below(rng, (uint32_t)size * 8);
        in[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    } else if (r < 19) {
        for (uint32_t k = 0, n = 1 + (r == 18); k < n; k++)
            in[tempo_rng_below(rng, (uint32_t)size)] = (uint8_t)tempo_rng_next(rng);
    } else {
        for (int i = 0; i < size; i++)
            in[i] = (uint8_t)tempo_rng_next(rng);
    }
}

/* A datagram ack as a sender makes one: none, all received, or gaps. */
static void random_datagram_ack(tempo_rng *rng, wire_ack *a)
{
    uint32_t kind = tempo_rng_below(rng, 3);
    uint64_t newest = tempo_rng_below(rng, 2) ? tempo_rng_below(rng, 40) : tempo_rng_next(rng);
    wire_ack_make(a, kind != 0, newest, kind == 1 ? 0xFFFFFFFFu : tempo_rng_next(rng));
}

static void random_input(tempo_rng *rng, const tempo_codec_ctx *ctx, tempo_msg_input *in)
{
    int np = ctx->num_players, is = ctx->input_size;
    in->player_mask = (uint8_t)tempo_rng_below(rng, 1u << np);
    in->count = (int)(tempo_rng_below(rng, 4) ? tempo_rng_range(rng, 0, 10)
                                              : tempo_rng_range(rng, 0, TEMPO_MSG_MAX_FRAMES));
    do /* the receiver must know the reference frame */
        in->start = random_frame(rng);
    while (in->start > 0 && !fuzz_reference_known(in->start - 1));
    in->ack = near_frame(rng, in->start);
    in->sender_frame = near_frame(rng, in->start + in->count);
    in->disconnected_mask = tempo_rng_below(rng, 4) ? 0 : (uint8_t)tempo_rng_below(rng, 1u << np);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        in->disconnect_frame[p] = near_frame(rng, in->start);
        in->have_until[p] = near_frame(rng, in->start);
    }
    uint8_t cur[TEMPO_MAX_INPUT_SIZE];
    for (int p = 0, i = 0; p < np; p++) {
        if (!((in->player_mask >> p) & 1u))
            continue;
        if (in->start == 0)
            memset(cur, 0, sizeof cur);
        else
            fuzz_reference((void *)ctx, p, in->start - 1, cur);
        for (int f = 0; f < in->count; f++) {
            random_step(rng, cur, is);
            memcpy(in->data + ((size_t)i * (size_t)in->count + (size_t)f) * (size_t)is, cur, (size_t)is);
        }
        i++;
    }
    random_datagram_ack(rng, &in->datagram_ack);
}

static void random_sync(tempo_rng *rng, tempo_msg_sync *s)
{
    s->nonce = tempo_rng_next(rng);
    s->config_hash = tempo_rng_next(rng);
    s->num_players = (uint8_t)tempo_rng_range(rng, 1, TEMPO_MAX_PLAYERS);
    s->input_size = (uint8_t)tempo_rng_range(rng, 1, TEMPO_MAX_INPUT_SIZE);
    s->player_mask = (uint8_t)tempo_rng_below(rng, 1u << s->num_players);
    s->ready_mask = (uint8_t)tempo_rng_below(rng, 1u << s->num_players);
    s->ready = tempo_rng_below(rng, 2) != 0;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++) {
        uint32_t k = tempo_rng_below(rng, 4);
        s->rtt_ms[p] = (uint16_t)(k == 0   ? 0xFFFFu
                                  : k == 1 ? tempo_rng_next(rng)
                                           : tempo_rng_below(rng, 300));
    }
}

/* A random valid message of `type` for a receiver with ctx. */
static void random_msg(tempo_rng *rng, int type, const tempo_codec_ctx *ctx, tempo_msg *m)
{
    m->session_id = tempo_rng_next(rng);
    m->sequence = (uint16_t)tempo_rng_next(rng);
    m->type = (uint8_t)type;
    switch (type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY: random_sync(rng, &m->u.sync); break;
    case TEMPO_MSG_INPUT: random_input(rng, ctx, &m->u.input); break;
    case TEMPO_MSG_INPUT_ACK:
        m->u.input_ack.ack = random_frame(rng);
        m->u.input_ack.sender_frame = near_frame(rng, m->u.input_ack.ack);
        random_datagram_ack(rng, &m->u.input_ack.datagram_ack);
        break;
    case TEMPO_MSG_PING:
    case TEMPO_MSG_PONG: m->u.ping.id = tempo_rng_next(rng); break;
    case TEMPO_MSG_QUALITY:
        m->u.quality.advantage_q8 = (int16_t)tempo_rng_range(rng, INT16_MIN, INT16_MAX);
        break;
    case TEMPO_MSG_CHECKSUM:
        m->u.checksum.frame = tempo_rng_below(rng, 4) == 0 ? 0 : random_frame(rng);
        m->u.checksum.checksum = m->u.checksum.frame == 0
                                     ? 0
                                     : (uint64_t)tempo_rng_next(rng) << 32 | tempo_rng_next(rng);
        m->u.checksum.ack = random_frame(rng);
        break;
    case TEMPO_MSG_DESYNC_STATE: {
        static uint8_t bytes[64];
        for (size_t i = 0; i < sizeof bytes; i++)
            bytes[i] = (uint8_t)tempo_rng_next(rng);
        m->u.state.frame = 1 + (int32_t)tempo_rng_below(rng, 1u << 20);
        m->u.state.checksum = (uint64_t)tempo_rng_next(rng) << 32 | tempo_rng_next(rng);
        m->u.state.carried = tempo_rng_below(rng, 4) != 0;
        m->u.state.size = m->u.state.carried ? tempo_rng_below(rng, sizeof bytes + 1) : tempo_rng_next(rng);
        m->u.state.data = bytes;
        break;
    }
    case TEMPO_MSG_REJOIN_REQUEST:
        m->u.rejoin_request.player_mask =
            (uint8_t)tempo_rng_range(rng, 1, (int)((1u << ctx->num_players) - 1u));
        break;
    case TEMPO_MSG_REJOIN_REFUSED:
        m->u.rejoin_refused.reason = (uint8_t)tempo_rng_range(rng, TEMPO_REFUSED_DROPPED, TEMPO_REFUSED_EPOCH);
        m->u.rejoin_refused.epoch = (uint8_t)tempo_rng_next(rng);
        break;
    case TEMPO_MSG_REJOIN_FRAME:
        m->u.rejoin_frame.player_mask =
            (uint8_t)tempo_rng_range(rng, 1, (int)((1u << ctx->num_players) - 1u));
        m->u.rejoin_frame.frame = 1 + (int32_t)tempo_rng_below(rng, 1u << 20);
        break;
    case TEMPO_MSG_REJOIN_STATE: {
        static uint8_t bytes[64], prev[TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE];
        for (size_t i = 0; i < sizeof bytes; i++)
            bytes[i] = (uint8_t)tempo_rng_next(rng);
        for (size_t i = 0; i < sizeof prev; i++)
            prev[i] = (uint8_t)tempo_rng_next(rng);
        tempo_msg_rejoin_state *j = &m->u.rejoin_state;
        memset(j, 0, sizeof *j);
        uint32_t all = (1u << ctx->num_players) - 1u;
        j->frame = (int32_t)tempo_rng_below(rng, 1u << 20);
        j->live_frame = j->frame + (int32_t)tempo_rng_below(rng, 100);
        j->rejoin_frame = j->live_frame + 1 + (int32_t)tempo_rng_below(rng, 100);
        j->player_mask = (uint8_t)tempo_rng_range(rng, 1, (int)all);
        j->disconnected_mask = (uint8_t)(tempo_rng_next(rng) & all & ~(uint32_t)j->player_mask);
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            if (j->disconnected_mask & (1u << p))
                j->disconnect_frame[p] = (int32_t)tempo_rng_below(rng, 1u << 20);
        j->prev_size = (uint16_t)(j->frame > 0 ? ctx->num_players * ctx->input_size : 0);
        j->prev = prev;
        j->size = 1 + tempo_rng_below(rng, sizeof bytes);
        j->data = bytes;
        break;
    }
    default: break; /* DISCONNECT: no body */
    }
}

/* A random receiver context; reference_ctx points at *ctx itself. */
static void random_ctx(tempo_rng *rng, tempo_codec_ctx *ctx)
{
    ctx->input_size = tempo_rng_below(rng, 2) ? 4 : tempo_rng_range(rng, 1, TEMPO_MAX_INPUT_SIZE);
    ctx->num_players = tempo_rng_range(rng, 1, TEMPO_MAX_PLAYERS);
    ctx->frame_hint = 0;
    ctx->reference = fuzz_reference;
    ctx->reference_ctx = ctx;
}

/* Set the hint anywhere the base frame of m still unwraps to (PROTOCOL.md:
 * within 32767 below to 32768 above the base). */
static void random_hint(tempo_rng *rng, const tempo_msg *m, tempo_codec_ctx *ctx)
{
    if (m->type == TEMPO_MSG_INPUT) {
        int64_t hint = (int64_t)m->u.input.start + tempo_rng_range(rng, -32767, 32768);
        ctx->frame_hint = hint > INT32_MAX ? INT32_MAX : (int32_t)hint;
    }
}

/* The registry's types in turn: the k-th known one, wrapping. */
static int known_type(int k)
{
    int known[TEMPO_MSG_TYPE_COUNT_], n = 0;
    for (int t = 1; t < TEMPO_MSG_TYPE_COUNT_; t++)
        if (tempo_msg_type_known((uint8_t)t))
            known[n++] = t;
    return known[k % n];
}

/* A type of the registry (numbers between are free). */
static int random_type(tempo_rng *rng)
{
    int t;
    do
        t = tempo_rng_range(rng, 1, TEMPO_MSG_TYPE_COUNT_ - 1);
    while (!tempo_msg_type_known((uint8_t)t));
    return t;
}

/* Encode m, decode it back into out: asserts both succeed and agree. */
static int round_trip(tempo_msg *m, const tempo_codec_ctx *ctx, tempo_msg *out, uint8_t *buf, size_t cap)
{
    int n = tempo_codec_encode(m, ctx, buf, cap);
    assert_true(n >= 8 && (size_t)n <= cap && n <= TEMPO_MAX_DATAGRAM);
    tempo_drop_reason why = TEMPO_DROP_TRUNCATED;
    assert_int_equal(tempo_codec_decode(buf, (size_t)n, ctx, out, &why), TEMPO_OK);
    assert_int_equal(why, TEMPO_DROP_NONE);
    assert_true(tempo_codec_msg_equal(m, out, ctx->input_size));
    return n;
}

/* A random message of a random type into msg_a (ctx random, its hint set so
 * the message unwraps), encoded into buf; returns the size. */
static int random_datagram(tempo_rng *rng, tempo_codec_ctx *ctx, uint8_t *buf, size_t cap)
{
    random_ctx(rng, ctx);
    random_msg(rng, random_type(rng), ctx, &msg_a);
    random_hint(rng, &msg_a, ctx);
    int n = tempo_codec_encode(&msg_a, ctx, buf, cap);
    assert_true(n >= 8);
    return n;
}

/* ---- round trips ---- */

static void test_every_type_round_trips_over_random_contents(void **state)
{
    (void)state;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int seen[TEMPO_MSG_TYPE_COUNT_] = {0};
    for (uint64_t seed = 0; seed < ROUND_TRIPS; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 10);
        tempo_codec_ctx ctx;
        int n = random_datagram(&rng, &ctx, buf, sizeof buf);
        tempo_drop_reason why = TEMPO_DROP_TRUNCATED;
        assert_int_equal(tempo_codec_decode(buf, (size_t)n, &ctx, &msg_b, &why), TEMPO_OK);
        assert_int_equal(why, TEMPO_DROP_NONE);
        assert_true(tempo_codec_msg_equal(&msg_a, &msg_b, ctx.input_size));
        seen[msg_a.type]++;
        uint32_t session;
        uint16_t seq;
        uint8_t t;
        assert_int_equal(tempo_codec_peek_header(buf, (size_t)n, &session, &seq, &t, NULL), TEMPO_OK);
        assert_int_equal(session, msg_a.session_id);
        assert_int_equal(seq, msg_a.sequence);
        assert_int_equal(t, msg_a.type);
    }
    for (int t = 1; t < TEMPO_MSG_TYPE_COUNT_; t++)
        if (tempo_msg_type_known((uint8_t)t))
            assert_true(seen[t] > ROUND_TRIPS / 20);
}

/* ---- vectors (identical to the "vector" lines of docs/PROTOCOL.md) ---- */

/* The vectors' reference input: player p at any frame holds bytes 16p + i. */
static bool vector_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    (void)frame;
    for (int i = 0; i < ((const tempo_codec_ctx *)ctx)->input_size; i++)
        out[i] = (uint8_t)(16 * player + i);
    return true;
}

static const struct {
    const char *name;
    const char *hex;
} vectors[] = {
    {"sync_request", "b3 78 56 34 12 01 00 01 0d f0 fe ca 04 03 02 01 19 02 00 00"},
    {"sync_reply", "b3 78 56 34 12 02 00 02 0d f0 fe ca 04 03 02 01 3b ec 37 01 b0 1f"},
    {"input_lan", "b3 78 56 34 12 03 00 03 e8 03 02 04 14 00"},
    {"input_target", "b3 78 56 34 12 04 00 03 88 13 c8 7d c0 12 96 02"},
    {"input_changes", "b3 78 56 34 12 05 00 03 c8 00 43 65 02 30 f2 3d 74 6c e1 af 65 7d 1f 38 30 60 40 a0 fd ff ff ff"},
    {"input_players", "b3 78 56 34 12 06 00 03 70 11 84 58 41 f0 c0 2c cc 61 00"},
    {"input_disconnect", "b3 78 56 34 12 07 00 03 39 30 42 24 32 97 5c 00"},
    {"input_wrap", "b3 78 56 34 12 08 00 03 fe ff c4 34 08 00"},
    {"input_start0", "b3 78 56 34 12 09 00 03 00 00 40 38 08 0b 00"},
    {"input_empty", "b3 78 56 34 12 0a 00 03 90 01 33 08 00"},
    {"input_ack", "b3 78 56 34 12 0b 00 04 87 ad 4b 8a ad 4b 0b 00"},
    {"ping", "b3 78 56 34 12 0c 00 05 ef cd ab 89"},
    {"pong", "b3 78 56 34 12 0d 00 06 ef cd ab 89"},
    {"quality", "b3 78 56 34 12 0e 00 07 ff 05"},
    {"checksum", "b3 78 56 34 12 0f 00 08 d8 04 ef cd ab 89 67 45 23 01 9c 04"},
    {"disconnect", "b3 78 56 34 12 10 00 09"},
    {"checksum_ack", "b3 78 56 34 12 11 00 08 00 d8 04"},
};
#define VECTOR_COUNT ((int)(sizeof vectors / sizeof vectors[0]))

/* Fill frames [from, to) of carried player i with `in`. */
static void set_frames(tempo_msg_input *in, int i, int from, int to, const uint8_t *bytes, int size)
{
    for (int f = from; f < to; f++)
        memcpy(in->data + ((size_t)i * (size_t)in->count + (size_t)f) * (size_t)size, bytes,
               (size_t)size);
}

static void vector_input(tempo_msg_input *in, uint8_t mask, int32_t start, int count, int32_t ack,
                         int32_t sender_frame)
{
    in->player_mask = mask;
    in->start = start;
    in->count = count;
    in->ack = ack;
    in->sender_frame = sender_frame;
    in->disconnected_mask = 0;
    wire_ack_make(&in->datagram_ack, false, 0, 0);
}

/* Vector i: its message and receiver context (documented in PROTOCOL.md). */
static void vector_msg(int i, tempo_msg *m, tempo_codec_ctx *ctx)
{
    memset(m, 0, sizeof *m);
    memset(ctx, 0, sizeof *ctx);
    ctx->input_size = 4;
    ctx->num_players = 2;
    ctx->reference = vector_reference;
    ctx->reference_ctx = ctx;
    m->session_id = SESSION;
    m->sequence = (uint16_t)(i + 1);
    tempo_msg_input *in = &m->u.input;
    tempo_msg_sync *s = &m->u.sync;
    static const uint8_t target[4] = {0x10, 0x95, 0x40, 0x13};
    static const uint8_t changes[5][4] = {{0x01, 0x01, 0x02, 0x03},
                                          {0x01, 0x01, 0x02, 0x7F},
                                          {0xA0, 0xB0, 0xC0, 0xD0},
                                          {0xA0, 0xB8, 0xC0, 0x50},
                                          {0xA3, 0xBB, 0xC1, 0x51}};
    /* input_players: players 0, 1, 3 (ref 00 01, 10 11, 30 31), frames 0-2 */
    static const uint8_t players[18] = {0x00, 0x01, 0x00, 0x01, 0x00, 0x41, 0x10, 0x01, 0x10,
                                        0x01, 0x10, 0x01, 0x30, 0x01, 0x00, 0x01, 0x00, 0x01};
    static const uint8_t start0[4] = {0x00, 0x08, 0x01, 0x01};
    switch (i) {
    case 0: /* sync_request */
    case 1: /* sync_reply */
        m->type = (uint8_t)(i == 0 ? TEMPO_MSG_SYNC_REQUEST : TEMPO_MSG_SYNC_REPLY);
        s->nonce = 0xCAFEF00Du;
        s->config_hash = 0x01020304u;
        s->num_players = (uint8_t)(i == 0 ? 2 : 4);
        s->input_size = (uint8_t)(i == 0 ? 4 : 8);
        s->player_mask = (uint8_t)(i == 0 ? 0x01 : 0x06);
        s->ready_mask = (uint8_t)(i == 0 ? 0x00 : 0x0F);
        s->ready = i == 1;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            s->rtt_ms[p] = 0xFFFF;
        if (i == 1) {
            s->rtt_ms[0] = 12;
            s->rtt_ms[1] = 0;
            s->rtt_ms[3] = 250;
        }
        break;
    case 2: /* input_lan: one frame, unchanged */
        m->type = TEMPO_MSG_INPUT;
        ctx->frame_hint = 1000;
        vector_input(in, 0x01, 1000, 1, 1001, 1000);
        vector_reference(ctx, 0, 999, in->data);
        wire_ack_make(&in->datagram_ack, true, 258, 0xFFFFFFFFu); /* all received */
        break;
    case 3: /* input_target: 8 frames of player 1, two bytes change at frame 5 */
        m->type = TEMPO_MSG_INPUT;
        ctx->frame_hint = 5000;
        vector_input(in, 0x02, 5000, 8, 5004, 5007);
        vector_reference(ctx, 1, 4999, in->data);
        set_frames(in, 0, 1, 5, in->data, 4);
        set_frames(in, 0, 5, 8, target, 4);
        break;
    case 4: /* input_changes: a bit, a byte, four bytes, two bits, a tie */
        m->type = TEMPO_MSG_INPUT;
        ctx->frame_hint = 200;
        vector_input(in, 0x01, 200, 7, 198, 205);
        for (int f = 0; f < 7; f++) /* frames: c0 c0 c1 c2 c3 c3 c4 */
            set_frames(in, 0, f, f + 1, changes[f < 2 ? 0 : f < 5 ? f - 1 : f - 2], 4);
        wire_ack_make(&in->datagram_ack, true, 64, 0xFFFFFFFDu); /* 62 lost */
        break;
    case 5: /* input_players: players 0, 1 and 3 of 4, 2-byte inputs */
        m->type = TEMPO_MSG_INPUT;
        ctx->input_size = 2;
        ctx->num_players = 4;
        ctx->frame_hint = 70000;
        vector_input(in, 0x0B, 70000, 3, 70002, 70002);
        memcpy(in->data, players, sizeof players);
        break;
    case 6: /* input_disconnect: player 2 dropped at 12300 */
        m->type = TEMPO_MSG_INPUT;
        ctx->num_players = 3;
        ctx->frame_hint = 12345;
        vector_input(in, 0x01, 12345, 2, 12346, 12346);
        in->disconnected_mask = 0x04;
        in->disconnect_frame[2] = 12300;
        in->have_until[2] = 12300;
        vector_reference(ctx, 0, 12344, in->data);
        set_frames(in, 0, 1, 2, in->data, 4);
        break;
    case 7: /* input_wrap: frames 65534..65537 across the 16-bit wrap */
        m->type = TEMPO_MSG_INPUT;
        ctx->frame_hint = 65540;
        vector_input(in, 0x01, 65534, 4, 65536, 65537);
        vector_reference(ctx, 0, 65533, in->data);
        set_frames(in, 0, 1, 2, in->data, 4);
        set_frames(in, 0, 2, 4, changes[0], 4);
        break;
    case 8: /* input_start0: frame 0 is coded against zeros */
        m->type = TEMPO_MSG_INPUT;
        ctx->input_size = 1;
        ctx->frame_hint = 0;
        vector_input(in, 0x03, 0, 2, 0, 1);
        memcpy(in->data, start0, sizeof start0);
        break;
    case 9: /* input_empty: acks and time sync only */
        m->type = TEMPO_MSG_INPUT;
        ctx->frame_hint = 400;
        vector_input(in, 0x00, 400, 0, 390, 401);
        break;
    case 10:
        m->type = TEMPO_MSG_INPUT_ACK;
        m->u.input_ack.ack = 1234567;
        m->u.input_ack.sender_frame = 1234570;
        wire_ack_make(&m->u.input_ack.datagram_ack, true, 5, 0x1Fu); /* 0..4 before it */
        break;
    case 11:
    case 12:
        m->type = (uint8_t)(i == 11 ? TEMPO_MSG_PING : TEMPO_MSG_PONG);
        m->u.ping.id = 0x89ABCDEFu;
        break;
    case 13:
        m->type = TEMPO_MSG_QUALITY;
        m->u.quality.advantage_q8 = -384;
        break;
    case 14:
        m->type = TEMPO_MSG_CHECKSUM;
        m->u.checksum.frame = 600;
        m->u.checksum.checksum = 0x0123456789ABCDEFull;
        m->u.checksum.ack = 540;
        break;
    case 15: m->type = TEMPO_MSG_DISCONNECT; break;
    default:
        m->type = TEMPO_MSG_CHECKSUM;
        m->u.checksum.ack = 600;
        break;
    }
}

static void to_hex(const uint8_t *data, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 3 * i, i + 1 < n ? "%02x " : "%02x", data[i]);
    if (n == 0)
        out[0] = '\0';
}

static void test_vectors_encode_and_decode_byte_for_byte(void **state)
{
    (void)state;
    for (int i = 0; i < VECTOR_COUNT; i++) {
        tempo_codec_ctx ctx;
        vector_msg(i, &msg_a, &ctx);
        uint8_t buf[TEMPO_MAX_DATAGRAM], want[TEMPO_MAX_DATAGRAM];
        char hex[3 * TEMPO_MAX_DATAGRAM + 1];
        int n = tempo_codec_encode(&msg_a, &ctx, buf, sizeof buf);
        assert_true(n > 0);
        to_hex(buf, (size_t)n, hex);
        int w = from_hex(vectors[i].hex, want, sizeof want);
        if (w != n || memcmp(buf, want, (size_t)n) != 0)
            fail_msg("vector %s: encoded %s, want %s", vectors[i].name, hex, vectors[i].hex);
        assert_int_equal(tempo_codec_decode(want, (size_t)w, &ctx, &msg_b, NULL), TEMPO_OK);
        assert_true(tempo_codec_msg_equal(&msg_a, &msg_b, ctx.input_size));
    }
}

/* The doc's "vector NAME HEX" lines are exactly the vectors above. */
static void test_vectors_match_protocol_md(void **state)
{
    (void)state;
    FILE *f = fopen(TEMPO_SOURCE_DIR "/docs/PROTOCOL.md", "r");
    assert_non_null(f);
    char line[4096];
    int found = 0;
    char name[64];
    const char *hex;
    while ((hex = doc_next(f, "vector", line, sizeof line, name)) != NULL) {
        int i = 0;
        while (i < VECTOR_COUNT && strcmp(vectors[i].name, name) != 0)
            i++;
        if (i == VECTOR_COUNT)
            fail_msg("PROTOCOL.md vector %s is not in test_codec.c", name);
        uint8_t doc[TEMPO_MAX_DATAGRAM], src[TEMPO_MAX_DATAGRAM];
        int nd = from_hex(hex, doc, sizeof doc);
        int ns = from_hex(vectors[i].hex, src, sizeof src);
        if (nd != ns || memcmp(doc, src, (size_t)ns) != 0)
            fail_msg("PROTOCOL.md vector %s differs from test_codec.c", name);
        found++;
    }
    fclose(f);
    assert_int_equal(found, VECTOR_COUNT);
}

/* ---- hostile datagrams ---- */

static void test_truncated_datagrams_are_rejected_at_every_length(void **state)
{
    (void)state;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    for (uint64_t seed = 0; seed < 400; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 11);
        tempo_codec_ctx ctx;
        int n = random_datagram(&rng, &ctx, buf, sizeof buf);
        for (int len = 0; len < n; len++) {
            uint8_t *copy = malloc(len > 0 ? (size_t)len : 1); /* exact size for ASan */
            assert_non_null(copy);
            memcpy(copy, buf, (size_t)len);
            tempo_drop_reason why;
            assert_int_equal(tempo_codec_decode(copy, (size_t)len, &ctx, &msg_b, &why),
                             TEMPO_E_MALFORMED);
            assert_int_equal(why, len < 8 ? TEMPO_DROP_TOO_SHORT : TEMPO_DROP_TRUNCATED);
            free(copy);
        }
    }
}

/* Flipped bits: rejected with a reason, or a valid message that encodes
 * and decodes to itself. Never a crash (this test runs under ASan). */
static void test_corrupted_datagrams_are_rejected_or_valid(void **state)
{
    (void)state;
    uint8_t buf[TEMPO_MAX_DATAGRAM], again[TEMPO_MAX_DATAGRAM];
    int accepted = 0, rejected = 0;
    for (uint64_t seed = 0; seed < 20000; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 12);
        tempo_codec_ctx ctx;
        int n = random_datagram(&rng, &ctx, buf, sizeof buf);
        for (uint32_t k = 0, flips = tempo_rng_range(&rng, 1, 3); k < flips; k++) {
            uint32_t bit = tempo_rng_below(&rng, (uint32_t)n * 8);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        tempo_drop_reason why;
        if (tempo_codec_decode(buf, (size_t)n, &ctx, &msg_b, &why) == TEMPO_OK) {
            accepted++;
            assert_int_equal(why, TEMPO_DROP_NONE);
            round_trip(&msg_b, &ctx, &msg_c, again, sizeof again);
        } else {
            rejected++;
            assert_true(why > TEMPO_DROP_NONE && why < TEMPO_DROP_REASON_COUNT_);
        }
    }
    assert_true(accepted > 0 && rejected > 0);
}

/* Start a datagram by hand: header of `type` (the whole type byte), the
 * body left to the caller. */
static void craft(tempo_bitwriter *w, uint8_t *buf, size_t cap, int type)
{
    tempo_bitwriter_init(w, buf, cap);
    tempo_bitwriter_bits(w, 0xB3, 8);
    tempo_bitwriter_bits(w, SESSION, 32);
    tempo_bitwriter_bits(w, 7, 16);
    tempo_bitwriter_bits(w, (uint32_t)type, 8);
}

/* A body written by hand: 'b' = bits, 'u' = uvarint, 's' = svarint, 'r' =
 * range(1, n); a zero kind ends the list. */
typedef struct craft_op {
    char kind;
    int32_t value;
    int n;
} craft_op;

static void put_ops(tempo_bitwriter *w, const craft_op *op)
{
    for (; op->kind != 0; op++) {
        switch (op->kind) {
        case 'b': tempo_bitwriter_bits(w, (uint32_t)op->value, op->n); break;
        case 'u': tempo_bitwriter_uvarint(w, (uint32_t)op->value, op->n); break;
        case 's': tempo_bitwriter_svarint(w, op->value, op->n); break;
        default: tempo_bitwriter_ranged(w, op->value, 1, op->n); break;
        }
    }
    assert_false(w->failed);
}

/* INPUT up to the player mask for ctx {4 bytes, 2 players, hint 100}: start, ack, sender_frame. */
#define INPUT_HEAD(start16) {'b', (start16), 16}, {'s', 0, 4}, {'s', 0, 4}

/* Datagrams whose every field fits but one value is out of range. */
static const struct {
    const char *what;
    int type;
    craft_op ops[12];
} bad_values[] = {
    {"count - 1 of 64", TEMPO_MSG_INPUT, {INPUT_HEAD(100), {'b', 1, 1}, {'b', 0, 1}, {'u', 64, 3}, {'b', 0, 1}}},
    {"a base frame unwrapping below 0 (hint 100: 0xFFF0 is -16)", TEMPO_MSG_INPUT,
     {INPUT_HEAD(0xFFF0), {'b', 0, 3}}},
    {"sparse positions not ascending", TEMPO_MSG_INPUT,
     {INPUT_HEAD(100), {'b', 1, 1}, {'b', 0, 1}, {'u', 0, 3}, {'b', 0, 1}, {'b', 1, 2}, {'u', 1, 2}, {'b', 5, 5},
      {'b', 3, 5}}},
    {"a changed byte with a zero XOR", TEMPO_MSG_INPUT,
     {INPUT_HEAD(100), {'b', 1, 1}, {'b', 0, 1}, {'u', 0, 3}, {'b', 0, 1}, {'b', 3, 2}, {'b', 1, 9}, {'b', 0, 3}}},
    {"a byte form with no changed byte", TEMPO_MSG_INPUT,
     {INPUT_HEAD(100), {'b', 1, 1}, {'b', 0, 1}, {'u', 0, 3}, {'b', 0, 1}, {'b', 3, 2}, {'b', 0, 4}}},
    {"the disconnect flag with an empty mask", TEMPO_MSG_INPUT,
     {INPUT_HEAD(100), {'b', 0, 3}, {'b', 1, 1}, {'b', 0, 2}}},
    {"one player in mask form", TEMPO_MSG_INPUT,
     {INPUT_HEAD(100), {'b', 0, 1}, {'b', 2, 2}, {'u', 0, 3}, {'b', 0, 2}}},
    {"a non-canonical varint (5, then a zero group)", TEMPO_MSG_INPUT,
     {{'b', 100, 16}, {'b', 0x15, 5}, {'b', 0, 5}, {'s', 0, 4}, {'b', 0, 4}}},
    {"a frame above 2^31 - 1", TEMPO_MSG_INPUT_ACK, {{'u', INT32_MIN, 7}, {'u', 0, 7}}},
    {"a q8 value outside int16", TEMPO_MSG_QUALITY, {{'s', 40000, 6}}},
    {"a checksum's ack above 2^31 - 1", TEMPO_MSG_CHECKSUM,
     {{'u', 600, 7}, {'b', 0, 32}, {'b', 0, 32}, {'u', INT32_MIN, 7}}},
    {"an rtt above 0xFFFE", TEMPO_MSG_SYNC_REQUEST,
     {{'b', 0, 32}, {'b', 0, 32}, {'r', 1, 8}, {'r', 4, 64}, {'b', 0, 3}, {'u', 0x10000, 5}}},
};

static tempo_drop_reason decode_reason(const uint8_t *buf, size_t n, const tempo_codec_ctx *ctx)
{
    tempo_drop_reason why = TEMPO_DROP_NONE;
    tempo_codec_decode(buf, n, ctx, &msg_b, &why);
    return why;
}

static bool no_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    (void)ctx, (void)player, (void)frame, (void)out;
    return false;
}

static void test_each_drop_reason_from_a_crafted_datagram(void **state)
{
    (void)state;
    tempo_codec_ctx ctx = {4, 2, 100, vector_reference, &ctx};
    uint8_t buf[TEMPO_MAX_DATAGRAM + 1];
    tempo_bitwriter w;
    int seen[TEMPO_DROP_REASON_COUNT_] = {0};
#define EXPECT(reason, len)                                          \
    do {                                                             \
        assert_int_equal(decode_reason(buf, (len), &ctx), (reason)); \
        seen[reason]++;                                              \
    } while (0)
#define BODY_LEN tempo_bitwriter_bytes_written(&w)

    craft(&w, buf, sizeof buf, TEMPO_MSG_PING);
    tempo_bitwriter_bits(&w, 0x01020304, 32);
    size_t ping = BODY_LEN;
    EXPECT(TEMPO_DROP_NONE, ping);
    EXPECT(TEMPO_DROP_TOO_SHORT, 7);
    EXPECT(TEMPO_DROP_TRUNCATED, ping - 1);
    EXPECT(TEMPO_DROP_TOO_LONG, TEMPO_MAX_DATAGRAM + 1);
    buf[ping] = 0;
    EXPECT(TEMPO_DROP_TRAILING, ping + 1); /* a whole extra byte */
    buf[0] = 0x31; /* 0011 0 001 */
    EXPECT(TEMPO_DROP_BAD_MAGIC, ping);
    buf[0] = 0xB2; /* 1011 0 010: version 2 */
    EXPECT(TEMPO_DROP_BAD_VERSION, ping);
    craft(&w, buf, sizeof buf, TEMPO_MSG_QUALITY);
    tempo_bitwriter_svarint(&w, 0, 6); /* 7 bits, one bit of padding */
    EXPECT(TEMPO_DROP_NONE, BODY_LEN);
    buf[8] |= 0x80;
    EXPECT(TEMPO_DROP_TRAILING, BODY_LEN); /* a padding bit set */
    static const int bad_types[] = {0, 10, 11, 64, 127, 0x80};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++) {
        craft(&w, buf, sizeof buf, bad_types[i]);
        EXPECT(TEMPO_DROP_BAD_TYPE, BODY_LEN);
    }
    craft(&w, buf, sizeof buf, 0x80 | TEMPO_MSG_PING); /* a fragment */
    tempo_bitwriter_bits(&w, 0x01020304, 32);
    EXPECT(TEMPO_DROP_FRAGMENT, BODY_LEN);
    craft(&w, buf, sizeof buf, TEMPO_MSG_PING);
    tempo_bitwriter_bits(&w, 0x01020304, 32);
    buf[0] = 0xBB; /* sealed: this decoder holds no key */
    EXPECT(TEMPO_DROP_SEALED, BODY_LEN + PACKET_TAG_SIZE);
    EXPECT(TEMPO_DROP_TOO_SHORT, PACKET_HEADER_SIZE + PACKET_TAG_SIZE - 1);

    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        craft(&w, buf, sizeof buf, bad_values[i].type);
        put_ops(&w, bad_values[i].ops);
        if (decode_reason(buf, BODY_LEN, &ctx) != TEMPO_DROP_BAD_VALUE)
            fail_msg("not BAD_VALUE: %s", bad_values[i].what);
        seen[TEMPO_DROP_BAD_VALUE]++;
    }
    /* NO_REFERENCE: the receiver lacks the input before the base frame */
    static const craft_op one_frame[] = {INPUT_HEAD(100), {'b', 1, 1}, {'b', 0, 1}, {'u', 0, 3}, {'b', 0, 2},
                                         {0, 0, 0}};
    craft(&w, buf, sizeof buf, TEMPO_MSG_INPUT);
    put_ops(&w, one_frame);
    ctx.reference = no_reference;
    EXPECT(TEMPO_DROP_NO_REFERENCE, BODY_LEN);
    ctx.reference = vector_reference;
    EXPECT(TEMPO_DROP_NONE, BODY_LEN);
    assert_int_equal(tempo_codec_decode(buf, BODY_LEN, NULL, &msg_b, NULL), TEMPO_E_MALFORMED);
#undef EXPECT
#undef BODY_LEN
    for (int r = 0; r <= TEMPO_DROP_TRAILING; r++) /* the reasons a whole datagram can have */
        if (seen[r] == 0)
            fail_msg("drop reason %s not produced", tempo_drop_reason_name((tempo_drop_reason)r));
}

static void test_drop_reason_names_are_distinct(void **state)
{
    (void)state;
    for (int a = 0; a < TEMPO_DROP_REASON_COUNT_; a++) {
        const char *na = tempo_drop_reason_name((tempo_drop_reason)a);
        assert_string_not_equal(na, "unknown");
        for (int b = 0; b < a; b++)
            assert_string_not_equal(na, tempo_drop_reason_name((tempo_drop_reason)b));
    }
    assert_string_equal(tempo_drop_reason_name(TEMPO_DROP_REASON_COUNT_), "unknown");
}

/* ---- frames ---- */

/* An INPUT at `start` decoded with `hint`; returns the decoded start or -1. */
static int64_t decoded_start(int32_t start, int32_t hint)
{
    tempo_codec_ctx ctx = {4, 2, hint, vector_reference, &ctx};
    tempo_msg *m = &msg_a;
    m->type = TEMPO_MSG_INPUT;
    vector_input(&m->u.input, 0x01, start, 2, start, start + 1);
    uint8_t buf[64];
    int n = tempo_codec_encode(m, &ctx, buf, sizeof buf);
    assert_true(n > 0);
    if (tempo_codec_decode(buf, (size_t)n, &ctx, &msg_b, NULL) != TEMPO_OK)
        return -1;
    /* the other frames follow the base wherever it lands */
    assert_int_equal(msg_b.u.input.ack, msg_b.u.input.start);
    assert_int_equal(msg_b.u.input.sender_frame, (int64_t)msg_b.u.input.start + 1);
    return msg_b.u.input.start;
}

static void test_base_frame_unwraps_across_the_16_bit_wrap(void **state)
{
    (void)state;
    /* around every wrap point the test visits, with hints on both sides */
    for (int64_t wrap = 65536; wrap < INT32_MAX - 65536 * 2; wrap += 65536 * 997) {
        for (int32_t start = (int32_t)wrap - 40; start < wrap + 40; start += 3)
            for (int32_t d = -32767; d <= 32768; d += 4099)
                assert_int_equal(decoded_start(start, start + d), start);
    }
    assert_int_equal(decoded_start(65535, 65536), 65535);
    assert_int_equal(decoded_start(65536, 65535), 65536);
    assert_int_equal(decoded_start(0, 5), 0);
    /* at distance 32768 the tie goes to the older frame */
    assert_int_equal(decoded_start(70000, 70000 + 32768), 70000);
    assert_int_equal(decoded_start(70000, 70000 - 32768), 70000 - 65536);
    assert_int_equal(decoded_start(5, 40000), 65541);  /* a hint too far: the nearer frame */
    assert_int_equal(decoded_start(65530, 10), -1);    /* nearest is frame -6: rejected */
    assert_int_equal(decoded_start(INT32_MAX - 10, INT32_MAX - 10), INT32_MAX - 10);
}

/* ---- sizes ---- */

/* The TARGET: 8 unacknowledged frames of one player's 4-byte input with at
 * most one change (one or two bytes, or a button bit), any match size:
 * <= 17 bytes of UDP payload, header included, with no datagram ack (its
 * one bit costs the worst case a byte: 16 without it), and <= 18 with the
 * ack of a link that lost nothing (10 bits). */
static void test_eight_frames_of_one_player_fit_in_18_bytes(void **state)
{
    (void)state;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int largest = 0, largest_with_ack = 0;
    for (uint64_t seed = 0; seed < 4000; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 13);
        tempo_codec_ctx ctx = {4, tempo_rng_range(&rng, 1, TEMPO_MAX_PLAYERS), 0, fuzz_reference, &ctx};
        tempo_msg_input *in = &msg_a.u.input;
        msg_a.type = TEMPO_MSG_INPUT;
        do
            in->start = tempo_rng_range(&rng, 1, INT32_MAX - 100);
        while (!fuzz_reference_known(in->start - 1));
        /* sender at the newest frame less 0-2 frames of input delay; acks about half an RTT back */
        int player = (int)tempo_rng_below(&rng, (uint32_t)ctx.num_players);
        vector_input(in, (uint8_t)(1u << player), in->start, 8, in->start + tempo_rng_range(&rng, 0, 7),
                     in->start + tempo_rng_range(&rng, 5, 7));
        uint8_t cur[4];
        fuzz_reference(&ctx, player, in->start - 1, cur);
        int change_at = tempo_rng_range(&rng, -1, 7), kind = tempo_rng_range(&rng, 0, 2);
        for (int f = 0; f < 8; f++) {
            if (f == change_at) {
                int b = tempo_rng_range(&rng, 0, 3);
                if (kind == 0)
                    cur[b] ^= (uint8_t)(1u << tempo_rng_below(&rng, 8));
                for (int k = 0; k < kind; k++, b = (b + 1) % 4)
                    cur[b] = (uint8_t)(cur[b] ^ tempo_rng_range(&rng, 1, 255));
            }
            memcpy(in->data + 4 * f, cur, 4);
        }
        ctx.frame_hint = in->start;
        int n = round_trip(&msg_a, &ctx, &msg_b, buf, sizeof buf);
        assert_true(n <= 17);
        largest = n > largest ? n : largest;
        wire_ack_make(&in->datagram_ack, true, seed, 0xFFFFFFFFu);
        int with_ack = round_trip(&msg_a, &ctx, &msg_b, buf, sizeof buf);
        assert_true(with_ack <= 18 && with_ack >= n + 1);
        largest_with_ack = with_ack > largest_with_ack ? with_ack : largest_with_ack;
    }
    assert_int_equal(largest, 17); /* two changed bytes with 8 players: exactly 17 */
    assert_int_equal(largest_with_ack, 18);
}

/* A LAN message: 1-2 frames, nothing changed, 2 players: 13 bytes, 14
 * with the datagram ack of a link that lost nothing. */
static void test_lan_message_takes_13_bytes(void **state)
{
    (void)state;
    uint8_t buf[64];
    for (int count = 1; count <= 2; count++) {
        tempo_codec_ctx ctx = {4, 2, 5000, vector_reference, &ctx};
        msg_a.type = TEMPO_MSG_INPUT;
        vector_input(&msg_a.u.input, 0x01, 5000, count, 5000 + count - 1, 5000 + count - 1);
        for (int f = 0; f < count; f++)
            vector_reference(&ctx, 0, 0, msg_a.u.input.data + 4 * f);
        assert_int_equal(round_trip(&msg_a, &ctx, &msg_b, buf, sizeof buf), 13);
        wire_ack_make(&msg_a.u.input.datagram_ack, true, 70000, 0xFFFFFFFFu);
        assert_int_equal(round_trip(&msg_a, &ctx, &msg_b, buf, sizeof buf), 14);
    }
}

/* Copy of src keeping its first `count` frames per player. */
static void keep_frames(const tempo_msg *src, tempo_msg *dst, int is, int count)
{
    *dst = *src;
    dst->u.input.count = count;
    int players = 0;
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        players += (src->u.input.player_mask >> p) & 1;
    for (int i = 0; i < players; i++)
        memcpy(dst->u.input.data + (size_t)i * (size_t)count * (size_t)is,
               src->u.input.data + (size_t)i * (size_t)src->u.input.count * (size_t)is,
               (size_t)count * (size_t)is);
}

/* Too many frames for the capacity: the encoder keeps the most (oldest
 * first) that fit, exactly — one more frame would not fit. */
static void test_encoder_shrinks_count_to_fit_capacity(void **state)
{
    (void)state;
    static tempo_msg orig;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    int shrunk = 0;
    for (uint64_t seed = 0; seed < 600; seed++) {
        tempo_rng rng;
        tempo_rng_seed(&rng, seed, 14);
        tempo_codec_ctx ctx;
        random_ctx(&rng, &ctx);
        do
            random_msg(&rng, TEMPO_MSG_INPUT, &ctx, &orig);
        while (orig.u.input.player_mask == 0 || orig.u.input.count == 0);
        size_t cap = tempo_rng_range(&rng, 8, seed % 2 ? 1300 : 80);
        msg_a = orig;
        ctx.frame_hint = orig.u.input.start;
        int n = tempo_codec_encode(&msg_a, &ctx, buf, cap);
        if (n == TEMPO_E_FULL) {
            keep_frames(&orig, &msg_c, ctx.input_size, 0);
            msg_c.u.input.player_mask = 0;
            assert_true(tempo_codec_encode(&msg_c, &ctx, buf, sizeof buf) > (int)cap);
            continue;
        }
        int count = msg_a.u.input.count;
        assert_true(n > 0 && (size_t)n <= cap && count <= orig.u.input.count);
        assert_int_equal(tempo_codec_decode(buf, (size_t)n, &ctx, &msg_b, NULL), TEMPO_OK);
        assert_true(tempo_codec_msg_equal(&msg_a, &msg_b, ctx.input_size));
        keep_frames(&orig, &msg_c, ctx.input_size, count);
        if (count == 0)
            msg_c.u.input.player_mask = 0;
        assert_true(tempo_codec_msg_equal(&msg_a, &msg_c, ctx.input_size)); /* the oldest frames kept */
        if (count < orig.u.input.count) {
            shrunk++;
            keep_frames(&orig, &msg_c, ctx.input_size, count + 1);
            int bigger = tempo_codec_encode(&msg_c, &ctx, buf, sizeof buf);
            assert_true(bigger > (int)cap || bigger == TEMPO_E_FULL);
        }
    }
    assert_true(shrunk > 50);
}

static void test_encoder_rejects_invalid_messages(void **state)
{
    (void)state;
    uint8_t buf[64];
    tempo_codec_ctx ctx = {4, 2, 0, vector_reference, &ctx};
    for (int i = 0; i < 9; i++) {
        vector_msg(2, &msg_a, &ctx); /* input_lan, then one field broken */
        tempo_msg_input *in = &msg_a.u.input;
        tempo_codec_ctx *c = &ctx;
        switch (i) {
        case 0: in->start = -1; break;
        case 1: in->ack = -5; break;
        case 2: in->count = TEMPO_MSG_MAX_FRAMES + 1; break;
        case 3: in->player_mask = 0x04; break; /* player 2 of 2 */
        case 4: in->disconnected_mask = 0x01, in->have_until[0] = -1; break;
        case 5: ctx.reference = no_reference; break;
        case 6: ctx.input_size = 0; break;
        case 7: c = NULL; break;
        default: msg_a.type = TEMPO_MSG_TYPE_COUNT_; break;
        }
        assert_int_equal(tempo_codec_encode(&msg_a, c, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    }
    vector_msg(2, &msg_a, &ctx);
    assert_int_equal(tempo_codec_encode(&msg_a, &ctx, buf, 7), TEMPO_E_FULL);
    assert_int_equal(tempo_codec_encode(NULL, &ctx, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_codec_encode(&msg_a, &ctx, NULL, sizeof buf), TEMPO_E_INVALID_ARG);
    vector_msg(15, &msg_a, &ctx); /* disconnect: 8 bytes, the header alone */
    assert_int_equal(tempo_codec_encode(&msg_a, NULL, buf, sizeof buf), 8);
    msg_a.type = 0;
    assert_int_equal(tempo_codec_encode(&msg_a, NULL, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    vector_msg(0, &msg_a, &ctx); /* sync with a mask bit beyond num_players */
    msg_a.u.sync.ready_mask = 0x04;
    assert_int_equal(tempo_codec_encode(&msg_a, NULL, buf, sizeof buf), TEMPO_E_INVALID_ARG);
    ctx.input_size = 0;
    assert_int_equal(tempo_codec_decode(buf, 8, &ctx, &msg_b, NULL), TEMPO_E_INVALID_ARG);
    assert_int_equal(tempo_codec_decode(NULL, 8, NULL, &msg_b, NULL), TEMPO_E_INVALID_ARG);
}

/* rtt 0xFFFF (unknown) costs one group; entries at or above num_players are
 * not sent and come back unknown. */
static void test_sync_sends_rtt_only_for_players_in_the_match(void **state)
{
    (void)state;
    uint8_t buf[64];
    tempo_codec_ctx ctx;
    vector_msg(0, &msg_a, &ctx);
    msg_a.u.sync.rtt_ms[5] = 77;
    int n = tempo_codec_encode(&msg_a, NULL, buf, sizeof buf);
    assert_int_equal(tempo_codec_decode(buf, (size_t)n, NULL, &msg_b, NULL), TEMPO_OK);
    for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
        assert_int_equal(msg_b.u.sync.rtt_ms[p], 0xFFFF);
    msg_a.u.sync.rtt_ms[1] = 0xFFFE; /* the largest known value */
    int m = tempo_codec_encode(&msg_a, NULL, buf, sizeof buf);
    assert_int_equal(tempo_codec_decode(buf, (size_t)m, NULL, &msg_b, NULL), TEMPO_OK);
    assert_int_equal(msg_b.u.sync.rtt_ms[1], 0xFFFE);
}

/* ---- the fuzzers' seed corpus ---- */

static int write_file(const char *dir, const char *prefix, int index, const uint8_t *data, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%04d", dir, prefix, index);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* fuzz_fragment's records (time step, 16-bit length, datagram): every
 * fragment of a random payload, in a random order, some twice. */
static int write_fragment_seeds(const char *dir, tempo_rng *rng)
{
    static uint8_t payload[FRAG_MAX_PAYLOAD], stream[2 * FRAG_MAX_COUNT * (TEMPO_MAX_DATAGRAM + 3)];
    for (int k = 0; k < 12; k++) {
        size_t size = k == 0 ? FRAG_MAX_PAYLOAD : FRAG_CHUNK + 1 + tempo_rng_below(rng, 6000);
        for (size_t i = 0; i < size; i++)
            payload[i] = (uint8_t)tempo_rng_next(rng);
        int count = frag_count(size), order[2 * FRAG_MAX_COUNT], n = 0;
        for (int i = 0; i < count; i++) {
            order[n++] = i;
            if (tempo_rng_below(rng, 4) == 0)
                order[n++] = i;
        }
        for (int i = n - 1; i > 0 && k % 2 == 1; i--) {
            int j = (int)tempo_rng_below(rng, (uint32_t)i + 1), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        size_t at = 0;
        tempo_packet_header h = {SESSION, 0, (uint8_t)(1 + k), false, false};
        for (int i = 0; i < n; i++) {
            h.sequence = (uint16_t)i;
            int len = frag_write(&h, (uint16_t)k, payload, size, order[i], stream + at + 3,
                                 TEMPO_MAX_DATAGRAM);
            if (len <= 0)
                return -1;
            stream[at] = (uint8_t)tempo_rng_below(rng, 4);
            stream[at + 1] = (uint8_t)len;
            stream[at + 2] = (uint8_t)(len >> 8);
            at += 3 + (size_t)len;
        }
        if (write_file(dir, "f", k, stream, at) != 0)
            return -1;
    }
    return 0;
}

/* Valid packets under each fuzz context, every type, plus the vectors; the
 * bitpack seeds are packets behind a random list of reader operations. */
static int write_corpus(const char *root)
{
    char codec_dir[900], bitpack_dir[900], fragment_dir[900];
    snprintf(codec_dir, sizeof codec_dir, "%s/codec", root);
    snprintf(bitpack_dir, sizeof bitpack_dir, "%s/bitpack", root);
    snprintf(fragment_dir, sizeof fragment_dir, "%s/fragment", root);
    mkdir(root, 0777);
    mkdir(codec_dir, 0777);
    mkdir(bitpack_dir, 0777);
    mkdir(fragment_dir, 0777);
    uint8_t buf[TEMPO_MAX_DATAGRAM], seed_buf[TEMPO_MAX_DATAGRAM + 64];
    int files = 0;
    tempo_rng rng;
    tempo_rng_seed(&rng, 2024, 15);
    for (int c = 0; c < FUZZ_CODEC_CTX_COUNT; c++) {
        tempo_codec_ctx ctx;
        fuzz_codec_ctx(c, &ctx);
        for (int k = 0; k < 120; k++) {
            random_msg(&rng, known_type(k), &ctx, &msg_a);
            if (msg_a.type == TEMPO_MSG_INPUT) /* a base the fuzz context unwraps */
                msg_a.u.input.start = ctx.frame_hint - 200 + (int32_t)tempo_rng_below(&rng, 400);
            if (msg_a.type == TEMPO_MSG_INPUT && !fuzz_reference_known(msg_a.u.input.start - 1))
                msg_a.u.input.start++;
            int n = tempo_codec_encode(&msg_a, &ctx, buf, sizeof buf);
            if (n <= 0 || write_file(codec_dir, "c", files++, buf, (size_t)n) != 0)
                return -1;
            if (k % 4 == 0) {
                size_t ops = 1 + tempo_rng_below(&rng, 40);
                seed_buf[0] = (uint8_t)ops;
                for (size_t i = 1; i <= ops; i++)
                    seed_buf[i] = (uint8_t)tempo_rng_next(&rng);
                memcpy(seed_buf + 1 + ops, buf, (size_t)n);
                if (write_file(bitpack_dir, "b", files, seed_buf, 1 + ops + (size_t)n) != 0)
                    return -1;
            }
        }
    }
    for (int i = 0; i < VECTOR_COUNT; i++) {
        tempo_codec_ctx ctx;
        vector_msg(i, &msg_a, &ctx);
        int n = tempo_codec_encode(&msg_a, &ctx, buf, sizeof buf);
        if (n <= 0 || write_file(codec_dir, "v", i, buf, (size_t)n) != 0)
            return -1;
    }
    if (write_fragment_seeds(fragment_dir, &rng) != 0)
        return -1;
    printf("wrote %d codec seeds to %s\n", files + VECTOR_COUNT, codec_dir);
    return 0;
}

static void print_vectors(void)
{
    for (int i = 0; i < VECTOR_COUNT; i++) {
        tempo_codec_ctx ctx;
        uint8_t buf[TEMPO_MAX_DATAGRAM];
        char hex[3 * TEMPO_MAX_DATAGRAM + 1];
        vector_msg(i, &msg_a, &ctx);
        int n = tempo_codec_encode(&msg_a, &ctx, buf, sizeof buf);
        to_hex(buf, n > 0 ? (size_t)n : 0, hex);
        printf("vector %s %s\n", vectors[i].name, hex);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]) == 0 ? 0 : 1;
    if (argc == 2 && strcmp(argv[1], "--print-vectors") == 0) {
        print_vectors();
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_round_trips_over_random_contents),
        cmocka_unit_test(test_vectors_encode_and_decode_byte_for_byte),
        cmocka_unit_test(test_vectors_match_protocol_md),
        cmocka_unit_test(test_truncated_datagrams_are_rejected_at_every_length),
        cmocka_unit_test(test_corrupted_datagrams_are_rejected_or_valid),
        cmocka_unit_test(test_each_drop_reason_from_a_crafted_datagram),
        cmocka_unit_test(test_drop_reason_names_are_distinct),
        cmocka_unit_test(test_base_frame_unwraps_across_the_16_bit_wrap),
        cmocka_unit_test(test_eight_frames_of_one_player_fit_in_18_bytes),
        cmocka_unit_test(test_lan_message_takes_13_bytes),
        cmocka_unit_test(test_encoder_shrinks_count_to_fit_capacity),
        cmocka_unit_test(test_encoder_rejects_invalid_messages),
        cmocka_unit_test(test_sync_sends_rtt_only_for_players_in_the_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
