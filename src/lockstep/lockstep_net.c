/* SPDX-License-Identifier: MIT */
/*
 * lockstep_net.c — turn-based lockstep's datagrams both ways: the
 * handshake (hello and reply over the link's nonce round trips), the start,
 * turn lists sent until acknowledged (fragmented when large), pings and
 * pongs inside turns messages, leaving.
 *
 * Receiving follows the p2p session (docs/PROTOCOL.md section 7):
 * strangers are dropped before parsing, then other session ids; sequences
 * are recovered against the link and checked by the replay window before
 * any cryptography; a keyed match opens the seal with the pair key
 * (wire/keys.h) and drops anything plain; fragments are reassembled in
 * memory fixed at create; a turns message with a list no honest machine
 * sends is dropped whole. Only a datagram that opened and decoded moves the
 * link (liveness, round trips) and the replay window.
 */
#include "lockstep/lockstep.h"

#include <string.h>

#include "net/intake.h"
#include "net/receive.h"
#include "wire/packet.h"

/* ---- the datagram ack a turns message carries ---------------------------------- */

void lockstep_ack_out(const net_link *l, uint64_t now, turn_turns *t)
{
    uint64_t ack = 0;
    uint32_t bits = 0;
    bool any = link_ack_out(l, &ack, &bits);
    wire_ack_make(&t->dack, any, ack, bits);
    uint64_t held_ms = any ? link_ack_delay_us(l, now) / 1000u : 0;
    t->dack_delay_ms = (uint8_t)(held_ms < TURN_ACK_DELAY_UNKNOWN ? held_ms : TURN_ACK_DELAY_UNKNOWN);
}

void lockstep_ack_in(const turn_turns *t, net_datagram *d)
{
    if (!t->dack.present)
        return;
    uint64_t delay = t->dack_delay_ms == TURN_ACK_DELAY_UNKNOWN ? UINT64_MAX : t->dack_delay_ms * 1000u;
    d->ack = (net_ack){true, WIRE_ACK_WIDTH, t->dack.ack, t->dack.bits, delay};
}

/* ---- sending ------------------------------------------------------------------ */

/* The datagram of `size` bytes at ls->dgram (header written, plain) is
 * sealed in a keyed match, counted by the link and sent. */
static void transmit(tempo_lockstep *ls, ls_peer *e, size_t size)
{
    uint64_t seq = link_next_seq(&e->link);
    if (ls->keyed) {
        int sealed = seal_datagram(&e->keys, seq, ls->dgram, size, sizeof ls->dgram);
        if (sealed < 0)
            return; /* bodies are sized to leave room: not expected */
        size = (size_t)sealed;
    }
    link_on_sent(&e->link, ls->now_us, size);
    e->last_send_us = ls->now_us;
    ls->st.packets_sent++;
    ls->st.bytes_sent += size;
    (void)ls->tr.send(ls->tr.ctx, &e->addr, ls->dgram, size);
}

/* m to e: one datagram, or fragments when its body does not fit one. */
static void send_msg(tempo_lockstep *ls, ls_peer *e, const turn_msg *m)
{
    if (ls->keyed && !e->keys.ready)
        return;
    size_t cap = ls->keyed ? PACKET_MAX_SEALED_BODY : PACKET_MAX_BODY;
    int body = turn_msg_encode(m, ls->payload, sizeof ls->payload);
    if (body < 0) {
        tempo__log(&ls->log, TEMPO_LOG_ERROR, "tempo: cannot encode %s: %s",
                   turn_msg_name(m->type), tempo_strerror(body));
        return;
    }
    tempo_packet_header h = {ls->cfg.session_id, 0, m->type, false, false};
    if ((size_t)body <= cap) {
        h.sequence = (uint16_t)link_next_seq(&e->link);
        (void)packet_write(&h, ls->dgram, sizeof ls->dgram);
        memcpy(ls->dgram + PACKET_HEADER_SIZE, ls->payload, (size_t)body);
        transmit(ls, e, PACKET_HEADER_SIZE + (size_t)body);
        return;
    }
    int count = frag_count((size_t)body);
    uint16_t id = e->frag_id++;
    for (int i = 0; i < count; i++) {
        h.sequence = (uint16_t)link_next_seq(&e->link);
        int n = frag_write(&h, id, ls->payload, (size_t)body, i, ls->dgram, sizeof ls->dgram);
        if (n < 0)
            return;
        transmit(ls, e, (size_t)n);
    }
}

void lockstep_send_plain(tempo_lockstep *ls, ls_peer *e, uint8_t type)
{
    ls->msg.type = type;
    send_msg(ls, e, &ls->msg);
}

static bool all_established(const tempo_lockstep *ls)
{
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (p != ls->cfg.local_player && !link_established(&ls->peer[p].link))
            return false;
    return true;
}

static void send_hello(tempo_lockstep *ls, ls_peer *e, uint8_t type, uint32_t nonce)
{
    ls->msg.type = type;
    ls->msg.u.hello.nonce = nonce;
    ls->msg.u.hello.config_hash = ls->config_hash;
    ls->msg.u.hello.player = (uint8_t)ls->cfg.local_player;
    ls->msg.u.hello.ready = all_established(ls);
    send_msg(ls, e, &ls->msg);
}

static uint16_t ms16(uint64_t us)
{
    uint64_t ms = (us + 500u) / 1000u;
    return (uint16_t)(ms >= TURN_RTT_UNKNOWN ? TURN_RTT_UNKNOWN - 1u : ms);
}

/* Append player's held list of turn to the TURNS message t (the caller
 * checked there is room). */
static void put_list(turn_turns *t, int player, int32_t turn, const ls_list *l)
{
    turn_list *w = &t->list[t->nlists++];
    w->player = (uint8_t)player;
    w->flags = l->flags;
    w->turn = turn;
    w->length_ms = l->length_ms;
    w->count = l->count;
    w->cmds_size = l->size;
    w->cmds = l->cmds;
}

/* A lost player's lists we hold and e said it lacks, forwarded unchanged
 * so every survivor can run up to the agreed cut. */
static void forward_lost(tempo_lockstep *ls, const ls_peer *e, turn_turns *t)
{
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!(((ls->lost_mask & e->heard_lost) >> x) & 1u))
            continue;
        int32_t from = e->lost_have[x];
        if (from < ls->peer[x].have - LS_WINDOW) /* older lists are gone from the window */
            from = ls->peer[x].have - LS_WINDOW;
        for (int32_t turn = from; turn < ls->peer[x].have && t->nlists < TURN_MSG_MAX_LISTS;
             turn++) {
            const ls_list *l = lockstep_held(ls, x, turn);
            if (!l)
                continue;
            put_list(t, x, turn, l);
        }
    }
}

static void send_turns(tempo_lockstep *ls, ls_peer *e, int player)
{
    turn_msg *m = &ls->msg;
    m->type = TURN_MSG_TURNS;
    turn_turns *t = &m->u.turns;
    t->ack = (uint32_t)e->have;
    t->sum_turn = TURN_NONE;
    t->sum = 0;
    if (ls->done >= 0 && ls->sum_turn[ls->done % LS_SUMS] == ls->done) {
        t->sum_turn = (uint32_t)ls->done;
        t->sum = ls->sum[ls->done % LS_SUMS];
    }
    t->sim_us = ls->sim_avg_us > UINT32_MAX ? UINT32_MAX : (uint32_t)ls->sim_avg_us;
    uint64_t rtt, var;
    if (lockstep_own_rtt(ls, &rtt, &var)) {
        t->rtt_ms = ms16(rtt);
        t->rttvar_ms = ms16(var);
    } else {
        t->rtt_ms = TURN_RTT_UNKNOWN;
        t->rttvar_ms = 0;
    }
    t->ping = link_ping_due(&e->link, ls->now_us) ? link_ping_sent(&e->link, ls->now_us) : 0;
    t->pong = e->pong_owed;
    e->pong_owed = 0;
    lockstep_ack_out(&e->link, ls->now_us, t);
    t->lost = ls->lost_mask;
    for (int x = 0; x < TEMPO_MAX_PLAYERS; x++)
        t->have[x] = (ls->lost_mask >> x) & 1u ? (uint32_t)ls->peer[x].have : 0;
    t->nlists = 0;
    int32_t from = e->acked > ls->cfg.execution_delay ? e->acked : ls->cfg.execution_delay;
    if (from < ls->sealed - LS_WINDOW + 2) /* older own lists are gone from the window */
        from = ls->sealed - LS_WINDOW + 2;
    for (int32_t turn = from; turn <= ls->sealed && t->nlists < TURN_MSG_MAX_LISTS; turn++) {
        const ls_list *l = lockstep_held(ls, player, turn);
        if (!l)
            break; /* not expected: own lists are held until acknowledged */
        put_list(t, player, turn, l);
    }
    forward_lost(ls, e, t);
    e->sent_lost = ls->lost_mask;
    e->sent_have = e->have;
    e->sent_sum = ls->done;
    e->sent_sealed = ls->sealed;
    send_msg(ls, e, m);
}

/* ---- receiving ---------------------------------------------------------------------- */

static void malformed(tempo_lockstep *ls) { ls->st.dropped_malformed++; }

void lockstep_lose(tempo_lockstep *ls, int player)
{
    ls_peer *e = &ls->peer[player];
    if (e->lost)
        return;
    e->lost = true;
    link_close(&e->link);
    seal_keys_wipe(&e->keys);
    if (!ls->running)
        ls->ended = true; /* a match that has not started does not start without it */
    /* It was a survivor: the cuts agreed with its word are agreed again
     * without it, on fresh reports that name it lost, and can only go
     * down (lockstep.c, agree). */
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!((ls->lost_mask >> x) & 1u))
            continue;
        if (ls->cut_final[x]) {
            ls->cut_final[x] = false;
            ls->cut_cap[x] = ls->cut[x];
        }
        ls->cut_pending_us[x] = ls->now_us;
        for (int q = 0; q < ls->cfg.num_players; q++)
            ls->peer[q].heard_lost &= (uint8_t)~(1u << x);
    }
    ls->lost_mask |= (uint8_t)(1u << player);
    ls->cut_pending_us[player] = ls->now_us;
    lockstep_event(ls, TEMPO_LOCKSTEP_DISCONNECTED, player);
}

/* Checks a message's lists before any is stored: a list no honest machine
 * sends drops the whole datagram. */
static bool lists_honest(const tempo_lockstep *ls, int player, const turn_turns *t)
{
    for (int i = 0; i < t->nlists; i++) {
        const turn_list *l = &t->list[i];
        bool forwarded = l->player != player && ((ls->lost_mask >> l->player) & 1u);
        if ((l->player != player && !forwarded) || (l->flags & TURN_LIST_SUBSTITUTED))
            return false; /* its own lists, or a lost player's; never a stand-in */
        uint32_t lower = (1u << l->player) - 1u;
        if ((l->flags & TURN_LIST_HAS_LENGTH) &&
            ((ls->lost_mask & lower) != lower || l->length_ms < ls->cfg.min_turn_ms ||
             l->length_ms > ls->cfg.max_turn_ms))
            return false; /* only a host decides (every lower player gone), within bounds */
    }
    return true;
}

/* What a machine says of lost players: ours too (gossip), and how far it
 * holds their lists. A machine that holds us lost has dropped us. Its
 * report counts for the agreement only once it names lost every machine
 * we hold lost: before, its holdings could still grow from one of them. */
static void on_lost(tempo_lockstep *ls, ls_peer *e, const turn_turns *t)
{
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!((t->lost >> x) & 1u) || e == &ls->peer[x])
            continue;
        if (x == ls->cfg.local_player) {
            if (!ls->ended)
                lockstep_event(ls, TEMPO_LOCKSTEP_DISCONNECTED, x);
            ls->ended = true;
            return;
        }
        lockstep_lose(ls, x);
    }
    if ((t->lost & ls->lost_mask) != ls->lost_mask || ls->ended)
        return;
    for (int x = 0; x < ls->cfg.num_players; x++) {
        if (!((t->lost >> x) & 1u) || e == &ls->peer[x])
            continue;
        /* No machine can hold a list sealed further ahead of us than this
         * (ahead by the delay at most, sealing the delay ahead again): a
         * larger claim would stall the agreement, and is not believed. */
        int64_t believable = (int64_t)ls->executed + 2 * ls->cfg.execution_delay + 3;
        if ((int64_t)t->have[x] > believable)
            continue;
        e->heard_lost |= (uint8_t)(1u << x);
        if ((int32_t)t->have[x] > e->lost_have[x])
            e->lost_have[x] = (int32_t)t->have[x];
    }
}

static void on_turns(tempo_lockstep *ls, int player, const turn_turns *t)
{
    ls_peer *e = &ls->peer[player];
    e->started = true;
    if (!ls->running)
        lockstep_start_running(ls, ls->now_us); /* its lists show the match began */
    on_lost(ls, e, t);
    for (int i = 0; i < t->nlists; i++) {
        const turn_list *w = &t->list[i];
        /* Held already, below the agreed empty turns, or beyond what an
         * honest machine can be ahead: nothing to store. */
        if (w->turn < ls->cfg.execution_delay || w->turn <= ls->executed ||
            w->turn >= ls->executed + LS_WINDOW || lockstep_held(ls, w->player, w->turn))
            continue;
        ls_list *l = lockstep_slot(ls, w->player, w->turn);
        memset(l, 0, offsetof(ls_list, cmds));
        l->turn = w->turn;
        l->flags = w->flags;
        l->length_ms = w->length_ms;
        l->count = w->count;
        l->size = w->cmds_size;
        if (w->cmds_size > 0)
            memcpy(l->cmds, w->cmds, w->cmds_size);
    }
    for (int p = 0; p < ls->cfg.num_players; p++) { /* what we hold of each, contiguous */
        ls_peer *h = &ls->peer[p];
        while (h->added && (h->have < ls->cfg.execution_delay || lockstep_held(ls, p, h->have)))
            h->have++;
    }
    /* Its ack of our lists: never beyond what we sealed, never backwards. */
    int32_t ack = t->ack > (uint32_t)ls->sealed + 1u ? ls->sealed + 1 : (int32_t)t->ack;
    if (ack > e->acked)
        e->acked = ack;
    if (t->rtt_ms != TURN_RTT_UNKNOWN) {
        e->reported = true;
        e->rtt_ms = t->rtt_ms;
        e->rttvar_ms = t->rttvar_ms;
    }
    e->sim_us = t->sim_us;
    if (t->sum_turn != TURN_NONE) {
        int32_t turn = (int32_t)t->sum_turn;
        if (turn <= ls->done) {
            lockstep_compare(ls, player, turn, t->sum);
        } else if (turn > e->sum_turn) {
            e->sum_turn = turn;
            e->sum = t->sum;
        }
    }
    if (t->ping != 0)
        e->pong_owed = t->ping; /* answered at the end of this poll */
    if (t->pong != 0)
        (void)link_on_pong(&e->link, ls->now_us, t->pong);
}

static void on_hello(tempo_lockstep *ls, int player, const turn_msg *m)
{
    ls_peer *e = &ls->peer[player];
    const turn_hello *h = &m->u.hello;
    if (h->player != player) {
        malformed(ls);
        return;
    }
    bool was = link_established(&e->link);
    link_sync sy = {m->type == TURN_MSG_HELLO_REPLY, h->nonce, h->config_hash, h->ready, NULL, 0};
    switch (link_on_sync(&e->link, ls->now_us, &sy)) {
    case LINK_SYNC_MISMATCH:
        tempo__log(&ls->log, TEMPO_LOG_WARN,
                   "tempo: lockstep handshake from player %d with other settings; ignored",
                   player);
        malformed(ls);
        return;
    case LINK_SYNC_IGNORED: return;
    case LINK_SYNC_ANSWER: send_hello(ls, e, TURN_MSG_HELLO_REPLY, h->nonce); return;
    case LINK_SYNC_ROUND:
    case LINK_SYNC_COMPLETE: break;
    }
    if (!was && link_established(&e->link)) {
        lockstep_event(ls, TEMPO_LOCKSTEP_CONNECTED, player);
        for (int p = 0; p < ls->cfg.num_players; p++) /* our readiness may have changed */
            if (ls->peer[p].added)
                link_handshake_resend_now(&ls->peer[p].link);
    }
}

static void dispatch(tempo_lockstep *ls, int player, const turn_msg *m)
{
    switch (m->type) {
    case TURN_MSG_HELLO:
    case TURN_MSG_HELLO_REPLY: on_hello(ls, player, m); break;
    case TURN_MSG_START:
        if (player == 0 && !ls->running)
            lockstep_start_running(ls, ls->now_us);
        break;
    case TURN_MSG_TURNS: on_turns(ls, player, &m->u.turns); break;
    case TURN_MSG_LEAVE: lockstep_lose(ls, player); break;
    default: break;
    }
}

static int find_peer(const tempo_lockstep *ls, const tempo_address *a)
{
    for (int p = 0; p < ls->cfg.num_players; p++)
        if (ls->peer[p].added && tempo_address_equal(&ls->peer[p].addr, a))
            return p;
    return -1;
}

/* A machine's datagram as the receive pipeline decodes it: a fragment
 * reassembled (only turn lists are ever large), the message into ls->msg,
 * lists no honest machine sends refused. */
typedef struct peer_rx {
    tempo_lockstep *ls;
    int player;
} peer_rx;

static tempo_drop_reason decode_peer(void *ctx, net_datagram *d)
{
    peer_rx *x = ctx;
    tempo_lockstep *ls = x->ls;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (d->v.h.fragment) {
        if (d->v.h.type != TURN_MSG_TURNS)
            return TEMPO_DROP_FRAG_BAD;
        tempo_frag_message fm;
        int r = frag_receive(&ls->peer[x->player].frag, ls->now_us, d->v.h.type, d->body,
                             d->body_size, &fm, &why);
        if (r < 0)
            return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_FRAG_BAD;
        if (r == 0) {
            d->whole = false;
            return TEMPO_DROP_NONE;
        }
        d->body = fm.data;
        d->body_size = fm.size;
    }
    if (turn_msg_decode(d->v.h.type, d->body, d->body_size, &ls->msg, &why) != TEMPO_OK)
        return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_BAD_VALUE;
    if (ls->msg.type == TURN_MSG_TURNS && !lists_honest(ls, x->player, &ls->msg.u.turns))
        return TEMPO_DROP_BAD_VALUE;
    if (ls->msg.type == TURN_MSG_TURNS)
        lockstep_ack_in(&ls->msg.u.turns, d);
    return TEMPO_DROP_NONE;
}

static void on_datagram(tempo_lockstep *ls, const tempo_address *from, size_t size)
{
    int player = find_peer(ls, from);
    if (player < 0) { /* strangers: nothing of theirs is parsed */
        NET_DROP_COUNT(&ls->st, TEMPO_DROP_UNKNOWN);
        return;
    }
    ls_peer *e = &ls->peer[player];
    if (e->lost)
        return;
    net_receiver r = {&e->link, &e->replay, ls->keyed ? &e->keys : NULL, ls->cfg.session_id};
    peer_rx x = {ls, player};
    net_datagram d;
    tempo_drop_reason why = net_receive(&r, ls->now_us, ls->dgram, size, decode_peer, &x, &d);
    if (why != TEMPO_DROP_NONE) {
        NET_DROP_COUNT(&ls->st, why);
        return;
    }
    ls->st.packets_received++;
    ls->st.bytes_received += size;
    if (d.whole)
        dispatch(ls, player, &ls->msg);
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    (void)data; /* ls->dgram, which on_datagram reads */
    on_datagram(ctx, from, size);
    return true;
}

void lockstep_receive_all(tempo_lockstep *ls)
{
    /* bounded: a flood cannot hold the tick */
    (void)net_intake(&ls->tr, ls->dgram, sizeof ls->dgram, LS_RECV_BUDGET, take, ls);
}

/* ---- links and the poll's sending ------------------------------------------------------ */

void lockstep_start_links(tempo_lockstep *ls)
{
    link_config lc;
    link_config_default(&lc);
    lc.notify_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 500u;
    lc.timeout_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 1000u;
    lc.seq_jump = LS_SEQ_JUMP;
    lc.ping_us = LS_PING_US;
    /* Round trips come from the handshake, pings, and every turns message's
     * ack, less the time its sender held it (it sends on news, not each tick). */
    lc.rtt_from_acks = true;
    lc.handshake_timeout_us = 0;
    lc.config_hash = ls->config_hash;
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (!e->added)
            continue;
        link_init(&e->link, &lc, ls->now_us);
        link_handshake_announce(&e->link, true);
        net_receive_reset(&e->replay);
        e->acked = ls->cfg.execution_delay;
        e->have = ls->cfg.execution_delay;
        e->sent_have = -1;
        e->sent_sum = -1;
        e->sent_sealed = -1;
        e->sum_turn = -1;
        e->desync_turn = -1;
    }
}

void lockstep_send_all(tempo_lockstep *ls)
{
    for (int p = 0; p < ls->cfg.num_players; p++) {
        ls_peer *e = &ls->peer[p];
        if (!e->added || e->lost || !link_may_send(&e->link, ls->now_us))
            continue;
        if (link_handshake_due(&e->link, ls->now_us))
            send_hello(ls, e, TURN_MSG_HELLO,
                       link_handshake_request(&e->link, ls->now_us, &ls->rng));
        if (ls->starting || (ls->running && lockstep_is_host(ls) && !e->started))
            lockstep_send_plain(ls, e, TURN_MSG_START);
        if (!ls->running)
            continue;
        /* Something it has not heard goes at once; lists it has not
         * acknowledged go again every LS_RESEND_US until it does. */
        bool news = e->sent_sealed != ls->sealed || e->sent_have != e->have ||
                    e->sent_lost != ls->lost_mask ||
                    e->sent_sum != ls->done || e->pong_owed != 0 ||
                    link_ping_due(&e->link, ls->now_us);
        uint64_t quiet = ls->now_us - e->last_send_us;
        bool unacked = e->acked <= ls->sealed;
        if (news || (unacked && quiet >= LS_RESEND_US) || quiet >= LS_KEEPALIVE_US)
            send_turns(ls, e, ls->cfg.local_player);
    }
}
