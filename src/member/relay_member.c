/* SPDX-License-Identifier: MIT */
/*
 * relay_member.c — the relay member backend (tempo_session_create_relay_member):
 * a rollback session whose one remote machine is a relay (tempo/relay.h,
 * docs/RELAY.md).
 *
 * It connects through the connect handshake (net/gate.h, client side),
 * then sends the relay its local players' inputs, every frame the relay
 * has not said it holds, on each tick. Every input it confirms comes from
 * the relay's finalized frames, applied strictly in order: a remote
 * player's input is added as real; a local player's input is overridden
 * when the relay substituted it (sync_override_input), with a rollback if
 * the game already ran the frame. So every member plays the same inputs,
 * substituted or not, and they are all CONFIRMED.
 *
 * Time: the relay stamps each FRAMES with its clock. The member runs ahead
 * of that clock by the round trip and one frame, which makes its inputs
 * reach the relay about when their frame is due, and stalls a tick
 * whenever it is more than a frame further ahead. It starts (RUNNING) once
 * that target reaches frame 0; the relay announces the start
 * start_delay_ms ahead, so members start together without a handshake
 * between them. A member more than a frame behind its target (it started
 * late, its clock is slow, the round trip grew) jumps its inputs to the
 * target (at most half the prediction window past the relay's newest
 * frame), repeating its last input over the frames skipped, as the relay
 * would have; the engine then runs several frames a tick to catch up.
 *
 * Desync checks: the checksums of check frames go up with the inputs until
 * the relay acknowledges them; the relay compares every member's and
 * reports a frame that differed in its stream.
 */
#include <string.h>

#include "session/backend.h"
#include "session/link_stats.h"
#include "net/gate.h"
#include "net/intake.h"
#include "net/link.h"
#include "net/link_stats.h"
#include "net/receive.h"
#include "relay/relay_msg.h"
#include "wire/replay_window.h"
#include "tempo/rng.h"

#define MEMBER_SUMS 64             /* own checksums kept for sending */
#define MEMBER_KEEPALIVE_US 100000u
#define MEMBER_JOIN_RETRY_US 100000u

typedef enum member_phase {
    MEMBER_CONNECTING = 0, /* the handshake */
    MEMBER_JOINING,        /* admitted, not yet in a match */
    MEMBER_IN,             /* in its match: frames flow once the relay starts it */
    MEMBER_ENDED           /* refused, timed out or left */
} member_phase;

typedef struct relay_member_state {
    const session_host *host;
    const tempo_config *cfg;
    tempo_sync *sync;
    const session_clock *clock;
    tempo_transport transport;
    tempo_address relay;
    uint64_t protocol_id;
    bool sealed;
    bool has_token;
    uint8_t token[TEMPO_TOKEN_SIZE];
    uint64_t nonce;

    member_phase phase;
    bool opened;               /* first poll done: gate and link set up */
    bool left;
    gate_client gate;
    net_link link;
    tempo_replay replay;
    wire_keys keys;
    uint8_t local_mask;
    int nlocal;

    bool started, running;
    int32_t relay_clock;       /* the relay's clock in its newest FRAMES */
    uint64_t clock_us;         /* when that came */
    int32_t finalized;         /* relay frames applied: 0..finalized-1 */
    int32_t wanted;            /* the next own frame the relay lacks */
    int32_t sum_held;          /* newest own check frame the relay holds */
    sync_sum sums[MEMBER_SUMS];
    int32_t desync_seen;
    uint64_t last_send_us, last_join_us;

    tempo_relay_member_info info;
    uint64_t desyncs, desync_checks;
    uint64_t dropped_malformed, dropped_unknown, dropped_session, dropped_replay, dropped_forged;
    uint64_t held_jumps;
    uint64_t send_errors;
    uint8_t buf[TEMPO_MAX_DATAGRAM + 1];
    uint8_t out[TEMPO_MAX_DATAGRAM];
    uint8_t scratch[RELAY_MAX_FRAMES * TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE];
} relay_member_state;

static void event(relay_member_state *m, tempo_event_kind kind, int player)
{
    tempo_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.player = player;
    m->host->push_event(m->host->ctx, &ev);
}

static tempo_result member_create(const session_host *host, const session_args *args, void **out)
{
    relay_member_state *m = tempo__calloc(&host->cfg->allocator, 1, sizeof *m);
    *out = m;
    if (!m)
        return TEMPO_E_NO_MEMORY;
    m->host = host;
    m->cfg = host->cfg;
    m->sync = host->sync;
    m->clock = host->clock;
    m->transport = *args->transport;
    m->relay = *args->host_addr;
    m->protocol_id = TEMPO_RELAY_PLAIN_PROTOCOL;
    if (args->token) {
        tempo_token_public pub;
        if (tempo_token_read_public(args->token, TEMPO_TOKEN_SIZE, &pub) != TEMPO_OK)
            return TEMPO_E_MALFORMED;
        if (!tempo_secure_available())
            return TEMPO_E_UNSUPPORTED;
        m->protocol_id = pub.protocol_id;
        tempo_wipe(&pub, sizeof pub);
        memcpy(m->token, args->token, TEMPO_TOKEN_SIZE);
        m->has_token = true;
        m->sealed = true;
    }
    tempo_rng rng;
    tempo_rng_seed(&rng, m->cfg->random_seed, 0x72656c6179u);
    do
        m->nonce = (uint64_t)tempo_rng_next(&rng) << 32 | tempo_rng_next(&rng);
    while (m->nonce == 0);
    /* Every player is remote, at the relay, until the game says it is ours. */
    for (int p = 0; p < m->cfg->num_players; p++)
        (void)sync_set_player(m->sync, p, SYNC_REMOTE);
    m->desync_seen = -1;
    return TEMPO_OK;
}

static void member_destroy(void *b)
{
    relay_member_state *m = b;
    if (!m)
        return;
    gate_client_wipe(&m->gate);
    seal_keys_wipe(&m->keys);
    tempo_wipe(m->token, sizeof m->token);
    tempo_allocator a = m->cfg->allocator;
    tempo__free(&a, m);
}

static tempo_result member_add_local(void *b, int player)
{
    relay_member_state *m = b;
    if (player < 0 || player >= m->cfg->num_players)
        return TEMPO_E_PLAYER;
    if (m->local_mask & (1u << player))
        return TEMPO_E_ALREADY;
    m->sync->kind[player] = SYNC_LOCAL;
    m->local_mask |= (uint8_t)(1u << player);
    m->nlocal++;
    return TEMPO_OK;
}

/* Remote players are at the relay already: declaring one changes nothing. */
static tempo_result member_add_remote(void *b, int player, const tempo_address *addr)
{
    relay_member_state *m = b;
    (void)addr;
    if (player < 0 || player >= m->cfg->num_players)
        return TEMPO_E_PLAYER;
    return (m->local_mask & (1u << player)) ? TEMPO_E_ALREADY : TEMPO_OK;
}

/* ---- sending ------------------------------------------------------------------ */

static void send_body(relay_member_state *m, uint8_t type, size_t body)
{
    uint64_t seq = link_next_seq(&m->link);
    int n = relay_msg_finish(m->out, sizeof m->out, m->protocol_id, type, seq, body,
                             m->sealed ? &m->keys : NULL);
    if (n < 0) {
        m->send_errors++;
        return;
    }
    link_on_sent(&m->link, m->clock->now_us, (size_t)n);
    m->last_send_us = m->clock->now_us;
    m->info.bytes_up += (uint64_t)n;
    if (m->transport.send(m->transport.ctx, &m->relay, m->out, (size_t)n) < 0)
        m->send_errors++;
}

static void send_join(relay_member_state *m)
{
    tempo_relay_join j;
    memset(&j, 0, sizeof j);
    j.match_id = m->cfg->session_id;
    j.slots = m->local_mask;
    j.num_players = m->cfg->num_players;
    j.input_size = m->cfg->input_size;
    j.frames_per_second = m->cfg->frames_per_second;
    m->last_join_us = m->clock->now_us;
    send_body(m, RELAY_TYPE_JOIN, relay_join_write(m->out + PACKET_HEADER_SIZE, &j));
}

/* The frame end every local player has an input for. */
static int32_t local_end(const relay_member_state *m)
{
    int32_t end = INT32_MAX;
    for (int p = 0; p < m->cfg->num_players; p++)
        if ((m->local_mask & (1u << p)) && m->sync->q[p].known_end < end)
            end = m->sync->q[p].known_end;
    return end == INT32_MAX ? 0 : end;
}

/* One INPUT: every own input the relay lacks, and unacknowledged checksums. */
static void send_inputs(relay_member_state *m)
{
    if (m->phase != MEMBER_IN || m->nlocal == 0)
        return;
    relay_sum sums[RELAY_MAX_SUMS];
    int nsums = 0;
    int interval = m->cfg->desync_interval;
    if (interval > 0) {
        /* the oldest first: what the relay lacks, in order */
        for (int k = 0; k < MEMBER_SUMS && nsums < RELAY_MAX_SUMS; k++) {
            const sync_sum *s = &m->sums[k];
            if (s->frame > m->sum_held && s->frame > 0) {
                int at = nsums;
                while (at > 0 && sums[at - 1].frame > s->frame) {
                    sums[at] = sums[at - 1];
                    at--;
                }
                sums[at].frame = s->frame;
                sums[at].checksum = s->checksum;
                nsums++;
            }
        }
    }
    size_t isz = (size_t)m->cfg->input_size;
    int cap = relay_input_capacity(m->nlocal, m->cfg->input_size, nsums);
    int32_t first = m->wanted > m->finalized ? m->wanted : m->finalized;
    int32_t end = local_end(m);
    int count = 0;
    uint8_t *dst = m->scratch;
    for (int32_t f = first; f < end && count < cap; f++, count++) {
        bool ok = true;
        for (int p = 0; p < m->cfg->num_players && ok; p++)
            if (m->local_mask & (1u << p)) {
                ok = iq_real(&m->sync->q[p], f, dst);
                dst += isz;
            }
        if (!ok)
            break;
    }
    relay_acks a = relay_acks_of(&m->link);
    size_t body = relay_input_write(m->out + PACKET_HEADER_SIZE, &a, m->finalized, first,
                                    m->local_mask, count,
                                    m->scratch, relay_input_frame_size(m->nlocal, m->cfg->input_size),
                                    sums, nsums);
    send_body(m, RELAY_TYPE_INPUT, body);
}

/* ---- receiving ---------------------------------------------------------------- */

static void on_welcome(relay_member_state *m, uint8_t slots, bool refused)
{
    if (m->phase == MEMBER_JOINING && refused) {
        /* taken players, another game's settings, or a full relay */
        tempo__log(&m->sync->log, TEMPO_LOG_ERROR, "tempo: the relay refused to join match %u",
                   m->cfg->session_id);
        m->phase = MEMBER_ENDED;
        event(m, TEMPO_EVENT_HANDSHAKE_FAILED, -1);
        return;
    }
    if (m->phase == MEMBER_JOINING && slots != 0) {
        if (slots != m->local_mask) {
            /* the relay gave us other players than the game declared */
            tempo__log(&m->sync->log, TEMPO_LOG_ERROR,
                       "tempo: the relay's players (0x%x) are not the local ones (0x%x)", slots,
                       m->local_mask);
            m->phase = MEMBER_ENDED;
            return;
        }
        m->phase = MEMBER_IN;
    }
}

static void own_sum(const relay_member_state *m, int32_t frame, uint64_t *out, bool *have)
{
    *have = false;
    for (int k = 0; k < MEMBER_SUMS; k++)
        if (m->sums[k].frame == frame) {
            *out = m->sums[k].checksum;
            *have = true;
        }
}

/* Apply the relay's frames from `finalized` on, in order, while the engine
 * can hold them; later ones come again (the ack says where we are). */
static void take_frames(relay_member_state *m, const relay_frames_msg *f)
{
    size_t isz = (size_t)m->cfg->input_size;
    size_t fsz = relay_frames_frame_size(m->cfg->num_players, m->cfg->input_size);
    uint8_t all = (uint8_t)((1u << m->cfg->num_players) - 1u);
    for (int k = 0; k < f->count; k++) {
        int32_t fr = f->first + k;
        if (fr < m->finalized)
            continue;
        if (fr > m->finalized)
            break;
        const uint8_t *src = f->frames + (size_t)k * fsz;
        if ((src[0] & ~all) != 0) {
            m->dropped_malformed++;
            return;
        }
        for (int p = 0; p < m->cfg->num_players; p++)
            if (!iq_holds(&m->sync->q[p], fr))
                return;
        for (int p = 0; p < m->cfg->num_players; p++) {
            const uint8_t *in = src + 1 + (size_t)p * isz;
            if (src[0] & (1u << p))
                m->info.substituted[p]++;
            if (m->local_mask & (1u << p)) {
                uint8_t before[TEMPO_MAX_INPUT_SIZE];
                bool had = iq_real(&m->sync->q[p], fr, before);
                if (sync_override_input(m->sync, p, fr, in) == TEMPO_OK && had &&
                    memcmp(before, in, isz) != 0)
                    m->info.overridden++;
            } else {
                (void)sync_add_remote_input(m->sync, p, fr, in);
            }
        }
        m->finalized = fr + 1;
    }
}

static void on_frames(relay_member_state *m, const relay_frames_msg *msg, bool newest)
{
    relay_frames_msg f = *msg;
    if (m->phase == MEMBER_JOINING)
        m->phase = MEMBER_IN; /* the welcome was lost; frames say we are in */
    if (newest && (f.flags & RELAY_FLAG_STARTED)) {
        m->started = true;
        m->relay_clock = f.clock;
        m->clock_us = m->clock->now_us;
    }
    /* The relay cannot lack a frame past those we sent, nor hold a
     * checksum we never computed: such claims are ignored. */
    if (f.wanted > m->wanted && f.wanted <= local_end(m))
        m->wanted = f.wanted;
    int32_t newest_sum = 0;
    for (int k = 0; k < MEMBER_SUMS; k++)
        if (m->sums[k].frame > newest_sum)
            newest_sum = m->sums[k].frame;
    if (f.sum_held > m->sum_held && f.sum_held <= newest_sum) {
        for (int k = 0; k < MEMBER_SUMS; k++)
            if (m->sums[k].frame > m->sum_held && m->sums[k].frame <= f.sum_held)
                m->desync_checks++;
        m->sum_held = f.sum_held;
    }
    if ((f.flags & RELAY_FLAG_DESYNC) && f.desync_frame > m->desync_seen) {
        m->desync_seen = f.desync_frame;
        m->desyncs++;
        uint64_t mine = 0;
        bool have;
        own_sum(m, f.desync_frame, &mine, &have);
        tempo_event ev;
        memset(&ev, 0, sizeof ev);
        ev.kind = TEMPO_EVENT_DESYNC;
        ev.player = -1;
        ev.u.desync.frame = f.desync_frame;
        ev.u.desync.local = have ? mine : f.desync_sums[0];
        ev.u.desync.remote = ev.u.desync.local == f.desync_sums[0] ? f.desync_sums[1]
                                                                   : f.desync_sums[0];
        m->host->push_event(m->host->ctx, &ev);
    }
    take_frames(m, &f);
}

/* The handshake's replies, and the relay's first datagram that ends it. */
static bool handshake_datagram(relay_member_state *m, size_t size, const tempo_packet_view *v)
{
    if (v->h.type >= CONNECT_TYPE_REQUEST && v->h.type <= CONNECT_TYPE_DENIED) {
        if (m->phase == MEMBER_CONNECTING &&
            gate_client_on_datagram(&m->gate, m->clock->now_us, &m->relay, m->buf, size) ==
                GATE_CLIENT_GOT_DENIED) {
            m->phase = MEMBER_ENDED;
            event(m, TEMPO_EVENT_HANDSHAKE_FAILED, -1);
        }
        return true;
    }
    return false;
}

static void connected(relay_member_state *m)
{
    (void)gate_client_connected(&m->gate);
    if (m->sealed)
        m->keys = m->gate.keys;
    m->link.send_seq = m->gate.next_sequence;
    m->phase = m->sealed ? MEMBER_IN : MEMBER_JOINING;
    event(m, TEMPO_EVENT_CONNECTED, -1);
    if (!m->sealed)
        send_join(m);
}

/* What the relay sent, decoded by the receive pipeline. */
typedef struct member_msg {
    const relay_member_state *m;
    uint8_t slots;          /* WELCOME */
    bool refused;
    relay_frames_msg frames; /* FRAMES */
} member_msg;

static tempo_drop_reason decode_relay(void *ctx, net_datagram *d)
{
    member_msg *x = ctx;
    if (d->v.h.fragment)
        return TEMPO_DROP_FRAGMENT;
    if (d->v.h.type == RELAY_TYPE_WELCOME)
        return relay_welcome_read(d->body, d->body_size, &x->slots, &x->refused) ? TEMPO_DROP_NONE
                                                                                 : TEMPO_DROP_BAD_VALUE;
    if (d->v.h.type == RELAY_TYPE_FRAMES) {
        size_t fsz = relay_frames_frame_size(x->m->cfg->num_players, x->m->cfg->input_size);
        if (!relay_frames_read(d->body, d->body_size, fsz, &x->frames))
            return TEMPO_DROP_BAD_VALUE;
        d->ack = relay_acks_in(&x->frames.acks); /* taken by the pipeline */
        return TEMPO_DROP_NONE;
    }
    return TEMPO_DROP_BAD_TYPE;
}

static void on_datagram(relay_member_state *m, const tempo_address *from, size_t size)
{
    if (!tempo_address_equal(from, &m->relay)) {
        NET_DROP_COUNT(m, TEMPO_DROP_UNKNOWN);
        return;
    }
    tempo_packet_view v;
    if (size <= TEMPO_MAX_DATAGRAM && packet_read(m->buf, size, &v, NULL) == TEMPO_OK &&
        v.h.session_id == (uint32_t)m->protocol_id && handshake_datagram(m, size, &v))
        return;
    if (m->phase == MEMBER_CONNECTING && m->gate.state != GATE_CLIENT_RESPONDING) {
        NET_DROP_COUNT(m, TEMPO_DROP_UNKNOWN);
        return;
    }
    const wire_keys *keys = NULL;
    if (m->sealed)
        keys = m->phase == MEMBER_CONNECTING ? &m->gate.keys : &m->keys;
    net_receiver r = {&m->link, &m->replay, keys, (uint32_t)m->protocol_id};
    member_msg x;
    memset(&x, 0, sizeof x);
    x.m = m;
    net_datagram d;
    tempo_drop_reason why = net_receive(&r, m->clock->now_us, m->buf, size, decode_relay, &x, &d);
    if (why != TEMPO_DROP_NONE) {
        NET_DROP_COUNT(m, why);
        return;
    }
    if (m->phase == MEMBER_CONNECTING)
        connected(m);
    m->info.bytes_down += size;
    if (d.v.h.type == RELAY_TYPE_WELCOME)
        on_welcome(m, x.slots, x.refused);
    else
        on_frames(m, &x.frames, d.rx == LINK_RX_NEWEST);
}

/* ---- the tick --------------------------------------------------------------- */

static void open_member(relay_member_state *m)
{
    uint64_t now = m->clock->now_us;
    gate_client_config gc;
    memset(&gc, 0, sizeof gc);
    gc.protocol_id = m->protocol_id;
    gc.token = m->has_token ? m->token : NULL;
    gc.nonce = m->nonce;
    gc.server = m->relay;
    gc.slots = (uint8_t)(m->nlocal > 0 ? m->nlocal : 1);
    if (m->cfg->handshake_timeout_ms != 0)
        gc.timeout_us = (uint64_t)m->cfg->handshake_timeout_ms * 1000u;
    else
        gc.timeout_us = 600000000u; /* the longest the gate takes: the game decides */
    if (gate_client_init(&m->gate, &gc, now) != TEMPO_OK)
        m->phase = MEMBER_ENDED;
    link_config lc;
    link_config_default(&lc);
    lc.notify_us = (uint64_t)m->cfg->disconnect_notify_ms * 1000u;
    lc.timeout_us = (uint64_t)m->cfg->disconnect_timeout_ms * 1000u;
    lc.seq_jump = REPLAY_WINDOW / 2;
    link_init(&m->link, &lc, now);
    /* The gate's handshake stands in for the link's. */
    m->link.state = LINK_ESTABLISHED;
    m->link.hs.complete = true;
    net_receive_start(&m->link, &m->replay, now, 0, false); /* the relay counts from 0 */
    m->opened = true;
}

/* Where our frame should be: the relay's clock now, plus the round trip
 * and one frame, so our inputs reach it about when their frame is due. */
static double target_frame(const relay_member_state *m)
{
    double fps = (double)m->cfg->frames_per_second;
    double since = (double)(m->clock->now_us - m->clock_us) + (double)link_rtt_us(&m->link);
    return (double)m->relay_clock + since * fps / 1e6 + 1.0;
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    relay_member_state *m = ctx;
    (void)data; /* m->buf, which on_datagram reads */
    on_datagram(m, from, size);
    return m->phase != MEMBER_ENDED;
}

static void member_poll(void *b)
{
    relay_member_state *m = b;
    if (m->left || m->phase == MEMBER_ENDED)
        return;
    if (!m->opened) {
        open_member(m);
        if (m->nlocal == 0) { /* nothing to send: no relay takes such a member */
            tempo__log(&m->sync->log, TEMPO_LOG_ERROR, "tempo: a relay member needs a local player");
            m->phase = MEMBER_ENDED;
            return;
        }
    }
    uint64_t now = m->clock->now_us;
    if (net_intake(&m->transport, m->buf, sizeof m->buf, 4096, take, m) == NET_INTAKE_STOPPED)
        return; /* a datagram ended the membership */
    if (m->phase == MEMBER_CONNECTING) {
        gate_client_state gs = gate_client_update(&m->gate, now);
        if (gs == GATE_CLIENT_TIMED_OUT || gs == GATE_CLIENT_DENIED) {
            m->phase = MEMBER_ENDED;
            event(m, TEMPO_EVENT_HANDSHAKE_FAILED, -1);
            return;
        }
        if (gate_client_due(&m->gate, now)) {
            int n = gate_client_write(&m->gate, now, m->out, sizeof m->out);
            if (n > 0 && m->transport.send(m->transport.ctx, &m->relay, m->out, (size_t)n) < 0)
                m->send_errors++;
            if (n > 0)
                m->info.bytes_up += (uint64_t)n;
        }
        return;
    }
    unsigned ev = link_update(&m->link, now);
    if (ev & LINK_EV_INTERRUPTED)
        event(m, TEMPO_EVENT_INTERRUPTED, -1);
    if (ev & LINK_EV_RESUMED)
        event(m, TEMPO_EVENT_RESUMED, -1);
    if (ev & LINK_EV_TIMED_OUT) {
        /* The relay is gone: the remote players stop where its frames did. */
        m->phase = MEMBER_ENDED;
        for (int p = 0; p < m->cfg->num_players; p++)
            if (!(m->local_mask & (1u << p)))
                m->host->disconnect(m->host->ctx, p, m->finalized);
        return;
    }
    if (m->phase == MEMBER_JOINING && now - m->last_join_us >= MEMBER_JOIN_RETRY_US)
        send_join(m);
    if (m->started && !m->running && target_frame(m) >= 0.0) {
        m->running = true;
        event(m, TEMPO_EVENT_RUNNING, -1);
    }
    if (now - m->last_send_us >= MEMBER_KEEPALIVE_US)
        send_inputs(m);
}

/* Behind the aim by more than a frame, our inputs would reach the relay
 * after their deadlines, and every one would be substituted: jump our
 * inputs toward the aim, repeating each local player's last input over
 * the frames skipped (what the relay would have substituted), and let the
 * engine run those frames as fast as its prediction window allows. */
static void catch_up(relay_member_state *m)
{
    int32_t aim = (int32_t)target_frame(m);
    int32_t end = local_end(m);
    if (end >= aim - 1)
        return;
    int32_t to = aim - 1;
    if (to - end > RELAY_MAX_FRAMES)
        to = end + RELAY_MAX_FRAMES;
    /* At most half the prediction window past the relay's newest frame:
     * further, the engine would wait for confirmations (a round trip
     * longer than the window makes inputs late whatever we do, and the
     * relay's substitutes say so). */
    if (to > m->finalized + m->cfg->max_prediction / 2)
        to = m->finalized + m->cfg->max_prediction / 2;
    size_t isz = (size_t)m->cfg->input_size;
    for (int32_t f = end; f < to; f++) {
        for (int p = 0; p < m->cfg->num_players; p++) {
            if (!(m->local_mask & (1u << p)))
                continue;
            input_queue *q = &m->sync->q[p];
            uint8_t last[TEMPO_MAX_INPUT_SIZE];
            if (!iq_holds(q, f))
                return;
            if (iq_real(q, f, last))
                continue; /* this player's own input is there: it stands */
            if (f == 0 || !iq_real(q, f - 1, last))
                memset(last, 0, isz);
            if (sync_override_input(m->sync, p, f, last) != TEMPO_OK)
                return;
        }
        m->info.skipped++;
    }
}

static bool member_will_stall(const void *b)
{
    const relay_member_state *m = b;
    return m->running && (double)m->sync->frame > target_frame(m) + 1.0;
}

static tempo_result member_advance(void *b, tempo_tick *tick)
{
    relay_member_state *m = b;
    if (m->left)
        return TEMPO_E_STATE;
    if (!m->opened)
        member_poll(m);
    if (!m->running) {
        sync_drop_held(m->sync);
        tick->status = TEMPO_TICK_SYNCHRONIZING;
        return TEMPO_OK;
    }
    sync_plan_opts o;
    memset(&o, 0, sizeof o);
    o.stall = member_will_stall(m);
    if (o.stall)
        m->info.stalls++;
    else
        catch_up(m);
    tempo_result r = sync_plan(m->sync, &o, tick);
    m->host->planned(m->host->ctx, tick);
    sync_sum s;
    while (sync_take_checksum(m->sync, &s))
        if (m->cfg->desync_interval > 0)
            m->sums[(uint32_t)(s.frame / m->cfg->desync_interval) % MEMBER_SUMS] = s;
    if (m->phase == MEMBER_IN)
        send_inputs(m);
    return r;
}

static tempo_result member_leave(void *b)
{
    relay_member_state *m = b;
    if (m->left)
        return TEMPO_E_STATE;
    /* Once: if it is lost, the relay's timeout drops us all the same. */
    if (m->opened && (m->phase == MEMBER_IN || m->phase == MEMBER_JOINING))
        send_body(m, RELAY_TYPE_LEAVE, 0);
    m->left = true;
    return TEMPO_OK;
}

static tempo_session_state member_state(const void *b)
{
    const relay_member_state *m = b;
    if (m->left || m->phase == MEMBER_ENDED)
        return TEMPO_SESSION_ENDED;
    return m->running ? TEMPO_SESSION_RUNNING : TEMPO_SESSION_SYNCHRONIZING;
}

static void member_stats(const void *b, tempo_session_stats *out)
{
    const relay_member_state *m = b;
    out->desync_checks = m->desync_checks;
    out->desyncs = m->desyncs;
    out->dropped_malformed = m->dropped_malformed;
    out->dropped_unknown = m->dropped_unknown;
    out->dropped_session = m->dropped_session;
    out->dropped_replay = m->dropped_replay;
    out->dropped_forged = m->dropped_forged;
    out->held_jumps = m->held_jumps;
    out->send_errors = m->send_errors;
    out->unauthenticated = !m->sealed;
    out->timesync_stalls = m->info.stalls;
}

static tempo_result member_endpoint_stats(const void *b, int player, tempo_endpoint_stats *out)
{
    const relay_member_state *m = b;
    if (m->local_mask & (1u << player))
        return TEMPO_E_PLAYER;
    const net_link *l = &m->link;
    session_link_stats(l, out);
    out->synchronized = m->phase == MEMBER_IN;
    out->disconnected = m->phase == MEMBER_ENDED;
    out->players = (uint32_t)((1u << m->cfg->num_players) - 1u) & ~(uint32_t)m->local_mask;
    out->local_frame_lag = m->sync->frame - m->finalized;
    out->acked_frame = m->wanted;
    return TEMPO_OK;
}

static tempo_result relay_member_info(const void *b, tempo_relay_member_info *out)
{
    const relay_member_state *m = b;
    *out = m->info;
    out->connected = m->phase == MEMBER_IN || m->phase == MEMBER_JOINING;
    out->started = m->started;
    out->relay_frame = m->started ? (int32_t)(target_frame(m) - 1.0 -
                                              (double)link_rtt_us(&m->link) *
                                                  (double)m->cfg->frames_per_second / 2e6)
                                  : 0;
    out->finalized = m->finalized;
    out->rtt_ms = link_stats(&m->link).rtt_ms;
    return TEMPO_OK;
}

static const session_backend_ops relay_member_ops = {
    .create = member_create,
    .destroy = member_destroy,
    .add_local = member_add_local,
    .add_remote = member_add_remote,
    .poll = member_poll,
    .will_stall = member_will_stall,
    .advance = member_advance,
    .leave = member_leave,
    .state = member_state,
    .stats = member_stats,
    .endpoint_stats = member_endpoint_stats,
};

tempo_result tempo_session_create_relay_member(const tempo_config *cfg,
                                               const tempo_transport *transport,
                                               const tempo_address *relay_address,
                                               const uint8_t *token, tempo_session **out)
{
    if (!session_network_args_ok(cfg, transport) || !relay_address ||
        relay_address->family == TEMPO_ADDRESS_NONE) {
        if (out)
            *out = NULL;
        return TEMPO_E_INVALID_ARG;
    }
    session_args args = {transport, relay_address, NULL, token};
    return session_create(cfg, &relay_member_ops, 0, &args, out);
}

tempo_result tempo_session_relay_info(const tempo_session *s, tempo_relay_member_info *out)
{
    if (!s || !out)
        return TEMPO_E_INVALID_ARG;
    const void *b = session_backend_of(s, &relay_member_ops);
    if (!b)
        return TEMPO_E_UNSUPPORTED;
    return relay_member_info(b, out);
}
