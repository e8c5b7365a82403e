/* SPDX-License-Identifier: MIT */
/*
 * relay.c — the relay object (tempo/relay.h): its pools, datagram intake,
 * members and what they are sent. One match's rules are relay_match.c's;
 * a lockstep match's lists and turn deadlines are relay_turns.c's; one
 * datagram out is relay_send.c's; what the operator is told (the log
 * hook) is relay_note.c's. Calls go one way: this file calls all four,
 * relay_turns.c calls relay_match.c and relay_send.c, relay_send.c calls
 * relay_note.c, and nothing calls back up.
 *
 * Intake: a datagram from an address no member has goes to the gate
 * (net/gate.h), which answers the handshake without keeping anything and
 * reports an admission; only then is a member taken from the pool. A
 * member's datagram is checked in this order, each refusal counted and
 * nothing after it read: size, header and session id, the replay window,
 * the seal, the body's exact size and ranges, then what it claims (its own
 * players only, frames the match can hold). A member joins a match from
 * its token's user data (sealed relays) or its JOIN (unsealed); a match is
 * taken from the pool when its first member comes and given back when its
 * last leaves.
 *
 * Sending: every update, the members of a match that finalized frames
 * since its last send get one FRAMES each with every frame they have not
 * acknowledged (up to a datagram's worth): redundancy instead of
 * retransmission timers, as p2p INPUT messages do. Every RELAY_SWEEP_US a
 * sweep over all members checks liveness and resends to those that have
 * not heard from the relay for RELAY_RESEND_US, so an update costs the
 * matches' work, not the members'.
 *
 * A sealed member that goes within the cookie lifetime of its admission
 * leaves a guard: its entry keeps its address and keys until that
 * lifetime ends, so a copy of its response (which the gate would admit
 * again, under the same keys, our sequences from 0) is dropped as a
 * replay; a new connection from that address ends the guard.
 *
 * Invariant: after create nothing is allocated; a member index is in the
 * address table exactly while the member is used or guards.
 */
#include <string.h>

#include "relay/relay.h"

#include "net/intake.h"
#include "net/link_stats.h"
#include "net/receive.h"
#include "wire/bytes.h"

void tempo_relay_config_default(tempo_relay_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->protocol_id = TEMPO_RELAY_PLAIN_PROTOCOL;
    cfg->max_matches = 64;
    cfg->max_members = 512;
    cfg->max_frame_bytes = 128;
    cfg->max_turn_matches = 4;
    cfg->tolerance_ms = 100;
    cfg->timeout_ms = 3000;
    cfg->start_wait_ms = 10000;
    cfg->start_delay_ms = 200;
    cfg->log_level = TEMPO_LOG_WARN;
}

static bool config_ok(const tempo_relay_config *c)
{
    return !wire_all_zero(c->cookie_key, TEMPO_KEY_SIZE) && c->max_matches >= 1 && c->max_matches <= 65536 && c->max_members >= 1 &&
           c->max_members <= 262144 && c->max_frame_bytes >= 1 &&
           c->max_frame_bytes <= TEMPO_MAX_PLAYERS * TEMPO_MAX_INPUT_SIZE &&
           c->max_turn_matches >= 0 && c->max_turn_matches <= 65536 &&
           c->tolerance_ms <= 2000 && c->timeout_ms >= 100 && c->timeout_ms <= 60000 &&
           c->start_wait_ms <= 600000 && c->start_delay_ms <= 5000 &&
           (c->has_private_key ? c->protocol_id != 0
                               : c->protocol_id == TEMPO_RELAY_PLAIN_PROTOCOL) &&
           (c->allocator.alloc == NULL) == (c->allocator.free == NULL) &&
           c->log_level >= TEMPO_LOG_ERROR && c->log_level <= TEMPO_LOG_DEBUG;
}

tempo_result tempo_relay_create(const tempo_relay_config *cfg, const tempo_transport *transport,
                                tempo_relay **out)
{
    if (!out)
        return TEMPO_E_INVALID_ARG;
    *out = NULL;
    if (!cfg || !transport || !transport->send || !transport->recv || !config_ok(cfg))
        return TEMPO_E_INVALID_ARG;
    int crc = seal_cipher_check((int)cfg->cipher);
    if (crc != TEMPO_OK)
        return (tempo_result)crc;
    tempo_relay *r = tempo__calloc(&cfg->allocator, 1, sizeof *r);
    if (!r)
        return TEMPO_E_NO_MEMORY;
    r->cfg = *cfg;
    r->alloc = cfg->allocator;
    r->log = tempo__logger(cfg->log, cfg->log_ctx, cfg->log_level);
    r->transport = *transport;
    int g = gate_server_open(&r->gate, "relay", cfg->protocol_id, cfg->has_private_key,
                             cfg->private_key, &cfg->self, seal_offer((int)cfg->cipher),
                             cfg->cookie_key);
    if (g != TEMPO_OK) {
        tempo__free(&r->alloc, r);
        return (tempo_result)g;
    }
    uint32_t tsize = 1;
    while (tsize < 2u * (uint32_t)cfg->max_members)
        tsize <<= 1;
    r->table_mask = tsize - 1;
    size_t frames = (size_t)RELAY_RING * (size_t)cfg->max_frame_bytes;
    r->matches = tempo__calloc(&r->alloc, (size_t)cfg->max_matches, sizeof *r->matches);
    r->members = tempo__calloc(&r->alloc, (size_t)cfg->max_members, sizeof *r->members);
    r->table = tempo__calloc(&r->alloc, tsize, sizeof *r->table);
    r->frame_store = tempo__calloc(&r->alloc, (size_t)cfg->max_matches, frames + 3u * RELAY_RING);
    size_t store = (size_t)RELAY_TURN_RING * TEMPO_MAX_PLAYERS;
    if (r->cfg.max_turn_matches > cfg->max_matches)
        r->cfg.max_turn_matches = cfg->max_matches; /* no more can be in use */
    if (r->cfg.max_turn_matches > 0) {
        r->turn_store = tempo__calloc(&r->alloc, (size_t)r->cfg.max_turn_matches * store,
                                      sizeof *r->turn_store);
        r->turn_free = tempo__calloc(&r->alloc, (size_t)r->cfg.max_turn_matches,
                                     sizeof *r->turn_free);
    }
    if (!r->matches || !r->members || !r->table || !r->frame_store ||
        (r->cfg.max_turn_matches > 0 && (!r->turn_store || !r->turn_free))) {
        tempo_relay_destroy(r);
        return TEMPO_E_NO_MEMORY;
    }
    for (uint32_t i = 0; i < tsize; i++)
        r->table[i] = -1;
    for (int i = 0; i < cfg->max_matches; i++) {
        relay_match *m = &r->matches[i];
        uint8_t *base = r->frame_store + (size_t)i * (frames + 3u * RELAY_RING);
        m->inputs = base;
        m->have = base + frames;
        m->subst = m->have + RELAY_RING;
        m->late = m->subst + RELAY_RING;
        m->next_free = i + 1 < cfg->max_matches ? i + 1 : -1;
    }
    r->free_match = 0;
    for (int i = 0; i < r->cfg.max_turn_matches; i++)
        r->turn_free[r->nturn_free++] = r->cfg.max_turn_matches - 1 - i;
    for (int i = 0; i < cfg->max_members; i++)
        r->members[i].next_free = i + 1 < cfg->max_members ? i + 1 : -1;
    r->free_member = 0;
    link_config_default(&r->link_cfg);
    r->link_cfg.timeout_us = (uint64_t)cfg->timeout_ms * 1000u;
    if (r->link_cfg.notify_us > r->link_cfg.timeout_us)
        r->link_cfg.notify_us = r->link_cfg.timeout_us;
    r->link_cfg.seq_jump = REPLAY_WINDOW / 2;
    if (!cfg->has_private_key)
        tempo__log(&r->log, TEMPO_LOG_WARN,
                   "tempo relay: no private key: members join without tokens and datagrams "
                   "travel unsealed");
    *out = r;
    return TEMPO_OK;
}

void tempo_relay_destroy(tempo_relay *r)
{
    if (!r)
        return;
    tempo_allocator a = r->alloc;
    if (r->members)
        for (int i = 0; i < r->cfg.max_members; i++)
            seal_keys_wipe(&r->members[i].keys);
    gate_server_wipe(&r->gate);
    seal_wipe(r->cfg.private_key, sizeof r->cfg.private_key);
    seal_wipe(r->cfg.cookie_key, sizeof r->cfg.cookie_key);
    tempo__free(&a, r->matches);
    tempo__free(&a, r->members);
    tempo__free(&a, r->table);
    tempo__free(&a, r->frame_store);
    tempo__free(&a, r->turn_store);
    tempo__free(&a, r->turn_free);
    tempo__free(&a, r);
}

/* ---- the address table ------------------------------------------------------ */

static uint32_t addr_hash(const tempo_address *a)
{
    uint32_t h = 2166136261u;
    h = (h ^ a->family) * 16777619u;
    for (int i = 0; i < 16; i++)
        h = (h ^ a->bytes[i]) * 16777619u;
    h = (h ^ a->id_size) * 16777619u;
    h = (h ^ (a->port & 0xFFu)) * 16777619u;
    h = (h ^ (uint32_t)(a->port >> 8)) * 16777619u;
    return h ^ (h >> 16);
}

static int table_find(const tempo_relay *r, const tempo_address *a)
{
    for (uint32_t i = addr_hash(a) & r->table_mask;; i = (i + 1) & r->table_mask) {
        int m = r->table[i];
        if (m < 0)
            return -1;
        if (tempo_address_equal(&r->members[m].addr, a))
            return m;
    }
}

static void table_add(tempo_relay *r, int member)
{
    uint32_t i = addr_hash(&r->members[member].addr) & r->table_mask;
    while (r->table[i] >= 0)
        i = (i + 1) & r->table_mask;
    r->table[i] = member;
}

/* Linear probing's deletion by backward shift: no tombstones. */
static void table_remove(tempo_relay *r, int member)
{
    uint32_t i = addr_hash(&r->members[member].addr) & r->table_mask;
    while (r->table[i] != member)
        i = (i + 1) & r->table_mask;
    uint32_t j = i;
    for (;;) {
        r->table[i] = -1;
        for (;;) {
            j = (j + 1) & r->table_mask;
            if (r->table[j] < 0)
                return;
            uint32_t k = addr_hash(&r->members[r->table[j]].addr) & r->table_mask;
            /* move j back to i unless its home k lies cyclically in (i, j] */
            if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                continue;
            break;
        }
        r->table[i] = r->table[j];
        i = j;
    }
}

/* ---- matches ------------------------------------------------------------------- */

/* A match moves on: a lockstep match by its turns (relay_turns.c), a
 * rollback match by its frames (relay_match.c). */
static void advance(tempo_relay *r, relay_match *m)
{
    if (m->turn_ms == 0) {
        relay_match_advance(r, m);
        return;
    }
    relay_match_start(r, m);
    relay_turns_advance(r, m);
    if (m->start_decided)
        m->st.clock_frame = relay_match_clock(m, r->now_us);
}

/* ---- sending ------------------------------------------------------------------ */

static void send_welcome(tempo_relay *r, relay_member *e, bool refused)
{
    size_t n = relay_welcome_write(r->out + PACKET_HEADER_SIZE, e->match >= 0 ? e->slots : 0,
                                   refused);
    relay_send_to(r, e, RELAY_TYPE_WELCOME, n);
}

static void send_frames(tempo_relay *r, relay_member *e)
{
    relay_match *m = &r->matches[e->match];
    if (m->turn_ms != 0) {
        relay_turns_send(r, e);
        return;
    }
    relay_frames_msg f;
    memset(&f, 0, sizeof f);
    f.acks = relay_acks_of(&e->link);
    f.clock = relay_match_clock(m, r->now_us);
    f.flags = m->start_decided ? RELAY_FLAG_STARTED : 0;
    if (!m->start_decided)
        f.clock = 0;
    if (m->desync_frame >= 0) {
        f.flags |= RELAY_FLAG_DESYNC;
        f.desync_frame = m->desync_frame;
        f.desync_sums[0] = m->desync_sums[0];
        f.desync_sums[1] = m->desync_sums[1];
    }
    f.wanted = relay_match_wanted(m, e);
    f.sum_held = e->sum_held;
    int32_t first = e->acked;
    if (first < m->finalized - RELAY_HISTORY)
        first = m->finalized - RELAY_HISTORY;
    if (first < 0)
        first = 0;
    int cap = relay_frames_capacity(m->num_players, m->input_size,
                                    (f.flags & RELAY_FLAG_DESYNC) != 0);
    int count = m->finalized - first;
    if (count > cap)
        count = cap;
    if (count < 0)
        count = 0;
    f.first = first;
    f.count = count;
    f.frames = NULL; /* written straight into the datagram, after the head */
    size_t fsz = relay_frames_frame_size(m->num_players, m->input_size);
    uint8_t *body = r->out + PACKET_HEADER_SIZE;
    uint8_t *dst = body + RELAY_FRAMES_HEAD + ((f.flags & RELAY_FLAG_DESYNC) ? RELAY_DESYNC_SIZE : 0);
    for (int k = 0; k < count; k++, dst += fsz) {
        int32_t fr = first + k;
        dst[0] = m->subst[relay_slot(fr)];
        memcpy(dst + 1, m->inputs + (size_t)relay_slot(fr) * m->frame_bytes, m->frame_bytes);
    }
    size_t n = relay_frames_write(body, &f, fsz);
    e->sent_final = m->finalized;
    relay_send_to(r, e, RELAY_TYPE_FRAMES, n);
}

/* ---- members ------------------------------------------------------------------- */

static int lowest_player(uint8_t slots)
{
    int p = 0;
    while (p < 8 && !(slots & (1u << p)))
        p++;
    return p;
}

static int popcount8(uint8_t v)
{
    int n = 0;
    for (; v != 0; v &= (uint8_t)(v - 1))
        n++;
    return n;
}

void relay_member_free(tempo_relay *r, int index)
{
    relay_member *e = &r->members[index];
    if (e->match >= 0) {
        relay_match *m = &r->matches[e->match];
        for (int p = 0; p < m->num_players; p++)
            if (m->member_of[p] == index) {
                m->member_of[p] = -1;
                m->gone |= (uint8_t)(1u << p);
            }
        m->members--;
        m->st.members = m->members;
        if (m->members == 0)
            relay_match_close(r, e->match);
    }
    e->used = false;
    r->st.members--;
    const uint64_t life = r->gate.cfg.cookie_lifetime_us;
    if (e->sealed && r->now_us - e->admitted_us < life) {
        e->guard = true;
        e->guard_until_us = e->admitted_us + life;
        e->match = -1;
        return;
    }
    table_remove(r, index);
    seal_keys_wipe(&e->keys);
    e->next_free = r->free_member;
    r->free_member = index;
}

/* End the guard of entry index and give it back to the pool. */
static void guard_end(tempo_relay *r, int index)
{
    relay_member *e = &r->members[index];
    table_remove(r, index);
    seal_keys_wipe(&e->keys);
    e->guard = false;
    e->next_free = r->free_member;
    r->free_member = index;
}

/* Put member e in the match join names: RELAY_NOTE_NONE, or why it
 * cannot be. */
static relay_note member_bind(tempo_relay *r, int index, const tempo_relay_join *j)
{
    relay_member *e = &r->members[index];
    if ((size_t)j->num_players * (size_t)j->input_size > (size_t)r->cfg.max_frame_bytes)
        return RELAY_NOTE_TOO_LARGE;
    int mi = relay_match_find(r, j->match_id);
    if (mi >= 0 && r->matches[mi].p2p && e->sealed && relay_peers_moved(r, mi, index, j->slots))
        mi = relay_match_find(r, j->match_id); /* it may have been its only member */
    if (mi >= 0) {
        relay_match *m = &r->matches[mi];
        if (m->num_players != j->num_players || m->input_size != j->input_size ||
            m->fps != j->frames_per_second || m->turn_ms != j->turn_ms ||
            m->delay != j->execution_delay || m->p2p != j->peer_to_peer)
            return RELAY_NOTE_DISAGREES;
        for (int p = 0; p < m->num_players; p++)
            if ((j->slots & (1u << p)) && m->member_of[p] >= 0)
                return RELAY_NOTE_TAKEN;
        if (m->start_decided)
            return RELAY_NOTE_STARTED;
    } else {
        if (r->refuse_matches)
            return RELAY_NOTE_DRAINING;
        mi = relay_match_open(r, j);
        if (mi < 0)
            return RELAY_NOTE_NO_MATCH;
    }
    relay_match *m = &r->matches[mi];
    e->match = mi;
    e->slots = j->slots;
    e->nslots = 0;
    for (int p = 0; p < m->num_players; p++)
        if (j->slots & (1u << p)) {
            m->member_of[p] = index;
            e->nslots++;
        }
    m->members++;
    m->st.members = m->members;
    e->st.match_id = m->id;
    e->st.slots = e->slots;
    return RELAY_NOTE_NONE;
}

static void admit(tempo_relay *r, const gate_admit *a)
{
    int index = r->free_member;
    tempo_relay_join j;
    memset(&j, 0, sizeof j);
    bool join_ok = !a->sealed || (tempo_relay_join_read(a->user_data, &j) == TEMPO_OK);
    if (index < 0 || !join_ok) {
        int n = gate_server_deny(&r->gate, a, r->out, sizeof r->out);
        r->st.denied++;
        relay_tell(r, index < 0 ? RELAY_NOTE_FULL : RELAY_NOTE_NOT_A_JOIN, &a->address);
        if (n > 0 && r->transport.send(r->transport.ctx, &a->address, r->out, (size_t)n) < 0)
            relay_send_failed(r, &a->address);
        return;
    }
    relay_member *e = &r->members[index];
    r->free_member = e->next_free;
    memset(e, 0, sizeof *e);
    e->used = true;
    e->admitted_us = r->now_us;
    e->next_free = -1;
    e->match = -1;
    e->client_id = a->client_id;
    e->addr = a->address;
    e->sealed = a->sealed;
    if (a->sealed)
        e->keys = a->keys;
    link_init(&e->link, &r->link_cfg, r->now_us);
    /* The gate's handshake stands in for the link's. */
    e->link.state = LINK_ESTABLISHED;
    e->link.hs.complete = true;
    /* its datagrams go on from the response's sequence (sealed), from 0 (plain) */
    net_receive_start(&e->link, &e->replay, r->now_us, a->sealed ? a->client_sequence : 0,
                       a->sealed);
    e->st.client_id = a->client_id;
    e->st.address = a->address;
    e->st.sealed = a->sealed;
    table_add(r, index);
    r->st.members++;
    r->st.admitted++;
    relay_note why = RELAY_NOTE_NONE;
    if (a->sealed)
        why = popcount8(j.slots) != a->slots ? RELAY_NOTE_NOT_A_JOIN : member_bind(r, index, &j);
    if (why != RELAY_NOTE_NONE) {
        int n = gate_server_deny(&r->gate, a, r->out, sizeof r->out);
        if (n > 0 && r->transport.send(r->transport.ctx, &a->address, r->out, (size_t)n) < 0)
            relay_send_failed(r, &a->address);
        r->st.denied++;
        relay_tell(r, why, &a->address);
        relay_member_free(r, index);
        return;
    }
    send_welcome(r, e, false);
}

static void on_stranger(tempo_relay *r, const tempo_address *from, size_t size)
{
    gate_admit a;
    size_t reply = 0;
    gate_outcome o = gate_server_on_datagram(&r->gate, r->now_us, r->now_seconds, from, r->buf,
                                             size, r->out, sizeof r->out, &reply, &a);
    if (o == GATE_REPLY) {
        r->st.datagrams_out++;
        r->st.bytes_out += reply;
        if (r->transport.send(r->transport.ctx, from, r->out, reply) < 0)
            relay_send_failed(r, from);
    } else if (o == GATE_ADMIT) {
        int g = table_find(r, &a.address);
        if (g >= 0 && a.sealed && seal_key_equal(r->members[g].keys.recv_key, a.keys.recv_key)) {
            r->st.dropped_replay++; /* a copy of a gone member's response */
        } else {
            if (g >= 0)
                guard_end(r, g); /* a new connection from its address */
            admit(r, &a);
        }
    } else {
        char line[512];
        if (r->log.fn != NULL && r->log.level >= TEMPO_LOG_WARN &&
            gate_server_refusal_note(&r->gate, r->now_us, from, line, sizeof line))
            tempo__log(&r->log, TEMPO_LOG_WARN, "tempo relay: %s", line);
    }
    seal_wipe(&a, sizeof a);
}

static void on_join(tempo_relay *r, int index, const uint8_t *body, size_t size)
{
    relay_member *e = &r->members[index];
    tempo_relay_join j;
    if (!relay_join_read(body, size, &j)) {
        r->st.dropped_malformed++;
        return;
    }
    if (e->match >= 0 && (r->matches[e->match].id != j.match_id || j.slots != e->slots)) {
        r->st.dropped_not_owned++; /* another match, or players not its own */
        return;
    }
    relay_note why = e->match < 0 && !e->sealed ? member_bind(r, index, &j) : RELAY_NOTE_NONE;
    if (why != RELAY_NOTE_NONE) {
        r->st.denied++;
        relay_tell(r, why, &e->addr);
        send_welcome(r, e, true);
        return;
    }
    send_welcome(r, e, false);
}

/* A lockstep member's own lists (a turns message, type 33). */
static void on_turns(tempo_relay *r, relay_member *e, const uint8_t *body, size_t size)
{
    if (e->match < 0) {
        r->st.dropped_unbound++;
        return;
    }
    relay_match *m = &r->matches[e->match];
    tempo_drop_reason why;
    if (m->turn_ms == 0 || turn_msg_decode(TURN_MSG_TURNS, body, size, &r->tmsg, &why) != TEMPO_OK) {
        r->st.dropped_malformed++;
        return;
    }
    relay_turns_lists(r, m, e, &r->tmsg.u.turns);
}

static void on_input(tempo_relay *r, relay_member *e, const uint8_t *body, size_t size, bool newest)
{
    if (e->match < 0) {
        r->st.dropped_unbound++;
        return;
    }
    relay_match *m = &r->matches[e->match];
    if (m->turn_ms != 0 || m->p2p) {
        r->st.dropped_malformed++; /* frames in a lockstep or peer-to-peer match */
        return;
    }
    relay_input_msg in;
    if (!relay_input_read(body, size, relay_input_frame_size(e->nslots, m->input_size), &in)) {
        r->st.dropped_malformed++;
        return;
    }
    if (in.slots != e->slots) {
        r->st.dropped_not_owned++; /* inputs for players it does not have */
        return;
    }
    relay_acks_take(&e->link, r->now_us, &in.acks, newest); /* a straggler's is older: not taken */
    if (in.frames_held > m->finalized) {
        r->st.dropped_malformed++; /* it cannot hold frames not finalized */
        return;
    }
    if (in.frames_held > e->acked)
        e->acked = in.frames_held;
    e->st.acked = e->acked;
    relay_match_inputs(r, m, e, in.first, in.count, in.inputs);
    for (int i = 0; i < in.nsums; i++)
        relay_match_checksum(r, m, e, in.sums[i].frame, in.sums[i].checksum);
    advance(r, m);
}

/* The receive pipeline's decoder for a member's datagram: the types a
 * member sends, whole; each handler reads its own body. */
static tempo_drop_reason member_message(void *ctx, net_datagram *d)
{
    (void)ctx;
    if (d->v.h.fragment)
        return TEMPO_DROP_FRAGMENT;
    switch (d->v.h.type) {
    case RELAY_TYPE_JOIN:
    case RELAY_TYPE_INPUT:
    case TURN_MSG_TURNS:
    case NAT_TYPE_CANDIDATES:
    case NAT_TYPE_FORWARD: return TEMPO_DROP_NONE;
    case RELAY_TYPE_LEAVE: return d->body_size == 0 ? TEMPO_DROP_NONE : TEMPO_DROP_TRAILING;
    default: return TEMPO_DROP_BAD_TYPE;
    }
}

static void on_datagram(tempo_relay *r, const tempo_address *from, size_t size)
{
    r->st.datagrams_in++;
    r->st.bytes_in += size;
    if (size > TEMPO_MAX_DATAGRAM) {
        r->st.dropped_malformed++;
        return;
    }
    int index = table_find(r, from);
    if (index >= 0 && r->members[index].guard && r->now_us >= r->members[index].guard_until_us) {
        guard_end(r, index);
        index = -1;
    }
    if (index < 0 || r->members[index].guard) {
        on_stranger(r, from, size);
        return;
    }
    relay_member *e = &r->members[index];
    e->st.datagrams_up++;
    e->st.bytes_up += size;
    uint32_t sid = connect_session_id(r->cfg.protocol_id);
    tempo_packet_view v;
    if (packet_read(r->buf, size, &v, NULL) == TEMPO_OK && v.h.session_id == sid &&
        !v.h.fragment && v.h.type == CONNECT_TYPE_RESPONSE) { /* it missed our welcome */
        send_welcome(r, e, false);
        return;
    }
    net_receiver rcv = {&e->link, &e->replay, e->sealed ? &e->keys : NULL, sid};
    net_datagram d;
    tempo_drop_reason why = net_receive(&rcv, r->now_us, r->buf, size, member_message, NULL, &d);
    if (why != TEMPO_DROP_NONE) {
        NET_DROP_COUNT(&r->st, why);
        return;
    }
    size_t body = d.body_size;
    const uint8_t *b = d.body;
    switch (d.v.h.type) {
    case RELAY_TYPE_JOIN:
        on_join(r, index, b, body);
        break;
    case RELAY_TYPE_INPUT:
        on_input(r, e, b, body, d.rx == LINK_RX_NEWEST);
        break;
    case TURN_MSG_TURNS:
        on_turns(r, e, b, body);
        break;
    case NAT_TYPE_CANDIDATES:
        relay_peers_candidates(r, e, b, body);
        break;
    case NAT_TYPE_FORWARD:
        relay_peers_forward(r, e, b, body);
        break;
    case RELAY_TYPE_LEAVE:
        relay_member_free(r, index);
        break;
    default: /* member_message let no other type through */
        break;
    }
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    (void)data; /* the relay's own buffer, which on_datagram reads */
    on_datagram(ctx, from, size);
    return true;
}

/* ---- the update ---------------------------------------------------------------- */

static void update_once(tempo_relay *r, uint64_t now_us, uint64_t now_seconds)
{
    if (now_us > r->now_us)
        r->now_us = now_us;
    r->now_seconds = now_seconds;
    /* A bounded batch: frames due go out after each, so a backlog (a
     * flood, a stall of this process) is read over several updates, each
     * at its own time, and never holds the frames back for long. */
    if (net_intake(&r->transport, r->buf, sizeof r->buf, RELAY_RECV_MAX, take, r) ==
        NET_INTAKE_DRAINED)
        r->backlog_since_us = 0;
    else if (r->backlog_since_us == 0)
        r->backlog_since_us = r->now_us ? r->now_us : 1;
    /* Frames finalized since the last send go out at once, to the
     * members of those matches only. */
    for (int i = 0; i < r->cfg.max_matches; i++) {
        relay_match *m = &r->matches[i];
        if (!m->used || m->p2p)
            continue;
        advance(r, m);
        if (m->finalized == m->sent_final)
            continue;
        m->sent_final = m->finalized;
        for (int p = 0; p < m->num_players; p++) {
            int k = m->member_of[p];
            if (k < 0)
                continue;
            relay_member *e = &r->members[k];
            if (p == lowest_player(e->slots) && m->finalized > e->sent_final &&
                m->finalized > e->acked)
                send_frames(r, e);
        }
    }
    /* Every member's liveness and resends, at most every RELAY_SWEEP_US. */
    if (r->swept && r->now_us - r->last_sweep_us < RELAY_SWEEP_US)
        return;
    r->swept = true;
    r->last_sweep_us = r->now_us;
    for (int i = 0; i < r->cfg.max_members; i++) {
        relay_member *e = &r->members[i];
        if (!e->used) {
            if (e->guard && r->now_us >= e->guard_until_us)
                guard_end(r, i);
            continue;
        }
        if (link_update(&e->link, r->now_us) & LINK_EV_TIMED_OUT) {
            r->st.members_timed_out++;
            relay_member_free(r, i);
            continue;
        }
        if (e->match < 0 || r->matches[e->match].p2p)
            continue;
        const relay_match *m = &r->matches[e->match];
        int32_t kept = m->turn_ms != 0 ? RELAY_TURN_RING - RELAY_TURN_AHEAD : RELAY_HISTORY;
        if (m->finalized - e->acked > kept) {
            /* the frames it lacks are gone: it could never catch up */
            r->st.members_behind++;
            relay_member_free(r, i);
            continue;
        }
        if (r->now_us - e->last_send_us >= RELAY_RESEND_US)
            send_frames(r, e);
    }
}

tempo_result tempo_relay_update(tempo_relay *r, uint64_t now_us, uint64_t now_seconds)
{
    if (!r)
        return TEMPO_E_INVALID_ARG;
    update_once(r, now_us, now_seconds);
    (void)tempo_transport_flush(&r->transport); /* the frames of this update leave together */
    return TEMPO_OK;
}

tempo_result tempo_relay_refuse_matches(tempo_relay *r, bool refuse)
{
    if (!r)
        return TEMPO_E_INVALID_ARG;
    r->refuse_matches = refuse;
    return TEMPO_OK;
}

/* ---- stats ------------------------------------------------------------------------ */

tempo_result tempo_relay_get_stats(const tempo_relay *r, tempo_relay_stats *out)
{
    if (!r || !out)
        return TEMPO_E_INVALID_ARG;
    *out = r->st;
    out->handshake_refused = gate_server_refused(&r->gate);
    return TEMPO_OK;
}

tempo_result tempo_relay_get_match_stats(const tempo_relay *r, uint64_t match_id,
                                         tempo_relay_match_stats *out)
{
    if (!r || !out)
        return TEMPO_E_INVALID_ARG;
    int i = relay_match_find(r, match_id);
    if (i < 0)
        return TEMPO_E_PLAYER;
    *out = r->matches[i].st;
    out->clock_frame = relay_match_clock(&r->matches[i], r->now_us);
    return TEMPO_OK;
}

tempo_result tempo_relay_get_member_stats(const tempo_relay *r, uint64_t match_id, int player,
                                          tempo_relay_member_stats *out)
{
    if (!r || !out)
        return TEMPO_E_INVALID_ARG;
    int i = relay_match_find(r, match_id);
    if (i < 0 || player < 0 || player >= TEMPO_MAX_PLAYERS || r->matches[i].member_of[player] < 0)
        return TEMPO_E_PLAYER;
    const relay_member *e = &r->members[r->matches[i].member_of[player]];
    *out = e->st;
    out->rtt_ms = link_stats(&e->link).rtt_ms;
    return TEMPO_OK;
}
