/* SPDX-License-Identifier: MIT */
/*
 * lockstep_relay.c — a lockstep machine that plays through a relay
 * (tempo_lockstep_create_relay_member; docs/RELAY.md, "Lockstep turns"):
 * the connect handshake with the relay (net/gate.h), the join, its own
 * lists sent to the relay alone, and the relay's final lists taken in.
 *
 * The relay decides every list: another player's list is held once the
 * relay sent it (it sends only final ones, real or substituted); our own
 * list for turn T is usable once the relay says T is final (`final`),
 * and if the relay substituted it, its substitute came in the same
 * datagram and replaced ours. Turns the relay finalized before we sealed
 * them are skipped: commands then go to the first turn still open. The
 * turn length is fixed (no host adapts it) and the schedule follows the
 * relay's clock: turn T is due turn 0's time + T turns, with turn 0's time
 * taken from the relay's first notice that the match started. Each turns
 * message carries our newest checksum, which the relay compares with the
 * other members' (its match stats count differences; no DESYNC event here).
 *
 * Receiving: anything not from the relay is dropped before parsing; then
 * the header and session id, the gate's handshake replies, the seal (the
 * token's connection keys), the replay window, the body, and lists no
 * honest relay sends (a length, our own list unsubstituted, a player out
 * of range) drop the whole datagram.
 */
#include "lockstep/lockstep.h"

#include <string.h>

#include "net/intake.h"
#include "net/receive.h"
#include "relay/relay_msg.h"
#include "wire/connect.h"
#include "wire/packet.h"

#define LR_JOIN_RETRY_US 250000u

static void relay_send(tempo_lockstep *ls, uint8_t type, size_t body)
{
    ls_relay *rl = ls->relay;
    int n = relay_msg_finish(ls->dgram, sizeof ls->dgram, rl->protocol_id, type,
                             link_next_seq(&rl->link), body, rl->sealed ? &rl->keys : NULL);
    if (n < 0)
        return;
    link_on_sent(&rl->link, ls->now_us, (size_t)n);
    rl->last_send_us = ls->now_us;
    ls->st.packets_sent++;
    ls->st.bytes_sent += (uint64_t)n;
    (void)ls->tr.send(ls->tr.ctx, &rl->addr, ls->dgram, (size_t)n);
}

static void send_join(tempo_lockstep *ls)
{
    tempo_relay_join j;
    memset(&j, 0, sizeof j);
    j.match_id = ls->cfg.session_id;
    j.slots = (uint8_t)(1u << ls->cfg.local_player);
    j.num_players = ls->cfg.num_players;
    j.turn_ms = ls->cfg.turn_ms;
    j.execution_delay = ls->cfg.execution_delay;
    ls->relay->last_join_us = ls->now_us;
    relay_send(ls, RELAY_TYPE_JOIN, relay_join_write(ls->dgram + PACKET_HEADER_SIZE, &j));
}

void lockstep_relay_leave(tempo_lockstep *ls)
{
    if (ls->relay->phase == LR_IN || ls->relay->phase == LR_JOINING)
        relay_send(ls, RELAY_TYPE_LEAVE, 0);
}

/* The first turn we lack a final list of (every other player's held, ours
 * final): what we tell the relay we hold. */
static int32_t complete_to(tempo_lockstep *ls)
{
    int32_t t = ls->executed + 1 > ls->cfg.execution_delay ? ls->executed + 1
                                                           : ls->cfg.execution_delay;
    for (; t < ls->relay->final; t++)
        for (int p = 0; p < ls->cfg.num_players; p++)
            if (p != ls->cfg.local_player && !lockstep_held(ls, p, t))
                return t;
    return t;
}

/* Our lists the relay lacks (as many as one datagram holds), and how far
 * we hold its final lists. */
static void send_lists(tempo_lockstep *ls)
{
    ls_relay *rl = ls->relay;
    turn_msg *m = &ls->msg;
    memset(m, 0, offsetof(turn_msg, u) + offsetof(turn_turns, list));
    m->type = TURN_MSG_TURNS;
    turn_turns *t = &m->u.turns;
    t->ack = (uint32_t)complete_to(ls);
    t->sum_turn = TURN_NONE;
    if (ls->done >= 0 && ls->sum_turn[ls->done % LS_SUMS] == ls->done) {
        t->sum_turn = (uint32_t)ls->done; /* the relay compares every member's */
        t->sum = ls->sum[ls->done % LS_SUMS];
    }
    t->rtt_ms = TURN_RTT_UNKNOWN;
    size_t used = TURN_HEADER_SIZE + TURN_ACK_MAX;
    int32_t from = rl->acked > rl->final ? rl->acked : rl->final;
    if (from < ls->cfg.execution_delay)
        from = ls->cfg.execution_delay;
    for (int32_t turn = from; turn <= ls->sealed && t->nlists < TURN_MSG_MAX_LISTS; turn++) {
        const ls_list *l = lockstep_held(ls, ls->cfg.local_player, turn);
        if (!l)
            continue;
        turn_list *w = &t->list[t->nlists];
        w->player = (uint8_t)ls->cfg.local_player;
        w->flags = 0;
        w->turn = turn;
        w->count = l->count;
        w->cmds_size = l->size;
        w->cmds = l->cmds;
        if (used + turn_list_wire_size(w) > PACKET_MAX_SEALED_BODY)
            break;
        used += turn_list_wire_size(w);
        t->nlists++;
    }
    int body = turn_msg_encode(m, ls->dgram + PACKET_HEADER_SIZE, PACKET_MAX_SEALED_BODY);
    if (body < 0)
        return;
    rl->sent_sealed = ls->sealed;
    rl->sent_sum = ls->done;
    rl->sent_ack = (int32_t)t->ack;
    relay_send(ls, TURN_MSG_TURNS, (size_t)body);
}

/* ---- receiving ------------------------------------------------------------ */

static void connected(tempo_lockstep *ls)
{
    ls_relay *rl = ls->relay;
    (void)gate_client_connected(&rl->gate);
    if (rl->sealed)
        rl->keys = rl->gate.keys;
    rl->link.send_seq = rl->gate.next_sequence;
    rl->phase = rl->sealed ? LR_IN : LR_JOINING;
    lockstep_event(ls, TEMPO_LOCKSTEP_CONNECTED, -1);
    if (!rl->sealed)
        send_join(ls);
}

static void on_welcome(tempo_lockstep *ls, uint8_t slots, bool refused)
{
    ls_relay *rl = ls->relay;
    if (rl->phase == LR_JOINING && refused) {
        tempo__log(&ls->log, TEMPO_LOG_ERROR, "tempo: the relay refused to join match %u",
                   ls->cfg.session_id);
        rl->phase = LR_ENDED;
        ls->ended = true;
        lockstep_event(ls, TEMPO_LOCKSTEP_DISCONNECTED, ls->cfg.local_player);
        return;
    }
    if (rl->phase == LR_JOINING && slots != 0)
        rl->phase = LR_IN;
}

/* Lists no honest relay sends: a length (one turn length through a
 * relay), our own list not substituted, a player out of range. */
static bool relay_lists_honest(const tempo_lockstep *ls, const turn_relay *n)
{
    for (int i = 0; i < n->nlists; i++) {
        const turn_list *l = &n->list[i];
        if (l->player >= ls->cfg.num_players || (l->flags & TURN_LIST_HAS_LENGTH) ||
            (l->player == ls->cfg.local_player && !(l->flags & TURN_LIST_SUBSTITUTED)))
            return false;
    }
    return true;
}

static void on_notice(tempo_lockstep *ls, const turn_relay *n)
{
    ls_relay *rl = ls->relay;
    if (rl->phase == LR_JOINING)
        rl->phase = LR_IN; /* it is in a match: the welcome was lost */
    if (n->started && !ls->running && !ls->ended) {
        int64_t since = (int64_t)n->clock * (int64_t)ls->cfg.turn_ms * 1000 + (int64_t)n->into_us;
        int64_t at = (int64_t)ls->now_us - since;
        lockstep_start_running(ls, at > 0 ? (uint64_t)at : 0);
    }
    for (int i = 0; i < n->nlists; i++) {
        const turn_list *w = &n->list[i];
        if (w->turn < ls->cfg.execution_delay || w->turn <= ls->executed ||
            w->turn >= ls->executed + LS_WINDOW)
            continue;
        bool own = w->player == ls->cfg.local_player;
        ls_list *l = lockstep_slot(ls, w->player, w->turn);
        if (!own && l->turn == w->turn)
            continue; /* the first copy stands: the relay's lists never change */
        if (own && l->turn == w->turn && (l->flags & TURN_LIST_SUBSTITUTED))
            continue;
        memset(l, 0, offsetof(ls_list, cmds));
        l->turn = w->turn;
        l->flags = w->flags;
        l->count = w->count;
        l->size = w->cmds_size;
        if (w->cmds_size > 0)
            memcpy(l->cmds, w->cmds, w->cmds_size);
    }
    /* Our own verdicts for first..final-1 are in this datagram: final
     * moves only from a datagram that starts at or below it. */
    if (n->first <= rl->final && n->final > rl->final)
        rl->final = n->final;
    if (n->ack > rl->acked)
        rl->acked = n->ack;
    /* Turns the relay finalized before we sealed them are over for us. */
    if (ls->running && ls->sealed < rl->final - 1)
        ls->sealed = rl->final - 1;
}

/* The relay's datagram as the receive pipeline decodes it. */
typedef struct relay_rx {
    tempo_lockstep *ls;
    uint8_t slots; /* WELCOME */
    bool refused;
} relay_rx;

static tempo_drop_reason decode_relay(void *ctx, net_datagram *d)
{
    relay_rx *x = ctx;
    tempo_lockstep *ls = x->ls;
    if (d->v.h.fragment)
        return TEMPO_DROP_FRAGMENT;
    if (d->v.h.type == RELAY_TYPE_WELCOME)
        return relay_welcome_read(d->body, d->body_size, &x->slots, &x->refused)
                   ? TEMPO_DROP_NONE
                   : TEMPO_DROP_BAD_VALUE;
    if (d->v.h.type != TURN_MSG_RELAY)
        return TEMPO_DROP_BAD_TYPE;
    tempo_drop_reason why = TEMPO_DROP_NONE;
    if (turn_msg_decode(TURN_MSG_RELAY, d->body, d->body_size, &ls->msg, &why) != TEMPO_OK)
        return why != TEMPO_DROP_NONE ? why : TEMPO_DROP_BAD_VALUE;
    return relay_lists_honest(ls, &ls->msg.u.relay) ? TEMPO_DROP_NONE : TEMPO_DROP_BAD_VALUE;
}

static void on_datagram(tempo_lockstep *ls, const tempo_address *from, size_t size)
{
    ls_relay *rl = ls->relay;
    if (!tempo_address_equal(from, &rl->addr)) {
        NET_DROP_COUNT(&ls->st, TEMPO_DROP_UNKNOWN);
        return;
    }
    uint32_t sid = connect_session_id(rl->protocol_id);
    tempo_packet_view v;
    if (size <= TEMPO_MAX_DATAGRAM && packet_read(ls->dgram, size, &v, NULL) == TEMPO_OK &&
        v.h.session_id == sid && v.h.type >= CONNECT_TYPE_REQUEST &&
        v.h.type <= CONNECT_TYPE_DENIED) {
        if (rl->phase == LR_CONNECTING &&
            gate_client_on_datagram(&rl->gate, ls->now_us, &rl->addr, ls->dgram, size) ==
                GATE_CLIENT_GOT_DENIED) {
            rl->phase = LR_ENDED;
            ls->ended = true;
            lockstep_event(ls, TEMPO_LOCKSTEP_DISCONNECTED, ls->cfg.local_player);
        }
        return;
    }
    if (rl->phase == LR_CONNECTING && rl->gate.state != GATE_CLIENT_RESPONDING) {
        NET_DROP_COUNT(&ls->st, TEMPO_DROP_UNKNOWN);
        return;
    }
    const wire_keys *keys = NULL;
    if (rl->sealed)
        keys = rl->phase == LR_CONNECTING ? &rl->gate.keys : &rl->keys;
    net_receiver r = {&rl->link, &rl->replay, keys, sid};
    relay_rx x = {ls, 0, false};
    net_datagram d;
    tempo_drop_reason why = net_receive(&r, ls->now_us, ls->dgram, size, decode_relay, &x, &d);
    if (why != TEMPO_DROP_NONE) {
        NET_DROP_COUNT(&ls->st, why);
        return;
    }
    if (rl->phase == LR_CONNECTING)
        connected(ls);
    ls->st.packets_received++;
    ls->st.bytes_received += size;
    if (d.v.h.type == RELAY_TYPE_WELCOME)
        on_welcome(ls, x.slots, x.refused);
    else
        on_notice(ls, &ls->msg.u.relay);
}

/* ---- the poll ----------------------------------------------------------------- */

tempo_result lockstep_relay_open(tempo_lockstep *ls)
{
    ls_relay *rl = ls->relay;
    gate_client_config gc;
    memset(&gc, 0, sizeof gc);
    gc.protocol_id = rl->protocol_id;
    gc.token = rl->sealed ? rl->token : NULL;
    gc.nonce = rl->nonce;
    gc.server = rl->addr;
    gc.slots = 1;
    gc.timeout_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 1000u;
    int g = gate_client_init(&rl->gate, &gc, ls->now_us);
    if (g != TEMPO_OK)
        return (tempo_result)g;
    link_config lc;
    link_config_default(&lc);
    lc.notify_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 500u;
    lc.timeout_us = (uint64_t)ls->cfg.disconnect_timeout_ms * 1000u;
    lc.seq_jump = REPLAY_WINDOW / 2;
    link_init(&rl->link, &lc, ls->now_us);
    rl->link.state = LINK_ESTABLISHED; /* the gate's handshake stands in for the link's */
    rl->link.hs.complete = true;
    net_receive_start(&rl->link, &rl->replay, ls->now_us, 0, false); /* the relay counts from 0 */
    rl->final = ls->cfg.execution_delay;
    rl->acked = ls->cfg.execution_delay;
    rl->sent_sealed = -1;
    rl->sent_ack = -1;
    rl->sent_sum = -1;
    return TEMPO_OK;
}

static bool take(void *ctx, const tempo_address *from, uint8_t *data, size_t size)
{
    (void)data; /* ls->dgram, which on_datagram reads */
    on_datagram(ctx, from, size);
    return true;
}

void lockstep_relay_poll(tempo_lockstep *ls)
{
    ls_relay *rl = ls->relay;
    if (rl->phase == LR_ENDED)
        return;
    /* bounded: a flood cannot hold the tick */
    (void)net_intake(&ls->tr, ls->dgram, sizeof ls->dgram, LS_RECV_BUDGET, take, ls);
    if (rl->phase == LR_ENDED)
        return;
    if (rl->phase == LR_CONNECTING) {
        gate_client_state gs = gate_client_update(&rl->gate, ls->now_us);
        if (gs == GATE_CLIENT_TIMED_OUT || gs == GATE_CLIENT_DENIED) {
            rl->phase = LR_ENDED;
            ls->ended = true;
            lockstep_event(ls, TEMPO_LOCKSTEP_DISCONNECTED, ls->cfg.local_player);
            return;
        }
        if (gate_client_due(&rl->gate, ls->now_us)) {
            int n = gate_client_write(&rl->gate, ls->now_us, ls->dgram, sizeof ls->dgram);
            if (n > 0) {
                ls->st.packets_sent++;
                ls->st.bytes_sent += (uint64_t)n;
                (void)ls->tr.send(ls->tr.ctx, &rl->addr, ls->dgram, (size_t)n);
            }
        }
        return;
    }
    if (link_update(&rl->link, ls->now_us) & LINK_EV_TIMED_OUT) {
        /* the relay is gone: nothing decides turns any more */
        rl->phase = LR_ENDED;
        ls->ended = true;
        lockstep_event(ls, TEMPO_LOCKSTEP_DISCONNECTED, -1);
        return;
    }
    if (rl->phase == LR_JOINING && ls->now_us - rl->last_join_us >= LR_JOIN_RETRY_US)
        send_join(ls);
}

void lockstep_relay_send(tempo_lockstep *ls)
{
    ls_relay *rl = ls->relay;
    if (rl->phase != LR_IN)
        return;
    uint64_t quiet = ls->now_us - rl->last_send_us;
    bool news = rl->sent_sealed != ls->sealed || rl->sent_ack != complete_to(ls) ||
                rl->sent_sum != ls->done;
    bool unacked = rl->acked <= ls->sealed;
    if (news || (unacked && quiet >= LS_RESEND_US) || quiet >= LS_KEEPALIVE_US)
        send_lists(ls);
}
