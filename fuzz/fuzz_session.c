/* SPDX-License-Identifier: MIT */
/*
 * fuzz_session.c — hostile datagrams against a running network session.
 *
 * A 3-player p2p session (player 0 local, players 1 and 2 at two peer
 * addresses, one spectator) talks through a fake transport. The transport
 * answers the session's handshake itself, as two well-behaved peers would,
 * so the session reaches RUNNING; from then on every datagram comes from the
 * fuzz input: raw bytes behind a valid header, or messages built from the
 * input's bytes (every type, fields at any in-range value, from any of the
 * endpoints or a stranger) and encoded with the codec. After each datagram
 * the session ticks like a game would, and the engine's invariants are
 * checked: nothing a peer sends may crash it, trip an assert, read out of
 * bounds, or break the rollback contract.
 *
 * Input: chunks of [kind][length][bytes...].
 */
#include <stdlib.h>
#include <string.h>

#include "wire/codec.h"
#include "fuzz_target.h"
#include "tempo/tempo.h"

#define QUEUE 16

typedef struct fake_net {
    tempo_address from[QUEUE];
    uint8_t data[QUEUE][TEMPO_MAX_DATAGRAM];
    size_t size[QUEUE];
    int head, count;
    tempo_msg msg; /* scratch */
    uint16_t seq;
} fake_net;

static fake_net net;
static tempo_address addr_peer[2], addr_spec, addr_stranger;

static void push(const tempo_address *from, const uint8_t *d, size_t n)
{
    if (net.count == QUEUE || n == 0 || n > TEMPO_MAX_DATAGRAM)
        return;
    int i = (net.head + net.count++) % QUEUE;
    net.from[i] = *from;
    memcpy(net.data[i], d, n);
    net.size[i] = n;
}

static bool zero_reference(void *ctx, int player, int32_t frame, uint8_t *out)
{
    (void)ctx;
    (void)player;
    memset(out, (int)(frame & 0x3), 4);
    return true;
}

static tempo_codec_ctx codec_ctx(void)
{
    tempo_codec_ctx c;
    memset(&c, 0, sizeof c);
    c.input_size = 4;
    c.num_players = 3;
    c.reference = zero_reference;
    return c;
}

static void push_msg(const tempo_address *from, tempo_msg *m)
{
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    tempo_codec_ctx c = codec_ctx();
    m->session_id = 7;
    m->sequence = net.seq++;
    int n = tempo_codec_encode(m, &c, buf, sizeof buf);
    if (n > 0)
        push(from, buf, (size_t)n);
}

/* The peers answer the handshake like honest machines. */
static int fake_send(void *ctx, const tempo_address *to, const uint8_t *d, size_t n)
{
    (void)ctx;
    tempo_drop_reason why;
    tempo_codec_ctx c = codec_ctx();
    if (tempo_codec_decode(d, n, &c, &net.msg, &why) != TEMPO_OK ||
        net.msg.type != TEMPO_MSG_SYNC_REQUEST)
        return 0;
    bool spectator = tempo_address_equal(to, &addr_spec);
    int peer = tempo_address_equal(to, &addr_peer[1]);
    tempo_msg reply = net.msg;
    reply.type = TEMPO_MSG_SYNC_REPLY;
    reply.u.sync.player_mask = spectator ? 0 : (uint8_t)(2u << peer);
    reply.u.sync.ready = true;
    push(to, NULL, 0); /* keep arrival order simple: reply only */
    tempo_msg *m = &reply;
    uint8_t buf[TEMPO_MAX_DATAGRAM];
    m->session_id = 7;
    m->sequence = net.seq++;
    int len = tempo_codec_encode(m, &c, buf, sizeof buf);
    if (len > 0)
        push(to, buf, (size_t)len);
    return 0;
}

static int fake_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t cap)
{
    (void)ctx;
    if (net.count == 0)
        return 0;
    int i = net.head;
    net.head = (net.head + 1) % QUEUE;
    net.count--;
    *from = net.from[i];
    size_t n = net.size[i] < cap ? net.size[i] : cap;
    memcpy(buf, net.data[i], n);
    return (int)net.size[i];
}

static uint8_t at_(const uint8_t *b, size_t n, size_t i)
{
    return i < n ? b[i] : 0;
}

static int32_t i32(const uint8_t *b, size_t n, size_t at)
{
    uint32_t v = 0;
    for (size_t k = 0; k < 4; k++)
        v = v << 8 | (at + k < n ? b[at + k] : 0u);
    /* bias toward small frames, where the session looks, and keep >= 0 */
    return (int32_t)(n > 0 && (b[0] & 1) ? v % 4096u : v & 0x7FFFFFFFu);
}

/* start + delta, kept in 0..INT32_MAX (frames on the wire are never negative). */
static int32_t near(int32_t start, int8_t delta)
{
    int64_t v = (int64_t)start + delta;
    return (int32_t)(v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : v);
}

/* A message of any type from the chunk's bytes. */
static void build(tempo_msg *m, const uint8_t *b, size_t n)
{
    memset(m, 0, sizeof *m);
    m->type = (uint8_t)(1 + at_(b, n, 0) % TEMPO_MSG_DISCONNECT); /* the types a tick exchanges */
    switch (m->type) {
    case TEMPO_MSG_SYNC_REQUEST:
    case TEMPO_MSG_SYNC_REPLY:
        m->u.sync.nonce = (uint32_t)i32(b, n, 1);
        m->u.sync.num_players = 3;
        m->u.sync.input_size = 4;
        m->u.sync.player_mask = n > 5 ? at_(b, n, 5) & 7 : 2;
        m->u.sync.ready_mask = at_(b, n, 6) & 7;
        m->u.sync.ready = at_(b, n, 7) & 1;
        for (int p = 0; p < TEMPO_MAX_PLAYERS; p++)
            m->u.sync.rtt_ms[p] = (uint16_t)(n > (size_t)(8 + p) ? at_(b, n, (size_t)(8 + p)) * 257u : 0xFFFFu);
        break;
    case TEMPO_MSG_INPUT: {
        tempo_msg_input *in = &m->u.input;
        in->player_mask = n > 1 ? at_(b, n, 1) & 7 : 2;
        in->start = i32(b, n, 2);
        in->count = n > 6 ? at_(b, n, 6) % 20 : 1;
        in->ack = near(in->start, (int8_t)at_(b, n, 7));
        in->sender_frame = near(in->start, (int8_t)at_(b, n, 8));
        in->disconnected_mask = at_(b, n, 9) & 7;
        for (int p = 0; p < 3; p++) {
            in->disconnect_frame[p] = near(in->start, (int8_t)at_(b, n, (size_t)(10 + (p & 1))));
            in->have_until[p] = near(in->start, (int8_t)at_(b, n, 12));
        }
        for (size_t k = 0; k < (size_t)(3 * in->count * 4); k++)
            in->data[k] = n > 13 ? b[13 + k % (n - 13)] : 0;
        break;
    }
    case TEMPO_MSG_INPUT_ACK:
        m->u.input_ack.ack = i32(b, n, 1);
        m->u.input_ack.sender_frame = i32(b, n, 5);
        break;
    case TEMPO_MSG_PING:
    case TEMPO_MSG_PONG:
        m->u.ping.id = (uint32_t)i32(b, n, 1);
        break;
    case TEMPO_MSG_QUALITY:
        m->u.quality.advantage_q8 = (int16_t)(at_(b, n, 5) << 8 | at_(b, n, 6));
        break;
    case TEMPO_MSG_CHECKSUM:
        m->u.checksum.frame = i32(b, n, 1) / 60 * 60;
        m->u.checksum.checksum = m->u.checksum.frame ? (uint64_t)i32(b, n, 5) : 0;
        m->u.checksum.ack = i32(b, n, 9) / 60 * 60;
        break;
    default:
        break;
    }
}

#define FUZZ_WINDOW 8 /* the session's max_prediction */

static void tick(tempo_session *s, uint64_t now)
{
    tempo_session_poll(s, now);
    uint8_t in[4] = {(uint8_t)now, 0, 0, 0};
    tempo_session_add_local_input(s, 0, in, sizeof in);
    tempo_tick t;
    if (tempo_session_advance(s, &t) != TEMPO_OK)
        return;
    if (t.rollback_depth > FUZZ_WINDOW)
        abort(); /* the window bounds every correction */
    const tempo_request *r;
    while (tempo_session_next(s, &r) > 0) {
    }
    if (tempo_session_frame(s) - tempo_session_confirmed_frame(s) > FUZZ_WINDOW)
        abort(); /* the window bounds every prediction */
    tempo_event ev;
    while (tempo_session_poll_event(s, &ev) > 0) {
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    memset(&net, 0, sizeof net);
    addr_peer[0] = tempo_address_ipv4(10, 0, 0, 2, 7000);
    addr_peer[1] = tempo_address_ipv4(10, 0, 0, 3, 7000);
    addr_spec = tempo_address_ipv4(10, 0, 0, 4, 7000);
    addr_stranger = tempo_address_ipv4(10, 0, 0, 9, 7000);
    static uint8_t block[256];
    memset(block, 0, sizeof block);
    tempo_config cfg;
    tempo_config_default(&cfg);
    cfg.num_players = 3;
    cfg.max_prediction = FUZZ_WINDOW;
    cfg.session_id = 7;
    cfg.arena = block;
    cfg.arena_size = sizeof block;
    cfg.timesync.startup_delay = false;
    cfg.auto_delay.enabled = size > 0 && (data[0] & 0x80);
    tempo_transport tr = {fake_send, fake_recv, NULL, NULL};
    tempo_session *s;
    if (tempo_session_create_p2p(&cfg, &tr, &s) != TEMPO_OK)
        abort();
    tempo_session_add_local_player(s, 0);
    tempo_session_add_remote_player(s, 1, &addr_peer[0]);
    tempo_session_add_remote_player(s, 2, &addr_peer[1]);
    tempo_session_add_spectator(s, &addr_spec);

    uint64_t now = 1000;
    for (int i = 0; i < 40; i++, now += 16667) /* let the honest handshake finish */
        tick(s, now);
    const tempo_address *sources[] = {&addr_peer[0], &addr_peer[1], &addr_spec, &addr_stranger};
    size_t at = 0;
    while (at + 2 <= size) {
        uint8_t kind = data[at], len = data[at + 1];
        at += 2;
        size_t n = len < size - at ? len : size - at;
        const uint8_t *b = data + at;
        at += n;
        const tempo_address *from = sources[kind & 3];
        if (kind & 4) {
            tempo_msg m;
            build(&m, b, n);
            push_msg(from, &m);
        } else {
            uint8_t d[TEMPO_MAX_DATAGRAM];
            d[0] = 0xB0 | TEMPO_PROTOCOL_VERSION; /* magic and version */
            d[1] = 7, d[2] = d[3] = d[4] = 0; /* session id 7 */
            d[5] = (uint8_t)net.seq, d[6] = (uint8_t)(net.seq++ >> 8);
            size_t m = n < sizeof d - 7 ? n : sizeof d - 7;
            memcpy(d + 7, b, m);
            push(from, d, 7 + m);
        }
        now += (kind & 8) ? 16667 : 1000 * (uint64_t)(kind >> 4);
        tick(s, now);
    }
    for (int i = 0; i < 10; i++, now += 16667)
        tick(s, now);
    tempo_session_destroy(s);
    return 0;
}
