/* SPDX-License-Identifier: MIT */
/*
 * traversal.c — the traversal transport (tempo/traversal.h): the relay's
 * handshake and link, the introduction, one punch_pair per other member
 * (net/punch.h) driven by probes on the shared socket, and the session's
 * datagrams sent straight or forwarded by the relay.
 */
#include "tempo/traversal.h"

#include <string.h>

#include "base/common.h"
#include "net/gate.h"
#include "net/link.h"
#include "net/punch.h"
#include "net/receive.h"
#include "wire/connect.h"
#include "wire/nat_msg.h"
#include "wire/packet.h"
#include "wire/replay_window.h"
#include "wire/seal.h"
#include "wire/siphash.h"

#define TRAV_QUEUE 64                  /* the session's datagrams waiting for its recv */
#define TRAV_RECV_MAX 256              /* datagrams read from the socket per update */
#define TRAV_CANDIDATES_US 250000u     /* CANDIDATES while waiting for every player */
#define TRAV_KEEPALIVE_US 500000u      /* ... and afterwards, which keeps us in the relay */
#define TRAV_ACKS_PER_SECOND 64u       /* probes of one peer answered per second, at most */
#define TRAV_ID_TAG 0x74u              /* an opaque session address: 't', 'p', player */
/* Sealed: nothing from the relay this long (it answers every CANDIDATES,
 * sent each half second) and our address has probably changed under us (a
 * mobile network): connect again with the token, from wherever we are;
 * the relay lets the new connection take the old one's place. */
#define TRAV_RELAY_LOST_US 1600000u
#define TRAV_RETRY_US 300000u          /* a refused or silent reconnection tries again */

typedef struct trav_member {
    bool used;
    uint8_t slots;
    int lowest;
    tempo_address public_addr;
    int ncand;
    tempo_address cand[NAT_MAX_LOCAL];
    punch_pair punch;
    uint32_t probe_ms[8];              /* newest probe nonce of its, per its candidate index */
    uint64_t ack_second;               /* the second acks are counted in */
    uint32_t acks_this_second;
} trav_member;

typedef struct trav_slot {
    tempo_address from;
    uint16_t size;
    uint8_t data[TEMPO_MAX_DATAGRAM];
} trav_slot;

struct tempo_traversal {
    tempo_traversal_config cfg;
    tempo_allocator alloc;
    uint64_t now_us;
    tempo_traversal_state state;
    bool sealed;
    bool has_token;
    uint8_t token[TEMPO_TOKEN_SIZE];
    gate_client gate;
    gate_client_config gate_cfg;
    bool reconnecting;                 /* a new connection to the relay, the match going on */
    uint64_t relay_heard_us;           /* the relay's last datagram that opened */
    wire_keys keys;
    net_link link;
    tempo_replay replay;
    uint64_t candidates_us;            /* last CANDIDATES sent */
    bool joined_sent;
    uint8_t slots;                     /* ours, from the first INTRO */
    int lowest;
    bool all_in;
    uint8_t secret[NAT_SECRET_SIZE];
    bool has_secret;
    punch_config pcfg;
    trav_member members[NAT_MAX_MEMBERS];
    tempo_traversal_stats st;
    trav_slot *queue;
    int qhead, qcount;
    uint8_t buf[TEMPO_MAX_DATAGRAM + 1];
    uint8_t out[TEMPO_MAX_DATAGRAM];
};

/* Count a datagram refused, by the reasons and counter names every role
 * shares (wire/drop.h, net/receive.h). */
static void drop(tempo_traversal *t, tempo_drop_reason why)
{
    NET_DROP_COUNT(&t->st, why);
}

static bool addr_ok(const tempo_address *a)
{
    return (a->family == TEMPO_ADDRESS_IPV4 || a->family == TEMPO_ADDRESS_IPV6) && a->port != 0;
}

void tempo_traversal_config_default(tempo_traversal_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->protocol_id = 0x74656d706f72656cull; /* TEMPO_RELAY_PLAIN_PROTOCOL */
    cfg->players = 1;
    cfg->direct = true;
    cfg->probe_ms = 50;
    cfg->punch_timeout_ms = 2500;
    cfg->keepalive_ms = 1000;
    cfg->dead_ms = 3500;
    cfg->retry_ms = 2000;
    cfg->connect_timeout_ms = 5000;
}

static bool in(uint32_t v, uint32_t lo, uint32_t hi) { return v >= lo && v <= hi; }

static bool config_ok(const tempo_traversal_config *c)
{
    if (!c->transport.send || !c->transport.recv || !addr_ok(&c->relay))
        return false;
    if (c->players < 1 || c->players > 8 || c->nlocal < 0 || c->nlocal > TEMPO_TRAVERSAL_MAX_LOCAL)
        return false;
    for (int i = 0; i < c->nlocal; i++)
        if (!addr_ok(&c->local[i]))
            return false;
    if (!c->token && (c->nonce == 0 || c->join[17] != 1))
        return false;
    if ((c->allocator.alloc == NULL) != (c->allocator.free == NULL))
        return false;
    return in(c->probe_ms, 10, 1000) && in(c->punch_timeout_ms, 100, 60000) &&
           in(c->keepalive_ms, 100, 25000) && in(c->dead_ms, 2 * c->keepalive_ms, 60000) &&
           in(c->retry_ms, 100, 60000) && in(c->connect_timeout_ms, 100, 600000);
}

tempo_result tempo_traversal_create(const tempo_traversal_config *cfg, uint64_t now_us,
                                    tempo_traversal **out)
{
    if (out)
        *out = NULL;
    if (!cfg || !out || !config_ok(cfg))
        return TEMPO_E_INVALID_ARG;
    int crc = seal_cipher_check((int)cfg->cipher);
    if (crc != TEMPO_OK)
        return (tempo_result)crc;
    tempo_allocator alloc = cfg->allocator;
    tempo_traversal *t = tempo__calloc(&alloc, 1, sizeof *t);
    if (!t)
        return TEMPO_E_NO_MEMORY;
    t->queue = tempo__calloc(&alloc, TRAV_QUEUE, sizeof *t->queue);
    if (!t->queue) {
        tempo__free(&alloc, t);
        return TEMPO_E_NO_MEMORY;
    }
    t->cfg = *cfg;
    t->cfg.token = NULL;
    t->alloc = alloc;
    t->now_us = now_us;
    t->lowest = -1;
    t->has_token = cfg->token != NULL;
    if (t->has_token)
        memcpy(t->token, cfg->token, TEMPO_TOKEN_SIZE);
    gate_client_config gc;
    memset(&gc, 0, sizeof gc);
    gc.protocol_id = cfg->protocol_id;
    gc.token = t->has_token ? t->token : NULL;
    gc.nonce = cfg->nonce;
    gc.server = cfg->relay;
    gc.slots = (uint8_t)cfg->players;
    gc.ciphers = seal_offer((int)cfg->cipher);
    gc.timeout_us = (uint64_t)cfg->connect_timeout_ms * 1000u;
    t->gate_cfg = gc;
    t->relay_heard_us = now_us;
    int r = gate_client_init(&t->gate, &gc, now_us);
    if (r != TEMPO_OK) {
        seal_wipe(t->token, sizeof t->token);
        tempo__free(&alloc, t->queue);
        tempo__free(&alloc, t);
        return (tempo_result)r;
    }
    t->sealed = t->gate.sealed;
    link_config lc;
    link_config_default(&lc);
    lc.seq_jump = REPLAY_WINDOW / 2;
    link_init(&t->link, &lc, now_us);
    t->link.state = LINK_ESTABLISHED; /* the gate's handshake stands in for the link's */
    t->link.hs.complete = true;
    replay_init(&t->replay);
    net_receive_start(&t->link, &t->replay, now_us, 0, false); /* the relay counts from 0 */
    punch_config_default(&t->pcfg);
    t->pcfg.probe_us = (uint64_t)cfg->probe_ms * 1000u;
    t->pcfg.timeout_us = (uint64_t)cfg->punch_timeout_ms * 1000u;
    t->pcfg.keepalive_us = (uint64_t)cfg->keepalive_ms * 1000u;
    t->pcfg.dead_us = (uint64_t)cfg->dead_ms * 1000u;
    t->pcfg.retry_us = (uint64_t)cfg->retry_ms * 1000u;
    *out = t;
    return TEMPO_OK;
}

/* ---- the relay link ---------------------------------------------------- */

/* The body at t->out + PACKET_HEADER_SIZE to the relay, framed and sealed. */
static void relay_send(tempo_traversal *t, uint8_t type, size_t body)
{
    uint64_t seq = link_next_seq(&t->link);
    tempo_packet_header h;
    memset(&h, 0, sizeof h);
    h.session_id = connect_session_id(t->cfg.protocol_id);
    h.sequence = (uint16_t)seq;
    h.type = type; /* sealing sets the S bit */
    (void)packet_write(&h, t->out, sizeof t->out);
    size_t n = PACKET_HEADER_SIZE + body;
    if (t->sealed) {
        int s = seal_datagram(&t->keys, seq, t->out, n, sizeof t->out);
        if (s < 0) {
            t->st.send_errors++;
            return;
        }
        n = (size_t)s;
    }
    link_on_sent(&t->link, t->now_us, n);
    if (t->cfg.transport.send(t->cfg.transport.ctx, &t->cfg.relay, t->out, n) < 0)
        t->st.send_errors++;
}

static void send_candidates(tempo_traversal *t)
{
    t->candidates_us = t->now_us ? t->now_us : 1;
    size_t n = nat_candidates_write(t->out + PACKET_HEADER_SIZE, t->cfg.local,
                                    t->cfg.direct ? t->cfg.nlocal : 0);
    relay_send(t, NAT_TYPE_CANDIDATES, n);
}

static void send_join(tempo_traversal *t)
{
    memcpy(t->out + PACKET_HEADER_SIZE, t->cfg.join, NAT_JOIN_SIZE);
    relay_send(t, 36 /* the relay's JOIN */, NAT_JOIN_SIZE);
}

static int lowest_of(uint8_t slots)
{
    for (int p = 0; p < 8; p++)
        if (slots & (1u << p))
            return p;
    return -1;
}

static trav_member *member_of_player(tempo_traversal *t, int player)
{
    for (int i = 0; i < NAT_MAX_MEMBERS; i++)
        if (t->members[i].used && (t->members[i].slots & (1u << player)))
            return &t->members[i];
    return NULL;
}

static bool same_cands(const trav_member *m, const nat_member *n)
{
    if (m->ncand != n->ncand || !tempo_address_equal(&m->public_addr, &n->public_addr) ||
        m->slots != n->slots)
        return false;
    for (int k = 0; k < m->ncand; k++)
        if (!tempo_address_equal(&m->cand[k], &n->cand[k]))
            return false;
    return true;
}

static void on_intro(tempo_traversal *t, const uint8_t *body, size_t size)
{
    nat_intro in;
    if (!nat_intro_read(body, size, &in)) {
        drop(t, TEMPO_DROP_BAD_VALUE);
        return;
    }
    if (t->has_secret && (memcmp(t->secret, in.secret, NAT_SECRET_SIZE) != 0 || in.slots != t->slots)) {
        drop(t, TEMPO_DROP_BAD_VALUE); /* the match does not change under us */
        return;
    }
    if (!t->has_secret) {
        memcpy(t->secret, in.secret, NAT_SECRET_SIZE);
        t->has_secret = true;
        t->slots = in.slots;
        t->lowest = lowest_of(in.slots);
    }
    for (int i = 0; i < in.count; i++) {
        const nat_member *n = &in.members[i];
        trav_member *m = member_of_player(t, lowest_of(n->slots));
        if (m && same_cands(m, n))
            continue;
        if (!m) {
            for (int k = 0; k < NAT_MAX_MEMBERS && !m; k++)
                if (!t->members[k].used)
                    m = &t->members[k];
            if (!m)
                continue;
            memset(m, 0, sizeof *m);
            m->used = true;
            punch_init(&m->punch, &t->pcfg);
        }
        m->slots = n->slots;
        m->lowest = lowest_of(n->slots);
        memset(m->probe_ms, 0, sizeof m->probe_ms); /* it may be a new process */
        m->public_addr = n->public_addr;
        m->ncand = n->ncand;
        memcpy(m->cand, n->cand, sizeof m->cand);
        /* a member that came back from elsewhere is punched afresh */
        if (t->cfg.direct) {
            punch_start(&m->punch, t->now_us, &m->public_addr, m->cand, m->ncand);
        } else {
            /* no candidate at all: only the relay path, probed for its RTT */
            tempo_address none;
            memset(&none, 0, sizeof none);
            punch_start(&m->punch, t->now_us, &none, NULL, 0);
            m->punch.path = PUNCH_RELAYED;
        }
    }
    if (in.flags & NAT_FLAG_ALL_IN) {
        t->all_in = true;
        t->state = TEMPO_TRAVERSAL_READY;
    } else if (t->state == TEMPO_TRAVERSAL_CONNECTING) {
        t->state = TEMPO_TRAVERSAL_WAITING;
    }
}

/* ---- probes ------------------------------------------------------------ */

static void queue_push(tempo_traversal *t, const tempo_address *from, const uint8_t *data,
                       size_t size)
{
    if (t->qcount == TRAV_QUEUE) {
        t->st.dropped_queue++;
        return;
    }
    trav_slot *s = &t->queue[(t->qhead + t->qcount) % TRAV_QUEUE];
    s->from = *from;
    s->size = (uint16_t)size;
    memcpy(s->data, data, size);
    t->qcount++;
}

static tempo_address session_address(int lowest)
{
    tempo_address a;
    uint8_t id[3] = {TRAV_ID_TAG, 0x70, (uint8_t)lowest};
    (void)tempo_address_opaque(&a, id, sizeof id, 0);
    return a;
}

/* A probe datagram (NAT_PROBE_SIZE bytes in data) to member m: straight
 * to addr, or through the relay when addr is NULL. */
static void send_probe_to(tempo_traversal *t, trav_member *m, const tempo_address *addr,
                          const uint8_t *data)
{
    if (addr) {
        if (t->cfg.transport.send(t->cfg.transport.ctx, addr, data, NAT_PROBE_SIZE) < 0)
            t->st.send_errors++;
        return;
    }
    uint8_t *b = t->out + PACKET_HEADER_SIZE;
    b[0] = (uint8_t)m->lowest;
    memcpy(b + 1, data, NAT_PROBE_SIZE);
    relay_send(t, NAT_TYPE_FORWARD, 1 + NAT_PROBE_SIZE);
}

static void on_probe(tempo_traversal *t, const tempo_address *from, bool via_relay,
                     const uint8_t *data, size_t size)
{
    nat_probe p;
    tempo_drop_reason why;
    if (!t->has_secret) {
        drop(t, TEMPO_DROP_UNKNOWN); /* before the introduction no member is known */
        return;
    }
    if (!nat_probe_read(data, size, t->secret, &p, &why)) {
        drop(t, why);
        return;
    }
    trav_member *m = member_of_player(t, p.from);
    if (!m || p.to != t->lowest || m->lowest != p.from) {
        drop(t, TEMPO_DROP_UNKNOWN);
        return;
    }
    if (p.type == NAT_TYPE_PROBE_ACK) {
        why = punch_ack_refusal(&m->punch, t->now_us, p.nonce);
        if (why != TEMPO_DROP_NONE) {
            drop(t, why); /* a copy, an old one, one for a probe never sent */
            return;
        }
        t->st.acks_in++;
        (void)punch_on_ack(&m->punch, t->now_us, p.nonce);
        return;
    }
    /* a copy of a probe it sent before (a replay from anywhere) is not
     * answered, nor taken as where it is */
    int k = punch_nonce_index(p.nonce);
    if (!punch_nonce_newer(p.nonce, m->probe_ms[k])) {
        drop(t, (p.nonce & 0x1FFFFFFFu) == m->probe_ms[k] ? TEMPO_DROP_DUPLICATE
                                                          : TEMPO_DROP_STALE);
        return;
    }
    m->probe_ms[k] = p.nonce & 0x1FFFFFFFu;
    t->st.probes_in++;
    if (!via_relay && !t->cfg.direct)
        return; /* no direct path at all: its peers fall back to the relay */
    if (!via_relay) {
        punch_on_probe(&m->punch, t->now_us, from);
        if (punch_direct(&m->punch) && tempo_address_equal(punch_direct(&m->punch), from))
            punch_on_direct_in(&m->punch, t->now_us);
    }
    uint64_t second = t->now_us / 1000000u;
    if (second != m->ack_second) {
        m->ack_second = second;
        m->acks_this_second = 0;
    }
    if (m->acks_this_second >= TRAV_ACKS_PER_SECOND) {
        t->st.acks_limited++;
        return;
    }
    m->acks_this_second++;
    nat_probe a = p;
    a.type = NAT_TYPE_PROBE_ACK;
    a.from = (uint8_t)t->lowest;
    a.to = p.from;
    a.flags = punch_direct(&m->punch) ? NAT_FLAG_DIRECT : 0;
    uint8_t pkt[NAT_PROBE_SIZE];
    (void)nat_probe_write(pkt, &a, t->secret);
    t->st.acks_sent++;
    send_probe_to(t, m, via_relay ? NULL : from, pkt);
}

/* ---- datagrams in ------------------------------------------------------- */

static void on_forward(tempo_traversal *t, const uint8_t *b, size_t size)
{
    if (size < 2) {
        drop(t, TEMPO_DROP_TRUNCATED);
        return;
    }
    trav_member *m = b[0] < 8 ? member_of_player(t, b[0]) : NULL;
    if (!m || m->lowest != b[0]) {
        drop(t, TEMPO_DROP_UNKNOWN);
        return;
    }
    if (nat_is_probe(b + 1, size - 1)) {
        on_probe(t, &t->cfg.relay, true, b + 1, size - 1);
        return;
    }
    t->st.forwarded_in++;
    tempo_address a = session_address(m->lowest);
    queue_push(t, &a, b + 1, size - 1);
}

static void connected(tempo_traversal *t)
{
    (void)gate_client_connected(&t->gate);
    if (t->sealed)
        t->keys = t->gate.keys;
    t->link.send_seq = t->gate.next_sequence;
    t->reconnecting = false;
    if (t->state == TEMPO_TRAVERSAL_CONNECTING)
        t->state = TEMPO_TRAVERSAL_WAITING;
    if (!t->sealed)
        send_join(t);
    send_candidates(t);
}

static void on_relay(tempo_traversal *t, size_t size)
{
    tempo_packet_view v;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (packet_read(t->buf, size, &v, &why) != TEMPO_OK || v.h.fragment ||
        v.h.session_id != connect_session_id(t->cfg.protocol_id)) {
        drop(t, why != TEMPO_DROP_NONE ? why
                : v.h.fragment         ? TEMPO_DROP_FRAGMENT
                                       : TEMPO_DROP_SESSION);
        return;
    }
    bool connecting = t->state == TEMPO_TRAVERSAL_CONNECTING || t->reconnecting;
    if (v.h.type >= CONNECT_TYPE_REQUEST && v.h.type <= CONNECT_TYPE_DENIED) {
        if (connecting &&
            gate_client_on_datagram(&t->gate, t->now_us, &t->cfg.relay, t->buf, size) ==
                GATE_CLIENT_GOT_DENIED && !t->reconnecting)
            t->state = TEMPO_TRAVERSAL_FAILED;
        return;
    }
    if (v.h.sealed != t->sealed) {
        drop(t, t->sealed ? TEMPO_DROP_PLAIN : TEMPO_DROP_SEALED);
        return;
    }
    if (connecting && t->gate.state != GATE_CLIENT_RESPONDING) {
        drop(t, TEMPO_DROP_EARLY); /* before the relay's challenge: nothing of its can come */
        return;
    }
    /* the one way in (net/receive.h): window, seal, held jumps, take */
    net_receiver rcv = {&t->link, &t->replay,
                        t->sealed ? (connecting ? &t->gate.keys : &t->keys) : NULL,
                        connect_session_id(t->cfg.protocol_id)};
    net_datagram d;
    why = net_receive(&rcv, t->now_us, t->buf, size, NULL, NULL, &d);
    if (why != TEMPO_DROP_NONE) {
        drop(t, why); /* a held jump waits until the relay shows it moved on */
        return;
    }
    size_t body = d.body_size;
    t->relay_heard_us = t->now_us;
    if (connecting)
        connected(t);
    const uint8_t *b = d.body;
    if (v.h.type == 37 /* WELCOME */) {
        if (body == 2 && b[1] == 1)
            t->state = TEMPO_TRAVERSAL_FAILED;
    } else if (v.h.type == NAT_TYPE_INTRO) {
        on_intro(t, b, body);
    } else if (v.h.type == NAT_TYPE_FORWARD) {
        on_forward(t, b, body);
    } else {
        drop(t, TEMPO_DROP_BAD_TYPE);
    }
}

static trav_member *member_at(tempo_traversal *t, const tempo_address *from)
{
    for (int i = 0; i < NAT_MAX_MEMBERS; i++)
        if (t->members[i].used && punch_owns(&t->members[i].punch, from))
            return &t->members[i];
    return NULL;
}

/* One datagram from the socket: the relay's, a probe, or a peer's. */
static void on_datagram(tempo_traversal *t, const tempo_address *from, size_t size)
{
    if (size > TEMPO_MAX_DATAGRAM) {
        drop(t, TEMPO_DROP_TOO_LONG);
        return;
    }
    if (tempo_address_equal(from, &t->cfg.relay)) {
        on_relay(t, size);
        return;
    }
    if (nat_is_probe(t->buf, size)) {
        on_probe(t, from, false, t->buf, size);
        return;
    }
    trav_member *m = member_at(t, from);
    if (!m) {
        drop(t, TEMPO_DROP_UNKNOWN);
        return;
    }
    t->st.direct_in++;
    punch_on_direct_in(&m->punch, t->now_us);
    tempo_address a = session_address(m->lowest);
    queue_push(t, &a, t->buf, size);
}

/* ---- the update ---------------------------------------------------------- */

static void probe_all(tempo_traversal *t)
{
    for (int i = 0; i < NAT_MAX_MEMBERS; i++) {
        trav_member *m = &t->members[i];
        if (!m->used)
            continue;
        (void)punch_update(&m->punch, t->now_us);
        uint32_t nonce;
        int k;
        while ((k = punch_next_probe(&m->punch, t->now_us, &nonce)) >= 0) {
            nat_probe p;
            p.type = NAT_TYPE_PROBE;
            p.from = (uint8_t)t->lowest;
            p.to = (uint8_t)m->lowest;
            p.flags = punch_direct(&m->punch) ? NAT_FLAG_DIRECT : 0;
            p.nonce = nonce;
            uint8_t pkt[NAT_PROBE_SIZE];
            (void)nat_probe_write(pkt, &p, t->secret);
            t->st.probes_sent++;
            send_probe_to(t, m, k == PUNCH_RELAY ? NULL : &m->punch.cand[k].addr, pkt);
        }
    }
}

/* Connect to the relay again from here (sealed: the token proves it is
 * us). The link to it starts afresh; the match, its secret and every
 * pair's path stay. */
static void start_reconnect(tempo_traversal *t)
{
    gate_client_wipe(&t->gate);
    t->gate_cfg.token = t->token;
    t->gate_cfg.retry_us = TRAV_RETRY_US;
    (void)gate_client_init(&t->gate, &t->gate_cfg, t->now_us);
    link_config lc;
    link_config_default(&lc);
    lc.seq_jump = REPLAY_WINDOW / 2;
    link_init(&t->link, &lc, t->now_us);
    t->link.state = LINK_ESTABLISHED;
    t->link.hs.complete = true;
    replay_init(&t->replay);
    net_receive_start(&t->link, &t->replay, t->now_us, 0, false);
    seal_keys_wipe(&t->keys);
    if (!t->reconnecting)
        t->st.relay_reconnects++;
    t->reconnecting = true;
    t->relay_heard_us = t->now_us - TRAV_RELAY_LOST_US; /* the retry clock */
}

/* Read what the socket holds: the relay's and the probes handled here,
 * the session's queued for its recv. With the queue full the rest waits
 * in the socket, read as the session drains the queue, not dropped. */
static void read_socket(tempo_traversal *t, bool until_data)
{
    for (int i = 0; i < TRAV_RECV_MAX; i++) {
        if ((until_data && t->qcount > 0) || t->qcount == TRAV_QUEUE)
            return;
        tempo_address from;
        memset(&from, 0, sizeof from);
        int got = t->cfg.transport.recv(t->cfg.transport.ctx, &from, t->buf, sizeof t->buf);
        if (got <= 0)
            return;
        on_datagram(t, &from, (size_t)got);
    }
}

static void update(tempo_traversal *t, uint64_t now_us)
{
    if (now_us > t->now_us)
        t->now_us = now_us;
    read_socket(t, false);
    if (t->state == TEMPO_TRAVERSAL_FAILED)
        return;
    if (t->sealed && !t->reconnecting && t->state != TEMPO_TRAVERSAL_CONNECTING &&
        t->now_us - t->relay_heard_us >= TRAV_RELAY_LOST_US)
        start_reconnect(t);
    if (t->reconnecting) {
        /* the match goes on (direct paths keep working); only the relay
         * is being found again, as often as it takes */
        gate_client_state gs = gate_client_update(&t->gate, t->now_us);
        if (gs == GATE_CLIENT_TIMED_OUT || gs == GATE_CLIENT_DENIED ||
            t->now_us - t->relay_heard_us >= TRAV_RELAY_LOST_US + 10u * TRAV_RETRY_US)
            start_reconnect(t);
        if (gate_client_due(&t->gate, t->now_us)) {
            int n = gate_client_write(&t->gate, t->now_us, t->out, sizeof t->out);
            if (n > 0 &&
                t->cfg.transport.send(t->cfg.transport.ctx, &t->cfg.relay, t->out, (size_t)n) < 0)
                t->st.send_errors++;
        }
        if (t->has_secret)
            probe_all(t);
        return;
    }
    if (t->state == TEMPO_TRAVERSAL_CONNECTING) {
        gate_client_state gs = gate_client_update(&t->gate, t->now_us);
        if (gs == GATE_CLIENT_TIMED_OUT || gs == GATE_CLIENT_DENIED) {
            t->state = TEMPO_TRAVERSAL_FAILED;
            return;
        }
        if (gate_client_due(&t->gate, t->now_us)) {
            int n = gate_client_write(&t->gate, t->now_us, t->out, sizeof t->out);
            if (n > 0 &&
                t->cfg.transport.send(t->cfg.transport.ctx, &t->cfg.relay, t->out, (size_t)n) < 0)
                t->st.send_errors++;
        }
        return;
    }
    uint64_t every = t->all_in ? TRAV_KEEPALIVE_US : TRAV_CANDIDATES_US;
    if (t->now_us - t->candidates_us >= every) {
        if (!t->sealed && !t->has_secret)
            send_join(t);
        send_candidates(t);
    }
    if (t->has_secret)
        probe_all(t);
    return;
}

tempo_result tempo_traversal_update(tempo_traversal *t, uint64_t now_us)
{
    if (!t)
        return TEMPO_E_INVALID_ARG;
    update(t, now_us);
    /* what it sent (probes, the relay's messages) leaves now */
    (void)tempo_transport_flush(&t->cfg.transport);
    return TEMPO_OK;
}

/* ---- the session's transport ---------------------------------------------- */

static int trav_send(void *ctx, const tempo_address *to, const uint8_t *data, size_t size)
{
    tempo_traversal *t = ctx;
    if (!to || !data || size == 0 || size > TEMPO_MAX_DATAGRAM)
        return TEMPO_E_INVALID_ARG;
    if (to->family != TEMPO_ADDRESS_OPAQUE || to->id_size != 3 || to->bytes[0] != TRAV_ID_TAG ||
        to->bytes[2] >= 8)
        return TEMPO_E_ADDRESS;
    trav_member *m = member_of_player(t, to->bytes[2]);
    if (!m || t->state != TEMPO_TRAVERSAL_READY)
        return TEMPO_E_ADDRESS;
    const tempo_address *direct = punch_direct(&m->punch);
    if (direct) {
        t->st.direct_out++;
        int r = t->cfg.transport.send(t->cfg.transport.ctx, direct, data, size);
        if (r < 0)
            t->st.send_errors++;
        return r;
    }
    if (size > NAT_MAX_FORWARD) {
        t->st.send_errors++;
        return TEMPO_E_FULL;
    }
    uint8_t *b = t->out + PACKET_HEADER_SIZE;
    b[0] = (uint8_t)m->lowest;
    memcpy(b + 1, data, size);
    t->st.forwarded_out++;
    relay_send(t, NAT_TYPE_FORWARD, 1 + size);
    return 0;
}

/* The end of the session's round of sends: the socket's too. */
static int trav_flush(void *ctx)
{
    tempo_traversal *t = ctx;
    return tempo_transport_flush(&t->cfg.transport);
}

static int trav_recv(void *ctx, tempo_address *from, uint8_t *buf, size_t capacity)
{
    tempo_traversal *t = ctx;
    if (!from || !buf)
        return TEMPO_E_INVALID_ARG;
    if (t->qcount == 0)
        read_socket(t, true);
    if (t->qcount == 0)
        return 0;
    trav_slot *s = &t->queue[t->qhead];
    t->qhead = (t->qhead + 1) % TRAV_QUEUE;
    t->qcount--;
    *from = s->from;
    size_t n = s->size < capacity ? s->size : capacity;
    memcpy(buf, s->data, n);
    return (int)s->size;
}

tempo_transport tempo_traversal_transport(tempo_traversal *t)
{
    tempo_transport tr;
    tr.send = trav_send;
    tr.recv = trav_recv;
    tr.ctx = t;
    tr.flush = trav_flush;
    return tr;
}

/* ---- what it knows ------------------------------------------------------------ */

tempo_result tempo_traversal_get_status(const tempo_traversal *t, tempo_traversal_status *out)
{
    if (!t || !out)
        return TEMPO_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->state = t->state;
    out->local_players = t->slots;
    for (int i = 0; i < NAT_MAX_MEMBERS; i++)
        if (t->members[i].used) {
            out->remote_players |= t->members[i].slots;
            out->members++;
        }
    return TEMPO_OK;
}

tempo_result tempo_traversal_peer_address(const tempo_traversal *t, int player, tempo_address *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!t || !out || player < 0 || player > 7)
        return TEMPO_E_INVALID_ARG;
    trav_member *m = member_of_player((tempo_traversal *)t, player);
    if (!m)
        return TEMPO_E_PLAYER;
    *out = session_address(m->lowest);
    return TEMPO_OK;
}

tempo_result tempo_traversal_get_path(const tempo_traversal *t, int player, tempo_path_info *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!t || !out || player < 0 || player > 7)
        return TEMPO_E_INVALID_ARG;
    const trav_member *m = member_of_player((tempo_traversal *)t, player);
    if (!m)
        return TEMPO_E_PLAYER;
    const punch_pair *p = &m->punch;
    static const tempo_path paths[] = {TEMPO_PATH_NONE, TEMPO_PATH_PUNCHING, TEMPO_PATH_DIRECT,
                                       TEMPO_PATH_RELAYED};
    out->path = paths[p->path];
    if (p->path == PUNCH_DIRECT) {
        out->direct = p->cand[p->chosen].addr;
        out->rtt_direct_us = p->cand[p->chosen].rtt_us;
    }
    out->public_addr = m->public_addr;
    out->direct_after_ms = (uint32_t)(p->direct_after_us / 1000u);
    out->rtt_relay_us = p->relay_rtt_us;
    out->upgrades = p->upgrades;
    out->downgrades = p->downgrades;
    return TEMPO_OK;
}

tempo_result tempo_traversal_match_key(const tempo_traversal *t, uint8_t key[TEMPO_KEY_SIZE])
{
    if (!t || !key)
        return TEMPO_E_INVALID_ARG;
    if (t->state != TEMPO_TRAVERSAL_READY || !t->sealed)
        return TEMPO_E_STATE;
    /* SipHash as a PRF keyed by the secret's first half, over a label and
     * its second half: four outputs make the key, none of them the probe
     * tag (whose input is a probe datagram, never this label). */
    static const char label[16] = "tempo match key";
    for (int i = 0; i < TEMPO_KEY_SIZE / 8; i++) {
        uint8_t in[16 + 1 + NAT_SECRET_SIZE / 2];
        memcpy(in, label, 16);
        in[16] = (uint8_t)i;
        memcpy(in + 17, t->secret + NAT_SECRET_SIZE / 2, NAT_SECRET_SIZE / 2);
        uint64_t h = siphash24(t->secret, in, sizeof in);
        for (int b = 0; b < 8; b++)
            key[i * 8 + b] = (uint8_t)(h >> (8 * b));
    }
    return TEMPO_OK;
}

tempo_result tempo_traversal_get_stats(const tempo_traversal *t, tempo_traversal_stats *out)
{
    if (!t || !out)
        return TEMPO_E_INVALID_ARG;
    *out = t->st;
    return TEMPO_OK;
}

const char *tempo_path_name(tempo_path path)
{
    switch (path) {
    case TEMPO_PATH_PUNCHING: return "punching";
    case TEMPO_PATH_DIRECT: return "direct";
    case TEMPO_PATH_RELAYED: return "relayed";
    default: return "none";
    }
}

void tempo_traversal_destroy(tempo_traversal *t)
{
    if (!t)
        return;
    if (t->state == TEMPO_TRAVERSAL_WAITING || t->state == TEMPO_TRAVERSAL_READY) {
        relay_send(t, 40 /* the relay's LEAVE */, 0);
        (void)tempo_transport_flush(&t->cfg.transport);
    }
    gate_client_wipe(&t->gate);
    seal_keys_wipe(&t->keys);
    seal_wipe(t->token, sizeof t->token);
    seal_wipe(t->secret, sizeof t->secret);
    tempo_allocator alloc = t->alloc;
    tempo__free(&alloc, t->queue);
    tempo__free(&alloc, t);
}
